//! `toolsurface serve`: serve one role × family of the standard surface over MCP — stdio by
//! default, streamable HTTP with `--http ADDR` (see [`crate::mcp`]). Logs go to stderr only:
//! on stdio, stdout is the protocol.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

use toolsurface_runtime::core::RuntimeConfig;

use super::Status;
use crate::mcp;
use toolsurface::host::HostConfig;
use toolsurface::host::StandardHost;
use toolsurface::standard::Family;
use toolsurface::standard::Role;

/// The host name used when neither a config file nor flags name one.
pub const DEFAULT_HOST: &str = "local";

#[derive(clap::Args, Debug)]
#[command(after_help = "\
Config file (YAML or JSON; every key optional): the runtime config — hosts ({name: {root,
description?}}), bound_host, workdirs, stores ({messages, memory, staging}), limits,
ssh_config, llm (providers introspect reports, secrets redacted) — plus state_dir,
conversation, mcp (token_file and the limits below) and sandbox (ceiling, network,
devices, enforcement, workdir_bounds, extra_write, protect: it only tightens the role's
policy; see README \"Sandbox\"). Flags override the file. Without hosts, one host `local` rooted
at --workdir (default: the current directory); with hosts, --workdir sets the bound host's
root.

Over HTTP the endpoint is http://ADDR/mcp; the bound address is printed on stderr as
`listening on http://HOST:PORT/mcp` (use port 0 for a free one). Only loopback Host and
Origin values are accepted unless --allow-host / --allow-origin add more.

Every MCP session (the stdio connection; each HTTP Mcp-Session-Id) is a conversation of its
own: its background sessions, file reads, staged writes, skills and wake-ups are its own;
the stores and the config are shared. It ends on stdio close, HTTP DELETE or the idle
timeout, and its background processes are killed then.

Authentication (HTTP): with a token file (--token-file, else $TOOLSURFACE_TOKEN_FILE, else
the config key mcp.token_file) every request needs `Authorization: Bearer <token>`
(otherwise 401). Binding beyond loopback without a token is refused (exit 2).

Limits (flag / config key under `mcp:`, default, what answers beyond it):
  --max-sessions / max_sessions                 64    MCP sessions at once over HTTP (503)
  --max-message-bytes / max_message_bytes  4194304    an HTTP body (413) or a stdio line
                                                      (a JSON-RPC error)
  --max-calls-per-session / max_calls_per_session
                                                16    calls running in one session (isError)
  --max-background-sessions / max_background_sessions
                                                64    shell sessions per conversation and
                                                      host (isError when all are running)
  --idle-timeout-s / idle_timeout_s           1800    an idle HTTP session ends

Examples:
  toolsurface serve --role main --workdir .
  toolsurface serve --role main --http 8765
  toolsurface serve --role main --http 0.0.0.0:8765 --token-file ~/.config/toolsurface/token \\
      --allow-host box.example --idle-timeout-s 600")]
pub struct Args {
    /// Role to serve (side_chat, main, steward, maintainer).
    #[arg(long)]
    pub role: String,
    /// Family whose tools are served (rendered in the mcp dialect).
    #[arg(long, default_value = "chat")]
    pub family: String,
    /// Root of the served host (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
    /// Runtime config file (YAML or JSON).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// OpenSSH config for remote files (`ssh -F FILE`).
    #[arg(long, value_name = "FILE")]
    pub ssh_config: Option<PathBuf>,
    /// Serve streamable HTTP on this address instead of stdio: HOST:PORT, or a bare PORT
    /// (on 127.0.0.1).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Also accept this Host header value over HTTP (repeatable).
    #[arg(long, value_name = "HOST", requires = "http")]
    pub allow_host: Vec<String>,
    /// Also accept requests from this browser Origin over HTTP (repeatable).
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    pub allow_origin: Vec<String>,
    /// Require `Authorization: Bearer <the file's content>` over HTTP (also
    /// $TOOLSURFACE_TOKEN_FILE or the config key mcp.token_file).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// MCP sessions served at once over HTTP [default: 64].
    #[arg(long, value_name = "N")]
    pub max_sessions: Option<usize>,
    /// Largest message in bytes: an HTTP request body or a stdio line [default: 4194304].
    #[arg(long, value_name = "BYTES")]
    pub max_message_bytes: Option<usize>,
    /// Seconds an HTTP session may stay idle (no request, no running call) [default: 1800].
    #[arg(long, value_name = "SECONDS")]
    pub idle_timeout_s: Option<f64>,
    /// Calls one MCP session may have running at once [default: 16].
    #[arg(long, value_name = "N")]
    pub max_calls_per_session: Option<usize>,
    /// Shell sessions per conversation and host [default: 64].
    #[arg(long, value_name = "N")]
    pub max_background_sessions: Option<usize>,
    /// Sandbox profile: `read-only` or `workspace-write` tighten the role's (a ceiling);
    /// `full` is the one way past the role's policy and the host config's ceiling
    /// (logged).
    #[arg(long, value_name = "PROFILE")]
    pub sandbox: Option<String>,
}

/// The facade-only keys a config file may carry besides the runtime config's.
const FACADE_KEYS: [&str; 4] = ["state_dir", "conversation", "mcp", "sandbox"];

/// The environment variable naming the token file.
pub const TOKEN_FILE_ENV: &str = "TOOLSURFACE_TOKEN_FILE";

/// The config file's `mcp:` section (every key optional; flags win).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct McpKeys {
    token_file: Option<PathBuf>,
    max_sessions: Option<usize>,
    max_message_bytes: Option<usize>,
    idle_timeout_s: Option<f64>,
    max_calls_per_session: Option<usize>,
    max_background_sessions: Option<usize>,
}

