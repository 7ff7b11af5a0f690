//! One background process: spawning (PTY or pipes), the reader and waiter threads, signals
//! to its process group, and reaping.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use tokio::sync::watch;

use super::buffer::OutputBuffer;
use super::{WakeKind, WakeSink, WakeUp};
use crate::sandbox::{HELPER_ARG, Launch, POLICY_ENV};

/// After the leader exits while another process holds its output open: how long to wait
/// for end of output before settling for "nothing left to read".
pub const DRAIN_GRACE: Duration = Duration::from_millis(250);
/// The longest the exit is held back for output (a leftover child that keeps printing).
pub const DRAIN_CAP: Duration = Duration::from_secs(2);
const DRAIN_STEP: Duration = Duration::from_millis(25);
/// How long (ms) input to a terminal may wait for room before the write gives up.
pub const INPUT_STALL_MS: i32 = 5_000;

/// How a session's leader process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

impl Exit {
    /// The shell convention: the code, or 128 + the signal number.
    pub fn code(self) -> i32 {
        match self {
            Exit::Code(c) => c,
            Exit::Signal(s) => 128 + s,
        }
    }

    pub fn describe(self) -> String {
        match self {
            Exit::Code(c) => format!("exited with code {c}"),
            Exit::Signal(s) => format!("killed by signal {s} ({})", signal_name(s)),
        }
    }
}

pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGTERM => "SIGTERM",
        libc::SIGTSTP => "SIGTSTP",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        _ => "signal",
    }
}

/// A line-oriented regex scanner over a byte stream: each new chunk is searched together
/// with the unterminated last line of the previous ones (kept up to 64 KiB), so a match
/// may not straddle a newline that arrived in an earlier chunk.
#[derive(Debug)]
pub struct LineScanner {
    regex: regex::bytes::Regex,
    carry: Vec<u8>,
}

const CARRY_MAX: usize = 64 * 1024;

impl LineScanner {
    pub fn new(regex: regex::bytes::Regex) -> Self {
        LineScanner {
            regex,
            carry: Vec::new(),
        }
    }

    /// The first match in carry + `chunk`, as lossy text.
    pub fn feed(&mut self, chunk: &[u8]) -> Option<String> {
        self.carry.extend_from_slice(chunk);
        let found = self
            .regex
            .find(&self.carry)
            .map(|m| String::from_utf8_lossy(m.as_bytes()).into_owned());
        if found.is_some() {
            self.carry.clear();
            return found;
        }
        let keep_from = match self.carry.iter().rposition(|&b| b == b'\n') {
            Some(p) => p + 1,
            None => 0,
        };
        let keep_from = keep_from.max(self.carry.len().saturating_sub(CARRY_MAX));
        self.carry.drain(..keep_from);
        None
    }
}

#[derive(Debug)]
pub enum WatchKind {
    Exit,
    Match(LineScanner),
}

#[derive(Debug)]
pub struct Watcher {
    pub id: i64,
    pub kind: WatchKind,
}

/// Mutable state of a session, behind one mutex.
#[derive(Debug)]
pub struct State {
    pub buf: OutputBuffer,
    /// Absolute offset of the next unread byte.
    pub cursor: u64,
    /// How the leader ended: set once it is reaped *and* its output is drained (see
    /// [`Session::spawn`]), so whoever sees it also sees everything it printed.
    pub exit: Option<Exit>,
    /// The reader saw end of output (every holder of the terminal/pipe closed it).
    pub eof: bool,
    /// A call result has told the model how the process ended.
    pub exit_reported: bool,
    pub last_used: Instant,
    pub watchers: Vec<Watcher>,
    /// `kill` was asked for (watchers were dropped; no exit wake-up).
    pub killed: bool,
    /// The model was told about this session (a call returned its id).
    pub announced: bool,
}

/// Input side and terminal, kept alive until the leader is reaped.
pub struct Io {
    pub writer: Option<Box<dyn Write + Send>>,
    pub master: Option<Box<dyn MasterPty + Send>>,
}

