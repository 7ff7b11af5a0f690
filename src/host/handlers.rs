//! [`StandardHandlers`]: the generated [`standard::Handlers`] trait implemented by the
//! runtime's tool families. This is routing only: each tool's definition names the runtime
//! request it becomes (`implements:`), the generated code builds it from the parsed call, and
//! each method hands it to its family on the host the runtime routed the call to
//! (`ctx.host`). Blocking families (SQLite, ripgrep, git) run on tokio's blocking pool.
//!
//! Per host: relative paths resolve against its root; `set_workdirs` declares folders on
//! the host the call runs on (the bound host) and the runtime's thread-wide list — what
//! `introspect workdirs` shows — becomes that host's declared set. `shell_session list`
//! merges every host's sessions.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use serde_json::json;
use toolsurface_runtime::call::CallContext;
use toolsurface_runtime::call::HandlerResult;
use toolsurface_runtime::call::Introspect;
use toolsurface_runtime::call::ToolError;
use toolsurface_runtime::call::ToolOutput;
use toolsurface_runtime::core::Runtime;
use toolsurface_runtime::data;
use toolsurface_runtime::files;
use toolsurface_runtime::files::FileHost;
use toolsurface_runtime::grep;
use toolsurface_runtime::memory;
use toolsurface_runtime::memory::FactStore;
use toolsurface_runtime::messages;
use toolsurface_runtime::messages::MessageStore;
use toolsurface_runtime::sandbox::Confinement;
use toolsurface_runtime::shell;
use toolsurface_runtime::shell::ShellHost;
use toolsurface_runtime::workdirs;
use toolsurface_runtime::workdirs::Workdirs;

use crate::standard;

/// The families of one runtime host (a machine the thread may run calls on).
#[derive(Debug)]
pub struct Machine {
    pub(super) root: PathBuf,
    pub(super) shell: ShellHost,
    pub(super) files: Arc<FileHost>,
    pub(super) workdirs: Arc<Mutex<Workdirs>>,
    /// The conversation's sandbox on this host (None: the role is `full`).
    pub(super) confinement: Option<Arc<Confinement>>,
}

impl Machine {
    /// The directory relative paths resolve against.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn shell(&self) -> &ShellHost {
        &self.shell
    }

    pub fn files(&self) -> &FileHost {
        &self.files
    }

    /// The conversation's sandbox on this host (None: unconfined).
    pub fn confinement(&self) -> Option<&Arc<Confinement>> {
        self.confinement.as_ref()
    }

    /// The folders declared on this host with set_workdirs.
    pub fn declared_workdirs(&self) -> Vec<workdirs::Workdir> {
        lock(&self.workdirs).declared().to_vec()
    }
}

/// Every standard tool, executed for real by the runtime's families.
pub struct StandardHandlers {
    pub(super) runtime: Arc<Runtime<standard::Names>>,
    pub(super) machines: BTreeMap<String, Machine>,
    pub(super) messages: Arc<dyn MessageStore>,
    pub(super) facts: Arc<dyn FactStore>,
    pub(super) conversation: String,
}

impl std::fmt::Debug for StandardHandlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StandardHandlers")
            .field("machines", &self.machines)
            .field("conversation", &self.conversation)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every family call either completes its change or returns an error before changing
    // anything, so a poisoned state is still consistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Run blocking family code on the blocking pool.
async fn blocking<F>(what: &'static str, work: F) -> HandlerResult
where
    F: FnOnce() -> HandlerResult + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolError::Fatal(format!("{what}: the worker task failed: {e}")))?
}

impl StandardHandlers {
    /// The host a call was routed to.
    pub fn machine(&self, host: &str) -> Result<&Machine, ToolError> {
        self.machines.get(host).ok_or_else(|| {
            ToolError::Model(format!(
                "no host {host}; known hosts: {}",
                self.machines.keys().cloned().collect::<Vec<_>>().join(", ")
            ))
        })
    }

    pub fn machines(&self) -> &BTreeMap<String, Machine> {
        &self.machines
    }

    /// Hands the bound host's sandbox (as it is now) to the runtime for `introspect
    /// sandbox`; called when the conversation opens and after set_workdirs.
    pub(super) fn report_sandbox(&self) {
        let bound = self.runtime.bound_host();
        let report = self
            .machines
            .get(&bound)
            .and_then(|m| m.confinement.as_ref())
            .map(|c| c.describe());
        self.runtime.set_sandbox(report);
    }

    /// `shell_session list` over every host: each host's own list, merged (rows carry their
    /// host; with several hosts the text groups them, so a model sees which host_id to name).
    async fn list_sessions(&self, ctx: &CallContext) -> HandlerResult {
        if self.machines.len() == 1
            && let Some(machine) = self.machines.values().next()
        {
            return machine.shell.list(ctx).await;
        }
        let mut text = String::new();
        let mut rows = Vec::new();
        for (name, machine) in &self.machines {
            let listed = machine.shell.list(ctx).await?;
            let host_rows = listed
                .structured
                .as_ref()
                .and_then(|s| s.get("sessions"))
                .and_then(serde_json::Value::as_array)
                .cloned()
                .unwrap_or_default();
            if host_rows.is_empty() {
                continue;
            }
            text.push_str(&format!("host {name}:\n{}", listed.text));
            if !text.ends_with('\n') {
                text.push('\n');
            }
            rows.extend(host_rows);
        }
        if rows.is_empty() {
            text.push_str("No running sessions and none with unread output, on any host.");
        }
        Ok(ToolOutput {
            text,
            structured: Some(json!({ "sessions": rows })),
        })
    }
}

