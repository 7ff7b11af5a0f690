//! The MCP adapter: [`McpServer`], a hand-written rmcp `ServerHandler` that serves one role ×
//! family of the standard surface over a [`StandardHost`] (stdio or streamable HTTP, see
//! [`serve_stdio`] and [`http::serve`]). rmcp appears nowhere else in the crate.
//!
//! - `tools/list`: the role's tools in manifest order, exactly the `mcp` dialect's published
//!   bytes (`toolsurface emit --role R --family F --dialect mcp`) parsed into rmcp `Tool`s
//!   unaltered (see [`tools`]); activated skills' tools are appended after them.
//! - `tools/call`: the name and arguments go through `Call::parse` and the runtime
//!   ([`StandardHost::handle_batch`], one call per batch). Everything meant for the model —
//!   refused arguments, retired and unknown tools, staged writes, failures of the command —
//!   comes back as a result (`isError: true` for errors) with the exact text; only protocol
//!   faults (and a handler fault that ends the turn) are JSON-RPC errors. Parallel-safe calls
//!   may run concurrently; any other call runs alone, as inside one runtime batch. A client's
//!   `notifications/cancelled` interrupts the call (the runtime's interrupt rules apply).
//! - Progress: a call whose request carries a `progressToken` gets `notifications/progress`
//!   at once (progress 0) and then every [`PROGRESS_EVERY`] until it finishes; `progress` is
//!   the elapsed seconds, `message` says what runs.
//! - Skills: a call that activates a skill is followed by `notifications/tools/list_changed`
//!   to every connected client (sent before the call's result), after which `tools/list`
//!   includes the skill's tools.
//! - Wake-ups (a watched session exited or its output matched) are sent to every connected
//!   client as `notifications/message` (logging) with level `notice`, logger
//!   [`WAKE_LOGGER`] and structured `data` (see [`wake_data`]). While no client is
//!   connected they are kept (up to [`MAX_PENDING_WAKES`]) for the next one.
//!
//! Protocol versions: the handshake-era revisions (2024-11-05 … 2025-11-25). The stateless
//! 2026-07-28 revision is not offered: its server-to-client notifications (list changes,
//! wake-ups) need `subscriptions/listen`, which this adapter does not implement yet; clients
//! that probe with `server/discover` fall back to `initialize`.

// Logging notifications (how wake-ups travel) are SEP-2577-deprecated in rmcp, yet they are the
// handshake-era protocol's way to tell a client something outside a request.
#![allow(deprecated)]

pub mod http;
pub mod tools;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;
use std::time::Duration;
use std::time::Instant;
use std::time::UNIX_EPOCH;

use rmcp::ErrorData as McpError;
use rmcp::RoleServer;
use rmcp::ServerHandler;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::model::CallToolResponse;
use rmcp::model::CallToolResult;
use rmcp::model::ContentBlock;
use rmcp::model::Implementation;
use rmcp::model::InitializeRequestParams;
use rmcp::model::InitializeResult;
use rmcp::model::ListToolsResult;
use rmcp::model::LoggingLevel;
use rmcp::model::LoggingMessageNotificationParam;
use rmcp::model::PaginatedRequestParams;
use rmcp::model::ProgressNotificationParam;
use rmcp::model::ProgressToken;
use rmcp::model::ProtocolVersion;
use rmcp::model::ServerCapabilities;
use rmcp::model::Tool;
use rmcp::service::NotificationContext;
use rmcp::service::Peer;
use rmcp::service::RequestContext;
use toolsurface_runtime::core::ToolResult;
use toolsurface_runtime::core::Turn;
use toolsurface_runtime::core::WakeKind;
use toolsurface_runtime::core::WakeUp;

use crate::host::ModelToolCall;
use crate::host::StandardHost;
use tools::McpSurface;

