//! The multi-client MCP server, measured end to end: the built `toolsurface serve` binary
//! (stdio, and streamable HTTP on 127.0.0.1:0), driven by a minimal JSON-RPC client written
//! here (hyper's HTTP/1.1 client, one keep-alive connection per MCP session; newline JSON on
//! a child's pipes for stdio). Not criterion-shaped: it writes its rows, per the bench
//! contract, to `${CARGO_TARGET_DIR:-target}/bench-rows/mcp_http.json` and prints them.
//!
//! Rows (each the median over in-run repetitions, `spread` = (max − min) / 2 of them):
//! - `http_isolation_ratio`: client B's quick call (`shell echo fast`, median of 20) while
//!   client A blocks in `shell_session wait` ÷ B's same call with A idle (median of 10
//!   right before and 10 right after) (target ≤ 1.5).
//! - `http_parallel_sleep_ratio`: wall time of 20 clients each calling `shell sleep 0.2`
//!   at once ÷ 0.2 s (target ≤ 2).
//! - `http_vs_stdio_call`: a quick call's round trip (`introspect hosts`, no process
//!   spawned, so transport cost is what differs) over HTTP ÷ over stdio (target ≤ 2).
//! - `http_calls_per_s`: quick calls per second with 20 clients calling at once (reported).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

use http_body_util::BodyExt;
use http_body_util::Full;
use hyper::body::Bytes;
use serde_json::Value;
use serde_json::json;
use tokio::io::AsyncBufReadExt;
use tokio::io::AsyncWriteExt;

const BIN: &str = env!("CARGO_BIN_EXE_toolsurface");
const CLIENTS: usize = 20;
const REPS: usize = 5;

fn initialize(id: u64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},
        "clientInfo":{"name":"bench","version":"0"}}})
}

fn tool_call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
           "params":{"name":name,"arguments":arguments}})
}

/// The JSON-RPC message with `id` in an SSE or JSON body.
fn answer(body: &str, id: u64) -> Value {
    let mut candidates = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .chain(std::iter::once(body));
    candidates
        .find_map(|text| {
            serde_json::from_str::<Value>(text)
                .ok()
                .filter(|v| v["id"] == id)
        })
        .unwrap_or_else(|| panic!("no answer with id {id} in: {body}"))
}

// ---- HTTP ---------------------------------------------------------------------------------

struct HttpServer {
    child: tokio::process::Child,
    addr: String,
}