impl standard::Handlers for StandardHandlers {
    async fn activate_skill(
        &self,
        ctx: &CallContext,
        call: standard::activate_skill::Call,
    ) -> HandlerResult {
        self.runtime
            .activate(&ctx.call_id, &call.name)
            .map(|a| a.to_output())
    }

    async fn apply_patch(&self, ctx: &CallContext, req: files::ApplyPatch) -> HandlerResult {
        let machine = self.machine(&ctx.host)?;
        machine
            .files
            .apply_patch(&self.conversation, ctx, req)
            .await
    }

    async fn exec_command(
        &self,
        ctx: &CallContext,
        req: shell::ExecCommandRequest,
    ) -> HandlerResult {
        self.machine(&ctx.host)?.shell.exec_command(ctx, req).await
    }

    async fn file_edit(&self, ctx: &CallContext, req: files::FileEdit) -> HandlerResult {
        let machine = self.machine(&ctx.host)?;
        machine.files.file_edit(&self.conversation, ctx, req).await
    }

    async fn grep_files(&self, ctx: &CallContext, req: grep::GrepFilesRequest) -> HandlerResult {
        let root = self.machine(&ctx.host)?.root.clone();
        blocking("grep_files", move || grep::grep_files(&root, &req)).await
    }

    async fn introspect(&self, _ctx: &CallContext, req: Introspect) -> HandlerResult {
        self.runtime.introspect(&req.target)
    }

    async fn message_read(&self, _ctx: &CallContext, req: messages::MessageRead) -> HandlerResult {
        let store = self.messages.clone();
        blocking("message_read", move || {
            messages::message_read(store.as_ref(), &req)
        })
        .await
    }

    async fn monitor_start(
        &self,
        ctx: &CallContext,
        req: shell::MonitorStartRequest,
    ) -> HandlerResult {
        self.machine(&ctx.host)?.shell.monitor_start(ctx, req).await
    }

    async fn read_file(&self, ctx: &CallContext, req: files::ReadFile) -> HandlerResult {
        let machine = self.machine(&ctx.host)?;
        machine.files.read_file(&self.conversation, ctx, req).await
    }

    async fn search_memory(
        &self,
        _ctx: &CallContext,
        req: memory::SearchMemoryRequest,
    ) -> HandlerResult {
        let store = self.facts.clone();
        blocking("search_memory", move || {
            memory::search_memory(store.as_ref(), &req)
        })
        .await
    }

    async fn set_workdirs(
        &self,
        ctx: &CallContext,
        req: workdirs::SetWorkdirsRequest,
    ) -> HandlerResult {
        let machine = self.machine(&ctx.host)?;
        let state = machine.workdirs.clone();
        let confinement = machine.confinement.clone();
        let runtime = self.runtime.clone();
        let names = ctx.names;
        blocking("set_workdirs", move || {
            let mut workdirs = lock(&state);
            let result = workdirs.set_workdirs(&req, names);
            // The runtime's list (what introspect workdirs shows) and the sandbox's
            // writable roots follow the family's.
            let declared: Vec<PathBuf> =
                workdirs.declared().iter().map(|w| w.path.clone()).collect();
            if let Some(c) = &confinement {
                c.set_workdirs(declared.clone());
            }
            runtime.set_workdirs(declared);
            if let Some(c) = &confinement {
                runtime.set_sandbox(Some(c.describe()));
            }
            result
        })
        .await
    }

    async fn shell(&self, ctx: &CallContext, req: shell::ShellRequest) -> HandlerResult {
        self.machine(&ctx.host)?.shell.shell(ctx, req).await
    }

    async fn shell_session(&self, ctx: &CallContext, req: shell::ShellSession) -> HandlerResult {
        // host_id was used for routing (ctx.host is the session's owner); `list` covers
        // every host.
        match req {
            shell::ShellSession::List(_) => self.list_sessions(ctx).await,
            req => self.machine(&ctx.host)?.shell.shell_session(ctx, req).await,
        }
    }

    async fn sql_query(&self, ctx: &CallContext, req: data::SqlQueryRequest) -> HandlerResult {
        let machine = self.machine(&ctx.host)?;
        let root = machine.root.clone();
        match machine.confinement.clone() {
            None => blocking("sql_query", move || data::sql_query(&root, &req)).await,
            Some(c) => {
                let check: data::DatabaseCheck = Arc::new(move |p| c.check_database(p));
                blocking("sql_query", move || {
                    data::sql_query_checked(&root, &req, check)
                })
                .await
            }
        }
    }

    async fn write_file(&self, ctx: &CallContext, req: files::WriteFile) -> HandlerResult {
        let machine = self.machine(&ctx.host)?;
        machine.files.write_file(&self.conversation, ctx, req).await
    }

    async fn write_stdin(&self, ctx: &CallContext, req: shell::WriteStdinRequest) -> HandlerResult {
        self.machine(&ctx.host)?.shell.write_stdin(ctx, req).await
    }
}
