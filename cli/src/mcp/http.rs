//! Streamable HTTP: rmcp's `StreamableHttpService` behind a hyper HTTP/1.1 accept loop that
//! answers what rmcp does not: authentication, limits, session ends. Both eras of MCP (see
//! the module docs of [`super`], "Protocol revisions"):
//! - an `initialize` opens a handshake-era session (`Mcp-Session-Id`), an [`McpSession`]
//!   over a conversation of its own ([`McpServer::open_session`]);
//! - a 2026-07-28 request (its own `_meta`, no session) is served by rmcp's stateless path
//!   on the server's one stateless [`McpSession`], opened at the first such request and
//!   ended when the server stops. rmcp asks its service factory for a handler per
//!   stateless request; the factory learns which kind to hand out from [`OPENS_SESSION`],
//!   set by the gate around each request it passes on.
//!
//! In order, for every request:
//! 1. **Authentication** (when a token is configured): `Authorization: Bearer <token>` must
//!    match (compared in constant time over sha256 digests); otherwise 401 with
//!    `WWW-Authenticate: Bearer` and a sentence. The token is never logged nor echoed.
//! 2. **Body limit**: a body over [`super::McpLimits::max_message_bytes`] (by
//!    `Content-Length`, or counted while reading) gets 413 with a sentence; nothing of it
//!    is kept.
//! 3. **JSON-RPC shape** (a `POST`): a body that is not UTF-8, not JSON (or nested deeper
//!    than 128) or not a JSON-RPC message gets 400 with a JSON-RPC error (`-32700` /
//!    `-32600`), as on stdio (see [`super::stdio::refusal`]).
//! 4. **Session limit**: a new session (an `initialize` without `Mcp-Session-Id`) beyond
//!    [`HttpOptions::max_sessions`] live ones gets 503 with a sentence.
//! 5. rmcp: DNS-rebinding defence — the `Host` header must name a loopback host
//!    (`localhost`, `127.0.0.1`, `[::1]`, any port) unless more are allowed; a request
//!    carrying an `Origin` must come from a loopback origin unless more are allowed
//!    (refusals: HTTP 403); then JSON-RPC (unknown methods: `-32601`; a 2026-07-28
//!    request's headers and `_meta` are checked there: `-32020`, `-32022`, `-32602` with
//!    HTTP 400).
//!
//! A session ends on `DELETE` (answered 204), or after [`HttpOptions::idle_timeout`] with no
//! request and no call running; either way its conversation ends (background process
//! groups SIGKILLed and reaped) and its id then answers 404. Accepted sockets get
//! `TCP_NODELAY` (without it every other small response waited ~40 ms for a delayed ACK).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::OnceLock;
use std::time::Duration;

use http_body_util::BodyExt;
use http_body_util::Full;
use http_body_util::combinators::BoxBody;
use hyper::Method;
use hyper::Request;
use hyper::Response;
use hyper::StatusCode;
use hyper::body::Bytes;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use sha2::Digest;
use tokio::net::TcpListener;

use super::McpServer;
use super::McpSession;
use super::WeakMcpSession;

/// The path the MCP endpoint is served at.
pub const ENDPOINT: &str = "/mcp";

/// Host header values accepted without a flag.
pub const LOOPBACK_HOSTS: [&str; 4] = ["localhost", "127.0.0.1", "::1", "[::1]"];
/// Origins accepted without a flag.
pub const LOOPBACK_ORIGINS: [&str; 3] =
    ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// The most of an over-limit body read (and thrown away) so its sender can read the 413.
const DRAIN_CAP: u64 = 64 * 1024 * 1024;

/// The session header of streamable HTTP.
const SESSION_HEADER: &str = "mcp-session-id";

/// A bearer token, never shown: `Debug` prints `[redacted]`.
#[derive(Clone)]
pub struct BearerToken {
    digest: [u8; 32],
}

impl BearerToken {
    /// The token in `text` (surrounding whitespace, such as a file's final newline, is not
    /// part of it). `None` when nothing is left.
    pub fn new(text: &str) -> Option<BearerToken> {
        let token = text.trim();
        if token.is_empty() {
            return None;
        }
        Some(BearerToken {
            digest: sha256(token.as_bytes()),
        })
    }

