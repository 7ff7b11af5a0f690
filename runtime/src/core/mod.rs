//! The runtime core: executes a model's batch of typed calls for one conversation thread —
//! scheduling, host routing, interrupts, rehearsal, skills, introspection and wake-ups.
//!
//! It is generic over the call type: anything implementing [`crate::call::CallInfo`] (the
//! generated `Call` enum, or a test's hand-written one). It never compares a tool name with
//! a string literal; everything name-based comes from the `CallInfo` tables.
//!
//! # Flow
//!
//! ```text
//! Runtime::new(RuntimeConfig, Arc<dyn SurfaceCatalog>)
//! let turn = Turn::new(TurnKind::Normal);           // keep a clone to turn.interrupt()
//! let batch: Batch<Call> = calls.map(|(id, name, args)| (id, Call::parse(name, args))).collect();
//! runtime.execute(batch, &turn, |call, ctx| async move { call.dispatch(&handlers, &ctx).await })
//!     -> Result<Vec<ToolResult>, TurnFault>        // one result per item, in call order
//! ```
//!
//! # Wake-ups (for the shell family)
//!
//! A watched session's exit or match is published as a [`WakeUp`] through a [`WakeSender`]:
//! take one with [`Runtime::wake_sender`] (cloneable, `Send + Sync`, never blocks, usable
//! from a PTY reader thread), then `sender.send(WakeUp::exited(id, host, Some(code)))` or
//! `WakeUp::matched(id, host, text)`. The host takes the single [`WakeReceiver`] once with
//! [`Runtime::take_wake_receiver`] and starts a turn per event. A send fails only when the
//! receiver is gone ([`WakeClosed`]), which watchers may ignore. A `WakeSender` is a
//! [`WakeSink`], the contract the shell family publishes through (one `WakeUp` type all the
//! way): hand `Arc::new(runtime.wake_sender())` to the shell host.

mod activation;
mod batch;
mod config;
mod execute;
mod introspect;
mod route;
mod suggest;
mod surface;
mod turn;
mod wake;

use std::collections::VecDeque;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::MutexGuard;

pub use activation::Activation;
pub use activation::ActivationReply;
pub use activation::ActivationReplyError;
pub use activation::SkillDelivery;
pub use activation::SkillTool;
pub use activation::ToolResultBlock;
pub use activation::ToolSearchExecution;
pub use activation::ToolSearchOutput;
pub use activation::ToolSearchOutputType;
pub use batch::Batch;
pub use batch::BatchItem;
pub use batch::Outcome;
pub use batch::ToolResult;
pub use batch::TurnFault;
pub use config::ConfigError;
pub use config::HostConfig;
pub use config::Limits;
pub use config::LlmProviderConfig;
pub use config::REDACTED;
pub use config::RuntimeConfig;
pub use config::Secret;
pub use config::StorePaths;
pub use config::is_secret_key;
pub use config::redact_value;
pub use execute::interrupted_text;
pub use execute::not_started_text;
pub use execute::rehearsal_refusal;
pub use introspect::IntrospectTarget;
pub use route::LOCAL_HOST;
pub use suggest::did_you_mean;
pub use surface::CatalogError;
pub use surface::EmptyCatalog;
pub use surface::Scope;
pub use surface::SkillStrategy;
pub use surface::SkillSummary;
pub use surface::Surface;
pub use surface::SurfaceCatalog;
pub use surface::SurfaceName;
pub use surface::SurfaceNames;
pub use surface::ToolSummary;
pub use surface::UnknownSurfaceName;
pub use surface::divergence_offset;
pub use surface::sha256_hex;
pub use turn::Turn;
pub use turn::TurnKind;
pub use wake::NoWake;
pub use wake::WakeClosed;
pub use wake::WakeKind;
pub use wake::WakeReceiver;
pub use wake::WakeSender;
pub use wake::WakeSink;
pub use wake::WakeUp;
pub use wake::wake_channel;

use crate::call::CallInfo;
use crate::call::ToolError;
use crate::registry::SessionRegistry;

/// What belongs to the conversation thread and changes during it.
#[derive(Debug)]
struct ThreadState<S> {
    bound_host: String,
    /// Activated skills, in activation order.
    skills: Vec<S>,
    workdirs: Vec<PathBuf>,
    /// What `introspect sandbox` reports (the host's confinement; None: unconfined).
    sandbox: Option<serde_json::Value>,
}

/// The runtime of one conversation thread. Share it behind an `Arc`; every method takes
/// `&self`. Generic over the surface's names ([`SurfaceNames`]: the generated `Names`), so
/// its role, family and active skills are the generated enums, parsed once from the config
/// in [`Runtime::new`].
pub struct Runtime<N: SurfaceNames> {
    config: RuntimeConfig,
    role: N::Role,
    family: N::Family,
    catalog: Arc<dyn SurfaceCatalog<N>>,
    registry: Arc<SessionRegistry>,
    thread: Mutex<ThreadState<N::Skill>>,
    wake_sender: WakeSender,
    wake_receiver: Mutex<Option<WakeReceiver>>,
    /// Activations by call id, until the host takes them (oldest dropped beyond the cap).
    activations: Mutex<VecDeque<(String, Activation)>>,
}

