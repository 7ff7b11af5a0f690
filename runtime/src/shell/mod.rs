//! The shell family on real processes: `shell`, `exec_command`/`write_stdin`,
//! `shell_session` (poll · wait · kill · list · resize · unwatch) and `monitor_start`.
//!
//! One [`ShellHost`] per runtime host. Requests are plain structs whose field names are the
//! tool definitions' own; the generated call types map onto them 1:1 (`host_id` is routing,
//! not ours). Every method takes the [`CallContext`] and returns a [`HandlerResult`]: a text
//! for the model plus a `structured` JSON object with the same facts.
//!
//! # Processes
//!
//! - A command runs as `bash -c <command>` (`sh -c` when there is no bash), in its own
//!   session and process group (setsid), so `kill` reaches everything it started with one
//!   `killpg`. Not a login shell by default: the runtime's environment is inherited anyway,
//!   and profiles can be slow or block (a `pyenv rehash` lock in ~/.bashrc stalled every
//!   `bash -lc` here for 60 s); [`ShellConfig::login_shell`] turns on `bash -lc`.
//! - `tty: true` runs it on a pseudo-terminal (portable-pty; 80×24,
//!   `TERM=xterm-256color`, OPOST off so lines end in `\n` as written): prompts,
//!   `read -p`, line editing, `ctrl-c` through the line discipline and `resize` work. **`tty` defaults to false**: plain pipes
//!   (stdin a pipe, stdout and stderr merged into one pipe, `TERM=dumb`). That gives a model
//!   clean output (no echo, no progress-bar redraws), makes programs that want a terminal
//!   for a password fail instead of hang, and is the cheaper path. On a pipe session the
//!   control keys are mapped to what a terminal would do: `ctrl-c` → SIGINT, `ctrl-z` →
//!   SIGTSTP, `ctrl-\` → SIGQUIT to the process group, `ctrl-d` closes stdin, `enter` is
//!   `\n`; `resize` is refused.
//! - Environment, on top of the runtime's: `PAGER=cat`, `GIT_PAGER=cat`, `NO_COLOR=1`,
//!   `CLICOLOR=0`, `LANG=C.UTF-8`, `TERM=dumb` (or `xterm-256color` with a tty);
//!   `COLUMNS` and `LINES` are removed.
//! - A call that starts a command allocates the session id from the shared
//!   [`SessionRegistry`] and puts the session in this host's table *before* it waits at
//!   all: if the window ends (`yield_ms`; `write_stdin` waits `yield_time_ms`: bounds and
//!   defaults are the definitions', filled in by the generated conversion) or the turn is interrupted
//!   (`ctx.cancel`), the result is the session id and the output so far and the process
//!   keeps running. A command that finishes in the window answers with its exit code and
//!   output; its session is then released, unless its output was truncated (it stays,
//!   exited, so `poll offset=…` can read the rest).
//! - A background session gets an exit watcher: when the process exits a [`WakeUp`] is
//!   sent to the host's [`WakeSink`]. `monitor_start` adds a match watcher too
//!   (`until_output`, fires once). `unwatch` removes one watcher or all; `kill` removes all
//!   (the model asked for it and needs no wake-up).
//!
//! # Output
//!
//! Each session keeps a bounded head+tail buffer (1 MiB by default: the first 256 KiB and
//! the last 768 KiB); what fell between is shown as `[… N bytes dropped …]`. Offsets are
//! absolute byte offsets into everything the process printed. Results are cut to
//! `max_output_tokens` (its default is the definition's) **in the middle**, approximating one
//! token as four bytes; the cut names the offset to read it back from. `shell_session`'s
//! reads, which take no budget, are cut at 10000 tokens.
//! `until_output` regexes (Rust `regex` syntax, multi-line mode) are matched as output
//! arrives, against the unfinished last line plus the new chunk: a match cannot span a
//! newline that arrived in an earlier chunk, and `$` also matches at the end of what has
//! arrived so far (so a prompt without a newline can be waited for; to require a whole
//! line, end the pattern with `\n`).
//!
//! # Limits and cleanup
//!
//! At most 64 sessions per host (running or exited). Starting one more evicts the least
//! recently used exited session (fully read ones first) and says so; when every one is
//! running the call is refused. From 56 on the result carries a warning. `kill` sends
//! SIGTERM (and SIGCONT) to the process group, waits up to 2 s for the group to be gone,
//! then SIGKILL; the leader is always reaped by its waiter thread. The host makes its
//! process a child subreaper (configurable), so orphaned grandchildren of a session are
//! re-parented to it and reaped (only adopted orphans are reaped: no other module's child
//! loses its exit status). Dropping the host SIGKILLs every session's group.
//! Not covered: a process that leaves the session's process group (`setsid`, a script
//! with `set -m`) escapes `kill`; adopted orphans of *other* modules' children (same
//! session as the runtime, or daemons leading their own session) are not reaped here.
//! PTY rules: the slave is dropped right after spawn, the writer and master are kept until
//! the leader is reaped, each session has one reader thread (non-blocking reads; `poll`
//! only when a read finds nothing, or first on a pipe) feeding the buffer and one waiter
//! thread; waiters are woken through a `tokio::sync::watch`. The master is non-blocking
//! for input too: input a terminal has no room for (a raw-mode process that does not
//! read) fails after 5 s instead of hanging the call.
//!
//! # Sandbox
//!
//! A host confined with [`ShellHost::confine`] runs every command under its
//! [`crate::sandbox::Confinement`]'s policy, with the writable roots as they are at spawn
//! time (a running session keeps its roots). On a PTY the command goes through the re-exec
//! helper. On pipes the restriction, built before the fork, is applied in the child.
//! `TMPDIR` and `TMPPREFIX` point at the confinement's private temp dir. When the kernel
//! cannot enforce: under `required` the call is refused and nothing runs; under `warn` it
//! runs, and the result says it ran UNCONFINED.
//!
//! # Wake-ups
//!
//! [`WakeSink`] is this module's contract with the runtime core (`wake(WakeUp)`, the core's
//! one wake-up type: an exit carries its code and this module's wording in `detail`, the
//! watcher id and the command always);
//! A session's exit is published (and its exit wake-up sent) only once the reader has
//! drained what the leader printed: end of output, or, when a leftover child keeps the
//! terminal/pipe open, no byte left in the kernel after 250 ms (at most 2 s). So a match
//! printed right before the exit wakes first, and a finished result holds all output.
//! Match watchers live until end of output (a leftover child's output can still match).
//! `core::WakeSender` implements it over the runtime's event channel (hand
//! `Arc::new(runtime.wake_sender())` to [`ShellHost::new`]). An unbounded tokio mpsc sender
//! of [`WakeUp`] implements it as is (tests).