/// What `serve` runs with besides the host config.
#[derive(Debug)]
pub struct ServeSettings {
    pub http: mcp::http::HttpOptions,
    pub limits: mcp::McpLimits,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let (config, settings) = match settings(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Status::Usage);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let status = runtime.block_on(async move {
        let host = match StandardHost::new(config) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(Status::Usage);
            }
        };
        let server = mcp::McpServer::with_limits(host, settings.limits);
        let tools = server.tools().map_err(|e| anyhow::anyhow!(e))?;
        let host = server.host();
        let bound = host.runtime().bound_host();
        let root = host
            .runtime()
            .host_root(&bound)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        eprintln!(
            "toolsurface serve: {} × {} ({} tools), host {bound} at {root}",
            host.role(),
            host.family(),
            tools.len()
        );
        log_sandbox(host, args.sandbox.as_deref() == Some("full"));
        match &args.http {
            None => {
                eprintln!("toolsurface serve: MCP on stdio");
                mcp::serve_stdio(server).await?;
            }
            Some(addr) => {
                let addr = http_addr(addr);
                let listener = tokio::net::TcpListener::bind(addr.as_str())
                    .await
                    .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
                let local = listener.local_addr()?;
                if let Some(why) =
                    mcp::http::refuse_unauthenticated_bind(local, settings.http.token.as_ref())
                {
                    eprintln!("error: {why}");
                    return Ok(Status::Usage);
                }
                if !local.ip().is_loopback() && args.allow_host.is_empty() {
                    eprintln!(
                        "toolsurface serve: warning: listening on {} but only loopback Host \
                         headers are accepted; add --allow-host NAME for the names clients use",
                        local.ip()
                    );
                }
                eprintln!(
                    "toolsurface serve: listening on http://{local}{}",
                    mcp::http::ENDPOINT
                );
                mcp::http::serve(server, listener, &settings.http).await?;
            }
        }
        Ok(Status::Clean)
    });
    // Background sessions die with the host; reader threads get a moment, not forever.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    status
}

/// The sandbox line of the startup log: the policy in one sentence, the override, and a
/// warning when the shell runs unconfined (enforcement warn on a kernel that cannot).
fn log_sandbox(host: &StandardHost, full_override: bool) {
    let policy = host.sandbox_policy();
    eprintln!(
        "toolsurface serve: {}{}",
        policy.sentence(),
        if full_override {
            " (--sandbox full: the role's policy and the host's ceiling are overridden)"
        } else {
            ""
        }
    );
    let status = toolsurface_runtime::sandbox::kernel_status(None);
    if let (true, Some(problem)) = (policy.is_confined(), status.problem) {
        eprintln!(
            "toolsurface serve: warning: shell commands run UNCONFINED ({problem}); \
             enforcement is warn — set sandbox.enforcement: required to refuse instead"
        );
    }
}

/// The host config: the config file (if any), then the flags over it.
pub fn host_config(args: &Args) -> Result<HostConfig, String> {
    settings(args).map(|(config, _)| config)
}

