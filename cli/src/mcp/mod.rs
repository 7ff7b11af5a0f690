//! The MCP adapter: [`McpServer`], a hand-written rmcp `ServerHandler` that serves one role ×
//! family of the standard surface over a [`StandardHost`] (stdio or streamable HTTP, see
//! [`serve_stdio`] and [`http::serve`]). rmcp appears nowhere else in the crate.
//!
//! # Tenancy
//!
//! [`McpServer`] is what the process shares (the host: config, stores, file families,
//! session-id counter; the limits). Every MCP session — a stdio connection, a streamable
//! HTTP session (`Mcp-Session-Id`) — is an [`McpSession`] over a conversation of its own
//! ([`toolsurface::host::Conversation`]): its own schedule (a call that must run alone waits only
//! for calls of the same session), background sessions (another session's id answers as an
//! unknown id), read memory, staged writes and confirm tokens, activated skills (which skill
//! tools its calls may use), wake-ups, progress and log level. Ending the MCP
//! session (stdio close, HTTP `DELETE`, idle timeout, see [`http`]) ends the conversation:
//! its background process groups are SIGKILLed and reaped.
//!
//! - `tools/list`: the role's tools in manifest order, the `mcp` dialect's published bytes
//!   (`toolsurface emit --role R --family F --dialect mcp`) parsed into rmcp `Tool`s
//!   unaltered, then every skill tool the role offers marked `_meta."io.toolsurface/skill"`
//!   (see [`tools`]). The list is the same for the session's whole life, whatever it
//!   activates (MCP 2026-07-28: no variance as a side effect of other requests).
//! - `tools/call`: the name and the arguments (as the client's JSON value, parsed once) go
//!   through `Call::parse` and the conversation's runtime (one call per batch, on a turn of
//!   the conversation's schedule: the runtime is the only scheduler). Everything meant for
//!   the model — refused arguments, retired and unknown tools, staged writes, failures of the
//!   command, limits — comes back as a result (`isError: true` for errors) with the exact
//!   text; only protocol faults (and a handler fault that ends the turn) are JSON-RPC
//!   errors. A client's `notifications/cancelled` interrupts the call (the runtime's
//!   interrupt rules apply) and then kills every background session the call started: its
//!   client never learns their ids, so nothing it started is left running unnamed.
//! - At most [`McpLimits::max_calls_per_session`] calls of one session run at once; one more
//!   is answered at once with an `isError` result saying so.
//! - Progress: a call whose request carries a `progressToken` gets `notifications/progress`
//!   at once (progress 0) and then every [`PROGRESS_EVERY`] until it finishes; `progress` is
//!   the elapsed seconds, `message` says what runs.
//! - Skills: a skill tool called before its skill is active in the session is refused
//!   (`isError`) with the message naming `activate_skill` and the skill; after the
//!   `activate_skill` call it runs. No `list_changed` is ever sent (the capability is not
//!   declared): nothing to re-list, so clients that never re-list still reach the tools.
//! - Wake-ups (a watched session of this conversation exited or its output matched) are
//!   sent to the session as `notifications/message` with level `notice`, logger
//!   [`WAKE_LOGGER`] and structured `data` (see [`wake_data`]). Before the client has
//!   initialized they are kept (up to [`MAX_PENDING_WAKES`]). A session that never asked for
//!   `tools/list` was opened for one call and is promised no wake-up ([`unpromised_wake`]):
//!   its background sessions are killed when it closes.
//! - Logging: the `logging` capability is declared; `logging/setLevel` sets the session's
//!   minimum level, and every `notifications/message` (wake-ups included) below it is not
//!   sent. The default is [`DEFAULT_LOG_LEVEL`] (`debug`: everything is sent).
//!
//! # Protocol revisions
//!
//! Both eras, on stdio and streamable HTTP alike ([`SUPPORTED_UP_TO`]):
//! - **Handshake era** (2024-11-05 … 2025-11-25): `initialize` opens an MCP session, which is
//!   the conversation of the Tenancy section above; everything listed there holds for it.
//! - **MCP 2026-07-28** ([`STATELESS_REVISION`]): no `initialize`; every request carries
//!   `_meta` `io.modelcontextprotocol/protocolVersion`, `clientInfo` and
//!   `clientCapabilities`, which rmcp checks per request before a handler runs (missing or
//!   malformed keys `-32602`; a version not offered `-32022` UnsupportedProtocolVersion
//!   with the supported list; an HTTP header that contradicts the body `-32020`
//!   HeaderMismatch; a capability the request needs but did not declare `-32021`).
//!   `server/discover` answers the supported versions, the capabilities (tools only: the
//!   revision deprecates logging, SEP-2577) and instructions for this era
//!   ([`McpSession::discover`]); `tools/list` carries `ttlMs` [`LIST_TTL_MS`] and
//!   `cacheScope: "public"` (SEP-2549): the list is the role × family's published bytes,
//!   the same for every request and every caller, and changes only when the server is
//!   restarted with another surface.
//!
//! **Which conversation a 2026-07-28 request belongs to.** The revision has no
//! protocol-level session (SEP-2567) and says so: a server "must not treat connection or
//! process identity as a proxy for conversation", and state spanning requests "MUST be
//! referenced by an explicit identifier the client passes on each request" — ordinary tool
//! arguments, server-minted (`server/tools.mdx`, "Stateful Tools"). It defines no session
//! header nor `_meta` key, so this server invents none. Our tools already work that way:
//! a background shell session is named by its `session_id`, a staged write by its
//! `confirm_token`. So every 2026-07-28 request to one server process belongs to one
//! conversation, the server's **stateless conversation**: on stdio the process serves one
//! client (the connection's conversation is it); over HTTP it is opened at the first such
//! request and lives until the server stops (no idle end: its handles would die under a
//! client that is only thinking). The state that is not a handle is shared by every
//! 2026-era caller of the process, who all hold the same authorization (the server's one
//! bearer token, or loopback): file read memory, activated skills, the limit of
//! [`McpLimits::max_calls_per_session`] calls at once. Its schedule is not: the server
//! cannot tell which requests belong to one model thread, so each 2026-07-28 request runs
//! on a schedule of its own and is ordered against no other (one caller's
//! `shell_session wait` delays no one; a handshake-era session's calls that must run alone
//! still wait for its other calls). A client that needs a conversation of its own talks the
//! handshake era (one MCP session each), or gets a server process of its own.
//!
//! **What `tools/list` returns** is the same in both eras: every tool, resident then skill,
//! whatever anything activated (the 2026-07-28 rule: no variance as a side effect of other
//! requests).
//!
//! **Wake-ups do not reach a 2026-07-28 client.** The revision lets a server send
//! `notifications/message` only on the stream of the request it relates to, and only when
//! that request set `io.modelcontextprotocol/logLevel` (logging itself deprecated,
//! SEP-2577); `subscriptions/listen` carries list changes and resource updates only. A
//! wake-up belongs to no request, so there is no channel: a 2026-era call's reply never
//! promises one (the runtime's promise becomes [`STATELESS_WAKE_NOTE`], the same rewrite as
//! a one-call session's, see [`unpromised_wake`]), and the model checks on the session with
//! `shell_session poll` / `wait`. Progress (`progressToken`) still flows, on the request's
//! own stream. Cancellation: `notifications/cancelled` on stdio, closing the request's SSE
//! stream over HTTP; either interrupts the call and kills what it started.
//!
//! Every conversation logs the first request of each revision and client to stderr
//! ([`McpSession::note_revision`]), so which era a client chose is visible.