    /// Whether an `Authorization` header value carries this token. Constant time in the
    /// token: both sides are hashed, and the digests are compared byte by byte without an
    /// early exit.
    pub fn accepts(&self, authorization: Option<&[u8]>) -> bool {
        let Some(value) = authorization else {
            return false;
        };
        let Some(offered) = value
            .strip_prefix(b"Bearer ")
            .or_else(|| value.strip_prefix(b"bearer "))
        else {
            return false;
        };
        let offered = sha256(offered.trim_ascii());
        offered
            .iter()
            .zip(self.digest.iter())
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
    }
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken([redacted])")
    }
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    sha2::Sha256::digest(bytes).into()
}

/// What the HTTP server accepts, and its limits.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Extra `Host` values (`name` or `name:port`).
    pub allow_hosts: Vec<String>,
    /// Extra origins (`scheme://host[:port|:*]`).
    pub allow_origins: Vec<String>,
    /// Required bearer token; `None`: no authentication (loopback only, see
    /// [`refuse_unauthenticated_bind`]).
    pub token: Option<BearerToken>,
    /// MCP sessions open at once; a new one beyond gets 503.
    pub max_sessions: usize,
    /// A session with no request and no running call for this long ends.
    pub idle_timeout: Duration,
}

impl HttpOptions {
    pub const DEFAULT_MAX_SESSIONS: usize = 64;
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            allow_hosts: Vec::new(),
            allow_origins: Vec::new(),
            token: None,
            max_sessions: Self::DEFAULT_MAX_SESSIONS,
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
        }
    }
}

/// Why `addr` may not be served: beyond loopback, anyone who reaches the port could run
/// shell commands, so a token is required there. `None` when serving is fine.
pub fn refuse_unauthenticated_bind(
    addr: SocketAddr,
    token: Option<&BearerToken>,
) -> Option<String> {
    if addr.ip().is_loopback() || token.is_some() {
        return None;
    }
    Some(format!(
        "refusing to serve MCP on {addr} without authentication: beyond loopback anyone who \
         reaches the port could run commands; give a bearer token (--token-file FILE, the \
         config key token_file or the environment variable TOOLSURFACE_TOKEN_FILE) or bind \
         127.0.0.1"
    ))
}

/// rmcp's server config for `options`: loopback hosts and origins plus the allowed extras,
/// origin validation always on.
pub fn config(options: &HttpOptions) -> StreamableHttpServerConfig {
    let hosts: Vec<String> = LOOPBACK_HOSTS
        .iter()
        .map(|h| (*h).to_owned())
        .chain(options.allow_hosts.iter().cloned())
        .collect();
    let origins: Vec<String> = LOOPBACK_ORIGINS
        .iter()
        .map(|o| (*o).to_owned())
        .chain(options.allow_origins.iter().cloned())
        .collect();
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
}

/// Put into a new session's request (through rmcp's `Parts` extension) so that the session
/// it creates can be found by its `Mcp-Session-Id` afterwards.
#[derive(Clone, Default)]
struct SessionTicket(Arc<OnceLock<WeakMcpSession>>);

/// Called by [`McpSession`]'s `initialize`: hand the session to the HTTP layer's ticket, if
/// the request came over HTTP.
pub(super) fn claim_ticket(extensions: &rmcp::model::Extensions, session: &McpSession) {
    let ticket = extensions
        .get::<hyper::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<SessionTicket>());
    if let Some(ticket) = ticket {
        let _ = ticket.0.set(session.downgrade());
    }
}

type Body = BoxBody<Bytes, std::convert::Infallible>;

/// The live sessions by `Mcp-Session-Id`.
#[derive(Default)]
struct Sessions(Mutex<HashMap<String, WeakMcpSession>>);

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, WeakMcpSession>> {
        // Single inserts and removes: a poisoned map is still a valid map.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn get(&self, id: &str) -> Option<McpSession> {
        self.lock().get(id).and_then(WeakMcpSession::upgrade)
    }
}

tokio::task_local! {
    /// Set by the gate around each request it hands rmcp: whether the request is an
    /// `initialize` (a new handshake-era session) rather than a stateless one.
    static OPENS_SESSION: bool;
}

/// The server's one stateless session (every 2026-07-28 request's, see the module docs of
/// [`super`]), opened at the first such request.
#[derive(Clone, Default)]
struct StatelessSlot(Arc<Mutex<Option<McpSession>>>);

