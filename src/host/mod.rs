//! A ready host for the standard surface: [`StandardHost`] wires the runtime core to every
//! tool family, so that what `tool-defs/` publishes is exactly what runs.
//!
//! ```text
//! let host = StandardHost::new(HostConfig::single_host("box", "/srv/app", Role::Main, Family::Chat))?;
//! let turn = Turn::normal();
//! let array = host.surface(&turn)?;                  // the bytes to send with the request
//! let results = host.handle_batch(model_calls, &turn).await?;   // one result per call, in order
//! let mut wakes = host.take_wake_receiver();          // monitors' and sessions' wake-ups
//!
//! let other = host.open_conversation()?;              // a second thread over the same host
//! other.handle_batch(its_calls, &other.new_turn(TurnKind::Normal)).await?;
//! other.end();                                        // (or drop it) kills its sessions
//! ```
//!
//! Shared by every conversation of a host: the config, the [`StandardCatalog`], the SQLite
//! message store and the facts store (default files under the state folder, or the host's
//! own [`MessageStore`] / [`FactStore`]), one [`FileHost`] per configured host (local files
//! under the host's root and, with `device`, OpenSSH with the configured `-F` config; read
//! memory and confirm tokens are kept per conversation id inside it) and the session-id
//! counter. Per [`Conversation`]: the [`Runtime`] (scheduling, routing, interrupts,
//! rehearsal, skills, introspection, wake-ups, its own session registry) and per configured
//! host a [`Machine`]: a [`ShellHost`] on the conversation's registry and wake channel, the
//! shared file family and the conversation's declared workdirs. Its [`StandardHandlers`]
//! implement the generated `Handlers` trait.

mod catalog;
mod config;
mod handlers;
mod sandbox;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

use serde::Deserialize;
use serde::Serialize;
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::core::Activation;
use toolsurface_runtime::core::Batch;
use toolsurface_runtime::core::CatalogError;
use toolsurface_runtime::core::Runtime;
use toolsurface_runtime::core::SkillDelivery;
use toolsurface_runtime::core::Surface;
use toolsurface_runtime::core::ToolResult;
use toolsurface_runtime::core::Turn;
use toolsurface_runtime::core::TurnFault;
use toolsurface_runtime::core::TurnKind;
use toolsurface_runtime::core::WakeReceiver;
use toolsurface_runtime::files::FileHost;
use toolsurface_runtime::files::FileHostConfig;
use toolsurface_runtime::memory::FactStore;
use toolsurface_runtime::memory::SqliteFactStore;
use toolsurface_runtime::messages::MessageStore;
use toolsurface_runtime::messages::SqliteMessageStore;
use toolsurface_runtime::registry::SessionRegistry;
use toolsurface_runtime::sandbox::Confinement;
use toolsurface_runtime::sandbox::Policy;
use toolsurface_runtime::shell::ShellHost;
use toolsurface_runtime::workdirs::Mode;
use toolsurface_runtime::workdirs::SetWorkdirsRequest;
use toolsurface_runtime::workdirs::Workdirs;

pub use catalog::Rendering;
pub use catalog::StandardCatalog;
pub use config::DEFAULT_CONVERSATION;
pub use config::DEFAULT_STATE_DIR;
pub use config::FACTS_DB;
pub use config::HostConfig;
pub use config::HostError;
pub use config::MESSAGES_DB;
pub use config::STAGING_DIR;
pub use handlers::Machine;
pub use handlers::StandardHandlers;
pub use sandbox::SandboxConfig;

use crate::CallError;
use crate::standard;
use crate::standard::Call;
use crate::standard::Family;
use crate::standard::Names;
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

/// What every conversation of one [`StandardHost`] shares: the config, the catalog, the
/// stores, each configured host's file family (its read memory and confirm tokens are kept
/// per conversation id) and the session-id counter.
struct Shared {
    config: HostConfig,
    catalog: Arc<StandardCatalog>,
    /// The catalog of conversations served over MCP ([`Rendering::Mcp`]).
    mcp_catalog: Arc<StandardCatalog>,
    stores: Stores,
    files: BTreeMap<String, Arc<FileHost>>,
    /// Every conversation's registry is made from this one, so ids never repeat.
    ids: SessionRegistry,
    next_conversation: AtomicU64,
    role: Role,
    family: Family,
    /// The role's sandbox policy on this host (role default, tightened by the host config).
    policy: Policy,
}