mod buffer;
mod keys;
mod session;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::call::{CallContext, HandlerResult, ToolError, ToolNames, ToolOutput};
use crate::registry::SessionRegistry;
use crate::sandbox::{Confinement, Launch};

pub use buffer::{DEFAULT_CAPACITY, OutputBuffer, Segment};
pub use keys::{KEY_NAMES, parse_key};
use session::{Exit, LineScanner, Session, Spawn, State, WatchKind, Watcher};
pub use session::{model_env, proc_stat, reap_orphans};

// ---------------------------------------------------------------------------------------
// Wake-ups

pub use crate::core::{NoWake, WakeKind, WakeSink, WakeUp};

// ---------------------------------------------------------------------------------------
// Requests (field names as in the tool definitions)

// A field with a `default:` in its definition is a plain value here: the generated
// conversion fills the default, so these types carry no default (and no `Default`) of their
// own, and the bounds are the definition's, enforced by `Call::parse` (no clamp here).

/// `shell`.
#[derive(Clone, Debug, PartialEq)]
pub struct ShellRequest {
    pub command: String,
    pub workdir: Option<String>,
    /// Window in ms.
    pub yield_ms: u64,
    /// Output budget in tokens (one token counted as four bytes).
    pub max_output_tokens: u64,
    pub tty: bool,
}

/// `exec_command` (Codex-native name).
#[derive(Clone, Debug, PartialEq)]
pub struct ExecCommandRequest {
    pub cmd: String,
    pub workdir: Option<String>,
    pub tty: bool,
    /// Window in ms.
    pub yield_time_ms: u64,
    pub max_output_tokens: u64,
}

/// `write_stdin`: write `chars` (if any), then collect output for `yield_time_ms`.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteStdinRequest {
    pub session_id: i64,
    pub chars: Option<String>,
    /// Window in ms.
    pub yield_time_ms: u64,
    pub max_output_tokens: u64,
}

/// `shell_session poll`. `host_id` (in every action that names a session) chose the host the
/// call was routed to; the family does not read it.
#[derive(Clone, Debug, PartialEq)]
pub struct Poll {
    pub session_id: i64,
    pub host_id: Option<String>,
    /// Written first, as is.
    pub chars: Option<String>,
    /// Named keys, written after `chars` (see [`KEY_NAMES`]).
    pub keys: Option<Vec<String>>,
    /// Read without moving the read cursor.
    pub peek: bool,
    /// Read from this absolute byte offset instead of the cursor.
    pub offset: Option<i64>,
}

/// `shell_session wait`.
#[derive(Clone, Debug, PartialEq)]
pub struct Wait {
    pub session_id: i64,
    pub host_id: Option<String>,
    /// Seconds.
    pub timeout_s: f64,
    /// A regex matched against output that is new (after the read cursor).
    pub until_output: Option<String>,
}

/// `shell_session kill`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kill {
    pub session_id: i64,
    pub host_id: Option<String>,
}

/// `shell_session list`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct List {}

/// `shell_session resize`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resize {
    pub session_id: i64,
    pub host_id: Option<String>,
    pub cols: i64,
    pub rows: i64,
}

/// `shell_session unwatch`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Unwatch {
    pub session_id: i64,
    pub host_id: Option<String>,
    /// One watcher; all of them (the exit wake-up included) when absent.
    pub watcher_id: Option<i64>,
}

/// `shell_session`, one variant per action: shell_session.yaml's `implements:` type, built
/// by the generated code from a parsed call.
#[derive(Clone, Debug, PartialEq)]
pub enum ShellSession {
    Poll(Poll),
    Wait(Wait),
    Kill(Kill),
    List(List),
    Resize(Resize),
    Unwatch(Unwatch),
}

/// `monitor_start`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MonitorStartRequest {
    pub command: String,
    pub until_output: Option<String>,
    pub workdir: Option<String>,
}

// ---------------------------------------------------------------------------------------
// Configuration

/// Defaults and limits. [`ShellConfig::default`] gives the documented values.
#[derive(Clone, Debug)]
pub struct ShellConfig {
    /// Sessions per host, running or exited (64).
    pub max_sessions: usize,
    /// Output buffer per session in bytes (1 MiB).
    pub buffer_capacity: usize,
    /// SIGTERM → SIGKILL grace (2 s).
    pub kill_grace: Duration,
    /// Terminal size for tty sessions, (cols, rows) (80×24).
    pub terminal_size: (u16, u16),
    /// Make the process a child subreaper and reap adopted orphans (true).
    pub reap_orphans: bool,
    /// The shell; default: bash if found, else /bin/sh.
    pub shell: Option<PathBuf>,
    /// Run bash as a login shell (`bash -lc`) (false).
    pub login_shell: bool,
    /// The sandbox helper program (run as `<program> __sandbox-exec …`); default: the one
    /// [`crate::sandbox`] discovers. Used only by a confined host ([`ShellHost::confine`]).
    pub sandbox_helper: Option<PathBuf>,
}

impl Default for ShellConfig {
    fn default() -> Self {
        ShellConfig {
            max_sessions: 64,
            buffer_capacity: DEFAULT_CAPACITY,
            kill_grace: Duration::from_secs(2),
            terminal_size: (80, 24),
            reap_orphans: true,
            shell: None,
            login_shell: false,
            sandbox_helper: None,
        }
    }
}

/// The output budget of `shell_session`'s reads (poll, wait, kill), which take no
/// `max_output_tokens` of their own.
const SESSION_READ_MAX_TOKENS: u64 = 10_000;
/// Warn when this many slots are left.
const WARN_SLOTS_LEFT: usize = 8;

// ---------------------------------------------------------------------------------------
// The host

/// The shell family of one runtime host. Cheap to clone (shared state).
#[derive(Clone, Debug)]
pub struct ShellHost {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    root: PathBuf,
    registry: Arc<SessionRegistry>,
    wake: Arc<dyn WakeSink>,
    config: ShellConfig,
    shell: PathBuf,
    sessions: Mutex<HashMap<i64, Arc<Session>>>,
    /// Session id → the call id that started it (see [`ShellHost::kill_sessions_started_by`]).
    started_by: Mutex<HashMap<i64, String>>,
    /// Set by [`ShellHost::end_all_sessions`]: no command starts any more.
    ended: std::sync::atomic::AtomicBool,
    next_watcher: AtomicI64,
    /// Set once by [`ShellHost::confine`]; unset: commands run unconfined.
    confinement: OnceLock<Arc<Confinement>>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellHost")
            .field("name", &self.name)
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let sessions = self.sessions.get_mut().unwrap_or_else(|p| p.into_inner());
        for s in sessions.values() {
            kill_group_and_forget(s, &self.registry);
        }
    }
}