/// The host config and the serving settings: the config file (if any), then the
/// environment, then the flags.
pub fn settings(args: &Args) -> Result<(HostConfig, ServeSettings), String> {
    let role = args
        .role
        .parse::<Role>()
        .map_err(|_| unknown("role", &args.role, Role::ALL.map(|r| r.as_str())))?;
    let family = args
        .family
        .parse::<Family>()
        .map_err(|_| unknown("family", &args.family, Family::ALL.map(|f| f.as_str())))?;
    let mut file = match &args.config {
        Some(path) => read_config(path)?,
        None => serde_json::Map::new(),
    };
    let facade: BTreeMap<&str, serde_json::Value> = FACADE_KEYS
        .iter()
        .filter_map(|k| file.remove(*k).map(|v| (*k, v)))
        .collect();
    file.insert("role".into(), role.as_str().into());
    file.insert("family".into(), family.as_str().into());
    let has_hosts = file
        .get("hosts")
        .and_then(|h| h.as_object())
        .is_some_and(|h| !h.is_empty());
    if !has_hosts || args.workdir.is_some() {
        let root = match &args.workdir {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().map_err(|e| format!("current directory: {e}"))?,
        };
        let root = std::fs::canonicalize(&root)
            .map_err(|e| format!("--workdir {}: {e}", root.display()))?;
        let name = file
            .get("bound_host")
            .and_then(|b| b.as_str())
            .unwrap_or(DEFAULT_HOST)
            .to_owned();
        let hosts = file
            .entry("hosts")
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
        if let Some(hosts) = hosts.as_object_mut() {
            hosts.insert(name.clone(), serde_json::json!({ "root": root }));
        }
        file.entry("bound_host").or_insert(name.into());
    }
    if !file.contains_key("bound_host")
        && let Some(only) = file
            .get("hosts")
            .and_then(|h| h.as_object())
            .filter(|h| h.len() == 1)
            .and_then(|h| h.keys().next().cloned())
    {
        file.insert("bound_host".into(), only.into());
    }
    if let Some(ssh) = &args.ssh_config {
        file.insert("ssh_config".into(), ssh.display().to_string().into());
    }
    let runtime: RuntimeConfig =
        serde_json::from_value(serde_json::Value::Object(file)).map_err(|e| {
            match &args.config {
                Some(p) => format!("config {}: {e}", p.display()),
                None => e.to_string(),
            }
        })?;
    let mut config = HostConfig::new(runtime);
    let text = |key: &str| -> Result<Option<String>, String> {
        match facade.get(key) {
            None => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!("config key {key}: expected a string, got {other}")),
        }
    };
    if let Some(dir) = text("state_dir")? {
        config = config.with_state_dir(dir);
    }
    if let Some(conversation) = text("conversation")? {
        config = config.with_conversation(conversation);
    }
    let keys: McpKeys = match facade.get("mcp") {
        None => McpKeys::default(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| format!("config key mcp: {e}"))?,
    };
    if let Some(n) = args
        .max_background_sessions
        .or(keys.max_background_sessions)
    {
        config.shell.max_sessions = positive("max_background_sessions", n)?;
    }
    config.sandbox = sandbox_config(args, facade.get("sandbox"))?;
    let serving = serve_settings(args, keys)?;
    Ok((config, serving))
}

/// The config's `sandbox:` section with `--sandbox` over it; `serve --http` on a
/// non-loopback address requires enforcement unless the section says otherwise.
fn sandbox_config(
    args: &Args,
    section: Option<&serde_json::Value>,
) -> Result<toolsurface::host::SandboxConfig, String> {
    use toolsurface_runtime::sandbox::{Enforcement, Profile};
    let mut sandbox: toolsurface::host::SandboxConfig = match section {
        None => Default::default(),
        Some(v) => {
            serde_json::from_value(v.clone()).map_err(|e| format!("config key sandbox: {e}"))?
        }
    };
    match args.sandbox.as_deref().map(Profile::parse).transpose()? {
        Some(Profile::Full) => sandbox.full_override = true,
        Some(p) => sandbox.ceiling = Some(sandbox.ceiling.map_or(p, |c| c.min(p))),
        None => {}
    }
    let remote = args.http.as_deref().is_some_and(|a| {
        http_addr(a)
            .parse::<std::net::SocketAddr>()
            .map_or(true, |s| !s.ip().is_loopback())
    });
    if remote && sandbox.enforcement.is_none() {
        sandbox.enforcement = Some(Enforcement::Required);
    }
    Ok(sandbox)
}

fn positive(what: &str, n: usize) -> Result<usize, String> {
    if n == 0 {
        Err(format!("{what} must be at least 1"))
    } else {
        Ok(n)
    }
}