pub struct Session {
    pub id: i64,
    pub host: String,
    pub command: String,
    /// The leader's pid; it is also its process group and session id (setsid).
    pub pid: i32,
    pub tty: bool,
    pub started: Instant,
    pub state: Mutex<State>,
    pub io: Mutex<Io>,
    /// Bumped on every change (output, exit, eof); waiters subscribe.
    pub changed: watch::Sender<u64>,
    /// Tells the reader thread to give up (eviction, host drop).
    pub stop: AtomicBool,
    /// Waiters that care about output (not just exit): output only wakes waiters when
    /// there are some, so a process draining megabytes does not wake an exit-only waiter
    /// for every chunk.
    pub output_waiters: AtomicUsize,
    pub wake: Arc<dyn WakeSink>,
    /// Notified (with `state`) when the reader reaches end of output.
    eof_cv: Condvar,
    /// The reader holds bytes it has taken from the kernel but not yet pushed (set before
    /// each read, cleared after the bytes are in the buffer and the watchers saw them).
    reading: AtomicBool,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("pid", &self.pid)
            .field("command", &self.command)
            .finish_non_exhaustive()
    }
}

/// What to start.
pub struct Spawn<'a> {
    pub id: i64,
    pub host: &'a str,
    pub shell: &'a Path,
    pub command: &'a str,
    pub dir: &'a Path,
    pub tty: bool,
    pub size: (u16, u16),
    pub buffer_cap: usize,
    pub wake: Arc<dyn WakeSink>,
    /// Watchers armed before any output can arrive.
    pub watchers: Vec<Watcher>,
    /// `-lc` for bash instead of `-c`.
    pub login: bool,
    /// Directly or through the sandbox helper.
    pub launch: &'a Launch,
}

impl Spawn<'_> {
    /// The program to exec, its arguments and the extra environment: `shell -c command`,
    /// behind `helper __sandbox-exec` (policy in the environment) when confined.
    fn helper_argv(&self) -> (&Path, Vec<&OsStr>, Vec<(String, String)>) {
        let shell_args = [
            self.shell.as_os_str(),
            OsStr::new(login_flag(self.shell, self.login)),
            OsStr::new(self.command),
        ];
        match self.launch {
            Launch::Direct { .. } => (self.shell, shell_args[1..].to_vec(), Vec::new()),
            Launch::Helper {
                program,
                env,
                policy,
            } => {
                let mut args = vec![OsStr::new(HELPER_ARG)];
                args.extend(shell_args);
                let mut env = env.clone();
                env.push((POLICY_ENV.to_owned(), policy.to_json()));
                (program, args, env)
            }
        }
    }
}

/// The environment every command gets (on top of the runtime's own).
/// An empty value means "removed".
pub fn model_env(tty: bool) -> [(&'static str, &'static str); 8] {
    [
        ("PAGER", "cat"),
        ("GIT_PAGER", "cat"),
        ("NO_COLOR", "1"),
        ("CLICOLOR", "0"),
        ("LANG", "C.UTF-8"),
        ("TERM", if tty { "xterm-256color" } else { "dumb" }),
        ("COLUMNS", ""),
        ("LINES", ""),
    ]
}