/// SIGKILL a session's whole process group (if anything of it is left), stop its reader and
/// release its id. The leader is reaped by its waiter thread, adopted orphans by the reaper.
fn kill_group_and_forget(s: &Session, registry: &SessionRegistry) {
    s.lock().killed = true;
    if s.lock().exit.is_none() || s.signal(0) {
        s.signal(libc::SIGKILL);
    }
    s.stop.store(true, Ordering::SeqCst);
    registry.release(s.id);
}

/// Whether a wait ended by its condition, its deadline or an interrupt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WaitEnd {
    Met,
    Timeout,
    Cancelled,
}

impl ShellHost {
    /// A host named `name` (the id the registry records as owner) running commands in
    /// `root` unless a call names a `workdir`, with the default [`ShellConfig`].
    pub fn new(
        name: impl Into<String>,
        root: impl Into<PathBuf>,
        registry: Arc<SessionRegistry>,
        wake: Arc<dyn WakeSink>,
    ) -> Self {
        Self::with_config(name, root, registry, wake, ShellConfig::default())
    }

    pub fn with_config(
        name: impl Into<String>,
        root: impl Into<PathBuf>,
        registry: Arc<SessionRegistry>,
        wake: Arc<dyn WakeSink>,
        config: ShellConfig,
    ) -> Self {
        let shell = config.shell.clone().unwrap_or_else(find_shell);
        let inner = Arc::new(Inner {
            name: name.into(),
            root: root.into(),
            registry,
            wake,
            config,
            shell,
            sessions: Mutex::new(HashMap::new()),
            started_by: Mutex::new(HashMap::new()),
            ended: std::sync::atomic::AtomicBool::new(false),
            next_watcher: AtomicI64::new(1),
            confinement: OnceLock::new(),
        });
        if inner.config.reap_orphans && session::become_subreaper() {
            let weak = Arc::downgrade(&inner);
            // A periodic pass for orphans that die long after their session's leader.
            let _ = std::thread::Builder::new()
                .name("shell-reaper".into())
                .spawn(move || orphan_reaper(weak));
        }
        ShellHost { inner }
    }

    /// Spawns every later command through the sandbox helper under `confinement`'s
    /// policy, with its writable roots as they are at spawn time (a running session keeps
    /// the roots it started with). A host is confined once; a second call is refused.
    pub fn confine(&self, confinement: Arc<Confinement>) -> Result<(), Arc<Confinement>> {
        self.inner.confinement.set(confinement)
    }

    /// The confinement set by [`ShellHost::confine`].
    pub fn confinement(&self) -> Option<&Arc<Confinement>> {
        self.inner.confinement.get()
    }

    /// The host's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Sessions in this host's table (running or exited).
    pub fn session_count(&self) -> usize {
        self.sessions().len()
    }

    /// Bytes held by a session's output buffer, and its capacity (diagnostics and tests).
    pub fn buffer_usage(&self, session_id: i64) -> Option<(usize, usize)> {
        let s = self.sessions().get(&session_id).cloned()?;
        let st = s.lock();
        Some((st.buf.retained(), st.buf.capacity()))
    }

    /// The process-group id (= leader pid) of a session.
    pub fn session_pid(&self, session_id: i64) -> Option<i32> {
        self.sessions().get(&session_id).map(|s| s.pid)
    }

    /// End every session of this host: SIGKILL each process group, forget the sessions and
    /// release their ids; from now on no command starts (a call still running when its
    /// conversation ended cannot leave a new process behind). What a conversation's end does
    /// to the processes it started. Returns the ids ended.
    pub fn end_all_sessions(&self) -> Vec<i64> {
        let ended: Vec<Arc<Session>> = {
            let mut sessions = self.sessions();
            self.inner.ended.store(true, Ordering::SeqCst);
            sessions.drain().map(|(_, s)| s).collect()
        };
        self.started_by().clear();
        for s in &ended {
            kill_group_and_forget(s, &self.inner.registry);
        }
        reap_orphans();
        ended.iter().map(|s| s.id).collect()
    }