/// The standard surface, executed for real: the shared parts (config, stores, file
/// families, session ids) and any number of [`Conversation`]s over them. A `StandardHost`
/// dereferences to its *default* conversation (id `HostConfig::conversation`), so a host
/// serving one thread calls `host.handle_batch(…)` directly; one serving several opens a
/// conversation per thread with [`StandardHost::open_conversation`]. Share it behind an
/// `Arc`; every method takes `&self`.
pub struct StandardHost {
    shared: Arc<Shared>,
    default: Conversation,
}

impl std::fmt::Debug for StandardHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StandardHost")
            .field("role", &self.shared.role)
            .field("family", &self.shared.family)
            .field("default", &self.default)
            .finish_non_exhaustive()
    }
}

/// One conversation thread over a [`StandardHost`]: its own runtime (bound host, workdirs,
/// activated skills, wake-up channel, session registry), its own shell family per host (its
/// background sessions; another conversation's session id is unknown here), its own read
/// memory, staged writes and confirm tokens (keyed by [`Conversation::id`] in the shared
/// file families) and its own schedule ([`Conversation::new_turn`]). Ending it
/// ([`Conversation::end`], or dropping it) kills its background processes and forgets what
/// it read.
pub struct Conversation {
    id: String,
    runtime: Arc<Runtime<Names>>,
    handlers: Arc<StandardHandlers>,
    shared: Arc<Shared>,
    /// Every turn made with [`Conversation::new_turn`] shares this one's lock.
    schedule: Turn,
    rendering: Rendering,
    ended: AtomicBool,
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conversation")
            .field("id", &self.id)
            .field("runtime", &self.runtime)
            .finish_non_exhaustive()
    }
}

impl std::ops::Deref for StandardHost {
    type Target = Conversation;

    fn deref(&self) -> &Conversation {
        &self.default
    }
}

impl StandardHost {
    /// Build the host: validates the config, opens (creating if needed) the default stores
    /// under the state folder, sets up one file family per configured host, and opens the
    /// default conversation (declaring the configured workdirs on the bound host).
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
        // The config's role and family strings become the generated enums here, once for
        // the host (an unknown name is refused with a did-you-mean).
        let (role, family) = config.runtime.validate_names::<Names>()?;
        let staging = config.staging_path();
        let mut policy = config.sandbox.resolve(role);
        if policy.is_confined() {
            // The runtime's own stores, wherever they live, are never the model's to write.
            policy
                .protect
                .extend([config.messages_path(), config.facts_path(), staging.clone()]);
        }
        check_enforceable(&policy, &config)?;
        let mut files = BTreeMap::new();
        for (name, host) in &config.runtime.hosts {
            let mut file_config = FileHostConfig::new(host.root.clone());
            file_config.ssh_config = config.runtime.ssh_config.clone();
            file_config.ssh_program = config.ssh_program.clone();
            file_config.staging_dir = Some(staging.clone());
            let file_host = FileHost::new(file_config).map_err(|e| HostError::Files {
                host: name.clone(),
                message: e.to_string(),
            })?;
            files.insert(name.clone(), Arc::new(file_host));
        }
        let shared = Arc::new(Shared {
            catalog: Arc::new(StandardCatalog::new()),
            mcp_catalog: Arc::new(StandardCatalog::rendered(Rendering::Mcp)),
            stores,
            files,
            ids: SessionRegistry::new(),
            next_conversation: AtomicU64::new(1),
            role,
            family,
            policy,
            config,
        });
        let default = Conversation::open(
            &shared,
            shared.config.conversation.clone(),
            Rendering::Native,
        )?;
        Ok(StandardHost { shared, default })
    }

    /// A new conversation over this host's shared parts, with an id no other conversation
    /// of the process has (`<HostConfig::conversation>-<n>`). Its workdirs start as
    /// configured, its bound host as configured, no skill active, no session.
    pub fn open_conversation(&self) -> Result<Conversation, HostError> {
        self.open_conversation_rendered(Rendering::Native)
    }

    /// [`StandardHost::open_conversation`] for a conversation served in `rendering` (the MCP
    /// server opens its sessions' conversations with [`Rendering::Mcp`]: skill tools are
    /// listed from the start, activation keeps the list).
    pub fn open_conversation_rendered(
        &self,
        rendering: Rendering,
    ) -> Result<Conversation, HostError> {
        let n = self
            .shared
            .next_conversation
            .fetch_add(1, Ordering::Relaxed);
        let id = format!("{}-{n}", self.shared.config.conversation);
        Conversation::open(&self.shared, id, rendering)
    }

    /// The default conversation (what the host dereferences to).
    pub fn default_conversation(&self) -> &Conversation {
        &self.default
    }

    pub fn message_store(&self) -> &Arc<dyn MessageStore> {
        &self.shared.stores.messages
    }

    pub fn fact_store(&self) -> &Arc<dyn FactStore> {
        &self.shared.stores.facts
    }
}