// Logging notifications (how wake-ups travel) are SEP-2577-deprecated in rmcp, yet they are the
// handshake-era protocol's way to tell a client something outside a request.
#![allow(deprecated)]

pub mod http;
pub mod stdio;
pub mod tools;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::Weak;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::AtomicU8;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::time::Duration;
use std::time::Instant;
use std::time::UNIX_EPOCH;

use rmcp::ErrorData as McpError;
use rmcp::RoleServer;
use rmcp::ServerHandler;
use rmcp::model::CacheScope;
use rmcp::model::CallToolRequestParams;
use rmcp::model::CallToolResponse;
use rmcp::model::CallToolResult;
use rmcp::model::ContentBlock;
use rmcp::model::DiscoverResult;
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
use rmcp::model::SetLevelRequestParams;
use rmcp::model::Tool;
use rmcp::service::NotificationContext;
use rmcp::service::Peer;
use rmcp::service::RequestContext;
use toolsurface_runtime::core::Batch;
use toolsurface_runtime::core::ToolResult;
use toolsurface_runtime::core::Turn;
use toolsurface_runtime::core::TurnKind;
use toolsurface_runtime::core::WakeKind;
use toolsurface_runtime::core::WakeUp;

use tools::McpSurface;
use toolsurface::host::Conversation;
use toolsurface::host::HostError;
use toolsurface::host::StandardHost;

/// How often a running call with a progress token reports progress.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(1);
/// The logger name of wake-up notifications.
pub const WAKE_LOGGER: &str = "toolsurface.wake";
/// Wake-ups kept for a session that has not initialized yet (the oldest are dropped).
pub const MAX_PENDING_WAKES: usize = 256;
/// The log level a session starts with: every notification is sent.
pub const DEFAULT_LOG_LEVEL: LoggingLevel = LoggingLevel::Debug;

/// The first revision without `initialize`: requests carry their own `_meta`, no session.
pub const STATELESS_REVISION: ProtocolVersion = ProtocolVersion::V_2026_07_28;
/// The newest revision served: every known revision up to it is offered.
pub const SUPPORTED_UP_TO: ProtocolVersion = STATELESS_REVISION;
/// How long a 2026-07-28 client may reuse a `tools/list` or `server/discover` answer.
pub const LIST_TTL_MS: u64 = 300_000;

/// Whether the request of `context` is a 2026-07-28-era (stateless) one: it named a revision
/// without `initialize`, in its `_meta` or (over HTTP) through rmcp's stateless routing.
pub fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| !v.has_initialize())
}

