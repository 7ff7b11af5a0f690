//! Streamable HTTP: rmcp's `StreamableHttpService` (stateful sessions, one [`McpServer`]
//! clone per session, all serving the same host) behind a hyper HTTP/1.1 accept loop.
//!
//! DNS-rebinding defence: the `Host` header must name a loopback host (`localhost`,
//! `127.0.0.1`, `[::1]`, any port) unless more are allowed; a request carrying an `Origin`
//! must come from a loopback origin (`http://localhost:*`, `http://127.0.0.1:*`,
//! `http://[::1]:*`) unless more are allowed. Refusals are answered by rmcp (HTTP 403).

use std::net::SocketAddr;
use std::sync::Arc;

use hyper::Method;
use hyper::Request;
use hyper::Response;
use hyper::StatusCode;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::net::TcpListener;

use super::McpServer;

/// The path the MCP endpoint is served at.
pub const ENDPOINT: &str = "/mcp";

/// Host header values accepted without a flag.
pub const LOOPBACK_HOSTS: [&str; 4] = ["localhost", "127.0.0.1", "::1", "[::1]"];
/// Origins accepted without a flag.
pub const LOOPBACK_ORIGINS: [&str; 3] =
    ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// What the HTTP server accepts beyond loopback.
#[derive(Clone, Debug, Default)]
pub struct HttpOptions {
    /// Extra `Host` values (`name` or `name:port`).
    pub allow_hosts: Vec<String>,
    /// Extra origins (`scheme://host[:port|:*]`).
    pub allow_origins: Vec<String>,
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

/// Serve `server` on `listener` until SIGINT / SIGTERM. Every connection is served on its
/// own task; a connection error is logged to stderr and ends that connection only.
pub async fn serve(
    server: McpServer,
    listener: TcpListener,
    options: &HttpOptions,
) -> anyhow::Result<()> {
    server.spawn_wake_forwarder();
    let factory = server.clone();
    let config = config(options);
    let stop = config.cancellation_token.clone();
    let service = StreamableHttpService::new(
        move || Ok(factory.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let shutdown = super::shutdown_signal();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            signal = &mut shutdown => {
                eprintln!("toolsurface serve: {signal}; shutting down");
                stop.cancel();
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
        let tower = TowerToHyperService::new(service.clone());
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let delete = request.method() == Method::DELETE;
            let response = hyper::service::Service::call(&tower, request);
            async move { response.await.map(|r| session_deleted_status(delete, r)) }
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
    use super::*;

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
        });
        assert!(c.allowed_hosts.iter().any(|h| h == "box.example"));
        assert!(
            c.allowed_origins
                .iter()
                .any(|o| o == "https://app.example:443")
        );
    }
}