impl HttpServer {
    async fn start(dir: &Path) -> HttpServer {
        let mut child = tokio::process::Command::new(BIN)
            .args(["serve", "--role", "main", "--workdir"])
            .arg(dir)
            .args(["--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
        let addr = loop {
            let line = lines.next_line().await.unwrap().expect("serve exited");
            if let Some(rest) = line.split("listening on http://").nth(1) {
                break rest.trim_end_matches("/mcp").to_owned();
            }
        };
        // Keep draining stderr so the server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        HttpServer { child, addr }
    }
}

struct HttpClient {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    addr: String,
    session: Option<String>,
    next_id: u64,
}

impl HttpClient {
    async fn connect(server: &HttpServer) -> HttpClient {
        let stream = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        let (sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(connection);
        let mut client = HttpClient {
            sender,
            addr: server.addr.clone(),
            session: None,
            next_id: 1,
        };
        let init = client.request(initialize(0)).await;
        assert_eq!(init.0, 200);
        client.session = Some(init.1.expect("no session id"));
        client
            .post(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        client
    }

    async fn post(&mut self, message: Value) -> (u16, Option<String>, String) {
        self.request(message).await
    }

    /// End the MCP session (DELETE), so the server's session limit is never reached.
    async fn close(mut self) {
        let Some(session) = self.session.take() else {
            return;
        };
        let request = hyper::Request::delete("/mcp")
            .header("host", &self.addr)
            .header("mcp-session-id", session)
            .body(Full::new(Bytes::new()))
            .unwrap();
        self.sender.ready().await.unwrap();
        let response = self.sender.send_request(request).await.unwrap();
        assert!(
            response.status().is_success(),
            "DELETE: {}",
            response.status()
        );
    }

    async fn request(&mut self, message: Value) -> (u16, Option<String>, String) {
        let mut request = hyper::Request::post("/mcp")
            .header("host", &self.addr)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-06-18");
        }
        let request = request
            .body(Full::new(Bytes::from(message.to_string())))
            .unwrap();
        self.sender.ready().await.unwrap();
        let response = self.sender.send_request(request).await.unwrap();
        let status = response.status().as_u16();
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_owned());
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, session, String::from_utf8(body.to_vec()).unwrap())
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let (status, _, body) = self.request(tool_call(id, name, arguments)).await;
        assert_eq!(status, 200, "{body}");
        let message = answer(&body, id);
        assert_eq!(message["result"]["isError"], false, "{message}");
        message
    }
}

// ---- stdio --------------------------------------------------------------------------------

struct StdioClient {
    _child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    next_id: u64,
}

impl StdioClient {
    async fn start(dir: &Path) -> StdioClient {
        let mut child = tokio::process::Command::new(BIN)
            .args(["serve", "--role", "main", "--workdir"])
            .arg(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let mut client = StdioClient {
            _child: child,
            stdin,
            lines,
            next_id: 1,
        };
        client.send(initialize(0)).await;
        client.receive(0).await;
        client
            .send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        client
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    async fn receive(&mut self, id: u64) -> Value {
        loop {
            let line = self.lines.next_line().await.unwrap().expect("serve exited");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(tool_call(id, name, arguments)).await;
        let message = self.receive(id).await;
        assert_eq!(message["result"]["isError"], false, "{message}");
        message
    }
}

// ---- measurements -------------------------------------------------------------------------

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn spread(values: &[f64]) -> f64 {
    let max = values.iter().copied().fold(f64::MIN, f64::max);
    let min = values.iter().copied().fold(f64::MAX, f64::min);
    (max - min) / 2.0
}

async fn timed<F: std::future::Future>(work: F) -> (F::Output, f64) {
    let started = Instant::now();
    let out = work.await;
    (out, started.elapsed().as_secs_f64())
}

async fn quick_echoes(client: &mut HttpClient, n: usize) -> Vec<f64> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let (_, t) = timed(client.call("shell", json!({"command": "echo fast"}))).await;
        times.push(t);
    }
    times
}

async fn isolation_ratio(server: &HttpServer) -> f64 {
    let mut a = HttpClient::connect(server).await;
    let mut b = HttpClient::connect(server).await;
    // B alone is measured right before and right after A blocks, so load that drifts during
    // the run weighs on both sides alike.
    let mut alone = quick_echoes(&mut b, 10).await;
    let started = a
        .call("shell", json!({"command": "sleep 30", "yield_ms": 250}))
        .await;
    let sid = started["result"]["structuredContent"]["session_id"].clone();
    let blocked = tokio::spawn(async move {
        a.call(
            "shell_session",
            json!({"action": "wait", "session_id": sid, "timeout_s": 4}),
        )
        .await;
        a
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let during = median(quick_echoes(&mut b, 20).await);
    assert!(
        !blocked.is_finished(),
        "A's wait ended before B's calls did"
    );
    blocked.await.unwrap().close().await;
    alone.extend(quick_echoes(&mut b, 10).await);
    b.close().await;
    during / median(alone)
}

async fn parallel_sleep_ratio(server: &HttpServer) -> f64 {
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(HttpClient::connect(server).await);
    }
    let (clients, wall) = timed(futures_join_all(clients.into_iter().map(
        |mut c| async move {
            c.call("shell", json!({"command": "sleep 0.2"})).await;
            c
        },
    )))
    .await;
    for client in clients {
        client.close().await;
    }
    wall / 0.2
}

async fn futures_join_all<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(handles.len());
    for handle in handles {
        out.push(handle.await.unwrap());
    }
    out
}

const INTROSPECT: &str = "introspect";

fn introspect_hosts() -> Value {
    json!({"target": "hosts"})
}

async fn http_vs_stdio(server: &HttpServer, dir: &Path) -> f64 {
    let mut http = HttpClient::connect(server).await;
    let mut stdio = StdioClient::start(dir).await;
    for _ in 0..20 {
        http.call(INTROSPECT, introspect_hosts()).await;
        stdio.call(INTROSPECT, introspect_hosts()).await;
    }
    let (mut over_http, mut over_stdio) = (Vec::new(), Vec::new());
    for _ in 0..100 {
        over_http.push(timed(http.call(INTROSPECT, introspect_hosts())).await.1);
        over_stdio.push(timed(stdio.call(INTROSPECT, introspect_hosts())).await.1);
    }
    http.close().await;
    median(over_http) / median(over_stdio)
}

async fn calls_per_s(server: &HttpServer) -> f64 {
    const EACH: usize = 50;
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(HttpClient::connect(server).await);
    }
    let (clients, wall) = timed(futures_join_all(clients.into_iter().map(
        |mut c| async move {
            for _ in 0..EACH {
                c.call(INTROSPECT, introspect_hosts()).await;
            }
            c
        },
    )))
    .await;
    for client in clients {
        client.close().await;
    }
    (CLIENTS * EACH) as f64 / wall
}

fn row(values: &[f64], target: Option<&str>) -> Value {
    let mut row = json!({"value": median(values.to_vec()), "spread": spread(values)});
    if let Some(target) = target {
        row["target"] = target.into();
    }
    row
}

fn main() {
    // `cargo bench` passes flags such as `--bench`; this harness takes none.
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let rows = runtime.block_on(async {
        let server = HttpServer::start(dir.path()).await;
        let (mut isolation, mut sleep, mut versus, mut rate) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..REPS {
            isolation.push(isolation_ratio(&server).await);
            sleep.push(parallel_sleep_ratio(&server).await);
            versus.push(http_vs_stdio(&server, dir.path()).await);
            rate.push(calls_per_s(&server).await);
        }
        drop(server.child);
        json!({
            "http_isolation_ratio": row(&isolation, Some("<= 1.5")),
            "http_parallel_sleep_ratio": row(&sleep, Some("<= 2")),
            "http_vs_stdio_call": row(&versus, Some("<= 2")),
            "http_calls_per_s": row(&rate, None),
        })
    });
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../target")).to_owned());
    let out = target.join("bench-rows");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(
        out.join("mcp_http.json"),
        serde_json::to_string_pretty(&rows).unwrap(),
    )
    .unwrap();
    println!("{}", serde_json::to_string_pretty(&rows).unwrap());
}