impl Session {
    pub fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned state is still consistent enough to read and kill from.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn lock_io(&self) -> MutexGuard<'_, Io> {
        self.io.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// Starts the process and its reader and waiter threads.
    ///
    /// The reader feeds the buffer and the match watchers; the waiter reaps the leader,
    /// then waits for the reader to drain what the leader printed (end of output; or, when
    /// another process keeps the terminal/pipe open, nothing left in the kernel after
    /// [`DRAIN_GRACE`], at most [`DRAIN_CAP`]) and only then publishes the exit and sends
    /// the exit wake-ups. So a match printed right before exiting wakes before the exit,
    /// and `exit` being set means the output is complete. Match watchers live until end of
    /// output: what a leftover child prints after the leader's exit can still match.
    pub fn spawn(s: Spawn<'_>) -> io::Result<Arc<Session>> {
        let (child, read_fd, writer, master) = if s.tty {
            spawn_pty(&s)?
        } else {
            spawn_pipes(&s)?
        };
        let pid = i32::try_from(child.id()).map_err(io::Error::other)?;
        // The waiter's own view of the output descriptor, to see whether bytes are still
        // waiting in the kernel when the leader has exited.
        let probe = match dup_cloexec(read_fd.as_raw_fd()) {
            Ok(fd) => fd,
            Err(e) => {
                kill_and_reap(child);
                return Err(e);
            }
        };
        let (changed, _) = watch::channel(0u64);
        let session = Arc::new(Session {
            id: s.id,
            host: s.host.to_owned(),
            command: s.command.to_owned(),
            pid,
            tty: s.tty,
            started: Instant::now(),
            state: Mutex::new(State {
                buf: OutputBuffer::new(s.buffer_cap),
                cursor: 0,
                exit: None,
                eof: false,
                exit_reported: false,
                last_used: Instant::now(),
                watchers: s.watchers,
                killed: false,
                announced: false,
            }),
            io: Mutex::new(Io { writer, master }),
            changed,
            stop: AtomicBool::new(false),
            output_waiters: AtomicUsize::new(0),
            wake: s.wake,
            eof_cv: Condvar::new(),
            reading: AtomicBool::new(false),
        });
        let reader = Arc::clone(&session);
        let waiter = Arc::clone(&session);
        let spawned = std::thread::Builder::new()
            .name(format!("shell-read-{}", s.id))
            .spawn(move || reader.read_loop(read_fd))
            .and_then(|_| {
                std::thread::Builder::new()
                    .name(format!("shell-wait-{}", s.id))
                    .spawn(move || waiter.wait_loop(child, probe))
            });
        if let Err(e) = spawned {
            // Without threads nothing would reap it: kill now (the child handle was moved
            // into the closure that failed to start and is dropped; the zombie is left to
            // the orphan reaper).
            session.signal(libc::SIGKILL);
            session.stop.store(true, Ordering::SeqCst);
            return Err(e);
        }
        Ok(session)
    }

