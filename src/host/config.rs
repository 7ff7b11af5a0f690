//! What a [`super::StandardHost`] is built from: the runtime's own [`RuntimeConfig`] (hosts,
//! binding, role, family, stores, limits, ssh config, LLM providers — not duplicated here)
//! plus what only the facade decides: where default stores live, the conversation id file
//! reads are remembered under and the shell family's limits.

use std::fmt;
use std::path::Path;
use std::path::PathBuf;

use toolsurface_runtime::core::ConfigError;
use toolsurface_runtime::core::LlmProviderConfig;
use toolsurface_runtime::core::RuntimeConfig;
use toolsurface_runtime::shell::ShellConfig;

/// The folder, under the bound host's root, default stores go to (the CLI's `messages` and
/// `facts` commands use the same one under the current directory).
pub const DEFAULT_STATE_DIR: &str = ".toolsurface";
/// File names of the default stores inside the state folder (as the CLI names them).
pub const MESSAGES_DB: &str = "messages.sqlite3";
pub const FACTS_DB: &str = "facts.sqlite3";
/// Staged writes (unread files, permission failures) go here inside the state folder.
pub const STAGING_DIR: &str = "staged";
/// The conversation id used when none is configured.
pub const DEFAULT_CONVERSATION: &str = "default";

/// Configuration of a [`super::StandardHost`].
#[derive(Clone, Debug)]
pub struct HostConfig {
    /// Hosts (name → root), the bound host, role, family, declared workdirs, store paths
    /// (`stores.messages`, `stores.memory`, `stores.staging`), limits, `ssh_config` (passed
    /// to ssh as `-F`) and the LLM providers `introspect` reports.
    pub runtime: RuntimeConfig,
    /// Where stores without an explicit path live: `messages.sqlite3`, `facts.sqlite3`,
    /// `staged/`. `None`: `<bound host root>/.toolsurface`.
    pub state_dir: Option<PathBuf>,
    /// The default conversation's id, and the prefix of every conversation opened with
    /// `StandardHost::open_conversation` (`<id>-<n>`): file reads are remembered per
    /// conversation, so a write_file after read_file replaces the file instead of staging it.
    pub conversation: String,
    /// Limits of the shell family (sessions per host, buffer size, kill grace, …).
    pub shell: ShellConfig,
    /// The `ssh` program remote files use.
    pub ssh_program: PathBuf,
    /// The sandbox section: ceiling, enforcement, workdir bounds, extra writable roots
    /// (it only tightens the role's policy; see [`super::sandbox`]).
    pub sandbox: super::SandboxConfig,
}

impl HostConfig {
    /// A host config over `runtime`, with every default.
    pub fn new(runtime: RuntimeConfig) -> Self {
        HostConfig {
            runtime,
            state_dir: None,
            conversation: DEFAULT_CONVERSATION.to_owned(),
            shell: ShellConfig::default(),
            ssh_program: PathBuf::from("ssh"),
            sandbox: super::SandboxConfig::default(),
        }
    }

    /// One host named `host` rooted at `root`, bound to it, publishing `role` × `family`.
    pub fn single_host(
        host: impl Into<String>,
        root: impl Into<PathBuf>,
        role: crate::standard::Role,
        family: crate::standard::Family,
    ) -> Self {
        HostConfig::new(RuntimeConfig::single_host(
            host,
            root,
            role.as_str(),
            family.as_str(),
        ))
    }

    /// Add (or replace) a host.
    pub fn with_host(mut self, name: impl Into<String>, root: impl Into<PathBuf>) -> Self {
        self.runtime.hosts.insert(
            name.into(),
            toolsurface_runtime::core::HostConfig::new(root),
        );
        self
    }

    /// Keep default stores in `dir` instead of `<bound host root>/.toolsurface`.
    pub fn with_state_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.state_dir = Some(dir.into());
        self
    }

    pub fn with_conversation(mut self, conversation: impl Into<String>) -> Self {
        self.conversation = conversation.into();
        self
    }

    /// The OpenSSH config remote files use (`ssh -F FILE`); keys come only from it.
    pub fn with_ssh_config(mut self, path: impl Into<PathBuf>) -> Self {
        self.runtime.ssh_config = Some(path.into());
        self
    }

    /// A provider `introspect llm` reports (secrets redacted).
    pub fn with_llm(mut self, provider: LlmProviderConfig) -> Self {
        self.runtime.llm.push(provider);
        self
    }

    /// The state folder in effect.
    pub fn resolved_state_dir(&self) -> PathBuf {
        match &self.state_dir {
            Some(dir) => dir.clone(),
            None => self
                .runtime
                .hosts
                .get(&self.runtime.bound_host)
                .map(|h| h.root.join(DEFAULT_STATE_DIR))
                .unwrap_or_else(|| PathBuf::from(DEFAULT_STATE_DIR)),
        }
    }

    /// The messages store path in effect.
    pub fn messages_path(&self) -> PathBuf {
        self.store_path(self.runtime.stores.messages.as_deref(), MESSAGES_DB)
    }

    /// The facts store path in effect.
    pub fn facts_path(&self) -> PathBuf {
        self.store_path(self.runtime.stores.memory.as_deref(), FACTS_DB)
    }

    /// The staging folder in effect.
    pub fn staging_path(&self) -> PathBuf {
        self.store_path(self.runtime.stores.staging.as_deref(), STAGING_DIR)
    }

    fn store_path(&self, configured: Option<&Path>, default: &str) -> PathBuf {
        configured
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.resolved_state_dir().join(default))
    }
}

/// Why a [`super::StandardHost`] could not be built.
#[derive(Debug)]
pub enum HostError {
    /// The runtime refused the config (every problem listed, a role or family the
    /// standard surface does not have included).
    Config(ConfigError),
    /// A store or folder could not be opened or created.
    Store { what: &'static str, message: String },
    /// The file family of a host could not be set up.
    Files { host: String, message: String },
    /// Declaring the configured workdirs failed.
    Workdirs(String),
    /// The role's sandbox cannot be enforced and enforcement is required.
    Sandbox(String),
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::Config(e) => write!(f, "{e}"),
            HostError::Store { what, message } => write!(f, "{what}: {message}"),
            HostError::Files { host, message } => write!(f, "host {host}: {message}"),
            HostError::Workdirs(m) => write!(f, "configured workdirs: {m}"),
            HostError::Sandbox(m) => write!(f, "sandbox: {m}"),
        }
    }
}

impl std::error::Error for HostError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HostError::Config(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ConfigError> for HostError {
    fn from(e: ConfigError) -> Self {
        HostError::Config(e)
    }
}
