//! A ready host for the standard surface: [`StandardHost`] wires the runtime core to every
//! tool family, so that what `tool-defs/` publishes is exactly what runs.
//!
//! ```text
//! let host = StandardHost::new(HostConfig::single_host("box", "/srv/app", Role::Main, Family::Chat))?;
//! let turn = Turn::normal();
//! let array = host.surface(&turn)?;                  // the bytes to send with the request
//! let results = host.handle_batch(model_calls, &turn).await?;   // one result per call, in order
//! let mut wakes = host.take_wake_receiver();          // monitors' and sessions' wake-ups
//! ```
//!
//! What it owns: the [`Runtime`] (scheduling, routing, interrupts, rehearsal, skills,
//! introspection) over a [`StandardCatalog`]; per configured host a [`Machine`]: a
//! [`ShellHost`] sharing the runtime's session registry and wake channel, a [`FileHost`]
//! (local files under the host's root and, with `device`, OpenSSH with the configured
//! `-F` config) and the host's declared workdirs; the SQLite message store and the facts
//! store (default files under the state folder, or the host's own [`MessageStore`] /
//! [`FactStore`]). Its [`StandardHandlers`] implement the generated `Handlers` trait.

mod catalog;
mod config;
mod handlers;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::Mutex;

use serde::Deserialize;
use serde::Serialize;
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::core::Batch;
use toolsurface_runtime::core::CatalogError;
use toolsurface_runtime::core::Runtime;
use toolsurface_runtime::core::Surface;
use toolsurface_runtime::core::ToolResult;
use toolsurface_runtime::core::Turn;
use toolsurface_runtime::core::TurnFault;
use toolsurface_runtime::core::WakeReceiver;
use toolsurface_runtime::files::FileHost;
use toolsurface_runtime::files::FileHostConfig;
use toolsurface_runtime::memory::FactStore;
use toolsurface_runtime::memory::SqliteFactStore;
use toolsurface_runtime::messages::MessageStore;
use toolsurface_runtime::messages::SqliteMessageStore;
use toolsurface_runtime::shell::ShellHost;
use toolsurface_runtime::workdirs::SetWorkdirsRequest;
use toolsurface_runtime::workdirs::Workdirs;
use toolsurface_runtime::workdirs::WorkdirsMode;

pub use catalog::StandardCatalog;
pub use catalog::tool_summaries;
pub use config::DEFAULT_CONVERSATION;
pub use config::DEFAULT_STATE_DIR;
pub use config::FACTS_DB;
pub use config::HostConfig;
pub use config::HostError;
pub use config::MESSAGES_DB;
pub use config::STAGING_DIR;
pub use handlers::Machine;
pub use handlers::StandardHandlers;

use crate::CallError;
use crate::standard;
use crate::standard::Call;
use crate::standard::Family;
use crate::standard::Role;
use crate::standard::Skill;

/// One tool call as a model sent it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelToolCall {
    pub call_id: String,
    /// The tool name as the model spelled it (aliases and retired names included).
    pub name: String,
    /// The arguments JSON text (for a freeform custom tool, its raw input).
    pub arguments: String,
}