    /// Reads output until end of output (or `stop`). The descriptor is non-blocking, so a
    /// read never blocks (which is what lets the waiter trust `reading`, see
    /// [`Session::nothing_in_flight`]), and `poll` (200 ms, so `stop` is seen while the
    /// process is silent) comes first only when a read is not expected to find output.
    ///
    /// A pty hands out at most 4 KiB per read (n_tty's buffer): 64 MiB is ~16k reads. Its
    /// read itself waits for the kernel's flush worker when the buffer is empty, so on a
    /// pty the next read is tried straight away (one syscall per chunk instead of two;
    /// `poll` only after a read found nothing). A pipe read finds nothing at once when
    /// the writer is slower, so there `poll` comes first unless the last read filled the
    /// whole chunk.
    fn read_loop(&self, fd: OwnedFd) {
        let raw = fd.as_raw_fd();
        set_nonblocking(raw);
        let mut file = File::from(fd);
        let mut chunk = vec![0u8; 64 * 1024];
        let mut read_first = false;
        loop {
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            if !read_first && !wait_readable(raw, 200) {
                break;
            }
            self.reading.store(true, Ordering::SeqCst);
            read_first = false;
            match file.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    self.on_output(&chunk[..n]);
                    read_first = self.tty || n == chunk.len();
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => read_first = true,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                // EIO: the terminal's last slave descriptor was closed.
                Err(_) => break,
            }
            self.reading.store(false, Ordering::SeqCst);
        }
        {
            let mut st = self.lock();
            st.eof = true;
            // Nothing more can arrive: match watchers can never fire now.
            st.watchers.retain(|w| matches!(w.kind, WatchKind::Exit));
        }
        self.reading.store(false, Ordering::SeqCst);
        self.eof_cv.notify_all();
        self.bump();
    }

    fn on_output(&self, data: &[u8]) {
        let mut fired = Vec::new();
        {
            let mut st = self.lock();
            st.buf.push(data);
            st.watchers.retain_mut(|w| match &mut w.kind {
                WatchKind::Match(scanner) => match scanner.feed(data) {
                    Some(text) => {
                        fired.push((w.id, WakeKind::Matched { text }, None));
                        false
                    }
                    None => true,
                },
                WatchKind::Exit => true,
            });
        }
        if self.output_waiters.load(Ordering::SeqCst) > 0 {
            self.bump();
        }
        self.fire(fired);
    }

    /// Publish each fired watcher: (watcher id, what happened, this module's wording).
    fn fire(&self, fired: Vec<(i64, WakeKind, Option<String>)>) {
        for (watcher_id, kind, detail) in fired {
            self.wake.wake(WakeUp {
                session_id: self.id,
                host: self.host.clone(),
                kind,
                at: std::time::SystemTime::now(),
                watcher_id: Some(watcher_id),
                command: Some(self.command.clone()),
                detail,
            });
        }
    }

    fn wait_loop(&self, mut child: Child, probe: OwnedFd) {
        let exit = loop {
            match child.wait() {
                Ok(status) => {
                    break match (status.code(), status.signal()) {
                        (Some(c), _) => Exit::Code(c),
                        (None, Some(s)) => Exit::Signal(s),
                        (None, None) => Exit::Code(-1),
                    };
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break Exit::Code(-1),
            }
        };
        // The child is dead and reaped: now the writer and the terminal may go.
        {
            let mut io = self.lock_io();
            // portable-pty's writer sends "\n" + EOF when dropped; with echo on, that
            // newline would show up as output the process never printed.
            if let Some(fd) = io.master.as_ref().and_then(|m| m.as_raw_fd()) {
                clear_oflag_lflag(fd, 0, libc::ECHO | libc::ECHONL);
            }
            io.writer = None;
            io.master = None;
        }
        let mut st = self.await_drained(&probe);
        drop(probe);
        let mut fired = Vec::new();
        {
            st.exit = Some(exit);
            let eof = st.eof;
            if !st.killed {
                st.watchers.retain(|w| match w.kind {
                    WatchKind::Exit => {
                        fired.push((
                            w.id,
                            WakeKind::Exited {
                                code: Some(exit.code()),
                            },
                            Some(exit.describe()),
                        ));
                        false
                    }
                    // Until end of output (the reader drops them then).
                    WatchKind::Match(_) => !eof,
                });
            } else {
                st.watchers.clear();
            }
            drop(st);
        }
        self.bump();
        self.fire(fired);
        reap_orphans();
    }

    /// After the leader is reaped: waits until the reader has seen end of output, or (a
    /// leftover child holds the terminal/pipe open) until, after [`DRAIN_GRACE`], no byte
    /// waits in the kernel and the reader holds none; never longer than [`DRAIN_CAP`]
    /// (a leftover child that keeps printing). Returns with the state locked.
    fn await_drained(&self, probe: &OwnedFd) -> MutexGuard<'_, State> {
        let started = Instant::now();
        let mut st = self.lock();
        loop {
            if st.eof || self.stop.load(Ordering::SeqCst) {
                return st;
            }
            let waited = started.elapsed();
            if waited >= DRAIN_CAP || (waited >= DRAIN_GRACE && self.nothing_in_flight(probe)) {
                return st;
            }
            st = match self.eof_cv.wait_timeout(st, DRAIN_STEP) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }

    /// No output waits in the kernel and the reader is not between a read and the
    /// buffer. The order matters: bytes that left the kernel were taken by a read that
    /// set `reading` first, and `reading` is cleared only once they are in the buffer.
    fn nothing_in_flight(&self, probe: &OwnedFd) -> bool {
        let mut queued: libc::c_int = 0;
        // SAFETY: FIONREAD on an open descriptor we own, with a valid int out-pointer.
        let r = unsafe { libc::ioctl(probe.as_raw_fd(), libc::FIONREAD, &mut queued) };
        r == 0 && queued == 0 && !self.reading.load(Ordering::SeqCst)
    }

    /// Sends `sig` to the whole process group. False if no process of it is left.
    pub fn signal(&self, sig: i32) -> bool {
        // SAFETY: plain kill(2) on a negative pid (our own session's process group).
        let r = unsafe { libc::kill(-self.pid, sig) };
        r == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }

    /// True while some process of the group is alive and not a zombie.
    pub fn group_alive(&self) -> bool {
        if self.lock().exit.is_none() {
            return true;
        }
        if !self.signal(0) {
            return false;
        }
        group_has_live_member(self.pid)
    }

    /// Writes bytes to the terminal / stdin. An error if input is closed, or if a terminal
    /// takes none of the rest for [`INPUT_STALL_MS`] (the process is not reading its input).
    pub fn write_input(&self, bytes: &[u8]) -> io::Result<()> {
        let mut io = self.lock_io();
        // The terminal shares the reader's open file, which is non-blocking.
        let master = io.master.as_ref().and_then(|m| m.as_raw_fd());
        let Some(w) = io.writer.as_mut() else {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the process's input is closed",
            ));
        };
        let mut rest = bytes;
        while !rest.is_empty() {
            match w.write(rest) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let writable =
                        master.is_some_and(|fd| wait_fd(fd, libc::POLLOUT, INPUT_STALL_MS));
                    if !writable {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!(
                                "the terminal's input is full (the process is not reading \
                                 it); wrote {} of {} bytes",
                                bytes.len() - rest.len(),
                                bytes.len()
                            ),
                        ));
                    }
                }
                Err(e) => return Err(e),
            }
        }
        w.flush()
    }

    /// Closes stdin of a pipe session (ctrl-d without a terminal).
    pub fn close_input(&self) {
        self.lock_io().writer = None;
    }

    pub fn resize(&self, cols: u16, rows: u16) -> Result<(), String> {
        let io = self.lock_io();
        match io.master.as_ref() {
            Some(m) => m
                .resize(PtySize {
                    rows,
                    cols,
                    pixel_width: 0,
                    pixel_height: 0,
                })
                .map_err(|e| format!("resize failed: {e}")),
            None if !self.tty => Err(format!(
                "session {} has no terminal (it was started with tty=false); nothing to resize",
                self.id
            )),
            None => Err(format!("session {} has exited; nothing to resize", self.id)),
        }
    }
}

