//! The local file backend: plain `std::fs` on the runtime's own machine, run on tokio's
//! blocking pool, with the same lock convention as the remote script.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::backend::{BackendError, Change, Commit, FileBackend, Probe, Snapshot, Staged};

/// How long a lock may sit before it is considered abandoned and broken.
const STALE_LOCK: Duration = Duration::from_secs(30);
/// Attempts (20 ms apart) before giving up on a busy lock.
const LOCK_ATTEMPTS: u32 = 1000;

/// Files on this machine.
#[derive(Clone, Debug)]
pub(crate) struct LocalBackend {
    pub staging_dir: PathBuf,
    pub max_read_bytes: u64,
    /// A confined conversation's kernel backstop: the Landlock ABI and the trees its
    /// commits may write. The commit then runs on a thread restricted to them, so a path
    /// swapped after the policy check is refused by the kernel, and a denied write is a
    /// terminal refusal (never staged).
    pub backstop: Option<(i32, Vec<PathBuf>)>,
}

impl FileBackend for LocalBackend {
    async fn read(&self, path: &str) -> Result<Probe, BackendError> {
        let max = self.max_read_bytes;
        let path = PathBuf::from(path);
        blocking(move || read_sync(&path, max)).await
    }

    async fn read_many(&self, paths: &[String]) -> Result<Vec<Probe>, BackendError> {
        let max = self.max_read_bytes;
        let paths = paths.to_vec();
        blocking(move || paths.iter().map(|p| read_sync(Path::new(p), max)).collect()).await
    }

    async fn commit(
        &self,
        changes: &[Change],
        stage_on_conflict: bool,
    ) -> Result<Commit, BackendError> {
        let changes = changes.to_vec();
        let staging = self.staging_dir.clone();
        let backstop = self.backstop.clone();
        blocking(move || match backstop {
            None => commit_sync(&changes, stage_on_conflict, &staging, true),
            Some((abi, roots)) => on_confined_thread(abi, &roots, || {
                commit_sync(&changes, stage_on_conflict, &staging, false)
            }),
        })
        .await
    }
}

/// Runs `work` on a fresh thread that Landlock restricts to writing under `roots` (it
/// ends with `work`; no other thread is affected).
fn on_confined_thread<T: Send>(
    abi: i32,
    roots: &[PathBuf],
    work: impl FnOnce() -> Result<T, BackendError> + Send,
) -> Result<T, BackendError> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let roots: Vec<&Path> = roots.iter().map(PathBuf::as_path).collect();
                crate::sandbox::kernel::restrict_thread_writes(abi, &roots).map_err(|e| {
                    BackendError(format!(
                        "refused — the sandbox could not be applied to this write ({e}); \
                         nothing was written"
                    ))
                })?;
                work()
            })
            .join()
            .map_err(|_| BackendError("the confined write thread panicked".into()))?
    })
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, BackendError> + Send + 'static,
) -> Result<T, BackendError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| BackendError(format!("file task failed: {e}")))?
}

fn io_err(what: &str, path: &Path, e: &std::io::Error) -> BackendError {
    BackendError(format!("{what} {}: {e}", path.display()))
}

pub(crate) fn read_sync(path: &Path, max: u64) -> Result<Probe, BackendError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Probe::Missing),
        Err(e) if e.kind() == ErrorKind::PermissionDenied => return Ok(Probe::Denied),
        Err(e) => return Err(io_err("cannot inspect", path, &e)),
    };
    if !meta.is_file() {
        return Ok(Probe::NotAFile);
    }
    if meta.len() > max {
        return Ok(Probe::TooLarge);
    }
    match fs::read(path) {
        Ok(bytes) => Ok(Probe::File(Snapshot::new(bytes))),
        Err(e) if e.kind() == ErrorKind::PermissionDenied => Ok(Probe::Denied),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(Probe::Missing),
        Err(e) => Err(io_err("cannot read", path, &e)),
    }
}