/// Limits every MCP session of a server shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct McpLimits {
    /// Calls of one session running at once; one more is refused with an `isError` result.
    pub max_calls_per_session: usize,
    /// Largest message: an HTTP request body (413 beyond) or one stdio line (a JSON-RPC
    /// error beyond, the line is skipped unread).
    pub max_message_bytes: usize,
}

impl McpLimits {
    pub const DEFAULT_MAX_CALLS_PER_SESSION: usize = 16;
    pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
}

impl Default for McpLimits {
    fn default() -> Self {
        McpLimits {
            max_calls_per_session: Self::DEFAULT_MAX_CALLS_PER_SESSION,
            max_message_bytes: Self::DEFAULT_MAX_MESSAGE_BYTES,
        }
    }
}

/// What the process shares between MCP sessions: the host and the limits. Cheap to clone.
/// [`McpServer::open_session`] makes the handler of one MCP session.
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    host: Arc<StandardHost>,
    surface: McpSurface,
    limits: McpLimits,
    /// MCP sessions whose conversation is still open.
    live_sessions: AtomicUsize,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("role", &self.inner.host.role())
            .field("family", &self.inner.host.family())
            .field("limits", &self.inner.limits)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// Serve `host`'s role × family (resident tools and skill tools both come from the
    /// generated statics) with the default limits.
    pub fn new(host: StandardHost) -> McpServer {
        McpServer::with_limits(host, McpLimits::default())
    }

    pub fn with_limits(host: StandardHost, limits: McpLimits) -> McpServer {
        let surface = McpSurface::new(host.role(), host.family());
        McpServer {
            inner: Arc::new(Inner {
                host: Arc::new(host),
                surface,
                limits,
                live_sessions: AtomicUsize::new(0),
            }),
        }
    }

    pub fn host(&self) -> &Arc<StandardHost> {
        &self.inner.host
    }

    pub fn limits(&self) -> McpLimits {
        self.inner.limits
    }

    /// MCP sessions open now (their conversation not ended).
    pub fn live_sessions(&self) -> usize {
        self.inner.live_sessions.load(Ordering::SeqCst)
    }

    /// The tools `tools/list` answers with (the same in every session, all along).
    pub fn tools(&self) -> Result<Vec<Tool>, String> {
        self.inner.surface.tools()
    }

    /// The handler of one new MCP session, over a conversation of its own. Inside a tokio
    /// runtime (its wake-up forwarder is spawned here).
    pub fn open_session(&self) -> Result<McpSession, HostError> {
        let conversation = self
            .inner
            .host
            .open_conversation_rendered(toolsurface::host::Rendering::Mcp)?;
        self.inner.live_sessions.fetch_add(1, Ordering::SeqCst);
        let state = Arc::new(SessionState {
            server: self.clone(),
            conversation,
            peer: Mutex::new(None),
            pending_wakes: Mutex::new(VecDeque::new()),
            min_level: AtomicU8::new(severity(DEFAULT_LOG_LEVEL)),
            calls_in_flight: AtomicUsize::new(0),
            last_active: Mutex::new(Instant::now()),
            next_call: AtomicU64::new(1),
            ended: AtomicBool::new(false),
            listed: AtomicBool::new(false),
            revisions_seen: Mutex::new(Vec::new()),
        });
        state.spawn_wake_forwarder();
        Ok(McpSession { state })
    }
}

/// The rmcp handler of one MCP session (one conversation). Cheap to clone; the conversation
/// ends when the last clone is dropped or [`McpSession::end`] is called.
#[derive(Clone)]
pub struct McpSession {
    state: Arc<SessionState>,
}

struct SessionState {
    server: McpServer,
    conversation: Conversation,
    /// The client, once it has initialized: for notifications outside a request.
    peer: Mutex<Option<Peer<RoleServer>>>,
    pending_wakes: Mutex<VecDeque<WakeUp>>,
    /// `logging/setLevel`: notifications below this severity are not sent.
    min_level: AtomicU8,
    calls_in_flight: AtomicUsize,
    last_active: Mutex<Instant>,
    next_call: AtomicU64,
    ended: AtomicBool,
    /// Whether this session asked for `tools/list`: a session that never did got its tools
    /// elsewhere and was opened for one call (see [`unpromised_wake`]).
    listed: AtomicBool,
    /// (method, revision, client) already logged by [`McpSession::note_revision`].
    revisions_seen: Mutex<Vec<(String, String, String)>>,
}

impl Drop for SessionState {
    fn drop(&mut self) {
        self.end();
    }
}

impl std::fmt::Debug for McpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSession")
            .field("conversation", &self.state.conversation.id())
            .finish_non_exhaustive()
    }
}