/// How often a running call with a progress token reports progress.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(1);
/// The logger name of wake-up notifications.
pub const WAKE_LOGGER: &str = "toolsurface.wake";
/// Wake-ups kept for the next client while none is connected (the oldest are dropped).
pub const MAX_PENDING_WAKES: usize = 256;

/// The MCP server of one conversation thread. Cheap to clone (every clone serves the same
/// host: one per stdio connection, one per HTTP session).
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    host: Arc<StandardHost>,
    surface: McpSurface,
    /// Connected clients, for notifications outside a request (list changes, wake-ups).
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// Wake-ups that arrived while no client was connected, for the next one.
    pending_wakes: Mutex<VecDeque<WakeUp>>,
    /// Read side for parallel-safe calls, write side for every other call.
    calls: tokio::sync::RwLock<()>,
    next_call: AtomicU64,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("role", &self.inner.host.role())
            .field("family", &self.inner.host.family())
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// Serve `host`'s role × family (resident tools and skill tools both come from the
    /// generated statics).
    pub fn new(host: StandardHost) -> McpServer {
        let surface = McpSurface::new(host.role(), host.family());
        McpServer {
            inner: Arc::new(Inner {
                host: Arc::new(host),
                surface,
                peers: Mutex::new(Vec::new()),
                pending_wakes: Mutex::new(VecDeque::new()),
                calls: tokio::sync::RwLock::new(()),
                next_call: AtomicU64::new(1),
            }),
        }
    }

    pub fn host(&self) -> &Arc<StandardHost> {
        &self.inner.host
    }

    /// The tools `tools/list` answers with now (resident, then active skills').
    pub fn tools(&self) -> Result<Vec<Tool>, String> {
        self.inner.surface.tools(&self.inner.host.active_skills())
    }

    /// Forward the host's wake-ups to connected clients until the host's channel closes.
    /// Call once, inside a tokio runtime; later calls do nothing.
    pub fn spawn_wake_forwarder(&self) {
        let Some(mut wakes) = self.inner.host.take_wake_receiver() else {
            return;
        };
        let server = self.clone();
        tokio::spawn(async move {
            while let Some(wake) = wakes.recv().await {
                server.deliver_wake(&wake).await;
            }
        });
    }

    async fn deliver_wake(&self, wake: &WakeUp) {
        let peers = self.peers();
        eprintln!(
            "toolsurface serve: wake-up: {wake} ({} client{})",
            peers.len(),
            if peers.len() == 1 { "" } else { "s" }
        );
        if peers.is_empty() {
            let mut pending = self
                .inner
                .pending_wakes
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if pending.len() == MAX_PENDING_WAKES {
                pending.pop_front();
            }
            pending.push_back(wake.clone());
            return;
        }
        self.send_wake(wake, peers).await;
    }

    async fn send_wake(&self, wake: &WakeUp, peers: Vec<Peer<RoleServer>>) {
        let mut param = LoggingMessageNotificationParam::new(LoggingLevel::Notice, wake_data(wake));
        param.logger = Some(WAKE_LOGGER.to_owned());
        for peer in peers {
            let sent = peer.notify_logging_message(param.clone()).await;
            if sent.is_err() {
                self.forget_closed();
            }
        }
    }

    async fn tools_changed(&self) {
        for peer in self.peers() {
            if peer.notify_tool_list_changed().await.is_err() {
                self.forget_closed();
            }
        }
    }

    fn remember(&self, peer: &Peer<RoleServer>) {
        let mut peers = self.inner.peers.lock().unwrap_or_else(|p| p.into_inner());
        peers.retain(|p| !p.is_transport_closed());
        peers.push(peer.clone());
    }

    fn forget_closed(&self) {
        let mut peers = self.inner.peers.lock().unwrap_or_else(|p| p.into_inner());
        peers.retain(|p| !p.is_transport_closed());
    }

    fn peers(&self) -> Vec<Peer<RoleServer>> {
        let peers = self.inner.peers.lock().unwrap_or_else(|p| p.into_inner());
        peers
            .iter()
            .filter(|p| !p.is_transport_closed())
            .cloned()
            .collect()
    }

    /// Run one tools/call: parse, schedule, execute, report progress, honour cancellation.
    async fn run_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let host = &self.inner.host;
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let call = ModelToolCall::new(
            format!(
                "mcp-{}",
                self.inner.next_call.fetch_add(1, Ordering::Relaxed)
            ),
            request.name.as_ref(),
            arguments.to_string(),
        );
        let parsed = host.parse(&call);
        let display = match &parsed {
            Ok(c) => c.display_name().to_owned(),
            Err(_) => call.name.clone(),
        };
        let parallel = parsed.as_ref().is_ok_and(|c| c.is_parallel_safe());
        let progress = request
            .meta
            .as_ref()
            .and_then(|m| m.get_progress_token())
            .or_else(|| context.meta.get_progress_token());
        let skills_before = host.active_skills().len();

        let started = Instant::now();
        let mut reporter = progress.map(|token| Progress {
            token,
            peer: context.peer.clone(),
            display: display.clone(),
        });
        if let Some(p) = &reporter {
            p.send(Duration::ZERO).await;
        }
        // Wait for the scheduling lock, still reporting and still cancellable.
        let _guard = {
            let lock = async {
                if parallel {
                    Guard::Read(self.inner.calls.read().await)
                } else {
                    Guard::Write(self.inner.calls.write().await)
                }
            };
            tokio::pin!(lock);
            let mut ticker = ticker();
            loop {
                tokio::select! {
                    guard = &mut lock => break guard,
                    _ = context.ct.cancelled() => {
                        return Err(McpError::internal_error(
                            format!("{display} was cancelled before it started"),
                            None,
                        ));
                    }
                    _ = ticker.tick(), if reporter.is_some() => {
                        if let Some(p) = &reporter { p.send(started.elapsed()).await; }
                    }
                }
            }
        };
        let turn = Turn::normal();
        let results = {
            let run = host.handle_batch(vec![call], &turn);
            tokio::pin!(run);
            let mut ticker = ticker();
            let mut interrupted = false;
            loop {
                tokio::select! {
                    results = &mut run => break results,
                    _ = context.ct.cancelled(), if !interrupted => {
                        interrupted = true;
                        turn.interrupt();
                        reporter = None;
                    }
                    _ = ticker.tick(), if reporter.is_some() => {
                        if let Some(p) = &reporter { p.send(started.elapsed()).await; }
                    }
                }
            }
        };
        let results = results.map_err(|fault| McpError::internal_error(fault.to_string(), None))?;
        if host.active_skills().len() != skills_before {
            self.tools_changed().await;
        }
        let result = results.into_iter().next().ok_or_else(|| {
            McpError::internal_error("the runtime returned no result for the call", None)
        })?;
        Ok(to_call_tool_result(result))
    }
}