/// Scans /proc for a non-zombie process in process group `pgid`.
fn group_has_live_member(pgid: i32) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return true;
    };
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        if let Some(st) = proc_stat(pid)
            && st.pgrp == pgid
            && st.state != 'Z'
            && st.state != 'X'
        {
            return true;
        }
    }
    false
}

/// The fields of /proc/PID/stat we use.
#[derive(Debug, Clone, Copy)]
pub struct ProcStat {
    pub state: char,
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
}

pub fn proc_stat(pid: i32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces and parentheses: fields start after the last ')'.
    let rest = &text[text.rfind(')')? + 1..];
    let mut it = rest.split_whitespace();
    let state = it.next()?.chars().next()?;
    let ppid = it.next()?.parse().ok()?;
    let pgrp = it.next()?.parse().ok()?;
    let session = it.next()?.parse().ok()?;
    Some(ProcStat {
        state,
        ppid,
        pgrp,
        session,
    })
}

/// Makes this process a child subreaper, so that orphaned grandchildren of a session
/// (`sleep 1000 &` after its shell died) are re-parented here and reaped by
/// [`reap_orphans`] instead of lingering as zombies under an init that may not reap.
pub fn become_subreaper() -> bool {
    // SAFETY: prctl(PR_SET_CHILD_SUBREAPER, 1) takes no pointers.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
}

/// Reaps zombie children that can only be re-parented orphans: a process forked by us
/// shares our session unless it called setsid (then it leads its own session), so a child
/// whose session is neither ours nor led by itself was adopted. Nobody else holds a handle
/// to such a process, so reaping it steals no exit status.
pub fn reap_orphans() {
    // SAFETY: getpid/getsid(0) take no pointers and cannot fail for the calling process.
    let (me, my_sid) = unsafe { (libc::getpid(), libc::getsid(0)) };
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{me}/task")) else {
        return;
    };
    for task in tasks.flatten() {
        let Ok(children) = std::fs::read_to_string(task.path().join("children")) else {
            continue;
        };
        for pid in children
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
        {
            let Some(st) = proc_stat(pid) else { continue };
            if st.state == 'Z' && st.ppid == me && st.session != my_sid && st.session != pid {
                let mut status = 0;
                // SAFETY: waitpid on one specific zombie pid with a valid status pointer.
                unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            }
        }
    }
}

