//! [`StandardHandlers`]: the generated [`standard::Handlers`] trait implemented by the
//! runtime's tool families. Each method maps its typed call field by field onto the family's
//! request struct (the field names are the definitions' own) and calls it on the host the
//! runtime routed the call to (`ctx.host`); selector actions go to the family's per-action
//! functions. Blocking families (SQLite, ripgrep, git) run on tokio's blocking pool.
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

    /// The folders declared on this host with set_workdirs.
    pub fn declared_workdirs(&self) -> Vec<workdirs::Workdir> {
        lock(&self.workdirs).declared().to_vec()
    }
}

/// Every standard tool, executed for real by the runtime's families.
pub struct StandardHandlers {
    pub(super) runtime: Arc<Runtime>,
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

/// A bound the generated parser already enforces (minimum ≥ 0), checked again instead of
/// cast.
fn unsigned(field: &str, value: Option<i64>) -> Result<Option<u64>, ToolError> {
    value
        .map(|v| {
            u64::try_from(v)
                .map_err(|_| ToolError::Model(format!("{field} must not be negative (got {v})")))
        })
        .transpose()
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

    async fn apply_patch(
        &self,
        ctx: &CallContext,
        call: standard::apply_patch::Call,
    ) -> HandlerResult {
        let req = files::ApplyPatch {
            patch: call.patch,
            device: call.device,
        };
        let machine = self.machine(&ctx.host)?;
        machine
            .files
            .apply_patch(&self.conversation, ctx, req)
            .await
    }

    async fn exec_command(
        &self,
        ctx: &CallContext,
        call: standard::exec_command::Call,
    ) -> HandlerResult {
        let req = shell::ExecCommandRequest {
            cmd: call.cmd,
            workdir: call.workdir,
            tty: call.tty,
            yield_time_ms: call.yield_time_ms,
            max_output_tokens: call.max_output_tokens,
        };
        self.machine(&ctx.host)?.shell.exec_command(ctx, req).await
    }

    async fn file_edit(&self, ctx: &CallContext, call: standard::file_edit::Call) -> HandlerResult {
        let req = files::FileEdit {
            path: call.path,
            old_text: call.old_text,
            new_text: call.new_text,
            replace_all: call.replace_all,
            expected_sha256: call.expected_sha256,
            device: call.device,
        };
        let machine = self.machine(&ctx.host)?;
        machine.files.file_edit(&self.conversation, ctx, req).await
    }

    async fn grep_files(
        &self,
        ctx: &CallContext,
        call: standard::grep_files::Call,
    ) -> HandlerResult {
        let req = grep::GrepFilesRequest {
            pattern: call.pattern,
            path: call.path,
            glob: call.glob,
            case_insensitive: call.case_insensitive,
            max_results: unsigned("max_results", call.max_results)?,
        };
        let root = self.machine(&ctx.host)?.root.clone();
        blocking("grep_files", move || grep::grep_files(&root, &req)).await
    }

    async fn introspect(
        &self,
        _ctx: &CallContext,
        call: standard::introspect::Call,
    ) -> HandlerResult {
        self.runtime.introspect(&call.target)
    }

    async fn message_read(
        &self,
        _ctx: &CallContext,
        call: standard::message_read::Call,
    ) -> HandlerResult {
        use standard::message_read as m;
        let req = match call {
            m::Call::History(c) => messages::MessageReadRequest {
                mode: messages::MessageReadMode::History,
                session_id: c.session_id,
                channel: c.channel,
                view: c.view.map(|v| match v {
                    m::View::Transcript => messages::HistoryView::Transcript,
                    m::View::Turns => messages::HistoryView::Turns,
                    m::View::Audit => messages::HistoryView::Audit,
                }),
                limit: unsigned("limit", c.limit)?,
                ..Default::default()
            },
            m::Call::Context(c) => messages::MessageReadRequest {
                mode: messages::MessageReadMode::Context,
                message_id: Some(c.message_id),
                before: unsigned("before", c.before)?,
                after: unsigned("after", c.after)?,
                ..Default::default()
            },
            m::Call::Payload(c) => messages::MessageReadRequest {
                mode: messages::MessageReadMode::Payload,
                message_id: Some(c.message_id),
                field: Some(match c.field {
                    m::Field::Content => messages::PayloadField::Content,
                    m::Field::ToolResult => messages::PayloadField::ToolResult,
                    m::Field::Reasoning => messages::PayloadField::Reasoning,
                    m::Field::ToolCalls => messages::PayloadField::ToolCalls,
                }),
                offset: unsigned("offset", c.offset)?,
                limit: unsigned("limit", c.limit)?,
                ..Default::default()
            },
        };
        let store = self.messages.clone();
        blocking("message_read", move || {
            messages::message_read(store.as_ref(), &req)
        })
        .await
    }

    async fn monitor_start(
        &self,
        ctx: &CallContext,
        call: standard::monitor_start::Call,
    ) -> HandlerResult {
        let req = shell::MonitorStartRequest {
            command: call.command,
            until_output: call.until_output,
            workdir: call.workdir,
        };
        self.machine(&ctx.host)?.shell.monitor_start(ctx, req).await
    }

    async fn read_file(&self, ctx: &CallContext, call: standard::read_file::Call) -> HandlerResult {
        let req = files::ReadFile {
            path: call.path,
            offset: unsigned("offset", call.offset)?,
            limit: unsigned("limit", call.limit)?,
            device: call.device,
        };
        let machine = self.machine(&ctx.host)?;
        machine.files.read_file(&self.conversation, ctx, req).await
    }

    async fn search_memory(
        &self,
        _ctx: &CallContext,
        call: standard::search_memory::Call,
    ) -> HandlerResult {
        let req = memory::SearchMemoryRequest {
            query: call.query,
            limit: unsigned("limit", call.limit)?,
        };
        let store = self.facts.clone();
        blocking("search_memory", move || {
            memory::search_memory(store.as_ref(), &req)
        })
        .await
    }

    async fn set_workdirs(
        &self,
        ctx: &CallContext,
        call: standard::set_workdirs::Call,
    ) -> HandlerResult {
        let req = workdirs::SetWorkdirsRequest {
            dirs: call.dirs,
            mode: call.mode.map(|m| match m {
                standard::set_workdirs::Mode::Set => workdirs::WorkdirsMode::Set,
                standard::set_workdirs::Mode::Add => workdirs::WorkdirsMode::Add,
                standard::set_workdirs::Mode::Remove => workdirs::WorkdirsMode::Remove,
            }),
        };
        let state = self.machine(&ctx.host)?.workdirs.clone();
        let runtime = self.runtime.clone();
        blocking("set_workdirs", move || {
            let mut workdirs = lock(&state);
            let result = workdirs.set_workdirs(&req);
            // The runtime's list (what introspect workdirs shows) follows the family's.
            runtime.set_workdirs(workdirs.declared().iter().map(|w| w.path.clone()).collect());
            result
        })
        .await
    }

    async fn shell(&self, ctx: &CallContext, call: standard::shell::Call) -> HandlerResult {
        let req = shell::ShellRequest {
            command: call.command,
            workdir: call.workdir,
            yield_ms: call.yield_ms,
            max_output_tokens: call.max_output_tokens,
            tty: call.tty,
        };
        self.machine(&ctx.host)?.shell.shell(ctx, req).await
    }

    async fn shell_session(
        &self,
        ctx: &CallContext,
        call: standard::shell_session::Call,
    ) -> HandlerResult {
        use standard::shell_session as s;
        // host_id was used for routing (ctx.host is the session's owner); the family does
        // not take it.
        match call {
            s::Call::Poll(c) => {
                let req = shell::PollRequest {
                    session_id: c.session_id,
                    chars: c.chars,
                    keys: c.keys,
                    peek: c.peek,
                    offset: c.offset,
                };
                self.machine(&ctx.host)?.shell.poll(ctx, req).await
            }
            s::Call::Wait(c) => {
                let req = shell::WaitRequest {
                    session_id: c.session_id,
                    timeout_s: c.timeout_s,
                    until_output: c.until_output,
                };
                self.machine(&ctx.host)?.shell.wait(ctx, req).await
            }
            s::Call::Kill(c) => {
                let req = shell::KillRequest {
                    session_id: c.session_id,
                };
                self.machine(&ctx.host)?.shell.kill(ctx, req).await
            }
            s::Call::List(_) => self.list_sessions(ctx).await,
            s::Call::Resize(c) => {
                let req = shell::ResizeRequest {
                    session_id: c.session_id,
                    cols: c.cols,
                    rows: c.rows,
                };
                self.machine(&ctx.host)?.shell.resize(ctx, req).await
            }
            s::Call::Unwatch(c) => {
                let req = shell::UnwatchRequest {
                    session_id: c.session_id,
                    watcher_id: c.watcher_id,
                };
                self.machine(&ctx.host)?.shell.unwatch(ctx, req).await
            }
        }
    }

    async fn sql_query(&self, ctx: &CallContext, call: standard::sql_query::Call) -> HandlerResult {
        let req = data::SqlQueryRequest {
            database: call.database,
            sql: call.sql,
            limit: unsigned("limit", call.limit)?,
        };
        let root = self.machine(&ctx.host)?.root.clone();
        blocking("sql_query", move || data::sql_query(&root, &req)).await
    }

    async fn write_file(
        &self,
        ctx: &CallContext,
        call: standard::write_file::Call,
    ) -> HandlerResult {
        // Call::parse let through one precondition at most (forbidden_with).
        let precondition = if let Some(sha) = call.expected_sha256 {
            files::WritePrecondition::Expected(sha)
        } else if let Some(token) = call.confirm_token {
            files::WritePrecondition::Confirm(token)
        } else if call.overwrite == Some(true) {
            files::WritePrecondition::Overwrite
        } else if call.create_only == Some(true) {
            files::WritePrecondition::CreateOnly
        } else {
            files::WritePrecondition::None
        };
        let req = files::WriteFile {
            path: call.path,
            content: call.content,
            precondition,
            device: call.device,
        };
        let machine = self.machine(&ctx.host)?;
        machine.files.write_file(&self.conversation, ctx, req).await
    }

    async fn write_stdin(
        &self,
        ctx: &CallContext,
        call: standard::write_stdin::Call,
    ) -> HandlerResult {
        let req = shell::WriteStdinRequest {
            session_id: call.session_id,
            chars: call.chars,
            yield_time_ms: call.yield_time_ms,
            max_output_tokens: call.max_output_tokens,
        };
        self.machine(&ctx.host)?.shell.write_stdin(ctx, req).await
    }
}