enum Guard<'a> {
    Read(#[allow(dead_code)] tokio::sync::RwLockReadGuard<'a, ()>),
    Write(#[allow(dead_code)] tokio::sync::RwLockWriteGuard<'a, ()>),
}

fn ticker() -> tokio::time::Interval {
    let mut ticker =
        tokio::time::interval_at(tokio::time::Instant::now() + PROGRESS_EVERY, PROGRESS_EVERY);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticker
}

struct Progress {
    token: ProgressToken,
    peer: Peer<RoleServer>,
    display: String,
}

impl Progress {
    async fn send(&self, elapsed: Duration) {
        let secs = (elapsed.as_secs_f64() * 10.0).round() / 10.0;
        let message = if elapsed.is_zero() {
            format!("{} started", self.display)
        } else {
            format!("{} running for {secs:.1} s", self.display)
        };
        let param = ProgressNotificationParam::new(self.token.clone(), secs).with_message(message);
        // A client that went away gets no progress; the call itself still finishes.
        let _ = self.peer.notify_progress(param).await;
    }
}

/// A runtime result as an MCP tool result: the text as one text block, the structured part
/// (when it is a JSON object) as `structuredContent`, `isError` as the runtime says.
pub fn to_call_tool_result(result: ToolResult) -> CallToolResult {
    let content = vec![ContentBlock::text(result.text)];
    let mut out = if result.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    out.structured_content = result.structured.filter(serde_json::Value::is_object);
    out.is_error = Some(result.is_error);
    out
}

/// The `data` of a wake-up notification:
/// `{"event":"wake_up","session_id","host","kind":"exited"|"matched","exit_code"?,"text"?,
/// "watcher_id"?,"command"?,"at" (unix seconds),"message"}` — `message` is the sentence a
/// model would be given ("session 3 on local (make) exited with code 0").
pub fn wake_data(wake: &WakeUp) -> serde_json::Value {
    let mut data = serde_json::json!({
        "event": "wake_up",
        "session_id": wake.session_id,
        "host": wake.host,
    });
    if let Some(map) = data.as_object_mut() {
        match &wake.kind {
            WakeKind::Exited { code } => {
                map.insert("kind".into(), "exited".into());
                map.insert("exit_code".into(), serde_json::json!(code));
            }
            WakeKind::Matched { text } => {
                map.insert("kind".into(), "matched".into());
                map.insert("text".into(), text.as_str().into());
            }
        }
        if let Some(w) = wake.watcher_id {
            map.insert("watcher_id".into(), w.into());
        }
        if let Some(c) = &wake.command {
            map.insert("command".into(), c.as_str().into());
        }
        let at = wake
            .at
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or_default();
        map.insert("at".into(), serde_json::json!(at));
        map.insert("message".into(), wake.to_string().into());
    }
    data
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> InitializeResult {
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let host = &self.inner.host;
        let mut info = InitializeResult::new(capabilities).with_instructions(format!(
            "toolsurface: the {} role's tools ({} family). Events carry their own timestamps; \
             long commands become background sessions you manage with shell_session. \
             Wake-ups from watched sessions arrive as notifications/message with logger {}.",
            host.role(),
            host.family(),
            WAKE_LOGGER
        ));
        info.server_info = Implementation::new("toolsurface", env!("CARGO_PKG_VERSION"));
        info.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
        info
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(
            &ProtocolVersion::LATEST_WITH_INITIALIZE,
        ))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        self.remember(&context.peer);
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let pending: Vec<WakeUp> = self
            .inner
            .pending_wakes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .collect();
        for wake in pending {
            self.send_wake(&wake, vec![context.peer.clone()]).await;
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = self
            .tools()
            .map_err(|e| McpError::internal_error(e, None))?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.run_call(request, context)
            .await
            .map(CallToolResponse::Complete)
    }
}

/// Serve over stdin/stdout until the client closes the connection (or SIGINT / SIGTERM).
pub async fn serve_stdio(server: McpServer) -> anyhow::Result<()> {
    server.spawn_wake_forwarder();
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow::anyhow!("MCP handshake on stdio failed: {e}"))?;
    let cancel = running.cancellation_token();
    tokio::select! {
        reason = running.waiting() => {
            let reason = reason.map_err(|e| anyhow::anyhow!("MCP service task failed: {e}"))?;
            eprintln!("toolsurface serve: stdio connection closed ({reason:?})");
        }
        signal = shutdown_signal() => {
            eprintln!("toolsurface serve: {signal}; shutting down");
            cancel.cancel();
        }
    }
    Ok(())
}