type Spawned = (
    Child,
    OwnedFd,
    Option<Box<dyn Write + Send>>,
    Option<Box<dyn MasterPty + Send>>,
);

fn spawn_pty(s: &Spawn<'_>) -> io::Result<Spawned> {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: s.size.1,
            cols: s.size.0,
            pixel_width: 0,
            pixel_height: 0,
        })
        .map_err(io::Error::other)?;
    let master_fd = pair
        .master
        .as_raw_fd()
        .ok_or_else(|| io::Error::other("no pty fd"))?;
    disable_onlcr(master_fd);
    let (program, args, env) = s.helper_argv();
    let mut cb = CommandBuilder::new(program.as_os_str());
    cb.args(args);
    cb.cwd(s.dir.as_os_str());
    for (k, v) in env {
        cb.env(k, v);
    }
    for (k, v) in model_env(true) {
        if v.is_empty() {
            cb.env_remove(k);
        } else {
            cb.env(k, v);
        }
    }
    let child = pair
        .slave
        .spawn_command(cb)
        .map_err(|e| io::Error::other(format!("{e:#}")))?;
    // The child has its copies; ours would keep the terminal open after it exits.
    drop(pair.slave);
    let child: Box<dyn portable_pty::Child> = child;
    let child = match child.downcast::<Child>() {
        Ok(c) => *c,
        Err(mut other) => {
            let _ = other.kill();
            let _ = other.wait();
            return Err(io::Error::other("unexpected child type from portable-pty"));
        }
    };
    let read_fd = match dup_cloexec(master_fd) {
        Ok(fd) => fd,
        Err(e) => {
            kill_and_reap(child);
            return Err(e);
        }
    };
    let writer = match pair.master.take_writer() {
        Ok(w) => w,
        Err(e) => {
            kill_and_reap(child);
            return Err(io::Error::other(e));
        }
    };
    Ok((child, read_fd, Some(writer), Some(pair.master)))
}

fn kill_and_reap(mut child: Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) on the group we just created.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    let _ = child.wait();
}

fn spawn_pipes(s: &Spawn<'_>) -> io::Result<Spawned> {
    let (reader, writer) = io::pipe()?;
    // Confined pipes need no helper: the restriction is prepared here and applied in the
    // child between fork and exec.
    let (prepared, env) = match s.launch {
        Launch::Direct { .. } => (None, &[][..]),
        Launch::Helper { policy, env, .. } => (Some(policy.prepare()?), &env[..]),
    };
    let mut cmd = Command::new(s.shell);
    cmd.arg(login_flag(s.shell, s.login))
        .arg(s.command)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(s.dir)
        .stdin(Stdio::piped())
        .stdout(writer.try_clone()?)
        .stderr(writer);
    for (k, v) in model_env(false) {
        if v.is_empty() {
            cmd.env_remove(k);
        } else {
            cmd.env(k, v);
        }
    }
    // SAFETY: the closure calls setsid(2), signal(2) and, when confined, Prepared::apply:
    // raw syscalls on data built before the fork, no allocation (async-signal-safe).
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            // A host started in the background by a script (`host &`, nohup) ignores SIGINT
            // and SIGQUIT, and an ignored signal stays ignored across exec: `ctrl-c` would
            // not stop the session's command. Every signal a terminal sends starts at its
            // default, as portable-pty sets them for a PTY session (std already clears the
            // mask and SIGPIPE).
            for sig in RESET_SIGNALS {
                libc::signal(sig, libc::SIG_DFL);
            }
            if let Some(p) = &prepared {
                p.apply()?;
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn()?;
    // Our copies of the write end live in `cmd`: drop them so EOF can be seen.
    drop(cmd);
    let stdin = child
        .stdin
        .take()
        .map(|w| Box::new(w) as Box<dyn Write + Send>);
    Ok((child, OwnedFd::from(reader), stdin, None))
}

/// The signals a pipe session's processes get at their default disposition whatever the
/// host inherited (portable-pty's list for a PTY child).
const RESET_SIGNALS: [libc::c_int; 6] = [
    libc::SIGCHLD,
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGTERM,
    libc::SIGALRM,
];

fn login_flag(shell: &Path, login: bool) -> &'static str {
    if login && shell.file_name().is_some_and(|n| n == "bash") {
        "-lc"
    } else {
        "-c"
    }
}