/// A level's rank: debug 0 … emergency 7.
fn severity(level: LoggingLevel) -> u8 {
    level as u8
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every value behind these locks is replaced whole, so a poisoned one is still valid.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl SessionState {
    /// End the conversation (kill its background processes) once; later calls do nothing.
    fn end(&self) -> Vec<i64> {
        if self.ended.swap(true, Ordering::SeqCst) {
            return Vec::new();
        }
        self.server
            .inner
            .live_sessions
            .fetch_sub(1, Ordering::SeqCst);
        let ended = self.conversation.end();
        eprintln!(
            "toolsurface serve: conversation {} ended{}",
            self.conversation.id(),
            if ended.is_empty() {
                String::new()
            } else {
                format!("; killed sessions {ended:?}")
            }
        );
        ended
    }

    fn touch(&self) {
        *lock(&self.last_active) = Instant::now();
    }

    /// Forward the conversation's wake-ups to the session's client until the conversation
    /// is gone (the forwarder holds no strong reference: it never keeps a session alive).
    fn spawn_wake_forwarder(self: &Arc<Self>) {
        let Some(mut wakes) = self.conversation.take_wake_receiver() else {
            return;
        };
        let weak: Weak<SessionState> = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(wake) = wakes.recv().await {
                let Some(state) = weak.upgrade() else {
                    break;
                };
                state.deliver_wake(wake).await;
            }
        });
    }

    fn peer(&self) -> Option<Peer<RoleServer>> {
        lock(&self.peer)
            .as_ref()
            .filter(|p| !p.is_transport_closed())
            .cloned()
    }

    async fn deliver_wake(&self, wake: WakeUp) {
        eprintln!(
            "toolsurface serve: wake-up for conversation {}: {wake}",
            self.conversation.id()
        );
        match self.peer() {
            Some(peer) => self.send_wake(&wake, &peer).await,
            None => {
                let mut pending = lock(&self.pending_wakes);
                if pending.len() == MAX_PENDING_WAKES {
                    pending.pop_front();
                }
                pending.push_back(wake);
            }
        }
    }

    /// Whether a notification of `level` passes the session's `logging/setLevel`.
    fn logs(&self, level: LoggingLevel) -> bool {
        severity(level) >= self.min_level.load(Ordering::SeqCst)
    }

    async fn send_wake(&self, wake: &WakeUp, peer: &Peer<RoleServer>) {
        if !self.logs(LoggingLevel::Notice) {
            return;
        }
        let mut param = LoggingMessageNotificationParam::new(LoggingLevel::Notice, wake_data(wake));
        param.logger = Some(WAKE_LOGGER.to_owned());
        // A client that went away gets no wake-up; its conversation ends with its session.
        let _ = peer.notify_logging_message(param).await;
    }
}

/// Counts a running call of a session; the count drops (and the session counts as active)
/// when the call ends, however it ends.
struct CallSlot<'a>(&'a SessionState);

impl Drop for CallSlot<'_> {
    fn drop(&mut self) {
        self.0.calls_in_flight.fetch_sub(1, Ordering::SeqCst);
        self.0.touch();
    }
}

impl McpSession {
    /// The instructions of `initialize` and `server/discover`: the role, the family, how
    /// long commands run, `wakes` (how this era hears of a watched session) and the sandbox
    /// policy in one sentence (here, not in a tool description, so the published tool bytes
    /// stay the same whatever the host's sandbox).
    fn instructions(&self, wakes: &str) -> String {
        let conversation = &self.state.conversation;
        format!(
            "toolsurface: the {} role's tools ({} family). Events carry their own timestamps; \
             long commands become background sessions you manage with shell_session. {wakes} {}",
            conversation.role(),
            conversation.family(),
            conversation.sandbox_policy().sentence()
        )
    }

    /// Log (stderr) the first `method` request of each revision and client in this
    /// conversation: which era a client chose, visible to an operator and to the tests.
    fn note_revision(&self, context: &RequestContext<RoleServer>, method: &str) {
        let version = context
            .protocol_version()
            .map_or_else(|| "unknown".to_owned(), |v| v.as_str().to_owned());
        let client = context.client_info().map_or_else(
            || "an unnamed client".to_owned(),
            |c| format!("{} {}", c.name, c.version),
        );
        let key = (method.to_owned(), version.clone(), client.clone());
        {
            let mut seen = lock(&self.state.revisions_seen);
            if seen.contains(&key) {
                return;
            }
            seen.push(key);
        }
        let era = if is_stateless(context) {
            "stateless"
        } else {
            "handshake era"
        };
        eprintln!(
            "toolsurface serve: conversation {}: {method} on MCP {version} ({era}) from {client}",
            self.state.conversation.id()
        );
    }

    /// The session's conversation.
    pub fn conversation(&self) -> &Conversation {
        &self.state.conversation
    }

    /// The tools `tools/list` answers with: resident, then every offered skill's, whatever
    /// this session has activated.
    pub fn tools(&self) -> Result<Vec<Tool>, String> {
        self.state.server.inner.surface.tools()
    }

    /// End the conversation now: kill its background processes, forget its reads. The
    /// transport is the caller's to close. Returns the session ids ended.
    pub fn end(&self) -> Vec<i64> {
        self.state.end()
    }

    /// How long since the session last did anything (a request arrived or a call ended);
    /// zero while a call runs.
    pub fn idle_for(&self) -> Duration {
        if self.state.calls_in_flight.load(Ordering::SeqCst) > 0 {
            return Duration::ZERO;
        }
        lock(&self.state.last_active).elapsed()
    }

    /// Mark the session active now (a transport saw a request for it).
    pub fn touch(&self) {
        self.state.touch();
    }