/// Activations [`Runtime::take_activation`] can still hand out; a host that never takes
/// them costs this many entries at most.
pub const MAX_KEPT_ACTIVATIONS: usize = 32;

impl<N: SurfaceNames> std::fmt::Debug for Runtime<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("config", &self.config)
            .field("thread", &self.thread)
            .finish_non_exhaustive()
    }
}

impl<N: SurfaceNames> Runtime<N> {
    /// A runtime for one thread, with its own session registry. Refuses an invalid config
    /// (a role or family the surface does not have included), listing every problem.
    pub fn new(
        config: RuntimeConfig,
        catalog: Arc<dyn SurfaceCatalog<N>>,
    ) -> Result<Runtime<N>, ConfigError> {
        let (role, family) = config.validate_names::<N>()?;
        let (wake_sender, wake_receiver) = wake_channel();
        let thread = ThreadState {
            bound_host: config.bound_host.clone(),
            skills: Vec::new(),
            workdirs: config.workdirs.clone(),
            sandbox: None,
        };
        Ok(Runtime {
            config,
            role,
            family,
            catalog,
            registry: Arc::new(SessionRegistry::new()),
            thread: Mutex::new(thread),
            wake_sender,
            wake_receiver: Mutex::new(Some(wake_receiver)),
            activations: Mutex::new(VecDeque::new()),
        })
    }

    /// Share a session registry with other threads' runtimes (ids stay unique across all).
    pub fn with_registry(mut self, registry: Arc<SessionRegistry>) -> Runtime<N> {
        self.registry = registry;
        self
    }

    pub fn config(&self) -> &RuntimeConfig {
        &self.config
    }

    pub fn catalog(&self) -> &Arc<dyn SurfaceCatalog<N>> {
        &self.catalog
    }

    /// The role whose tool array this thread publishes.
    pub fn role(&self) -> N::Role {
        self.role
    }

    /// The provider family (dialect) of that array.
    pub fn family(&self) -> N::Family {
        self.family
    }

    /// Session ids and their owning hosts; the shell family allocates from it.
    pub fn registry(&self) -> &Arc<SessionRegistry> {
        &self.registry
    }

    // ---- hosts -------------------------------------------------------------------------

    /// The host the thread is bound to.
    pub fn bound_host(&self) -> String {
        self.thread().bound_host.clone()
    }

    /// Re-bind the thread. The error (for the model) names the known hosts.
    pub fn bind_host(&self, host: &str) -> Result<(), ToolError> {
        if !self.config.hosts.contains_key(host) {
            return Err(ToolError::Model(self.unknown_host(host)));
        }
        self.thread().bound_host = host.to_owned();
        Ok(())
    }

    /// The root directory of a configured host.
    pub fn host_root(&self, host: &str) -> Option<&Path> {
        self.config.hosts.get(host).map(|h| h.root.as_path())
    }

    /// The host `call` runs on: its session's owner for follow-ups, else by `route()`.
    /// Errors (unknown session, a host that is not the owner) are meant for the model.
    pub fn route<C: CallInfo>(&self, call: &C) -> Result<String, ToolError> {
        let bound = self.bound_host();
        route::route_call(call, &bound, &self.registry)
    }

    fn unknown_host(&self, host: &str) -> String {
        let names = self.config.hosts.keys().map(String::as_str);
        format!(
            "unknown host {host}{}; known hosts: {}",
            suggest::hint(host, names.clone()),
            names.collect::<Vec<_>>().join(", ")
        )
    }

    // ---- workdirs ----------------------------------------------------------------------

    /// The thread's declared working directories.
    pub fn workdirs(&self) -> Vec<PathBuf> {
        self.thread().workdirs.clone()
    }

    /// Replace the thread's working directories (the workdirs family decides what to set).
    pub fn set_workdirs(&self, dirs: Vec<PathBuf>) {
        self.thread().workdirs = dirs;
    }

    /// What `introspect sandbox` reports from now on: the host's
    /// [`crate::sandbox::Confinement::describe`] (None: the tools are unconfined).
    pub fn set_sandbox(&self, report: Option<serde_json::Value>) {
        self.thread().sandbox = report;
    }

    pub(crate) fn sandbox_report(&self) -> Option<serde_json::Value> {
        self.thread().sandbox.clone()
    }

    // ---- surface and skills ------------------------------------------------------------

    /// The key of the thread's tool array: role, family and active skills.
    pub fn scope(&self) -> Scope<N> {
        Scope {
            role: self.role,
            family: self.family,
            skills: self.thread().skills.clone(),
        }
    }

    /// The key of the array to publish for `turn`. The turn is accepted only to make the
    /// point: [`Scope`] has no field it could influence, so every turn kind gets the same
    /// array.
    pub fn scope_for(&self, _turn: &Turn) -> Scope<N> {
        self.scope()
    }