    /// End (as [`ShellHost::end_all_sessions`] does) the sessions that the call `call_id`
    /// started and that are still in the table: a cancelled call's client never learned
    /// their ids, so nobody could name them. Returns the ids ended.
    pub fn kill_sessions_started_by(&self, call_id: &str) -> Vec<i64> {
        let ids: Vec<i64> = {
            let mut origins = self.started_by();
            let ids = origins
                .iter()
                .filter(|(_, origin)| origin.as_str() == call_id)
                .map(|(id, _)| *id)
                .collect::<Vec<_>>();
            for id in &ids {
                origins.remove(id);
            }
            ids
        };
        let ended: Vec<Arc<Session>> = {
            let mut sessions = self.sessions();
            ids.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        for s in &ended {
            kill_group_and_forget(s, &self.inner.registry);
        }
        reap_orphans();
        ended.iter().map(|s| s.id).collect()
    }

    fn started_by(&self) -> MutexGuard<'_, HashMap<i64, String>> {
        self.inner
            .started_by
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Writes bytes to a session's terminal (or stdin) without reading or waiting: for the
    /// core and for measurements. `poll`/`write_stdin` are the model-facing ways to type.
    pub fn send_input(&self, session_id: i64, bytes: &[u8]) -> Result<(), ToolError> {
        // Not a model's call: no tool to point at.
        let s = self.session(session_id, &ToolNames::NONE)?;
        write_or_err(&s, bytes)
    }

    fn sessions(&self) -> MutexGuard<'_, HashMap<i64, Arc<Session>>> {
        self.inner
            .sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    fn session(&self, id: i64, names: &ToolNames) -> Result<Arc<Session>, ToolError> {
        let s = self.sessions().get(&id).cloned().ok_or_else(|| {
            let list = names
                .of::<ShellSession>()
                .map(|t| format!(" ({t} list shows the live ones)"))
                .unwrap_or_default();
            ToolError::Model(format!(
                "no shell session {id} on host {}; it may have been evicted{list}",
                self.inner.name
            ))
        })?;
        s.lock().last_used = Instant::now();
        Ok(s)
    }

    // -----------------------------------------------------------------------------------
    // shell / exec_command / write_stdin / monitor_start

    /// `shell`.
    pub async fn shell(&self, ctx: &CallContext, req: ShellRequest) -> HandlerResult {
        self.run(
            ctx,
            &req.command,
            req.workdir.as_deref(),
            req.tty,
            Duration::from_millis(req.yield_ms),
            max_bytes(req.max_output_tokens),
        )
        .await
    }

    /// `exec_command`.
    pub async fn exec_command(&self, ctx: &CallContext, req: ExecCommandRequest) -> HandlerResult {
        self.run(
            ctx,
            &req.cmd,
            req.workdir.as_deref(),
            req.tty,
            Duration::from_millis(req.yield_time_ms),
            max_bytes(req.max_output_tokens),
        )
        .await
    }

    /// `write_stdin`: a poll that writes `chars` and then collects output for the window
    /// (ending early if the process exits).
    pub async fn write_stdin(&self, ctx: &CallContext, req: WriteStdinRequest) -> HandlerResult {
        let s = self.session(req.session_id, ctx.names)?;
        if let Some(chars) = req.chars.as_deref().filter(|c| !c.is_empty()) {
            write_or_err(&s, chars.as_bytes())?;
        }
        let started = Instant::now();
        let deadline = after(
            started,
            Duration::from_millis(req.yield_time_ms),
            "yield_time_ms",
        )?;
        let end = wait_exit_or(&s, ctx, deadline).await;
        Ok(self.progress_result(
            &s,
            started,
            end,
            max_bytes(req.max_output_tokens),
            ctx.names,
        ))
    }

    /// `monitor_start`: a background command with an exit watcher and, with
    /// `until_output`, a match watcher. Returns at once.
    pub async fn monitor_start(
        &self,
        ctx: &CallContext,
        req: MonitorStartRequest,
    ) -> HandlerResult {
        let scanner = match req.until_output.as_deref() {
            Some(re) => Some(LineScanner::new(compile(re)?)),
            None => None,
        };
        let mut watchers = Vec::new();
        let match_id = scanner.map(|sc| {
            let id = self.watcher_id();
            watchers.push(Watcher {
                id,
                kind: WatchKind::Match(sc),
            });
            id
        });
        let exit_id = self.watcher_id();
        watchers.push(Watcher {
            id: exit_id,
            kind: WatchKind::Exit,
        });
        let (s, notes) = self.start(ctx, &req.command, req.workdir.as_deref(), false, watchers)?;
        s.lock().announced = true;
        let mut text = format!(
            "Monitoring session {} (pid {}) on host {}: `{}`.\n",
            s.id,
            s.pid,
            self.inner.name,
            short(&s.command)
        );
        if let (Some(id), Some(re)) = (match_id, req.until_output.as_deref()) {
            text.push_str(&format!(
                "You will be woken when its output matches /{re}/ (watcher {id}) "
            ));
            text.push_str(&format!("or when it exits (watcher {exit_id}).\n"));
        } else {
            text.push_str(&format!(
                "You will be woken when it exits (watcher {exit_id}).\n"
            ));
        }
        if let Some(t) = ctx.names.of::<ShellSession>() {
            text.push_str(&format!(
                "Read it with {t} poll/wait; stop it with {t} kill."
            ));
        }
        push_notes(&mut text, &notes);
        Ok(ToolOutput {
            text,
            structured: Some(json!({
                "session_id": s.id,
                "pid": s.pid,
                "running": true,
                "watchers": {"match": match_id, "exit": exit_id},
                "notes": notes,
            })),
        })
    }

    async fn run(
        &self,
        ctx: &CallContext,
        command: &str,
        workdir: Option<&str>,
        tty: bool,
        window: Duration,
        max_bytes: usize,
    ) -> HandlerResult {
        let started = Instant::now();
        let deadline = after(started, window, "the yield window")?;
        // Registered (id allocated, in the table) before the first wait.
        let (s, notes) = self.start(ctx, command, workdir, tty, Vec::new())?;
        let end = wait_exit_or(&s, ctx, deadline).await;
        let mut out = self.progress_result(&s, started, end, max_bytes, ctx.names);
        if !notes.is_empty() {
            push_notes(&mut out.text, &notes);
            if let Some(obj) = out.structured.as_mut().and_then(|v| v.as_object_mut()) {
                obj.insert("notes".into(), json!(notes));
            }
        }
        Ok(out)
    }

    /// Result of a call that waited on a session: finished → exit code (and the session
    /// is released unless output was cut), else → session id and it stays in the
    /// background with an exit watcher.
    fn progress_result(
        &self,
        s: &Arc<Session>,
        started: Instant,
        end: WaitEnd,
        max_bytes: usize,
        names: &ToolNames,
    ) -> ToolOutput {
        let wall = started.elapsed().as_secs_f64();
        let mut st = s.lock();
        let exit = st.exit;
        let from = st.cursor;
        let r = render(
            &st.buf,
            from,
            st.buf.total(),
            max_bytes,
            exit.is_none(),
            names,
        );
        let session_tool = names.of::<ShellSession>();
        st.cursor = st.cursor.max(r.next_offset);
        st.last_used = Instant::now();
        let cut = r.truncated > 0 || r.dropped > 0;
        let mut text = String::new();
        let mut release = false;
        match exit {
            Some(exit) => {
                st.exit_reported = st.cursor >= st.buf.total();
                st.watchers.retain(|w| !matches!(w.kind, WatchKind::Exit));
                text.push_str(&format!("Exit code: {}\n", exit.code()));
                if let Exit::Signal(_) = exit {
                    text.push_str(&format!("({})\n", exit.describe()));
                }
                text.push_str(&format!("Wall time: {wall:.2} s\n"));
                if cut || st.announced {
                    let hint = session_tool
                        .map(|t| format!(" ({t} poll offset=…)"))
                        .unwrap_or_default();
                    text.push_str(&format!(
                        "The full output stays in session {}{hint}.\n",
                        s.id
                    ));
                } else {
                    release = true;
                }
            }
            None => {
                text.push_str(&self.keep_running(s, &mut st, end, wall, session_tool));
            }
        }
        text.push_str("Output:\n");
        text.push_str(&r.text);
        let structured = json!({
            "session_id": if release { None } else { Some(s.id) },
            "running": exit.is_none(),
            "exit_code": exit.map(Exit::code),
            "signal": match exit { Some(Exit::Signal(sig)) => Some(sig), _ => None },
            "interrupted": end == WaitEnd::Cancelled,
            "wall_time_s": wall,
            "output": r.text,
            "offset": from,
            "next_offset": r.next_offset,
            "total_bytes": st.buf.total(),
            "dropped_bytes": r.dropped,
            "truncated_bytes": r.truncated,
        });
        drop(st);
        if release {
            self.sessions().remove(&s.id);
            self.started_by().remove(&s.id);
            self.inner.registry.release(s.id);
        }
        ToolOutput {
            text,
            structured: Some(structured),
        }
    }

    /// The still-running half of [`ShellHost::progress_result`]: the session stays, with an
    /// exit watcher (unless killed), and the text says how to follow it up.
    fn keep_running(
        &self,
        s: &Session,
        st: &mut State,
        end: WaitEnd,
        wall: f64,
        session_tool: Option<&str>,
    ) -> String {
        st.announced = true;
        if !st.killed
            && !st
                .watchers
                .iter()
                .any(|w| matches!(w.kind, WatchKind::Exit))
        {
            let id = self.watcher_id();
            st.watchers.push(Watcher {
                id,
                kind: WatchKind::Exit,
            });
        }
        let why = match end {
            WaitEnd::Cancelled => "the call was interrupted",
            _ => "the window ended",
        };
        let how = match session_tool {
            Some(t) => format!("Use {t} poll/wait/kill with session_id {}; you", s.id),
            None => "You".to_owned(),
        };
        format!(
            "Process running with session ID {} (pid {}); {why} after {wall:.2} s \
             and it keeps running in the background.\n{how} will be woken when it \
             exits.\n",
            s.id, s.pid
        )
    }

    fn watcher_id(&self) -> i64 {
        self.inner.next_watcher.fetch_add(1, Ordering::Relaxed)
    }

    /// Reserves a slot (evicting if needed), allocates the id and spawns; remembers that
    /// the call `ctx` is started it.
    fn start(
        &self,
        ctx: &CallContext,
        command: &str,
        workdir: Option<&str>,
        tty: bool,
        watchers: Vec<Watcher>,
    ) -> Result<(Arc<Session>, Vec<String>), ToolError> {
        if command.trim().is_empty() {
            // The definition asks for a non-empty string; this one is only white space.
            return Err(ToolError::Argument("command is empty".into()));
        }
        let dir = self.resolve_dir(workdir)?;
        let launch = match self.inner.confinement.get() {
            Some(c) => c.launch().map_err(ToolError::Model)?,
            None => Launch::Direct { note: None },
        };
        let cap = self.inner.config.max_sessions.max(1);
        let mut notes = Vec::new();
        if let Launch::Direct { note: Some(n) } = &launch {
            notes.push(n.clone());
        }
        let mut sessions = self.sessions();
        // Checked under the table's lock, which end_all_sessions holds while it sets it.
        if self.inner.ended.load(Ordering::SeqCst) {
            return Err(ToolError::Model(
                "this conversation has ended; no command is started any more".into(),
            ));
        }
        while sessions.len() >= cap {
            let victim = sessions
                .values()
                .filter_map(|s| {
                    let st = s.lock();
                    st.exit.map(|_| {
                        let unread = st.cursor < st.buf.total() || !st.exit_reported;
                        (unread, st.last_used, s.id)
                    })
                })
                .min();
            let Some((unread, _, id)) = victim else {
                let how = ctx
                    .names
                    .of::<ShellSession>()
                    .map(|t| format!(" ({t} kill)"))
                    .unwrap_or_default();
                return Err(ToolError::Model(format!(
                    "all {cap} shell sessions on host {} are running; kill one{how} before \
                     starting another",
                    self.inner.name
                )));
            };
            if let Some(s) = sessions.remove(&id) {
                self.started_by().remove(&id);
                s.stop.store(true, Ordering::SeqCst);
                self.inner.registry.release(id);
                notes.push(format!(
                    "evicted exited session {id} (`{}`{}) to make room",
                    short(&s.command),
                    if unread { ", with unread output" } else { "" }
                ));
            }
        }
        let id = self.inner.registry.allocate(&self.inner.name);
        let spawned = Session::spawn(Spawn {
            id,
            host: &self.inner.name,
            shell: &self.inner.shell,
            command,
            dir: &dir,
            tty,
            size: self.inner.config.terminal_size,
            buffer_cap: self.inner.config.buffer_capacity,
            wake: Arc::clone(&self.inner.wake),
            watchers,
            login: self.inner.config.login_shell,
            launch: &launch,
        });
        let s = match spawned {
            Ok(s) => s,
            Err(e) => {
                self.inner.registry.release(id);
                return Err(ToolError::Model(format!(
                    "could not start the command: {e}"
                )));
            }
        };
        sessions.insert(id, Arc::clone(&s));
        self.started_by().insert(id, ctx.call_id.clone());
        let used = sessions.len();
        if used + WARN_SLOTS_LEFT >= cap {
            notes.push(format!(
                "warning: {used} of {cap} shell session slots on host {} are in use; \
                 kill sessions you no longer need",
                self.inner.name
            ));
        }
        Ok((s, notes))
    }

    fn resolve_dir(&self, workdir: Option<&str>) -> Result<PathBuf, ToolError> {
        let dir = match workdir.filter(|w| !w.is_empty()) {
            None => self.inner.root.clone(),
            Some(w) if Path::new(w).is_absolute() => PathBuf::from(w),
            Some(w) => self.inner.root.join(w),
        };
        if dir.is_dir() {
            Ok(dir)
        } else {
            Err(ToolError::Model(format!(
                "workdir {} is not a directory",
                dir.display()
            )))
        }
    }

    // -----------------------------------------------------------------------------------
    // shell_session

    /// `shell_session`, dispatched on the action.
    pub async fn shell_session(&self, ctx: &CallContext, req: ShellSession) -> HandlerResult {
        match req {
            ShellSession::Poll(r) => self.poll(ctx, r).await,
            ShellSession::Wait(r) => self.wait(ctx, r).await,
            ShellSession::Kill(r) => self.kill(ctx, r).await,
            ShellSession::List(_) => self.list(ctx).await,
            ShellSession::Resize(r) => self.resize(ctx, r).await,
            ShellSession::Unwatch(r) => self.unwatch(ctx, r).await,
        }
    }

    /// `poll`: write `chars` then `keys`; if anything was written, let the output settle
    /// briefly (until 100 ms pass without new output, 2 s at most); then read new output
    /// (from `offset` if given) and move the cursor unless `peek`.
    pub async fn poll(&self, ctx: &CallContext, req: Poll) -> HandlerResult {
        let s = self.session(req.session_id, ctx.names)?;
        let mut wrote = false;
        if let Some(chars) = req.chars.as_deref().filter(|c| !c.is_empty()) {
            write_or_err(&s, chars.as_bytes())?;
            wrote = true;
        }
        let mut sequences = Vec::new();
        for name in req.keys.iter().flatten() {
            match parse_key(name) {
                Some(b) => sequences.push(b),
                None => {
                    // The key table is the runtime's (keys.rs); the definition says a string.
                    return Err(ToolError::Argument(format!(
                        "unknown key {name:?}; known keys: {KEY_NAMES}"
                    )));
                }
            }
        }
        for bytes in sequences {
            send_key(&s, &bytes)?;
            wrote = true;
        }
        if wrote {
            settle(&s, ctx).await;
        }
        let peek = req.peek;
        let offset = match req.offset {
            Some(o) if o < 0 => {
                return Err(ToolError::Argument("offset must be ≥ 0".into()));
            }
            Some(o) => Some(o as u64),
            None => None,
        };
        let mut st = s.lock();
        let from = offset.unwrap_or(st.cursor);
        let r = render(
            &st.buf,
            from,
            st.buf.total(),
            max_bytes(SESSION_READ_MAX_TOKENS),
            st.exit.is_none(),
            ctx.names,
        );
        if !peek {
            st.cursor = st.cursor.max(r.next_offset);
            if st.exit.is_some() && st.cursor >= st.buf.total() {
                st.exit_reported = true;
            }
        }
        Ok(session_output(&s, &st, from, &r, "", None))
    }

    /// `wait`: block until the process exits, `until_output` matches new output, or
    /// `timeout_s` passes; an interrupt returns what arrived so far.
    pub async fn wait(&self, ctx: &CallContext, req: Wait) -> HandlerResult {
        let s = self.session(req.session_id, ctx.names)?;
        // Call::parse holds timeout_s to the definition's 0–300; only a request a host built
        // by hand can carry a negative or non-finite one.
        let timeout = Duration::try_from_secs_f64(req.timeout_s).map_err(|_| {
            ToolError::Argument(format!(
                "timeout_s must be a finite number of seconds ≥ 0, got {}",
                req.timeout_s
            ))
        })?;
        let mut scanner = match req.until_output.as_deref() {
            Some(re) => Some(LineScanner::new(compile(re)?)),
            None => None,
        };
        let started = Instant::now();
        let mut scan_pos = s.lock().cursor;
        let mut matched: Option<String> = None;
        let deadline = after(started, timeout, "timeout_s")?;
        let end = wait_for(&s, ctx, deadline, scanner.is_some(), |st| {
            if let Some(sc) = scanner.as_mut() {
                for seg in st.buf.read(scan_pos, st.buf.total()) {
                    if let Segment::Bytes(b) = seg
                        && matched.is_none()
                    {
                        matched = sc.feed(&b);
                    }
                }
                scan_pos = st.buf.total();
                if matched.is_some() {
                    return true;
                }
            }
            st.exit.is_some()
        })
        .await;
        // An exit is published only after the output is drained: nothing more to collect.
        let waited = started.elapsed().as_secs_f64();
        let mut st = s.lock();
        let reason = match (&matched, end, st.exit) {
            (Some(m), _, _) => format!("until_output matched {m:?} after {waited:.2} s"),
            (None, WaitEnd::Cancelled, _) => {
                format!("wait was interrupted after {waited:.2} s")
            }
            (None, _, Some(exit)) => format!("the process {}", exit.describe()),
            (None, _, None) => format!("timed out after {waited:.2} s; still running"),
        };
        let from = st.cursor;
        let r = render(
            &st.buf,
            from,
            st.buf.total(),
            max_bytes(SESSION_READ_MAX_TOKENS),
            st.exit.is_none(),
            ctx.names,
        );
        st.cursor = st.cursor.max(r.next_offset);
        if st.exit.is_some() && st.cursor >= st.buf.total() {
            st.exit_reported = true;
        }
        let mut out = session_output(&s, &st, from, &r, &reason, matched.as_deref());
        if let Some(obj) = out.structured.as_mut().and_then(|v| v.as_object_mut()) {
            obj.insert("interrupted".into(), json!(end == WaitEnd::Cancelled));
            obj.insert(
                "timed_out".into(),
                json!(end == WaitEnd::Timeout && matched.is_none()),
            );
        }
        Ok(out)
    }

    /// `kill`: SIGTERM to the process group, SIGKILL after the grace period, leader reaped.
    /// Idempotent: a session already gone says so.
    pub async fn kill(&self, ctx: &CallContext, req: Kill) -> HandlerResult {
        let s = self.session(req.session_id, ctx.names)?;
        let was_killed;
        {
            let mut st = s.lock();
            was_killed = st.killed;
            st.killed = true;
            st.watchers.clear();
        }
        let gone_before = !s.group_alive();
        let mut how = String::new();
        if !gone_before {
            let grace = self.inner.config.kill_grace;
            let task = {
                let s = Arc::clone(&s);
                tokio::spawn(async move { terminate(&s, grace).await })
            };
            tokio::select! {
                r = task => how = r.unwrap_or_else(|e| format!("kill task failed: {e}")),
                _ = ctx.cancel.cancelled() => {
                    how = "the call was interrupted; SIGTERM was sent and SIGKILL follows \
                           after the grace period".into();
                }
            }
        }
        // Once the exit is published its output is complete (see `Session::spawn`).
        let mut st = s.lock();
        let from = st.cursor;
        let r = render(
            &st.buf,
            from,
            st.buf.total(),
            max_bytes(SESSION_READ_MAX_TOKENS),
            false,
            ctx.names,
        );
        st.cursor = st.cursor.max(r.next_offset);
        if st.exit.is_some() {
            st.exit_reported = true;
        }
        let status = st
            .exit
            .map(Exit::describe)
            .unwrap_or_else(|| "is still being terminated".into());
        let reason = if gone_before {
            format!(
                "session {} was already gone ({status}){}; nothing to kill",
                s.id,
                if was_killed { ", killed earlier" } else { "" }
            )
        } else {
            format!("killed session {}: {how}; the process {status}", s.id)
        };
        let mut out = session_output(&s, &st, from, &r, &reason, None);
        if let Some(obj) = out.structured.as_mut().and_then(|v| v.as_object_mut()) {
            obj.insert("already_gone".into(), json!(gone_before));
        }
        Ok(out)
    }

    /// `list`: running sessions and exited ones with unread output or an unreported exit.
    pub async fn list(&self, _ctx: &CallContext) -> HandlerResult {
        let mut all: Vec<Arc<Session>> = self.sessions().values().cloned().collect();
        all.sort_by_key(|s| s.id);
        let mut rows = Vec::new();
        let mut text = String::new();
        for s in all {
            let st = s.lock();
            let unread = st.buf.total().saturating_sub(st.cursor);
            let shown = st.exit.is_none() || unread > 0 || !st.exit_reported;
            if !shown {
                continue;
            }
            let state = match st.exit {
                None => "running".to_owned(),
                Some(e) => e.describe(),
            };
            let watchers: Vec<i64> = st.watchers.iter().map(|w| w.id).collect();
            text.push_str(&format!(
                "{}  {state}  {:.1} s  pid {}{}  unread {unread} B  `{}`\n",
                s.id,
                s.started.elapsed().as_secs_f64(),
                s.pid,
                if s.tty { "  tty" } else { "" },
                short(&s.command)
            ));
            rows.push(json!({
                "session_id": s.id,
                "host": s.host,
                "command": s.command,
                "pid": s.pid,
                "tty": s.tty,
                "running": st.exit.is_none(),
                "exit_code": st.exit.map(Exit::code),
                "state": state,
                "age_s": s.started.elapsed().as_secs_f64(),
                "unread_bytes": unread,
                "watchers": watchers,
            }));
        }
        if rows.is_empty() {
            text.push_str("No running sessions and none with unread output.");
        }
        Ok(ToolOutput {
            text,
            structured: Some(json!({ "sessions": rows })),
        })
    }

    /// `resize`: the terminal size (cols × rows, 1–1000 each); the process gets SIGWINCH.
    pub async fn resize(&self, ctx: &CallContext, req: Resize) -> HandlerResult {
        let s = self.session(req.session_id, ctx.names)?;
        let dim = |v: i64, name: &str| {
            u16::try_from(v)
                .ok()
                .filter(|v| (1..=1000).contains(v))
                .ok_or_else(|| ToolError::Model(format!("{name} must be 1–1000, not {v}")))
        };
        let (cols, rows) = (dim(req.cols, "cols")?, dim(req.rows, "rows")?);
        s.resize(cols, rows).map_err(ToolError::Model)?;
        Ok(ToolOutput {
            text: format!("Session {} terminal is now {cols}×{rows}.", s.id),
            structured: Some(json!({"session_id": s.id, "cols": cols, "rows": rows})),
        })
    }

    /// `unwatch`: remove one watcher, or all of them (the exit wake-up included).
    pub async fn unwatch(&self, ctx: &CallContext, req: Unwatch) -> HandlerResult {
        let s = self.session(req.session_id, ctx.names)?;
        let mut st = s.lock();
        let removed: Vec<i64> = match req.watcher_id {
            Some(w) => {
                let Some(pos) = st.watchers.iter().position(|x| x.id == w) else {
                    let ids: Vec<i64> = st.watchers.iter().map(|x| x.id).collect();
                    return Err(ToolError::Model(format!(
                        "session {} has no watcher {w}; its watchers: {ids:?}",
                        s.id
                    )));
                };
                vec![st.watchers.remove(pos).id]
            }
            None => st.watchers.drain(..).map(|w| w.id).collect(),
        };
        let left: Vec<i64> = st.watchers.iter().map(|x| x.id).collect();
        Ok(ToolOutput {
            text: format!(
                "Session {}: removed watcher(s) {removed:?}; remaining {left:?}.",
                s.id
            ),
            structured: Some(json!({"session_id": s.id, "removed": removed, "remaining": left})),
        })
    }
}

// ---------------------------------------------------------------------------------------
// Waiting

/// Waits until `pred` holds (checked on every change), the deadline, or an interrupt.
async fn wait_for(
    s: &Session,
    ctx: &CallContext,
    deadline: Instant,
    wants_output: bool,
    mut pred: impl FnMut(&mut State) -> bool,
) -> WaitEnd {
    struct Interest<'a>(&'a Session);
    impl Drop for Interest<'_> {
        fn drop(&mut self) {
            self.0.output_waiters.fetch_sub(1, Ordering::SeqCst);
        }
    }
    let mut rx = s.changed.subscribe();
    // Registered before the first check, so output pushed after it always wakes us.
    let _interest = wants_output.then(|| {
        s.output_waiters.fetch_add(1, Ordering::SeqCst);
        Interest(s)
    });
    loop {
        if pred(&mut s.lock()) {
            return WaitEnd::Met;
        }
        tokio::select! {
            biased;
            _ = ctx.cancel.cancelled() => return WaitEnd::Cancelled,
            r = rx.changed() => {
                if r.is_err() {
                    return WaitEnd::Met;
                }
            }
            _ = tokio::time::sleep_until(deadline.into()) => {
                return if pred(&mut s.lock()) { WaitEnd::Met } else { WaitEnd::Timeout };
            }
        }
    }
}