/// Resolves on SIGINT or SIGTERM, naming it. Serving ends there, so the host is dropped and
/// its background sessions are killed rather than orphaned.
pub async fn shutdown_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::SignalKind;
        use tokio::signal::unix::signal;
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        }
    }
    #[cfg(not(unix))]
    {
        match tokio::signal::ctrl_c().await {
            Ok(()) => "ctrl-c",
            Err(_) => std::future::pending().await,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use toolsurface_runtime::core::Outcome;

    #[test]
    fn model_errors_become_error_results_with_the_exact_text() {
        let r = to_call_tool_result(ToolResult {
            call_id: "1".into(),
            is_error: true,
            text: "action=kill: unexpected field timeout_s".into(),
            structured: None,
            outcome: Outcome::Refused,
        });
        assert_eq!(r.is_error, Some(true));
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v["content"][0]["text"],
            "action=kill: unexpected field timeout_s"
        );
        assert_eq!(v["isError"], true);
    }

    #[test]
    fn structured_output_is_kept_only_when_it_is_an_object() {
        let ok = |structured| {
            to_call_tool_result(ToolResult {
                call_id: "1".into(),
                is_error: false,
                text: "done".into(),
                structured,
                outcome: Outcome::Completed,
            })
        };
        let r = ok(Some(serde_json::json!({"exit_code": 0})));
        assert_eq!(
            r.structured_content,
            Some(serde_json::json!({"exit_code": 0}))
        );
        assert_eq!(r.is_error, Some(false));
        assert_eq!(ok(Some(serde_json::json!([1]))).structured_content, None);
    }

    /// One JSON-RPC exchange over an in-memory pipe: what a stdio client sees.
    #[tokio::test]
    async fn tools_list_and_a_refused_call_over_json_rpc() {
        use tokio::io::AsyncBufReadExt;
        use tokio::io::AsyncWriteExt;

        let dir = tempfile::tempdir().unwrap();
        let config = crate::host::HostConfig::single_host(
            "local",
            dir.path(),
            crate::standard::Role::SideChat,
            crate::standard::Family::Chat,
        );
        let server = McpServer::new(StandardHost::new(config).unwrap());
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(async move {
            let running = server.serve((server_read, server_write)).await.unwrap();
            let _ = running.waiting().await;
        });
        let (read, mut write) = tokio::io::split(client_end);
        let mut lines = tokio::io::BufReader::new(read).lines();
        let mut send = async |v: serde_json::Value| {
            write.write_all(format!("{v}\n").as_bytes()).await.unwrap();
        };
        send(
            serde_json::json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},
            "clientInfo":{"name":"t","version":"0"}}}),
        )
        .await;
        let init: serde_json::Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(init["result"]["serverInfo"]["name"], "toolsurface");
        assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true);
        send(serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"})).await;
        send(serde_json::json!({"jsonrpc":"2.0","id":2,"method":"tools/list"})).await;
        let list: serde_json::Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        let published: serde_json::Value = serde_json::from_str(crate::standard::published_mcp(
            crate::standard::Role::SideChat,
            crate::standard::Family::Chat,
        ))
        .unwrap();
        assert_eq!(list["result"]["tools"], published);
        send(
            serde_json::json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{
            "name":"shell_session","arguments":{"action":"kill","session_id":1,"timeout_s":5}}}),
        )
        .await;
        let call: serde_json::Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(call["result"]["isError"], true);
        let text = call["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("action=kill: unexpected field timeout_s"),
            "{text}"
        );
    }

    #[test]
    fn wake_data_carries_the_model_sentence() {
        let mut wake = WakeUp::exited(7, "local", Some(0));
        wake.command = Some("make".into());
        let data = wake_data(&wake);
        assert_eq!(data["event"], "wake_up");
        assert_eq!(data["kind"], "exited");
        assert_eq!(data["exit_code"], 0);
        assert_eq!(data["session_id"], 7);
        assert_eq!(data["message"], wake.to_string());
        let data = wake_data(&WakeUp::matched(8, "local", "ready"));
        assert_eq!(data["kind"], "matched");
        assert_eq!(data["text"], "ready");
    }
}