impl StatelessSlot {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<McpSession>> {
        // Set once, taken once: a poisoned slot still holds a valid value.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The stateless session, opened now when this is the first stateless request.
    fn session(&self, server: &McpServer) -> Result<McpSession, toolsurface::host::HostError> {
        let mut slot = self.lock();
        if let Some(session) = slot.as_ref() {
            return Ok(session.clone());
        }
        let session = server.open_session()?;
        eprintln!(
            "toolsurface serve: conversation {} is the stateless one (MCP 2026-07-28 requests)",
            session.conversation().id()
        );
        *slot = Some(session.clone());
        Ok(session)
    }
}

/// Everything one request is checked and routed with.
struct Gate {
    server: McpServer,
    options: HttpOptions,
    sessions: Sessions,
    stateless: StatelessSlot,
    manager: Arc<LocalSessionManager>,
    rmcp: TowerToHyperService<StreamableHttpService<McpSession, LocalSessionManager>>,
}

fn text_response(status: StatusCode, text: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text + "\n")).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

impl Gate {
    async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        if let Some(token) = &self.options.token {
            let offered = request
                .headers()
                .get(hyper::header::AUTHORIZATION)
                .map(|v| v.as_bytes());
            if !token.accepts(offered) {
                let mut response = text_response(
                    StatusCode::UNAUTHORIZED,
                    "this MCP server requires authentication: send the configured token as \
                     `Authorization: Bearer <token>`"
                        .into(),
                );
                response.headers_mut().insert(
                    hyper::header::WWW_AUTHENTICATE,
                    hyper::header::HeaderValue::from_static("Bearer"),
                );
                return response;
            }
        }
        let session_id = request
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let (mut parts, body) = request.into_parts();
        let body = match self.read_body(&parts.headers, body).await {
            Ok(body) => body,
            Err(response) => return response,
        };
        if parts.method == Method::POST
            && let Some(answer) =
                super::stdio::refusal(&super::stdio::Line::Text(body.to_vec()), body.len())
        {
            let mut response = Response::new(Full::new(Bytes::from(answer)).boxed());
            *response.status_mut() = StatusCode::BAD_REQUEST;
            response.headers_mut().insert(
                hyper::header::CONTENT_TYPE,
                hyper::header::HeaderValue::from_static("application/json"),
            );
            return response;
        }
        let opens_session = parts.method == Method::POST && is_initialize(&body);
        let ticket = match (&session_id, opens_session) {
            (None, true) => {
                let live = self.server.live_sessions();
                if live >= self.options.max_sessions {
                    return text_response(
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!(
                            "this MCP server already serves {live} sessions, its limit; \
                             end one (HTTP DELETE) or try again later"
                        ),
                    );
                }
                Some(SessionTicket::default())
            }
            _ => None,
        };
        if let Some(ticket) = &ticket {
            parts.extensions.insert(ticket.clone());
        }
        if let Some(session) = session_id.as_deref().and_then(|id| self.sessions.get(id)) {
            session.touch();
        }
        let delete = parts.method == Method::DELETE;
        let request = Request::from_parts(parts, Full::new(body));
        let response = match OPENS_SESSION
            .scope(
                opens_session,
                hyper::service::Service::call(&self.rmcp, request),
            )
            .await
        {
            Ok(response) => response,
            Err(never) => match never {},
        };
        if let Some(ticket) = ticket {
            self.register(&ticket, &response);
        }
        if delete && response.status().is_success() {
            self.delete(session_id.as_deref());
        }
        session_deleted_status(delete, response)
    }

    /// The whole body, or the 413 answer once it is over the limit. A body over the limit
    /// is read on and thrown away (up to [`DRAIN_CAP`] bytes) so that the client, still
    /// sending, gets to read the answer; nothing of it is kept.
    async fn read_body(
        &self,
        headers: &hyper::HeaderMap,
        mut body: Incoming,
    ) -> Result<Bytes, Response<Body>> {
        let limit = self.server.limits().max_message_bytes;
        let too_large = |size: String| {
            text_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request body ({size}) is larger than this server's limit of {limit} \
                     bytes; it was not read"
                ),
            )
        };
        let declared = headers
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if let Some(n) = declared.filter(|n| *n > DRAIN_CAP) {
            return Err(too_large(format!("{n} bytes")));
        }
        let mut kept: Vec<u8> = Vec::new();
        let mut total: u64 = 0;
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| {
                text_response(
                    StatusCode::BAD_REQUEST,
                    format!("the request body could not be read: {e}"),
                )
            })?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            total += data.len() as u64;
            if total > limit as u64 {
                kept = Vec::new();
                if total > DRAIN_CAP {
                    return Err(too_large(format!("over {DRAIN_CAP} bytes")));
                }
            } else {
                kept.extend_from_slice(&data);
            }
        }
        if total > limit as u64 {
            return Err(too_large(format!("{total} bytes")));
        }
        Ok(Bytes::from(kept))
    }

    fn register(&self, ticket: &SessionTicket, response: &Response<Body>) {
        let id = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok());
        if let (Some(id), Some(session)) = (id, ticket.0.get()) {
            self.sessions.lock().insert(id.to_owned(), session.clone());
        }
    }

    fn delete(&self, session_id: Option<&str>) {
        let Some(id) = session_id else {
            return;
        };
        let removed = self.sessions.lock().remove(id);
        if let Some(session) = removed.as_ref().and_then(WeakMcpSession::upgrade) {
            session.end();
        }
    }

    /// End sessions idle for longer than the timeout: close them in rmcp (their id then
    /// answers 404) and end their conversations.
    async fn expire_idle(&self) {
        let expired: Vec<(String, Option<McpSession>)> = {
            let mut sessions = self.sessions.lock();
            let mut expired = Vec::new();
            sessions.retain(|id, weak| match weak.upgrade() {
                None => {
                    expired.push((id.clone(), None));
                    false
                }
                Some(session) if session.idle_for() >= self.options.idle_timeout => {
                    expired.push((id.clone(), Some(session)));
                    false
                }
                Some(_) => true,
            });
            expired
        };
        for (id, session) in expired {
            if let Some(session) = &session {
                eprintln!(
                    "toolsurface serve: session {} idle for {:.0} s; ending it",
                    session.conversation().id(),
                    session.idle_for().as_secs_f64()
                );
                session.end();
            }
            let id: rmcp::transport::common::server_side_http::SessionId = id.into();
            if let Err(e) = self.manager.close_session(&id).await {
                eprintln!("toolsurface serve: closing an idle session: {e}");
            }
        }
    }
}