/// Waits for exit (published with the output drained) or the deadline / interrupt.
async fn wait_exit_or(s: &Session, ctx: &CallContext, deadline: Instant) -> WaitEnd {
    wait_for(s, ctx, deadline, false, |st| st.exit.is_some()).await
}

/// After input: wait for output to start (≤ 500 ms) and then to pause for 100 ms
/// (≤ 2 s in all), or for the process to exit.
async fn settle(s: &Session, ctx: &CallContext) {
    let hard = Instant::now() + Duration::from_secs(2);
    let mut quiet = Instant::now() + Duration::from_millis(500);
    let mut last = s.lock().buf.total();
    loop {
        let end = wait_for(s, ctx, quiet.min(hard), true, |st| {
            st.buf.total() != last || st.exit.is_some()
        })
        .await;
        if end != WaitEnd::Met {
            return;
        }
        let (total, exited) = {
            let st = s.lock();
            (st.buf.total(), st.exit.is_some())
        };
        if exited {
            return;
        }
        last = total;
        quiet = Instant::now() + Duration::from_millis(100);
    }
}

/// SIGTERM (+SIGCONT) to the group, wait for it to be gone, SIGKILL after `grace`.
async fn terminate(s: &Session, grace: Duration) -> String {
    s.signal(libc::SIGTERM);
    s.signal(libc::SIGCONT);
    if wait_group_gone(s, Instant::now() + grace).await {
        return "SIGTERM".into();
    }
    s.signal(libc::SIGKILL);
    if wait_group_gone(s, Instant::now() + Duration::from_secs(5)).await {
        format!("SIGTERM, then SIGKILL after {:.1} s", grace.as_secs_f64())
    } else {
        "SIGTERM, then SIGKILL; some process of the group is still not gone".into()
    }
}

