//! The MCP server's message handling on arbitrary bytes: a fresh in-memory stdio connection
//! to [`McpServer`] per input (rmcp's JSON-lines transport, exactly what `toolsurface serve`
//! runs on stdin/stdout), the initialize handshake, then the input as one message, then a
//! `ping`. The server must not panic, must not hang, and must still answer the ping.
//!
//! `tools/call` runs real tools (a shell among them), so an input in which any line is JSON
//! naming `tools/call` is skipped; `Call::parse` has its own target (`parse`).

#![no_main]

use std::sync::LazyLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use toolsurface::host::{HostConfig, StandardHost};
use toolsurface::mcp::McpServer;
use toolsurface::standard::{Family, Role};

struct Fixture {
    rt: tokio::runtime::Runtime,
    server: McpServer,
    _root: tempfile::TempDir,
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("tokio runtime: {e}"));
    let root = tempfile::tempdir().unwrap_or_else(|e| panic!("temp folder: {e}"));
    let config = HostConfig::single_host("local", root.path(), Role::SideChat, Family::Chat)
        .with_state_dir(root.path().join("state"));
    let host = StandardHost::new(config).unwrap_or_else(|e| panic!("host: {e}"));
    Fixture {
        rt,
        server: McpServer::new(host),
        _root: root,
    }
});

/// Whether any string in `v` names `tools/call` (after JSON unescaping, as rmcp reads it).
fn names_tools_call(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::String(s) => s.contains("tools/call"),
        serde_json::Value::Array(a) => a.iter().any(names_tools_call),
        serde_json::Value::Object(o) => o
            .iter()
            .any(|(k, v)| k.contains("tools/call") || names_tools_call(v)),
        _ => false,
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const PING: &str = r#"{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}"#;

async fn exchange(server: McpServer, message: &[u8]) {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let serving = tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(server_end)).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_end);
    let mut lines = tokio::io::BufReader::new(read).lines();
    let mut input = Vec::with_capacity(message.len() + 512);
    for line in [INITIALIZE.as_bytes(), b"\n"] {
        input.extend_from_slice(line);
    }
    let _ = write.write_all(&input).await;
    let init = lines.next_line().await;
    assert!(
        matches!(&init, Ok(Some(l)) if l.contains("fuzz-init")),
        "no answer to initialize: {init:?}"
    );
    input.clear();
    for part in [INITIALIZED.as_bytes(), b"\n", message, b"\n", PING.as_bytes(), b"\n"] {
        input.extend_from_slice(part);
    }
    let _ = write.write_all(&input).await;
    let answered = loop {
        match lines.next_line().await {
            Ok(Some(line)) if line.contains("\"fuzz-ping\"") => break true,
            Ok(Some(_)) => continue,
            Ok(None) | Err(_) => break false,
        }
    };
    drop(write);
    drop(lines);
    if let Err(e) = serving.await
        && e.is_panic()
    {
        std::panic::resume_unwind(e.into_panic());
    }
    assert!(answered, "the server stopped answering after the message");
}

fuzz_target!(|data: &[u8]| {
    let skip = data.split(|b| *b == b'\n').any(|line| {
        let text = String::from_utf8_lossy(line);
        text.contains("tools/call")
            || serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| names_tools_call(&v))
    });
    if skip {
        return;
    }
    let f = &*FIXTURE;
    let server = f.server.clone();
    let done = f.rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(20), exchange(server, data)).await
    });
    assert!(done.is_ok(), "the exchange hung for 20 s");
});