/// Clears OPOST (and with it ONLCR): output passes the terminal as the process wrote it,
/// so lines end in "\n", not "\r\n", and the line discipline does no per-byte work.
fn disable_onlcr(fd: i32) {
    clear_oflag_lflag(fd, libc::OPOST | libc::ONLCR, 0);
}

/// Clears terminal output and local mode flags on a pty master.
fn clear_oflag_lflag(fd: i32, oflag: libc::tcflag_t, lflag: libc::tcflag_t) {
    // SAFETY: zeroed termios is a valid out-parameter for tcgetattr.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is the open master of a pty; `t` is a valid pointer.
    if unsafe { libc::tcgetattr(fd, &mut t) } == 0 {
        t.c_oflag &= !oflag;
        t.c_lflag &= !lflag;
        // SAFETY: same fd, pointer to the termios we just read and modified.
        unsafe { libc::tcsetattr(fd, libc::TCSANOW, &t) };
    }
}

/// Sets O_NONBLOCK on an open descriptor (best effort: on failure reads block, which
/// only delays `stop` and the waiter's drain check until the next output or its end).
fn set_nonblocking(fd: i32) {
    // SAFETY: fcntl(F_GETFL/F_SETFL) on an open descriptor; no pointers.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// Polls one descriptor for `events` up to `timeout_ms`. True if ready (or on EINTR: the
/// caller retries its I/O); false on timeout or error.
fn wait_fd(fd: i32, events: libc::c_short, timeout_ms: i32) -> bool {
    let mut pfd = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    // SAFETY: `pfd` is a valid pollfd for the duration of the call; nfds is 1.
    let r = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
    r > 0 || (r < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted)
}

/// For the reader: false only if poll itself failed (after a timeout the reader
/// re-checks `stop` and tries a read, which finds nothing or output).
fn wait_readable(fd: i32, timeout_ms: i32) -> bool {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `pfd` is a valid pollfd for the duration of the call; nfds is 1.
    let r = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
    r >= 0 || io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
}

fn dup_cloexec(fd: i32) -> io::Result<OwnedFd> {
    // SAFETY: fcntl(F_DUPFD_CLOEXEC) on an open descriptor; returns a new descriptor or -1.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `new` is a freshly duplicated descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scanner_matches_across_chunks_of_one_line_only() {
        let re =
            regex::bytes::Regex::new("(?m)^ready on \\d+\\n").unwrap_or_else(|e| panic!("{e}"));
        let mut sc = LineScanner::new(re);
        assert_eq!(sc.feed(b"booting\nread"), None);
        assert_eq!(sc.feed(b"y on 80"), None);
        assert_eq!(sc.feed(b"80\nmore"), Some("ready on 8080\n".to_owned()));
        assert_eq!(sc.feed(b"\n"), None);
        // `$` also matches at the end of what has arrived so far (prompts have no newline).
        let re = regex::bytes::Regex::new("(?m)name\\? $").unwrap_or_else(|e| panic!("{e}"));
        let mut sc = LineScanner::new(re);
        assert_eq!(sc.feed(b"name? "), Some("name? ".to_owned()));
    }

    #[test]
    fn exit_codes_follow_the_shell_convention() {
        assert_eq!(Exit::Signal(libc::SIGTERM).code(), 143);
        assert_eq!(Exit::Code(3).code(), 3);
        assert!(Exit::Signal(libc::SIGKILL).describe().contains("SIGKILL"));
    }
}