async fn wait_group_gone(s: &Session, deadline: Instant) -> bool {
    loop {
        reap_orphans();
        if !s.group_alive() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn orphan_reaper(weak: Weak<Inner>) {
    loop {
        std::thread::sleep(Duration::from_millis(500));
        if weak.upgrade().is_none() {
            return;
        }
        reap_orphans();
    }
}

// ---------------------------------------------------------------------------------------
// Input

fn write_or_err(s: &Session, bytes: &[u8]) -> Result<(), ToolError> {
    s.write_input(bytes).map_err(|e| {
        let state = match s.lock().exit {
            Some(exit) => format!("the process {}", exit.describe()),
            None => "its input is closed".into(),
        };
        ToolError::Model(format!(
            "could not write to session {}: {state} ({e})",
            s.id
        ))
    })
}

/// Sends a key: to the terminal as is; to a pipe session control keys become signals.
fn send_key(s: &Session, bytes: &[u8]) -> Result<(), ToolError> {
    if !s.tty {
        let signal = match bytes {
            [0x03] => Some(libc::SIGINT),
            [0x1a] => Some(libc::SIGTSTP),
            [0x1c] => Some(libc::SIGQUIT),
            _ => None,
        };
        if let Some(sig) = signal {
            s.signal(sig);
            return Ok(());
        }
        match bytes {
            [0x04] => {
                s.close_input();
                return Ok(());
            }
            b"\r" => return write_or_err(s, b"\n"),
            _ => {}
        }
    }
    write_or_err(s, bytes)
}

// ---------------------------------------------------------------------------------------
// Rendering

struct Rendered {
    text: String,
    next_offset: u64,
    dropped: u64,
    truncated: u64,
}

/// Renders `[from, to)`, cut in the middle to `max_bytes`; with `hold_partial` an
/// incomplete UTF-8 sequence at the end is left for the next read.
fn render(
    buf: &OutputBuffer,
    from: u64,
    to: u64,
    max_bytes: usize,
    hold_partial: bool,
    names: &ToolNames,
) -> Rendered {
    let to = to.min(buf.total());
    let from = from.min(to);
    let mut end = to;
    if hold_partial {
        let look = end.saturating_sub(3).max(from);
        let mut tail = Vec::new();
        for seg in buf.read(look, end) {
            if let Segment::Bytes(b) = seg {
                tail.extend(b);
            }
        }
        end -= incomplete_utf8_suffix(&tail) as u64;
    }
    let mut dropped = 0;
    let mut piece = |a: u64, b: u64, trim_end: bool, trim_start: bool| {
        let mut bytes = Vec::new();
        let mut text = String::new();
        let flush = |bytes: &mut Vec<u8>, text: &mut String| {
            text.push_str(&String::from_utf8_lossy(bytes));
            bytes.clear();
        };
        for seg in buf.read(a, b) {
            match seg {
                Segment::Bytes(b) => bytes.extend(b),
                Segment::Dropped(n) => {
                    dropped += n;
                    flush(&mut bytes, &mut text);
                    text.push_str(&format!("\n[… {n} bytes dropped …]\n"));
                }
            }
        }
        if trim_start && text.is_empty() {
            let skip = bytes
                .iter()
                .take(3)
                .take_while(|b| (**b & 0xC0) == 0x80)
                .count();
            bytes.drain(..skip);
        }
        if trim_end {
            let n = incomplete_utf8_suffix(&bytes);
            bytes.truncate(bytes.len() - n);
        }
        flush(&mut bytes, &mut text);
        text
    };
    let len = end - from;
    let max = max_bytes as u64;
    let (text, truncated) = if len <= max {
        (piece(from, end, false, false), 0)
    } else {
        let half = max / 2;
        let head_end = from + half;
        let tail_start = end - (max - half);
        let mut text = piece(from, head_end, true, false);
        let cut = tail_start - head_end;
        let how = names
            .of::<ShellSession>()
            .map(|t| format!("; read them with {t} poll offset={head_end}"))
            .unwrap_or_default();
        text.push_str(&format!(
            "\n[… {cut} bytes (~{} tokens) truncated{how} …]\n",
            cut.div_ceil(4)
        ));
        text.push_str(&piece(tail_start, end, false, true));
        (text, cut)
    };
    Rendered {
        text,
        next_offset: end,
        dropped,
        truncated,
    }
}

/// Length of an incomplete UTF-8 sequence at the end of `b` (0–3).
fn incomplete_utf8_suffix(b: &[u8]) -> usize {
    for back in 1..=b.len().min(3) {
        let c = b[b.len() - back];
        if c & 0xC0 == 0x80 {
            continue;
        }
        let need = if c >= 0xF0 {
            4
        } else if c >= 0xE0 {
            3
        } else if c >= 0xC0 {
            2
        } else {
            1
        };
        return if need > back { back } else { 0 };
    }
    0
}

fn session_output(
    s: &Session,
    st: &State,
    from: u64,
    r: &Rendered,
    reason: &str,
    matched: Option<&str>,
) -> ToolOutput {
    let status = match st.exit {
        None => format!(
            "Session {} running (pid {}, {:.1} s)",
            s.id,
            s.pid,
            s.started.elapsed().as_secs_f64()
        ),
        Some(exit) => format!("Session {}: process {}", s.id, exit.describe()),
    };
    let mut text = String::new();
    if !reason.is_empty() {
        text.push_str(reason);
        text.push('\n');
    }
    text.push_str(&status);
    text.push_str(&format!(
        "\nOutput (bytes {from}–{} of {}):\n",
        r.next_offset,
        st.buf.total()
    ));
    text.push_str(&r.text);
    ToolOutput {
        text,
        structured: Some(json!({
            "session_id": s.id,
            "running": st.exit.is_none(),
            "exit_code": st.exit.map(Exit::code),
            "signal": match st.exit { Some(Exit::Signal(sig)) => Some(sig), _ => None },
            "reason": reason,
            "matched": matched,
            "output": r.text,
            "offset": from,
            "next_offset": r.next_offset,
            "total_bytes": st.buf.total(),
            "dropped_bytes": r.dropped,
            "truncated_bytes": r.truncated,
        })),
    }
}

fn push_notes(text: &mut String, notes: &[String]) {
    for n in notes {
        text.push('\n');
        text.push_str(n);
    }
}

// ---------------------------------------------------------------------------------------
// Small helpers

/// `start + d`; a window past what the clock can hold (only a request built by hand, beyond
/// the definition's maximum) is refused instead of panicking.
fn after(start: Instant, d: Duration, what: &str) -> Result<Instant, ToolError> {
    start
        .checked_add(d)
        .ok_or_else(|| ToolError::Argument(format!("{what} is too long")))
}

/// `max_output_tokens` → bytes (1 token ≈ 4 bytes). Every budget the definition allows is
/// honoured, down to its minimum of one token.
fn max_bytes(tokens: u64) -> usize {
    usize::try_from(tokens).map_or(usize::MAX, |t| t.saturating_mul(4))
}

fn compile(re: &str) -> Result<regex::bytes::Regex, ToolError> {
    regex::bytes::RegexBuilder::new(re)
        .multi_line(true)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| ToolError::Argument(format!("until_output is not a valid regex: {e}")))
}

fn short(cmd: &str) -> String {
    toolsurface_text::cut(&cmd.replace('\n', " "), 80).into_owned()
}

fn find_shell() -> PathBuf {
    for p in ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"] {
        if Path::new(p).is_file() {
            return PathBuf::from(p);
        }
    }
    PathBuf::from("/bin/sh")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_truncation_names_the_offset() {
        let mut b = OutputBuffer::new(1 << 20);
        b.push(&[b'x'; 1000]);
        static NAMES: ToolNames = ToolNames::new(&[(
            std::any::TypeId::of::<ShellSession> as fn() -> std::any::TypeId,
            "shell_session",
        )]);
        let r = render(&b, 0, 1000, 200, false, &NAMES);
        assert_eq!(r.truncated, 800);
        assert!(
            r.text.contains("shell_session poll offset=100"),
            "{}",
            r.text
        );
        let bare = render(&b, 0, 1000, 200, false, &ToolNames::NONE);
        assert!(bare.text.contains("truncated …]"), "{}", bare.text);
        assert_eq!(r.next_offset, 1000);
    }

    #[test]
    fn partial_utf8_is_held_back() {
        let mut b = OutputBuffer::new(1 << 20);
        b.push("é".as_bytes());
        b.push(&"€".as_bytes()[..2]);
        let r = render(&b, 0, b.total(), 1000, true, &ToolNames::NONE);
        assert_eq!(r.text, "é");
        assert_eq!(r.next_offset, 2);
    }
}