impl Conversation {
    fn open(
        shared: &Arc<Shared>,
        id: String,
        rendering: Rendering,
    ) -> Result<Conversation, HostError> {
        let config = &shared.config;
        let catalog: Arc<dyn toolsurface_runtime::core::SurfaceCatalog<Names>> = match rendering {
            Rendering::Native => shared.catalog.clone(),
            Rendering::Mcp => shared.mcp_catalog.clone(),
        };
        let runtime = Arc::new(
            Runtime::new(config.runtime.clone(), catalog)?
                .with_registry(Arc::new(shared.ids.sharing_ids())),
        );
        let mut machines = BTreeMap::new();
        for (name, host) in &config.runtime.hosts {
            let Some(files) = shared.files.get(name) else {
                continue;
            };
            let shell = ShellHost::with_config(
                name.clone(),
                host.root.clone(),
                runtime.registry().clone(),
                Arc::new(runtime.wake_sender()),
                config.shell.clone(),
            );
            let confinement = confine(shared, &shell, files, &id, &host.root)?;
            let mut workdirs = Workdirs::new(host.root.clone());
            if shared.policy.is_confined() {
                workdirs.set_bounds(Some(workdir_bounds(config)));
            }
            machines.insert(
                name.clone(),
                handlers::Machine {
                    root: host.root.clone(),
                    shell,
                    files: files.clone(),
                    workdirs: Arc::new(Mutex::new(workdirs)),
                    confinement,
                },
            );
        }
        let handlers = StandardHandlers {
            runtime: runtime.clone(),
            machines,
            messages: shared.stores.messages.clone(),
            facts: shared.stores.facts.clone(),
            conversation: id.clone(),
        };
        if !config.runtime.workdirs.is_empty() {
            declare_workdirs(&handlers, config)?;
        }
        handlers.report_sandbox();
        Ok(Conversation {
            id,
            runtime,
            handlers: Arc::new(handlers),
            shared: shared.clone(),
            schedule: Turn::normal(),
            rendering,
            ended: AtomicBool::new(false),
        })
    }

    /// The conversation's id: unique in the process; file reads and confirm tokens are kept
    /// under it.
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn runtime(&self) -> &Arc<Runtime<Names>> {
        &self.runtime
    }

    /// The generated `Handlers` implementation (for hosts that call `Runtime::execute`
    /// themselves).
    pub fn handlers(&self) -> &Arc<StandardHandlers> {
        &self.handlers
    }

    pub fn role(&self) -> Role {
        self.shared.role
    }

    /// The sandbox policy this conversation's tools run under.
    pub fn sandbox_policy(&self) -> &Policy {
        &self.shared.policy
    }

    pub fn family(&self) -> Family {
        self.shared.family
    }

    /// The skills activated so far, in activation order.
    pub fn active_skills(&self) -> Vec<Skill> {
        self.runtime.active_skills()
    }