/// Random lowercase hex from the kernel (falls back to a hash of time, pid and a counter).
pub(crate) fn random_hex(bytes: usize) -> String {
    use std::io::Read;
    let mut buf = vec![0u8; bytes];
    if File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .is_ok()
    {
        return hex::encode(buf);
    }
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let t = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let seed = format!("{t}-{}-{n}", std::process::id());
    let mut out = super::backend::sha256_hex(seed.as_bytes());
    out.truncate(bytes * 2);
    out
}

/// Resolves a symlink to the file it points at, so a write replaces the target and not
/// the link (the sandbox check runs on what this returns).
pub(crate) fn resolve(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| match (fs::read_link(path), path.parent()) {
                (Ok(target), Some(parent)) => parent.join(target),
                _ => path.to_path_buf(),
            })
        }
        _ => path.to_path_buf(),
    }
}

fn split(path: &Path) -> (PathBuf, String) {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    (dir, base)
}

/// The lock directory guarding `path` (shared convention with the remote script:
/// `<dir>/.<name>.toolsurface-lock`, taken with `mkdir`).
pub(crate) fn lock_path(path: &Path) -> PathBuf {
    let (dir, base) = split(path);
    dir.join(format!(".{base}.toolsurface-lock"))
}

struct LockGuard(Option<PathBuf>);

impl Drop for LockGuard {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = fs::remove_dir(p);
        }
    }
}

enum LockError {
    Denied(String),
    Other(BackendError),
}

fn take_lock(target: &Path) -> Result<LockGuard, LockError> {
    let lock = lock_path(target);
    for _ in 0..LOCK_ATTEMPTS {
        match fs::create_dir(&lock) {
            Ok(()) => return Ok(LockGuard(Some(lock))),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                let stale = fs::metadata(&lock)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age > STALE_LOCK);
                if stale {
                    let _ = fs::remove_dir(&lock);
                    continue;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            // No folder: nothing exists there to guard (a delete of a missing file).
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(LockGuard(None)),
            Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                return Err(LockError::Denied(format!(
                    "cannot create {}: {e}",
                    lock.display()
                )));
            }
            Err(e) => return Err(LockError::Other(io_err("cannot lock", target, &e))),
        }
    }
    Err(LockError::Other(BackendError(format!(
        "{} is locked by another writer ({} exists); try again",
        target.display(),
        lock.display()
    ))))
}

/// Temporary files written so far; removed on drop unless renamed.
struct Temps(Vec<Option<PathBuf>>);

impl Drop for Temps {
    fn drop(&mut self) {
        for p in self.0.iter_mut().filter_map(Option::take) {
            let _ = fs::remove_file(p);
        }
    }
}