    /// A handle that does not keep the session open.
    pub fn downgrade(&self) -> WeakMcpSession {
        WeakMcpSession(Arc::downgrade(&self.state))
    }

    /// Run one tools/call: parse once, schedule on the conversation's runtime, report
    /// progress, honour cancellation (and kill what a cancelled call started).
    async fn run_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let state = &*self.state;
        state.touch();
        let stateless = is_stateless(&context);
        let limit = state.server.inner.limits.max_calls_per_session;
        if state.calls_in_flight.fetch_add(1, Ordering::SeqCst) >= limit {
            state.calls_in_flight.fetch_sub(1, Ordering::SeqCst);
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "{} was not run: this MCP session already has {limit} calls running (the \
                 limit per session); wait for one to finish, then call again",
                request.name
            ))]));
        }
        let _slot = CallSlot(state);
        let conversation = &state.conversation;
        let call_id = format!("mcp-{}", state.next_call.fetch_add(1, Ordering::Relaxed));
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let parsed = conversation.parse(request.name.as_ref(), &arguments);
        let display = match &parsed {
            Ok(c) => c.display_name().to_owned(),
            Err(_) => request.name.to_string(),
        };
        let progress = request
            .meta
            .as_ref()
            .and_then(|m| m.get_progress_token())
            .or_else(|| context.meta.get_progress_token());
        let mut batch = Batch::new();
        batch.push_parsed(call_id.clone(), parsed);

        let started = Instant::now();
        let mut reporter = progress.map(|token| Progress {
            token,
            peer: context.peer.clone(),
            display,
        });
        if let Some(p) = &reporter {
            p.send(Duration::ZERO).await;
        }
        // A handshake-era session is one model thread: its requests share the conversation's
        // schedule (a call that must run alone waits for its other calls). 2026-07-28
        // requests are independent by definition and may come from many threads at once
        // (the stateless conversation): each runs on a schedule of its own, so one caller's
        // `shell_session wait` delays no other.
        let turn = if stateless {
            Turn::new(TurnKind::Normal)
        } else {
            conversation.new_turn(TurnKind::Normal)
        };
        let mut cancelled = false;
        let results = {
            let run = conversation.execute(batch, &turn);
            tokio::pin!(run);
            let mut ticker = ticker();
            loop {
                tokio::select! {
                    results = &mut run => break results,
                    _ = context.ct.cancelled(), if !cancelled => {
                        cancelled = true;
                        turn.interrupt();
                        reporter = None;
                    }
                    _ = ticker.tick(), if reporter.is_some() => {
                        if let Some(p) = &reporter { p.send(started.elapsed()).await; }
                    }
                }
            }
        };
        if cancelled {
            let killed = conversation.kill_sessions_started_by(&call_id);
            if !killed.is_empty() {
                eprintln!(
                    "toolsurface serve: conversation {}: call {call_id} was cancelled; \
                     killed the sessions it started: {killed:?}",
                    conversation.id()
                );
            }
        }
        let results = results.map_err(|fault| McpError::internal_error(fault.to_string(), None))?;
        let result = results.into_iter().next().ok_or_else(|| {
            McpError::internal_error("the runtime returned no result for the call", None)
        })?;
        let result = if stateless {
            unpromised_wake(result, STATELESS_WAKE_NOTE)
        } else if state.listed.load(Ordering::SeqCst) {
            result
        } else {
            unpromised_wake(result, ONE_CALL_SESSION_NOTE)
        };
        Ok(to_call_tool_result(result))
    }
}

/// An [`McpSession`] that may be gone (see [`McpSession::downgrade`]).
#[derive(Clone, Debug)]
pub struct WeakMcpSession(Weak<SessionState>);