    /// How an activated skill's tools reach the model in this conversation (its family's,
    /// or `AllowList` for a conversation served over MCP).
    pub fn skill_delivery(&self) -> SkillDelivery {
        self.rendering.skill_delivery(self.family())
    }

    /// Which published bytes the conversation is served.
    pub fn rendering(&self) -> Rendering {
        self.rendering
    }

    /// What the activation call `call_id` of a finished batch did, once (later calls answer
    /// `None`). [`Activation::reply`] turns it into what the host sends back to the model
    /// instead of the plain text result: on Anthropic `defer` the `tool_result` content
    /// with one `tool_reference` block per tool, on Responses `defer` the
    /// `tool_search_output` item, elsewhere the text.
    pub fn take_activation(&self, call_id: &str) -> Option<Activation> {
        self.runtime.take_activation(call_id)
    }

    /// The model call a Responses client `tool_search_call` stands for: on a family whose
    /// skills are deferred behind the client-executed `tool_search` tool (the activation
    /// tool, published under that type), the search's `arguments` are the activation tool's.
    /// Run the returned call with the batch, then answer the search with
    /// [`Conversation::take_activation`] → [`Activation::reply`] (a `tool_search_output`
    /// item with the same `call_id`). `None` when this conversation does not search that way.
    pub fn tool_search_call(
        &self,
        call_id: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Option<ModelToolCall> {
        if self.skill_delivery() != SkillDelivery::ToolSearchOutput {
            return None;
        }
        let activate = standard::Scope::new(self.role(), self.family()).activation_tool()?;
        Some(ModelToolCall::new(call_id, activate.as_str(), arguments))
    }

    /// Every request field the surface owns for `turn` with this conversation's active
    /// skills, as one JSON object to merge into the provider request
    /// ([`standard::request_fragment`]): `tools` (the same bytes for every turn kind and,
    /// under `defer` / `allow_list`, for every activation), and where the dialect has them
    /// the turn's allowed-tools restriction and `parallel_tool_calls`. Borrowed static bytes
    /// whenever the active skills change nothing.
    pub fn request_fragment(&self, turn: &Turn) -> std::borrow::Cow<'static, str> {
        standard::request_fragment(
            self.role(),
            self.family(),
            turn.kind(),
            &self.active_skills(),
        )
    }

    /// The tool array to send with `turn`'s request (the same bytes for every turn kind).
    pub fn surface(&self, turn: &Turn) -> Result<Surface<Names>, CatalogError> {
        self.runtime.surface(turn)
    }

    /// A turn of `kind` on this conversation's schedule: a call that must run alone waits
    /// for every other running call of the conversation (whichever turn it belongs to), and
    /// parallel-safe calls share; each turn is interrupted on its own. Hosts that take
    /// several requests of one conversation at once (an MCP session) make each request's
    /// turn here; other conversations' turns never wait for it.
    pub fn new_turn(&self, kind: TurnKind) -> Turn {
        self.schedule.sharing_schedule(kind)
    }

    /// Parse one model call in the thread's scope (role × family + active skills).
    /// `arguments` is the JSON text a provider sends, or an already parsed value.
    pub fn parse<'a>(
        &self,
        name: &str,
        arguments: impl Into<crate::Arguments<'a>>,
    ) -> Result<Call, CallError> {
        let skills = self.active_skills();
        let scope = standard::Scope::new(self.role(), self.family()).with_skills(&skills);
        Call::parse_in(&scope, name, arguments)
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
        let scope = standard::Scope::new(self.role(), self.family()).with_skills(&skills);
        let mut batch = Batch::new();
        for call in calls {
            let parsed = Call::parse_in(&scope, &call.name, call.arguments.as_str());
            batch.push_parsed(call.call_id, parsed);
        }
        self.execute(batch, turn).await
    }

    /// Execute calls parsed already (by [`Conversation::parse`]): the same as
    /// [`Conversation::handle_batch`] without parsing a second time.
    pub async fn execute(
        &self,
        batch: Batch<Call>,
        turn: &Turn,
    ) -> Result<Vec<ToolResult>, TurnFault> {
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

    /// Background sessions this conversation holds, over every host.
    pub fn session_count(&self) -> usize {
        self.handlers
            .machines()
            .values()
            .map(|m| m.shell.session_count())
            .sum()
    }

    /// Kill the sessions that the call `call_id` started (its client cancelled it and never
    /// got their ids). Returns the ids ended.
    pub fn kill_sessions_started_by(&self, call_id: &str) -> Vec<i64> {
        self.handlers
            .machines()
            .values()
            .flat_map(|m| m.shell.kill_sessions_started_by(call_id))
            .collect()
    }

    /// End the conversation: SIGKILL every background session's process group (they are
    /// reaped), forget its file reads and confirm tokens. Later calls start no command (they
    /// are refused with a sentence); ending twice does nothing more. Returns the session ids
    /// ended.
    pub fn end(&self) -> Vec<i64> {
        if self.ended.swap(true, Ordering::SeqCst) {
            return Vec::new();
        }
        for files in self.shared.files.values() {
            files.forget_conversation(&self.id);
        }
        self.handlers
            .machines()
            .values()
            .flat_map(|m| m.shell.end_all_sessions())
            .collect()
    }
}