/// How often idle sessions are looked for.
fn sweep_period(idle_timeout: Duration) -> Duration {
    (idle_timeout / 10).clamp(Duration::from_millis(100), Duration::from_secs(5))
}

/// Serve on `listener` until SIGINT / SIGTERM: every MCP session gets its own conversation
/// (see [`McpServer::open_session`]). Every connection is served on its own task; a
/// connection error is logged to stderr and ends that connection only.
pub async fn serve(
    server: McpServer,
    listener: TcpListener,
    options: &HttpOptions,
) -> anyhow::Result<()> {
    let factory = server.clone();
    let config = config(options);
    let stop = config.cancellation_token.clone();
    let mut manager = LocalSessionManager::default();
    // Idle sessions are ended by the sweeper below (which knows whether a call is running),
    // not by rmcp's keep-alive (which would end a session in the middle of a long call).
    manager.session_config.keep_alive = None;
    let manager = Arc::new(manager);
    let stateless = StatelessSlot::default();
    let slot = stateless.clone();
    let service = StreamableHttpService::new(
        move || {
            let opened = if OPENS_SESSION.try_with(|opens| *opens).unwrap_or(false) {
                factory.open_session()
            } else {
                slot.session(&factory)
            };
            opened.map_err(|e| std::io::Error::other(e.to_string()))
        },
        manager.clone(),
        config,
    );
    let gate = Arc::new(Gate {
        server,
        options: options.clone(),
        sessions: Sessions::default(),
        stateless,
        manager,
        rmcp: TowerToHyperService::new(service),
    });
    let sweeper = {
        let gate = Arc::downgrade(&gate);
        let period = sweep_period(options.idle_timeout);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(period).await;
                let Some(gate) = gate.upgrade() else {
                    break;
                };
                gate.expire_idle().await;
            }
        })
    };
    let shutdown = super::shutdown_signal();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            signal = &mut shutdown => {
                eprintln!("toolsurface serve: {signal}; shutting down");
                stop.cancel();
                sweeper.abort();
                end_every_session(&gate);
                return Ok(());
            }
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("toolsurface serve: accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        if let Err(e) = stream.set_nodelay(true) {
            eprintln!("toolsurface serve: TCP_NODELAY on the connection from {peer}: {e}");
        }
        let gate = gate.clone();
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let gate = gate.clone();
            async move { Ok::<_, std::convert::Infallible>(gate.handle(request).await) }
        });
        tokio::spawn(async move {
            let served = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(e) = served {
                log_connection_error(peer, &e);
            }
        });
    }
}