fn write_temp(dir: &Path, base: &str, content: &[u8]) -> std::io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let mut last = None;
    for _ in 0..8 {
        let mut name = format!(".{base}.ts-{}", random_hex(6));
        if name.len() > 200 {
            name = format!(".ts-{}", random_hex(8));
        }
        let tmp = dir.join(name);
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
        {
            Ok(mut f) => {
                let written = f.write_all(content).and_then(|()| f.sync_all());
                if let Err(e) = written {
                    let _ = fs::remove_file(&tmp);
                    return Err(e);
                }
                return Ok(tmp);
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no temporary name")))
}

/// The process umask, read without changing it.
fn umask() -> u32 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

fn stage_writes(changes: &[Change], staging: &Path) -> Result<Vec<Staged>, BackendError> {
    let dir = staging.join(random_hex(8));
    fs::create_dir_all(staging)
        .and_then(|()| fs::set_permissions(staging, fs::Permissions::from_mode(0o700)))
        .and_then(|()| fs::create_dir(&dir))
        .map_err(|e| io_err("cannot create the staging folder", &dir, &e))?;
    let several = changes
        .iter()
        .filter(|c| matches!(c, Change::Write { .. }))
        .count()
        > 1;
    let mut staged = Vec::new();
    for (index, change) in changes.iter().enumerate() {
        if let Change::Write { path, content, .. } = change {
            let (_, base) = split(Path::new(path));
            let name = if several {
                format!("{index}-{base}")
            } else {
                base
            };
            let file = dir.join(name);
            fs::write(&file, content).map_err(|e| io_err("cannot stage", &file, &e))?;
            staged.push(Staged {
                index,
                staged_path: file.to_string_lossy().into_owned(),
            });
        }
    }
    Ok(staged)
}

fn is_denied(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem
    )
}

/// `stage_denied`: a permission refusal stages the writes (unconfined); otherwise it is a
/// terminal refusal.
pub(crate) fn commit_sync(
    changes: &[Change],
    stage_on_conflict: bool,
    staging: &Path,
    stage_denied: bool,
) -> Result<Commit, BackendError> {
    let targets: Vec<PathBuf> = changes
        .iter()
        .map(|c| resolve(Path::new(c.path())))
        .collect();
    let temps = match write_contents_to_temporary_files(changes, &targets)? {
        Ok(temps) => temps,
        Err(refusal) => {
            return refusal_as_commit(refusal, changes, (stage_on_conflict, stage_denied), staging);
        }
    };
    let locks = match take_locks_in_stable_order(&targets)? {
        Ok(locks) => locks,
        Err(refusal) => {
            drop(temps);
            return refusal_as_commit(refusal, changes, (stage_on_conflict, stage_denied), staging);
        }
    };
    let (before, modes) = match check_expectations_and_permissions(changes, &targets)? {
        Ok(checked) => checked,
        Err(refusal) => {
            drop(locks);
            drop(temps);
            return refusal_as_commit(refusal, changes, (stage_on_conflict, stage_denied), staging);
        }
    };
    rename_into_place(changes, &targets, temps, &modes)?;
    drop(locks);
    Ok(Commit::Done { before })
}

/// Why a local commit stopped before renaming anything; `refusal_as_commit` turns it into
/// the `Commit` the caller sees, staging the writes once the locks and temporary files are
/// gone.
enum LocalCommitRefusal {
    Denied {
        index: usize,
        detail: String,
    },
    Conflict {
        index: usize,
        current: Option<String>,
    },
    NotAFile {
        index: usize,
    },
}

fn refusal_as_commit(
    refusal: LocalCommitRefusal,
    changes: &[Change],
    (stage_on_conflict, stage_denied): (bool, bool),
    staging: &Path,
) -> Result<Commit, BackendError> {
    Ok(match refusal {
        LocalCommitRefusal::Denied { detail, .. } if !stage_denied => {
            return Err(BackendError(format!(
                "refused — the write was denied ({detail}): the sandbox lets this role \
                 write only inside its writable roots; nothing was written or staged"
            )));
        }
        LocalCommitRefusal::Denied { index, detail } => Commit::Denied {
            index,
            detail,
            staged: stage_writes(changes, staging)?,
        },
        LocalCommitRefusal::Conflict { index, current } => Commit::Conflict {
            index,
            current,
            staged: if stage_on_conflict {
                stage_writes(changes, staging)?
            } else {
                Vec::new()
            },
        },
        LocalCommitRefusal::NotAFile { index } => Commit::NotAFile { index },
    })
}

/// Commit phase 1: contents to temporary files next to their targets.
fn write_contents_to_temporary_files(
    changes: &[Change],
    targets: &[PathBuf],
) -> Result<Result<Temps, LocalCommitRefusal>, BackendError> {
    let mut temps = Temps(vec![None; changes.len()]);
    for (i, change) in changes.iter().enumerate() {
        if let Change::Write { content, .. } = change {
            let (dir, base) = split(&targets[i]);
            match write_temp(&dir, &base, content) {
                Ok(tmp) => temps.0[i] = Some(tmp),
                Err(e) if is_denied(&e) => {
                    return Ok(Err(LocalCommitRefusal::Denied {
                        index: i,
                        detail: format!("cannot write in {}: {e}", dir.display()),
                    }));
                }
                Err(e) => return Err(io_err("cannot write next to", &targets[i], &e)),
            }
        }
    }
    Ok(Ok(temps))
}

/// Commit phase 2: locks, in a stable order.
fn take_locks_in_stable_order(
    targets: &[PathBuf],
) -> Result<Result<Vec<LockGuard>, LocalCommitRefusal>, BackendError> {
    let mut order: Vec<usize> = (0..targets.len()).collect();
    order.sort_by(|a, b| targets[*a].cmp(&targets[*b]));
    let mut locks = Vec::new();
    for &i in &order {
        match take_lock(&targets[i]) {
            Ok(guard) => locks.push(guard),
            Err(LockError::Denied(detail)) => {
                drop(locks);
                return Ok(Err(LocalCommitRefusal::Denied { index: i, detail }));
            }
            Err(LockError::Other(e)) => return Err(e),
        }
    }
    Ok(Ok(locks))
}

/// What each target was before the commit: its sha256 (None: it did not exist) and its
/// metadata (None: it did not exist).
type ShasAndModesBefore = (Vec<Option<String>>, Vec<Option<fs::Metadata>>);

/// Commit phase 3: every expectation and permission, before anything is renamed.
fn check_expectations_and_permissions(
    changes: &[Change],
    targets: &[PathBuf],
) -> Result<Result<ShasAndModesBefore, LocalCommitRefusal>, BackendError> {
    let mut before = Vec::with_capacity(changes.len());
    let mut modes = Vec::with_capacity(changes.len());
    for (i, change) in changes.iter().enumerate() {
        let target = &targets[i];
        let (current, meta) = match fs::metadata(target) {
            Err(e) if e.kind() == ErrorKind::NotFound => (None, None),
            Err(e) => return Err(io_err("cannot inspect", target, &e)),
            Ok(m) if !m.is_file() => return Ok(Err(LocalCommitRefusal::NotAFile { index: i })),
            Ok(m) => match fs::read(target) {
                Ok(bytes) => (Some(super::backend::sha256_hex(&bytes)), Some(m)),
                Err(e) if is_denied(&e) => (Some(String::new()), Some(m)),
                Err(e) => return Err(io_err("cannot read", target, &e)),
            },
        };
        let unreadable = current.as_deref() == Some("");
        if !unreadable && !change.expect().matches(current.as_deref()) {
            return Ok(Err(LocalCommitRefusal::Conflict { index: i, current }));
        }
        if meta.is_some() {
            let writable = OpenOptions::new().write(true).open(target);
            if unreadable || writable.as_ref().is_err_and(is_denied) {
                return Ok(Err(LocalCommitRefusal::Denied {
                    index: i,
                    detail: format!("{} is not writable", target.display()),
                }));
            }
        }
        before.push(current);
        modes.push(meta);
    }
    Ok(Ok((before, modes)))
}

/// Commit phase 4: rename into place, keeping mode (and owner, where allowed).
fn rename_into_place(
    changes: &[Change],
    targets: &[PathBuf],
    mut temps: Temps,
    modes: &[Option<fs::Metadata>],
) -> Result<(), BackendError> {
    let new_mode = 0o666 & !umask();
    let mut applied = Vec::new();
    for (i, change) in changes.iter().enumerate() {
        let target = &targets[i];
        let result = match change {
            Change::Write { .. } => {
                let Some(tmp) = temps.0[i].clone() else {
                    return Err(BackendError("internal: temporary file missing".into()));
                };
                let mode = modes[i]
                    .as_ref()
                    .map(|m| m.permissions().mode() & 0o7777)
                    .unwrap_or(new_mode);
                if let Some(m) = &modes[i] {
                    let _ = std::os::unix::fs::chown(&tmp, Some(m.uid()), Some(m.gid()));
                }
                fs::set_permissions(&tmp, fs::Permissions::from_mode(mode))
                    .and_then(|()| fs::rename(&tmp, target))
                    .map(|()| temps.0[i] = None)
            }
            Change::Delete { .. } => match fs::remove_file(target) {
                Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
                other => other,
            },
        };
        if let Err(e) = result {
            let done = if applied.is_empty() {
                "nothing was changed".to_string()
            } else {
                format!("already changed: {}", applied.join(", "))
            };
            return Err(BackendError(format!(
                "cannot replace {}: {e} ({done})",
                target.display()
            )));
        }
        applied.push(target.display().to_string());
        if let Some(dir) = target.parent() {
            let _ = File::open(dir).and_then(|d| d.sync_all());
        }
    }
    Ok(())
}