impl Drop for Conversation {
    fn drop(&mut self) {
        self.end();
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
        mode: Mode::Set,
    };
    let mut workdirs = machine.workdirs.lock().unwrap_or_else(|p| p.into_inner());
    workdirs
        .set_workdirs(&req, &standard::TOOL_NAMES)
        .map_err(|e| match e {
            ToolError::Model(m) | ToolError::Argument(m) | ToolError::Fatal(m) => {
                HostError::Workdirs(m)
            }
        })?;
    let declared: Vec<std::path::PathBuf> =
        workdirs.declared().iter().map(|w| w.path.clone()).collect();
    if let Some(c) = &machine.confinement {
        c.set_workdirs(declared.clone());
    }
    handlers.runtime.set_workdirs(declared);
    Ok(())
}

/// At startup: a confined role whose sandbox the kernel cannot enforce is refused when
/// enforcement is required, naming the cause.
fn check_enforceable(policy: &Policy, config: &HostConfig) -> Result<(), HostError> {
    use toolsurface_runtime::sandbox::Enforcement;
    if !policy.is_confined() || policy.enforcement != Enforcement::Required {
        return Ok(());
    }
    let status =
        toolsurface_runtime::sandbox::kernel_status(config.shell.sandbox_helper.as_deref());
    match status.problem {
        None => Ok(()),
        Some(problem) => Err(HostError::Sandbox(format!(
            "role {} runs under the {} profile, which this machine cannot enforce \
             ({problem}); enforcement is required — fix the cause, set sandbox.enforcement: \
             warn to serve with an unconfined shell, or serve --sandbox full",
            config.runtime.role,
            policy.profile.as_str()
        ))),
    }
}

/// One conversation's confinement on one host, and its shell and file tools confined by
/// it (None under `full`).
fn confine(
    shared: &Shared,
    shell: &ShellHost,
    files: &FileHost,
    conversation: &str,
    root: &std::path::Path,
) -> Result<Option<Arc<Confinement>>, HostError> {
    if !shared.policy.is_confined() {
        return Ok(None);
    }
    let confinement = Confinement::new(
        shared.policy.clone(),
        root,
        shared.config.shell.sandbox_helper.clone(),
    )
    .map(Arc::new)
    .map_err(|e| HostError::Sandbox(format!("cannot create the conversation's temp dir: {e}")))?;
    let _ = shell.confine(confinement.clone());
    files.confine(conversation, confinement.clone());
    Ok(Some(confinement))
}

/// Where set_workdirs may declare folders: the configured bounds, else every host root
/// and the configured workdirs.
fn workdir_bounds(config: &HostConfig) -> Vec<std::path::PathBuf> {
    if !config.sandbox.workdir_bounds.is_empty() {
        return config.sandbox.workdir_bounds.clone();
    }
    config
        .runtime
        .hosts
        .values()
        .map(|h| h.root.clone())
        .chain(config.runtime.workdirs.iter().cloned())
        .collect()
}