/// Limits and authentication: flag, else environment (token file only), else config key,
/// else the default.
fn serve_settings(args: &Args, keys: McpKeys) -> Result<ServeSettings, String> {
    let defaults = mcp::http::HttpOptions::default();
    let token_file = args
        .token_file
        .clone()
        .or_else(|| std::env::var_os(TOKEN_FILE_ENV).map(PathBuf::from))
        .or(keys.token_file);
    let token = match token_file {
        None => None,
        Some(path) => Some(read_token(&path)?),
    };
    let idle = args.idle_timeout_s.or(keys.idle_timeout_s);
    let idle_timeout = match idle {
        None => defaults.idle_timeout,
        Some(s) if s.is_finite() && s > 0.0 => std::time::Duration::from_secs_f64(s),
        Some(s) => return Err(format!("idle_timeout_s must be a positive number, got {s}")),
    };
    let http = mcp::http::HttpOptions {
        allow_hosts: args.allow_host.clone(),
        allow_origins: args.allow_origin.clone(),
        token,
        max_sessions: positive(
            "max_sessions",
            args.max_sessions
                .or(keys.max_sessions)
                .unwrap_or(defaults.max_sessions),
        )?,
        idle_timeout,
    };
    let limits = mcp::McpLimits {
        max_calls_per_session: positive(
            "max_calls_per_session",
            args.max_calls_per_session
                .or(keys.max_calls_per_session)
                .unwrap_or(mcp::McpLimits::DEFAULT_MAX_CALLS_PER_SESSION),
        )?,
        max_message_bytes: positive(
            "max_message_bytes",
            args.max_message_bytes
                .or(keys.max_message_bytes)
                .unwrap_or(mcp::McpLimits::DEFAULT_MAX_MESSAGE_BYTES),
        )?,
    };
    Ok(ServeSettings { http, limits })
}

/// The bearer token in `path`. Errors name the file, never its content.
fn read_token(path: &Path) -> Result<mcp::http::BearerToken, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("token file {}: {e}", path.display()))?;
    mcp::http::BearerToken::new(&text)
        .ok_or_else(|| format!("token file {} is empty", path.display()))
}

/// `--http` value as a bind address: a bare port means loopback.
pub fn http_addr(addr: &str) -> String {
    match addr.parse::<u16>() {
        Ok(port) => format!("127.0.0.1:{port}"),
        Err(_) => addr.to_owned(),
    }
}

fn unknown<const N: usize>(what: &str, got: &str, all: [&str; N]) -> String {
    super::unknown_name(what, got, all)
}