impl WeakMcpSession {
    pub fn upgrade(&self) -> Option<McpSession> {
        self.0.upgrade().map(|state| McpSession { state })
    }
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

/// What replaces the runtime's wake-up promise in a session that never listed the tools.
pub const ONE_CALL_SESSION_NOTE: &str = "This MCP session never listed the tools, so it looks \
     opened for this call alone: when it closes, the background session is killed and no \
     wake-up can reach you. Hold one MCP session open across calls to keep background \
     sessions running and hear when they end.";

/// What replaces the runtime's wake-up promise in a reply to a 2026-07-28 request: that
/// revision has no channel for a notification outside a request (see the module's
/// "Wake-ups" paragraph).
pub const STATELESS_WAKE_NOTE: &str = "This client speaks MCP 2026-07-28, which has no channel \
     for a wake-up outside a request, so none will reach you: check on the background \
     session with shell_session poll or wait. It keeps running until it exits or is killed \
     (or the server stops).";

/// `result` without a wake-up promise the session cannot keep, `note` saying why in its
/// place. A session that never asked
/// for `tools/list` got its tools elsewhere and was opened for this one call (LangChain's
/// `MultiServerMCPClient.get_tools()` tools open an MCP session per call, initialize, call,
/// close): when it closes its conversation ends and its background sessions are killed, so
/// "you will be woken when it exits" (shell leaving a command running, monitor_start) would
/// be false. The promise goes (the runtime's `… you will be woken when it exits.` clause and
/// `You will be woken …` lines) and [`ONE_CALL_SESSION_NOTE`] says what happens instead. A
/// 2026-07-28 request gets the same rewrite with [`STATELESS_WAKE_NOTE`]. Other results are
/// returned unchanged.
pub fn unpromised_wake(mut result: ToolResult, note: &str) -> ToolResult {
    const CLAUSE: &str = "; you will be woken when it exits.";
    const LINE: &str = "You will be woken ";
    // Only the runtime's own lines count: the command's output (from `Output:` on) is the
    // command's, whatever it says.
    let split = result
        .text
        .find("Output:\n")
        .filter(|&i| i == 0 || result.text[..i].ends_with('\n'))
        .unwrap_or(result.text.len());
    let (head, output) = result.text.split_at(split);
    let promised = head.contains(CLAUSE) || head.lines().any(|l| l.starts_with(LINE));
    if !promised {
        return result;
    }
    let head = head.replace(CLAUSE, ".");
    let mut text = String::new();
    for line in head.lines().filter(|l| !l.starts_with(LINE)) {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(note);
    text.push('\n');
    text.push_str(output);
    result.text = text;
    result
}

/// A runtime result as an MCP tool result: the text as the first text block; the structured
/// part (when it is a JSON object) as `structuredContent` and, as the MCP spec asks of a
/// tool with an `outputSchema`, serialized (compact JSON) as a second text block; `isError`
/// as the runtime says.
///
/// The prose block stays first, beside the JSON rather than replaced by it: clients that
/// forward only the first block, or only text, to the model keep the wording the runtime
/// writes for a model (cut output marked, the next call to make), which the bare facts do not
/// carry; clients that read text for data find the JSON in its own block, byte for byte
/// `structuredContent`.
pub fn to_call_tool_result(result: ToolResult) -> CallToolResult {
    let structured = result.structured.filter(serde_json::Value::is_object);
    let mut content = vec![ContentBlock::text(result.text)];
    if let Some(v) = &structured {
        content.push(ContentBlock::text(v.to_string()));
    }
    let mut out = if result.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    out.structured_content = structured;
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

impl ServerHandler for McpSession {
    fn get_info(&self) -> InitializeResult {
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .build();
        let mut info = InitializeResult::new(capabilities).with_instructions(self.instructions(
            &format!("Wake-ups from watched sessions arrive as notifications/message with logger {WAKE_LOGGER}."),
        ));
        info.server_info = Implementation::new("toolsurface", env!("CARGO_PKG_VERSION"));
        info.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
        info
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(&SUPPORTED_UP_TO))
    }

    /// `server/discover`: the versions, the tools capability alone (logging is deprecated in
    /// 2026-07-28 and nothing here is sent through it to such a client) and this era's
    /// instructions, cacheable like `tools/list`.
    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        self.note_revision(&context, "server/discover");
        let mut config =
            InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
                .with_instructions(self.instructions(
                "MCP 2026-07-28 has no channel for a notification outside a request: check on a \
                 background session with shell_session poll or wait.",
            ));
        config.server_info = Implementation::new("toolsurface", env!("CARGO_PKG_VERSION"));
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            config,
        )
        .with_ttl_ms(LIST_TTL_MS)
        .with_cache_scope(CacheScope::Public))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        self.state.touch();
        context.peer.set_peer_info(request.clone());
        *lock(&self.state.peer) = Some(context.peer.clone());
        http::claim_ticket(&context.extensions, self);
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let pending: Vec<WakeUp> = lock(&self.state.pending_wakes).drain(..).collect();
        for wake in pending {
            self.state.send_wake(&wake, &context.peer).await;
        }
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.state.touch();
        self.state
            .min_level
            .store(severity(request.level), Ordering::SeqCst);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.state.touch();
        self.state.listed.store(true, Ordering::SeqCst);
        self.note_revision(&context, "tools/list");
        let tools = self
            .tools()
            .map_err(|e| McpError::internal_error(e, None))?;
        let mut result = ListToolsResult::with_all_items(tools);
        if is_stateless(&context) {
            // The published bytes of the role × family: the same for every request and every
            // caller while the server runs (handshake-era answers stay as they were).
            result.ttl_ms = Some(LIST_TTL_MS);
            result.cache_scope = Some(CacheScope::Public);
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.note_revision(&context, "tools/call");
        self.run_call(request, context)
            .await
            .map(CallToolResponse::Complete)
    }
}