impl ModelToolCall {
    pub fn new(
        call_id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ModelToolCall {
            call_id: call_id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// The stores a host may bring instead of the default SQLite files.
#[derive(Clone)]
pub struct Stores {
    pub messages: Arc<dyn MessageStore>,
    pub facts: Arc<dyn FactStore>,
}

/// The standard surface, executed for real: one conversation thread's runtime and every
/// tool family behind it. Share it behind an `Arc`; every method takes `&self`.
#[derive(Debug)]
pub struct StandardHost {
    runtime: Arc<Runtime>,
    handlers: Arc<StandardHandlers>,
    role: Role,
    family: Family,
}

impl StandardHost {
    /// Build the host: validates the config, opens (creating if needed) the default stores
    /// under the state folder, sets up one shell and file host per configured host, and
    /// declares the configured workdirs on the bound host.
    pub fn new(config: HostConfig) -> Result<StandardHost, HostError> {
        config.runtime.validate()?;
        let messages_path = config.messages_path();
        let facts_path = config.facts_path();
        let messages = open_store("messages store", &messages_path, |p| {
            SqliteMessageStore::open(p).map_err(|e| e.to_string())
        })?;
        let facts = open_store("facts store", &facts_path, |p| {
            SqliteFactStore::open(p).map_err(|e| e.to_string())
        })?;
        StandardHost::with_stores(
            config,
            Stores {
                messages: Arc::new(messages),
                facts: Arc::new(facts),
            },
        )
    }

    /// [`StandardHost::new`] with the host's own stores.
    pub fn with_stores(config: HostConfig, stores: Stores) -> Result<StandardHost, HostError> {
        let role = config
            .runtime
            .role
            .parse::<Role>()
            .map_err(|e| HostError::Surface(e.to_string()))?;
        let family = config
            .runtime
            .family
            .parse::<Family>()
            .map_err(|e| HostError::Surface(e.to_string()))?;
        let catalog = Arc::new(StandardCatalog::new());
        let runtime = Arc::new(Runtime::new(config.runtime.clone(), catalog)?);
        let staging = config.staging_path();
        let mut machines = BTreeMap::new();
        for (name, host) in &config.runtime.hosts {
            let shell = ShellHost::with_config(
                name.clone(),
                host.root.clone(),
                runtime.registry().clone(),
                Arc::new(runtime.wake_sender()),
                config.shell.clone(),
            );
            let mut files = FileHostConfig::new(host.root.clone());
            files.ssh_config = config.runtime.ssh_config.clone();
            files.ssh_program = config.ssh_program.clone();
            files.staging_dir = Some(staging.clone());
            let files = FileHost::new(files).map_err(|e| HostError::Files {
                host: name.clone(),
                message: e.to_string(),
            })?;
            machines.insert(
                name.clone(),
                handlers::Machine {
                    root: host.root.clone(),
                    shell,
                    files,
                    workdirs: Arc::new(Mutex::new(Workdirs::new(host.root.clone()))),
                },
            );
        }
        let handlers = StandardHandlers {
            runtime: runtime.clone(),
            machines,
            messages: stores.messages,
            facts: stores.facts,
            conversation: config.conversation.clone(),
        };
        if !config.runtime.workdirs.is_empty() {
            declare_workdirs(&handlers, &config)?;
        }
        Ok(StandardHost {
            runtime,
            handlers: Arc::new(handlers),
            role,
            family,
        })
    }

    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    /// The generated `Handlers` implementation (for hosts that call `Runtime::execute`
    /// themselves).
    pub fn handlers(&self) -> &Arc<StandardHandlers> {
        &self.handlers
    }

    pub fn role(&self) -> Role {
        self.role
    }

    pub fn family(&self) -> Family {
        self.family
    }

    /// The skills activated so far, in activation order.
    pub fn active_skills(&self) -> Vec<Skill> {
        self.runtime
            .active_skills()
            .iter()
            .filter_map(|s| s.parse::<Skill>().ok())
            .collect()
    }

    /// The tool array to send with `turn`'s request (the same bytes for every turn kind).
    pub fn surface(&self, turn: &Turn) -> Result<Surface, CatalogError> {
        self.runtime.surface(turn)
    }

    /// Parse one model call in the thread's scope (role × family + active skills).
    pub fn parse(&self, call: &ModelToolCall) -> Result<Call, CallError> {
        let skills = self.active_skills();
        let scope = standard::Scope::new(self.role, self.family).with_skills(&skills);
        Call::parse_in(&scope, &call.name, call.arguments.as_str())
    }

    /// Parse and execute one model response's calls. Calls that do not parse become error
    /// results in their place; the rest run through [`Runtime::execute`] (scheduling,
    /// routing, interrupts, rehearsal). One result per call, in call order, or the fault
    /// that ended the turn. Calls parse in the scope the batch starts in: a skill activated
    /// by this batch offers its tools from the next one on.
    pub async fn handle_batch(
        &self,
        calls: Vec<ModelToolCall>,
        turn: &Turn,
    ) -> Result<Vec<ToolResult>, TurnFault> {
        let skills = self.active_skills();
        let scope = standard::Scope::new(self.role, self.family).with_skills(&skills);
        let mut batch = Batch::new();
        for call in calls {
            let parsed = Call::parse_in(&scope, &call.name, call.arguments.as_str());
            batch.push_parsed(call.call_id, parsed);
        }
        let handlers = &*self.handlers;
        self.runtime
            .execute(batch, turn, |call: Call, ctx| async move {
                call.dispatch(handlers, &ctx).await
            })
            .await
    }

    /// The wake-up channel (a watched session exited or matched); `None` after the first
    /// call.
    pub fn take_wake_receiver(&self) -> Option<WakeReceiver> {
        self.runtime.take_wake_receiver()
    }

    /// The families of one configured host.
    pub fn machine(&self, host: &str) -> Option<&Machine> {
        self.handlers.machines().get(host)
    }

    pub fn message_store(&self) -> &Arc<dyn MessageStore> {
        &self.handlers.messages
    }

    pub fn fact_store(&self) -> &Arc<dyn FactStore> {
        &self.handlers.facts
    }
}

fn open_store<T>(
    what: &'static str,
    path: &std::path::Path,
    open: impl FnOnce(&std::path::Path) -> Result<T, String>,
) -> Result<T, HostError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| HostError::Store {
            what,
            message: format!("cannot create {}: {e}", parent.display()),
        })?;
    }
    open(path).map_err(|message| HostError::Store {
        what,
        message: format!("{}: {message}", path.display()),
    })
}

/// Declare the configured workdirs on the bound host, as a `set_workdirs` call would.
fn declare_workdirs(handlers: &StandardHandlers, config: &HostConfig) -> Result<(), HostError> {
    let machine = handlers
        .machine(&config.runtime.bound_host)
        .map_err(|e| HostError::Workdirs(e.to_string()))?;
    let req = SetWorkdirsRequest {
        dirs: config
            .runtime
            .workdirs
            .iter()
            .map(|d| d.display().to_string())
            .collect(),
        mode: Some(WorkdirsMode::Set),
    };
    let mut workdirs = machine.workdirs.lock().unwrap_or_else(|p| p.into_inner());
    workdirs.set_workdirs(&req).map_err(|e| match e {
        ToolError::Model(m) | ToolError::Fatal(m) => HostError::Workdirs(m),
    })?;
    handlers
        .runtime
        .set_workdirs(workdirs.declared().iter().map(|w| w.path.clone()).collect());
    Ok(())
}