/// At shutdown: every session's processes go with the server.
fn end_every_session(gate: &Gate) {
    let sessions: Vec<WeakMcpSession> = gate.sessions.lock().drain().map(|(_, s)| s).collect();
    for session in sessions.iter().filter_map(WeakMcpSession::upgrade) {
        session.end();
    }
    if let Some(stateless) = gate.stateless.lock().take() {
        stateless.end();
    }
}

/// Whether `body` is an `initialize` request: the one request that opens a handshake-era
/// session (rmcp routes it so whatever version it names). Anything else the factory is
/// asked for a handler for is served statelessly.
fn is_initialize(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .is_some_and(|v| v.get("method").and_then(|m| m.as_str()) == Some("initialize"))
}

/// rmcp answers a session `DELETE` with 202 Accepted; MCP clients (the Python SDK among
/// them) expect 200 or 204 for a terminated session, so it becomes 204 No Content.
fn session_deleted_status<B>(delete: bool, mut response: Response<B>) -> Response<B> {
    if delete && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}

fn log_connection_error(peer: SocketAddr, e: &hyper::Error) {
    if !e.is_incomplete_message() {
        eprintln!("toolsurface serve: connection from {peer}: {e}");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_token_is_compared_whole_and_never_shown() {
        let token = BearerToken::new("s3cret-token\n").unwrap();
        assert!(token.accepts(Some(b"Bearer s3cret-token")));
        assert!(!token.accepts(Some(b"Bearer s3cret-toke")));
        assert!(!token.accepts(Some(b"Bearer s3cret-token-and-more")));
        assert!(!token.accepts(Some(b"Basic s3cret-token")));
        assert!(!token.accepts(None));
        assert!(!format!("{token:?}").contains("s3cret"));
        assert!(BearerToken::new(" \n").is_none());
    }

    #[test]
    fn binding_beyond_loopback_needs_a_token() {
        let any: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        let lo: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let why = refuse_unauthenticated_bind(any, None).unwrap();
        assert!(why.contains("without authentication"), "{why}");
        assert!(refuse_unauthenticated_bind(lo, None).is_none());
        let token = BearerToken::new("t").unwrap();
        assert!(refuse_unauthenticated_bind(any, Some(&token)).is_none());
    }

    #[test]
    fn only_initialize_opens_a_session() {
        assert!(is_initialize(
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#
        ));
        assert!(!is_initialize(
            br#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#
        ));
        assert!(!is_initialize(
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#
        ));
        assert!(!is_initialize(b"not json"));
    }

    #[test]
    fn a_deleted_session_answers_204() {
        let accepted = || {
            Response::builder()
                .status(StatusCode::ACCEPTED)
                .body(())
                .unwrap_or_default()
        };
        assert_eq!(
            session_deleted_status(true, accepted()).status(),
            StatusCode::NO_CONTENT
        );
        assert_eq!(
            session_deleted_status(false, accepted()).status(),
            StatusCode::ACCEPTED
        );
    }

    #[test]
    fn origin_validation_is_on_and_loopback_only_by_default() {
        let c = config(&HttpOptions::default());
        assert_eq!(c.allowed_hosts, LOOPBACK_HOSTS.map(String::from).to_vec());
        assert_eq!(
            c.allowed_origins,
            LOOPBACK_ORIGINS.map(String::from).to_vec()
        );
        let c = config(&HttpOptions {
            allow_hosts: vec!["box.example".into()],
            allow_origins: vec!["https://app.example:443".into()],
            ..HttpOptions::default()
        });
        assert!(c.allowed_hosts.iter().any(|h| h == "box.example"));
        assert!(
            c.allowed_origins
                .iter()
                .any(|o| o == "https://app.example:443")
        );
    }
}