/// Serve over stdin/stdout until the client closes the connection (or SIGINT / SIGTERM):
/// one MCP session, one conversation, with the line checks of [`stdio`].
pub async fn serve_stdio(server: McpServer) -> anyhow::Result<()> {
    let session = server
        .open_session()
        .map_err(|e| anyhow::anyhow!("cannot open the conversation: {e}"))?;
    let max = server.limits().max_message_bytes;
    let reason = stdio::serve(
        session,
        tokio::io::stdin(),
        tokio::io::stdout(),
        max,
        shutdown_signal(),
    )
    .await?;
    eprintln!("toolsurface serve: stdio connection closed ({reason})");
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
    use rmcp::ServiceExt;
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
        // The prose first, then the serialized structured content.
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["content"][0]["text"], "done");
        assert_eq!(v["content"][1]["text"], r#"{"exit_code":0}"#);
        assert_eq!(v["content"].as_array().unwrap().len(), 2);
        let array = ok(Some(serde_json::json!([1])));
        assert_eq!(array.structured_content, None);
        assert_eq!(
            serde_json::to_value(&array).unwrap()["content"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }

    /// One JSON-RPC exchange over an in-memory pipe: what a stdio client sees.
    #[tokio::test]
    async fn tools_list_and_a_refused_call_over_json_rpc() {
        use tokio::io::AsyncBufReadExt;
        use tokio::io::AsyncWriteExt;

        let dir = tempfile::tempdir().unwrap();
        let config = toolsurface::host::HostConfig::single_host(
            "local",
            dir.path(),
            toolsurface::standard::Role::SideChat,
            toolsurface::standard::Family::Chat,
        );
        let server = McpServer::new(StandardHost::new(config).unwrap())
            .open_session()
            .unwrap();
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
        assert!(
            init["result"]["capabilities"]["tools"]
                .get("listChanged")
                .is_none_or(|v| v == false),
            "{init}"
        );
        send(serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"})).await;
        send(serde_json::json!({"jsonrpc":"2.0","id":2,"method":"tools/list"})).await;
        let list: serde_json::Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        let published: serde_json::Value =
            serde_json::from_str(toolsurface::standard::published_mcp(
                toolsurface::standard::Role::SideChat,
                toolsurface::standard::Family::Chat,
            ))
            .unwrap();
        assert_eq!(list["result"]["tools"], published);
        // Handshake-era answers are as they were: no 2026-07-28 cache hints, no resultType.
        assert!(list["result"].get("ttlMs").is_none(), "{list}");
        assert!(list["result"].get("resultType").is_none(), "{list}");
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

    /// A stdio-like JSON-RPC client of an in-memory session (main × chat, rooted at `dir`).
    async fn client(
        dir: &std::path::Path,
    ) -> impl AsyncFnMut(serde_json::Value) -> Option<serde_json::Value> {
        use tokio::io::AsyncBufReadExt;
        use tokio::io::AsyncWriteExt;

        let config = toolsurface::host::HostConfig::single_host(
            "local",
            dir,
            toolsurface::standard::Role::Main,
            toolsurface::standard::Family::Chat,
        );
        let session = McpServer::new(StandardHost::new(config).unwrap())
            .open_session()
            .unwrap();
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            let running = session.serve(tokio::io::split(server_end)).await.unwrap();
            let _ = running.waiting().await;
        });
        let (read, mut write) = tokio::io::split(client_end);
        let mut lines = tokio::io::BufReader::new(read).lines();
        async move |v: serde_json::Value| {
            write.write_all(format!("{v}\n").as_bytes()).await.unwrap();
            v.get("id")?;
            loop {
                let line = lines.next_line().await.unwrap().unwrap();
                let answer: serde_json::Value = serde_json::from_str(&line).unwrap();
                if answer.get("id") == v.get("id") {
                    return Some(answer);
                }
            }
        }
    }

    /// The text of a `shell` call that leaves `sleep 30` running, in a session that listed
    /// the tools first or not.
    async fn background_shell_text(list_first: bool) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut send = client(dir.path()).await;
        send(
            serde_json::json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},
            "clientInfo":{"name":"t","version":"0"}}}),
        )
        .await;
        send(serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"})).await;
        if list_first {
            send(serde_json::json!({"jsonrpc":"2.0","id":2,"method":"tools/list"})).await;
        }
        let call = send(
            serde_json::json!({"jsonrpc":"2.0","id":3,"method":"tools/call",
            "params":{"name":"shell","arguments":{"command":"sleep 30","yield_ms":250}}}),
        )
        .await
        .unwrap();
        assert_eq!(
            call["result"]["structuredContent"]["running"], true,
            "{call}"
        );
        call["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// The `_meta` every 2026-07-28 request carries.
    fn meta_2026(version: &str) -> serde_json::Value {
        serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        })
    }

    #[tokio::test]
    async fn a_2026_client_discovers_lists_and_calls_without_initialize() {
        let dir = tempfile::tempdir().unwrap();
        let mut send = client(dir.path()).await;
        let request = |id: u64, method: &str, params: serde_json::Value| {
            let mut params = params;
            params["_meta"] = meta_2026("2026-07-28");
            serde_json::json!({"jsonrpc":"2.0","id":id,"method":method,"params":params})
        };
        let found = send(request(1, "server/discover", serde_json::json!({})))
            .await
            .unwrap();
        let d = &found["result"];
        let versions = d["supportedVersions"].as_array().unwrap();
        assert!(versions.contains(&"2026-07-28".into()), "{found}");
        assert!(versions.contains(&"2025-11-25".into()), "{found}");
        assert!(d["capabilities"]["tools"].is_object(), "{found}");
        assert!(d["capabilities"].get("logging").is_none(), "{found}");
        assert_eq!(d["ttlMs"], LIST_TTL_MS, "{found}");
        assert_eq!(d["cacheScope"], "public", "{found}");
        assert_eq!(
            d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "toolsurface"
        );
        let instructions = d["instructions"].as_str().unwrap();
        assert!(
            instructions.contains("shell_session poll"),
            "{instructions}"
        );
        assert!(!instructions.contains(WAKE_LOGGER), "{instructions}");

        let list = send(request(2, "tools/list", serde_json::json!({})))
            .await
            .unwrap();
        let published: serde_json::Value =
            serde_json::from_str(toolsurface::standard::published_mcp(
                toolsurface::standard::Role::Main,
                toolsurface::standard::Family::Chat,
            ))
            .unwrap();
        assert_eq!(list["result"]["tools"], published);
        assert_eq!(list["result"]["ttlMs"], LIST_TTL_MS);
        assert_eq!(list["result"]["cacheScope"], "public");
        assert_eq!(list["result"]["resultType"], "complete");

        let shell = serde_json::json!({"name":"shell",
            "arguments":{"command":"sleep 30","yield_ms":250}});
        let call = send(request(3, "tools/call", shell)).await.unwrap();
        assert_eq!(
            call["result"]["structuredContent"]["running"], true,
            "{call}"
        );
        let text = call["result"]["content"][0]["text"].as_str().unwrap();
        assert!(!text.contains("woken when"), "{text}");
        assert!(text.contains(STATELESS_WAKE_NOTE), "{text}");
        let id = call["result"]["structuredContent"]["session_id"].clone();
        // The handle names the session in a later, separate request.
        let listing = serde_json::json!({"name":"shell_session","arguments":{"action":"list"}});
        let listed = send(request(4, "tools/call", listing)).await.unwrap();
        let sessions = listed["result"]["structuredContent"]["sessions"]
            .as_array()
            .unwrap();
        assert!(sessions.iter().any(|s| s["session_id"] == id), "{listed}");
        let wrong = serde_json::json!({"name":"shell_session",
            "arguments":{"action":"kill","session_id":id,"timeout_s":5}});
        let wrong = send(request(5, "tools/call", wrong)).await.unwrap();
        assert_eq!(wrong["result"]["isError"], true, "{wrong}");

        // The revision's errors, before any handler: a version not offered, missing _meta.
        let mut future = request(6, "tools/list", serde_json::json!({}));
        future["params"]["_meta"] = meta_2026("2099-01-01");
        let refused = send(future).await.unwrap();
        assert_eq!(refused["error"]["code"], -32022, "{refused}");
        let supported = refused["error"]["data"]["supported"].as_array().unwrap();
        assert!(supported.contains(&"2026-07-28".into()), "{refused}");
        let mut partial = request(7, "tools/list", serde_json::json!({}));
        partial["params"]["_meta"]
            .as_object_mut()
            .unwrap()
            .remove("io.modelcontextprotocol/clientCapabilities");
        let refused = send(partial).await.unwrap();
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }

    #[tokio::test]
    async fn the_instructions_say_the_sandbox_policy() {
        let dir = tempfile::tempdir().unwrap();
        let mut send = client(dir.path()).await;
        let init = send(
            serde_json::json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},
            "clientInfo":{"name":"t","version":"0"}}}),
        )
        .await
        .unwrap();
        let text = init["result"]["instructions"].as_str().unwrap();
        // main: workspace-write with the network on (tool-defs/roles.yaml).
        assert!(
            text.ends_with(
                "Sandbox: workspace-write — files may be read anywhere and written only inside \
                 the working folders and $TMPDIR (.git/hooks, .git/config, .toolsurface and the \
                 runtime's own stores protected); network is on."
            ),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_session_that_never_listed_is_promised_no_wake_up() {
        let listed = background_shell_text(true).await;
        assert!(listed.contains("will be woken when it exits"), "{listed}");
        assert!(!listed.contains(ONE_CALL_SESSION_NOTE), "{listed}");
        let one_call = background_shell_text(false).await;
        assert!(!one_call.contains("woken when"), "{one_call}");
        assert!(one_call.contains(ONE_CALL_SESSION_NOTE), "{one_call}");
        assert!(
            one_call.contains("keeps running in the background"),
            "{one_call}"
        );
    }

    #[test]
    fn the_command_output_is_never_rewritten() {
        let result = |text: &str| ToolResult {
            call_id: "1".into(),
            is_error: false,
            text: text.into(),
            structured: None,
            outcome: Outcome::Completed,
        };
        let echoed =
            "Exit code: 0\nOutput:\nYou will be woken at 7; you will be woken when it exits.\n";
        assert_eq!(
            unpromised_wake(result(echoed), ONE_CALL_SESSION_NOTE).text,
            echoed
        );
        let monitor = "Monitoring session 2 (pid 9) on host local: `make`.\n\
                       You will be woken when it exits (watcher 1).\n\
                       Read it with shell_session poll/wait; stop it with shell_session kill.";
        let out = unpromised_wake(result(monitor), ONE_CALL_SESSION_NOTE).text;
        assert!(!out.contains("woken when"), "{out}");
        assert!(out.contains(ONE_CALL_SESSION_NOTE), "{out}");
        assert!(out.starts_with("Monitoring session 2"), "{out}");
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