/// A YAML or JSON config file as a JSON object.
fn read_config(path: &Path) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("config {}: {e}", path.display()))?;
    let value: serde_json::Value = if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(&text).map_err(|e| format!("config {}: {e}", path.display()))?
    } else {
        serde_saphyr::from_str(&text).map_err(|e| format!("config {}: {e}", path.display()))?
    };
    match value {
        serde_json::Value::Object(map) => Ok(map),
        serde_json::Value::Null => Ok(serde_json::Map::new()),
        other => Err(format!(
            "config {}: expected a mapping at the top, got {other}",
            path.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn args(role: &str) -> Args {
        Args {
            role: role.into(),
            family: "chat".into(),
            workdir: None,
            config: None,
            ssh_config: None,
            http: None,
            allow_host: vec![],
            allow_origin: vec![],
            token_file: None,
            max_sessions: None,
            max_message_bytes: None,
            idle_timeout_s: None,
            max_calls_per_session: None,
            max_background_sessions: None,
            sandbox: None,
        }
    }

    #[test]
    fn a_bare_port_binds_loopback() {
        assert_eq!(http_addr("8765"), "127.0.0.1:8765");
        assert_eq!(http_addr("[::1]:0"), "[::1]:0");
        assert_eq!(http_addr("0.0.0.0:80"), "0.0.0.0:80");
    }

    #[test]
    fn flags_alone_give_one_local_host() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = args("side_chat");
        a.workdir = Some(dir.path().to_path_buf());
        let c = host_config(&a).unwrap();
        assert_eq!(c.runtime.bound_host, DEFAULT_HOST);
        assert_eq!(c.runtime.role, "side_chat");
        assert_eq!(c.runtime.family, "chat");
        assert_eq!(
            c.runtime.hosts[DEFAULT_HOST].root,
            std::fs::canonicalize(dir.path()).unwrap()
        );
    }

    #[test]
    fn a_yaml_config_is_read_and_flags_win() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("serve.yaml");
        std::fs::write(
            &file,
            format!(
                "hosts:\n  box:\n    root: {}\nrole: main\nconversation: c1\nllm:\n  - name: \
                 openai\n    base_url: https://api.example\n    api_key: sk-secret\n",
                dir.path().display()
            ),
        )
        .unwrap();
        let mut a = args("side_chat");
        a.config = Some(file);
        let c = host_config(&a).unwrap();
        assert_eq!(c.runtime.role, "side_chat");
        assert_eq!(c.runtime.bound_host, "box");
        assert_eq!(c.conversation, "c1");
        assert_eq!(c.runtime.llm.len(), 1);
    }

    #[test]
    fn limits_come_from_flags_over_the_config_over_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("serve.yaml");
        std::fs::write(
            &file,
            "mcp:\n  max_sessions: 3\n  max_calls_per_session: 2\n  idle_timeout_s: 9\n  \
             max_background_sessions: 5\n",
        )
        .unwrap();
        let mut a = args("main");
        a.workdir = Some(dir.path().to_path_buf());
        let (config, defaults) = settings(&a).unwrap();
        assert_eq!(defaults.http.max_sessions, 64);
        assert_eq!(defaults.limits, mcp::McpLimits::default());
        assert_eq!(
            defaults.http.idle_timeout,
            std::time::Duration::from_secs(1800)
        );
        assert_eq!(config.shell.max_sessions, 64);
        a.config = Some(file);
        a.max_sessions = Some(4);
        let (config, set) = settings(&a).unwrap();
        assert_eq!(set.http.max_sessions, 4, "the flag wins");
        assert_eq!(set.limits.max_calls_per_session, 2);
        assert_eq!(set.http.idle_timeout, std::time::Duration::from_secs(9));
        assert_eq!(config.shell.max_sessions, 5);
        a.max_calls_per_session = Some(0);
        assert!(settings(&a).unwrap_err().contains("at least 1"));
    }

    #[test]
    fn an_unknown_mcp_key_and_an_empty_token_file_are_usage_errors() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("serve.yaml");
        std::fs::write(&file, "mcp:\n  max_sesions: 3\n").unwrap();
        let mut a = args("main");
        a.workdir = Some(dir.path().to_path_buf());
        a.config = Some(file);
        assert!(settings(&a).unwrap_err().contains("max_sesions"));
        let token = dir.path().join("token");
        std::fs::write(&token, "\n").unwrap();
        let mut a = args("main");
        a.workdir = Some(dir.path().to_path_buf());
        a.token_file = Some(token);
        assert!(settings(&a).unwrap_err().contains("is empty"));
    }

    #[test]
    fn sandbox_flags_and_section() {
        use toolsurface_runtime::sandbox::{Enforcement, Profile};
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("serve.yaml");
        std::fs::write(
            &file,
            "sandbox:\n  ceiling: workspace-write\n  workdir_bounds: [/srv]\n",
        )
        .unwrap();
        let mut a = args("main");
        a.workdir = Some(dir.path().to_path_buf());
        a.config = Some(file);
        let c = host_config(&a).unwrap();
        assert_eq!(c.sandbox.ceiling, Some(Profile::WorkspaceWrite));
        assert_eq!(c.sandbox.enforcement, None, "stdio: the default (warn)");
        a.sandbox = Some("read-only".into());
        assert_eq!(
            host_config(&a).unwrap().sandbox.ceiling,
            Some(Profile::ReadOnly)
        );
        a.sandbox = Some("full".into());
        assert!(host_config(&a).unwrap().sandbox.full_override);
        a.sandbox = Some("open".into());
        assert!(host_config(&a).unwrap_err().contains("workspace-write"));
        a.sandbox = None;
        a.http = Some("0.0.0.0:0".into());
        assert_eq!(
            host_config(&a).unwrap().sandbox.enforcement,
            Some(Enforcement::Required)
        );
        a.http = Some("8765".into());
        assert_eq!(host_config(&a).unwrap().sandbox.enforcement, None);
    }

    #[test]
    fn unknown_roles_and_keys_are_usage_errors() {
        assert!(
            host_config(&args("nobody"))
                .unwrap_err()
                .contains("unknown role")
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("serve.json");
        std::fs::write(&file, r#"{"hostz": {}}"#).unwrap();
        let mut a = args("main");
        a.config = Some(file);
        a.workdir = Some(dir.path().to_path_buf());
        assert!(host_config(&a).unwrap_err().contains("hostz"));
    }
}