    /// The tool array to send with `turn`'s model request.
    pub fn surface(&self, turn: &Turn) -> Result<Surface<N>, CatalogError> {
        let scope = self.scope_for(turn);
        let bytes = self.catalog.tool_array(&scope)?;
        Ok(Surface::new(scope, bytes))
    }

    /// The thread's active skills, in activation order.
    pub fn active_skills(&self) -> Vec<N::Skill> {
        self.thread().skills.clone()
    }

    /// Activate `skill` in this conversation: from the next parse on, its tools are
    /// callable. How the model learns of them is the family's [`SkillDelivery`]: under
    /// `defer` and `allow_list` the published array is the same bytes before and after (a
    /// catalog that answers otherwise is a fault: it would bust every provider's prompt
    /// cache); under `append` the skill's tools follow the old array, everything before its
    /// closing bracket byte-identical. Unknown skills are a model error (with did-you-mean);
    /// a catalog that cannot answer for a skill it lists is a fault. The activation is kept
    /// under `call_id` for [`Runtime::take_activation`]. `skill` is the model's text (the
    /// edge), parsed here once against the role's skills.
    pub fn activate(&self, call_id: &str, skill: &str) -> Result<Activation, ToolError> {
        let available = self.catalog.skills(self.role);
        let Some(skill) = available
            .iter()
            .map(|s| s.skill)
            .find(|s| s.name() == skill)
        else {
            return Err(ToolError::Model(self.unknown_skill(skill, &available)));
        };
        let fault = |e: CatalogError| ToolError::Fatal(format!("surface catalog: {e}"));
        let mut thread = self.thread();
        let old_scope = Scope {
            role: self.role,
            family: self.family,
            skills: thread.skills.clone(),
        };
        let delivery = self.catalog.skill_delivery(&old_scope).map_err(fault)?;
        let old_bytes = self.catalog.tool_array(&old_scope).map_err(fault)?;
        let previous_sha256 = sha256_hex(old_bytes.as_bytes());
        let already_active = thread.skills.contains(&skill);
        let mut new_scope = old_scope.clone();
        if !already_active {
            new_scope.skills.push(skill);
        }
        let new_bytes = self.catalog.tool_array(&new_scope).map_err(fault)?;
        if delivery.keeps_tools_stable() && new_bytes != old_bytes {
            return Err(ToolError::Fatal(format!(
                "surface catalog: activating {skill} changed the tool array under {delivery:?}, \
                 which must keep it byte-identical"
            )));
        }
        let new_tools = if already_active {
            Vec::new()
        } else {
            self.catalog.skill_tools(&old_scope, skill).map_err(fault)?
        };
        thread.skills = new_scope.skills;
        drop(thread);
        let activation = Activation {
            skill: skill.name().to_owned(),
            delivery,
            new_tools,
            surface_sha256: sha256_hex(new_bytes.as_bytes()),
            previous_sha256,
            diverges_at: divergence_offset(old_bytes.as_bytes(), new_bytes.as_bytes()),
            prefix_intact: surface::keeps_prefix(&old_bytes, &new_bytes),
            already_active,
        };
        self.keep_activation(call_id, &activation);
        Ok(activation)
    }

    /// The activation the call `call_id` made, once: hosts turn it into the dialect's reply
    /// ([`Activation::reply`]). Only the last [`MAX_KEPT_ACTIVATIONS`] are kept.
    pub fn take_activation(&self, call_id: &str) -> Option<Activation> {
        let mut kept = self.activations.lock().unwrap_or_else(|p| p.into_inner());
        let index = kept.iter().position(|(id, _)| id == call_id)?;
        kept.remove(index).map(|(_, activation)| activation)
    }

    fn keep_activation(&self, call_id: &str, activation: &Activation) {
        let mut kept = self.activations.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() == MAX_KEPT_ACTIVATIONS {
            kept.pop_front();
        }
        kept.push_back((call_id.to_owned(), activation.clone()));
    }

    fn unknown_skill(&self, skill: &str, available: &[SkillSummary<N>]) -> String {
        let names = available.iter().map(|s| s.skill.name());
        if available.is_empty() {
            format!("unknown skill {skill}: role {} has no skills", self.role)
        } else {
            format!(
                "unknown skill {skill}{}; available skills: {}",
                suggest::hint(skill, names.clone()),
                names.collect::<Vec<_>>().join(", ")
            )
        }
    }

    // ---- wake-ups ----------------------------------------------------------------------

    /// A handle watchers publish wake-ups with.
    pub fn wake_sender(&self) -> WakeSender {
        self.wake_sender.clone()
    }

    /// The receiving end; `None` after the first call.
    pub fn take_wake_receiver(&self) -> Option<WakeReceiver> {
        self.wake_receiver
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    fn thread(&self) -> MutexGuard<'_, ThreadState<N::Skill>> {
        // Every mutation is a single assignment, so a poisoned state is still consistent.
        self.thread.lock().unwrap_or_else(|p| p.into_inner())
    }
}
