//! The OpenSSH file backend: each operation is one `ssh` exec over a per-device
//! multiplexed connection, running a POSIX `sh` script that needs only coreutils; content
//! travels on stdin, paths as single-quoted positional arguments.
//!
//! Remote lock convention (shared with the local backend, so other writers can join it):
//! a writer of `<dir>/<name>` holds `mkdir <dir>/.<name>.toolsurface-lock` from the
//! expectation check until after the rename; a lock older than 30 s is considered
//! abandoned and removed. `flock` is not used: it is util-linux, not coreutils.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

use super::backend::{BackendError, Change, Commit, FileBackend, Probe, Snapshot, Staged};
use super::device::Device;

/// Concurrent operations per device (sshd's default `MaxSessions` is 10).
const SESSIONS_PER_DEVICE: usize = 8;

/// Reads one file: exit 70 missing, 71 not a regular file, 72 not readable; else the first
/// `$2` bytes on stdout.
const READ_SCRIPT: &str = r#"p=$1
if [ ! -e "$p" ]; then exit 70; fi
if [ ! -f "$p" ]; then exit 71; fi
if [ ! -r "$p" ]; then exit 72; fi
exec head -c "$2" -- "$p"
"#;

/// Reads several files: per path a header line (`M`, `N`, `P`, or `F <size>` followed by
/// exactly that many bytes). Each file is copied first so size and bytes agree.
const READ_MANY_SCRIPT: &str = r#"m=$1; shift
t=$(mktemp) || exit 69
cleanup() { rm -f -- "$t"; }
trap cleanup EXIT
for p in "$@"; do
  if [ ! -e "$p" ]; then echo M
  elif [ ! -f "$p" ]; then echo N
  elif [ ! -r "$p" ]; then echo P
  elif head -c "$m" -- "$p" > "$t" 2>/dev/null; then
    n=$(wc -c < "$t"); echo "F $n"; cat -- "$t" || exit 66
  else echo P
  fi
done
"#;

/// The compare-and-swap commit. Arguments: `stage n` then `kind path expect length` per
/// change (kind W or D; expect `any`, `absent` or a sha256 hex prefix); stdin carries the
/// contents of the W changes back to back. Phases: receive into temporary files beside
/// the targets, lock every target, check every expectation and permission, rename.
/// Output lines: `OK i before`, `CONFLICT i current`, `DENIED i what`, `STAGED i path`,
/// `NOTFILE i`, `BUSY i`, `FAILED i`.
const COMMIT_SCRIPT: &str = r#"stage=$1; n=$2; shift 2
um=$(umask)
nm=$(printf %o $(( 0666 & ~0$um )))
i=0
while [ "$i" -lt "$n" ]; do
  eval "k$i=\$1; p$i=\$2; e$i=\$3; l$i=\$4; t$i="
  shift 4; i=$((i+1))
done
S=
nh=0
cleanup() {
  j=0
  while [ "$j" -lt "$n" ]; do
    eval "x=\$t$j"
    if [ -n "$x" ]; then rm -f -- "$x"; fi
    j=$((j+1))
  done
  j=0
  while [ "$j" -lt "$nh" ]; do
    eval "x=\$h$j"
    rmdir -- "$x" 2>/dev/null
    j=$((j+1))
  done
  nh=0
}
trap cleanup EXIT
trap "exit 143" HUP INT TERM PIPE
stagedir() {
  if [ -z "$S" ]; then
    S=$(mktemp -d "${TMPDIR:-/tmp}/toolsurface-staged.XXXXXX") || exit 68
  fi
}
stage_all() {
  stagedir
  j=0
  while [ "$j" -lt "$n" ]; do
    eval "k=\$k$j; p=\$p$j; x=\$t$j"
    if [ "$k" = W ] && [ -n "$x" ]; then
      b=$(printf %s "${p##*/}" | tr -c -- "-A-Za-z0-9._+,=@" _)
      if [ "$n" -gt 1 ]; then s="$S/$j-$b"; else s="$S/$b"; fi
      if mv -f -- "$x" "$s"; then eval "t$j="; echo "STAGED $j $s"; fi
    fi
    j=$((j+1))
  done
}
lock() {
  a=0
  while ! mkdir -- "$1" 2>/dev/null; do
    if [ ! -d "$1" ] && [ ! -w "${1%/*}" ]; then return 1; fi
    a=$((a+1))
    if [ $((a % 50)) -eq 0 ]; then
      m=$(stat -c %Y -- "$1" 2>/dev/null) && [ $(( $(date +%s) - m )) -gt 30 ] && rmdir -- "$1" 2>/dev/null
      if [ "$a" -ge 1000 ]; then return 2; fi
    fi
    sleep 0.02
  done
  eval "h$nh=\$1"; nh=$((nh+1))
}
den=
i=0
while [ "$i" -lt "$n" ]; do
  eval "k=\$k$i; p=\$p$i; l=\$l$i"
  if [ -L "$p" ]; then q=$(readlink -f -- "$p") && p=$q && eval "p$i=\$p"; fi
  if [ "$k" = W ]; then
    d=${p%/*}; if [ -z "$d" ]; then d=/; fi; b=${p##*/}
    mkdir -p -- "$d" 2>/dev/null
    x=$(mktemp -- "$d/.$b.ts-XXXXXX" 2>/dev/null) || x=$(mktemp -- "$d/.ts-XXXXXXXX" 2>/dev/null) || x=
    if [ -z "$x" ]; then
      if [ -z "$den" ]; then den=$i; fi
      stagedir; x=$(mktemp -- "$S/.in-XXXXXX") || exit 68
    fi
    eval "t$i=\$x"
    head -c "$l" > "$x" || exit 67
    if [ "$(wc -c < "$x")" -ne "$l" ]; then exit 67; fi
    sync -- "$x" 2>/dev/null
  fi
  i=$((i+1))
done
if [ -n "$den" ]; then echo "DENIED $den dir"; stage_all; exit 73; fi
i=0
while [ "$i" -lt "$n" ]; do
  eval "p=\$p$i"
  d=${p%/*}; if [ -z "$d" ]; then d=/; fi; b=${p##*/}
  if [ -d "$d" ]; then
    lock "$d/.$b.toolsurface-lock"; r=$?
    if [ "$r" -eq 1 ]; then echo "DENIED $i lock"; stage_all; exit 73; fi
    if [ "$r" -eq 2 ]; then echo "BUSY $i"; exit 75; fi
  fi
  i=$((i+1))
done
i=0
while [ "$i" -lt "$n" ]; do
  eval "k=\$k$i; p=\$p$i; e=\$e$i"
  d=${p%/*}; if [ -z "$d" ]; then d=/; fi
  if [ -e "$p" ]; then
    if [ ! -f "$p" ]; then echo "NOTFILE $i"; exit 74; fi
    if [ ! -r "$p" ]; then echo "DENIED $i file"; stage_all; exit 73; fi
    c=$(sha256sum < "$p") || exit 66
    c=${c%% *}
  else
    c=absent
  fi
  ok=0
  case $e in
    any) ok=1 ;;
    absent) if [ "$c" = absent ]; then ok=1; fi ;;
    *) case $c in "$e"*) ok=1 ;; esac ;;
  esac
  if [ "$ok" -eq 0 ]; then
    echo "CONFLICT $i $c"
    if [ "$stage" = 1 ]; then stage_all; fi
    exit 77
  fi
  if [ "$k" = W ] && [ "$c" != absent ] && [ ! -w "$p" ]; then echo "DENIED $i file"; stage_all; exit 73; fi
  if [ "$k" = D ] && [ "$c" != absent ] && [ ! -w "$d" ]; then echo "DENIED $i dir"; stage_all; exit 73; fi
  eval "c$i=\$c"
  i=$((i+1))
done
i=0
while [ "$i" -lt "$n" ]; do
  eval "k=\$k$i; p=\$p$i; x=\$t$i; c=\$c$i"
  if [ "$k" = W ]; then
    if [ "$c" = absent ]; then
      chmod -- "$nm" "$x"
    else
      chmod --reference="$p" -- "$x"; chown --reference="$p" -- "$x" 2>/dev/null
    fi
    if ! mv -f -- "$x" "$p"; then echo "FAILED $i"; exit 65; fi
    eval "t$i="
  elif [ "$c" != absent ]; then
    if ! rm -f -- "$p"; then echo "FAILED $i"; exit 65; fi
  fi
  echo "OK $i $c"
  i=$((i+1))
done
exit 0
"#;

/// Quotes a string for a POSIX shell (single quotes; a `'` becomes `'\''`).
pub(crate) fn sh_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// State shared by every device's backend of one `FileHost`.
#[derive(Debug)]
pub(crate) struct SshShared {
    pub ssh_program: PathBuf,
    pub ssh_config: Option<PathBuf>,
    pub control_dir: PathBuf,
    pub control_persist_secs: u32,
    pub connect_timeout_secs: u32,
    pub spawns: AtomicU64,
    conns: Mutex<HashMap<String, Arc<DeviceConn>>>,
}

#[derive(Debug)]
struct DeviceConn {
    /// Held by the first operation while it establishes the master connection.
    established: tokio::sync::Mutex<bool>,
    sessions: tokio::sync::Semaphore,
}

impl SshShared {
    pub fn new(
        ssh_program: PathBuf,
        ssh_config: Option<PathBuf>,
        control_dir: PathBuf,
        control_persist_secs: u32,
        connect_timeout_secs: u32,
    ) -> Self {
        SshShared {
            ssh_program,
            ssh_config,
            control_dir,
            control_persist_secs,
            connect_timeout_secs,
            spawns: AtomicU64::new(0),
            conns: Mutex::new(HashMap::new()),
        }
    }

    fn conn(&self, device: &Device) -> Arc<DeviceConn> {
        let mut conns = self.conns.lock().unwrap_or_else(|e| e.into_inner());
        conns
            .entry(device.as_str().to_string())
            .or_insert_with(|| {
                Arc::new(DeviceConn {
                    established: tokio::sync::Mutex::new(false),
                    sessions: tokio::sync::Semaphore::new(SESSIONS_PER_DEVICE),
                })
            })
            .clone()
    }

    /// `ControlPath` for every connection of this host (`%C` is ssh's per-destination hash).
    pub fn control_path(&self) -> PathBuf {
        self.control_dir.join("%C")
    }

    /// The `ssh` invocation up to (and including) the destination.
    pub fn base_command(&self, device: &Device) -> std::process::Command {
        let mut cmd = std::process::Command::new(&self.ssh_program);
        if let Some(cfg) = &self.ssh_config {
            cmd.arg("-F").arg(cfg);
        }
        cmd.arg("-o").arg("BatchMode=yes");
        cmd.arg("-o").arg("ControlMaster=auto");
        cmd.arg("-o")
            .arg(format!("ControlPersist={}", self.control_persist_secs));
        let mut control = std::ffi::OsString::from("ControlPath=");
        control.push(self.control_path());
        cmd.arg("-o").arg(control);
        cmd.arg("-o")
            .arg(format!("ConnectTimeout={}", self.connect_timeout_secs));
        for opt in [
            "ServerAliveInterval=15",
            "ClearAllForwardings=yes",
            "ForwardAgent=no",
            "ForwardX11=no",
            "PermitLocalCommand=no",
        ] {
            cmd.arg("-o").arg(opt);
        }
        cmd.arg("-T").arg("--").arg(device.ssh_destination());
        cmd
    }

    /// Asks every master connection this host opened to exit.
    pub fn close_all(&self) {
        let devices: Vec<String> = {
            let conns = self.conns.lock().unwrap_or_else(|e| e.into_inner());
            conns.keys().cloned().collect()
        };
        for name in devices {
            if let Ok(device) = super::device::validate_device(&name) {
                let mut cmd = std::process::Command::new(&self.ssh_program);
                if let Some(cfg) = &self.ssh_config {
                    cmd.arg("-F").arg(cfg);
                }
                let mut control = std::ffi::OsString::from("ControlPath=");
                control.push(self.control_path());
                cmd.arg("-o")
                    .arg(control)
                    .arg("-O")
                    .arg("exit")
                    .arg("--")
                    .arg(device.ssh_destination())
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null());
                let _ = cmd.status();
            }
        }
    }
}

/// Files on one device.
#[derive(Clone, Debug)]
pub(crate) struct SshBackend {
    pub shared: Arc<SshShared>,
    pub device: Device,
    pub max_read_bytes: u64,
    pub cancel: CancellationToken,
}

struct Exec {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

impl SshBackend {
    async fn exec(
        &self,
        script: &str,
        args: &[String],
        stdin: Option<Vec<u8>>,
    ) -> Result<Exec, BackendError> {
        if script.contains('\'') {
            return Err(BackendError(
                "internal: remote script contains a quote".into(),
            ));
        }
        let mut remote = format!("sh -c '{script}' toolsurface");
        for a in args {
            remote.push(' ');
            remote.push_str(&sh_quote(a));
        }
        let conn = self.shared.conn(&self.device);
        let _session = conn
            .sessions
            .acquire()
            .await
            .map_err(|_| BackendError("ssh session pool closed".into()))?;
        let mut first = Some(conn.established.lock().await);
        if first.as_deref() == Some(&true) {
            first = None;
        }
        let out = self.run(remote, stdin).await;
        if let (Some(mut guard), Ok(exec)) = (first, &out)
            && exec.code != Some(255)
        {
            *guard = true;
        }
        out
    }

    async fn run(&self, remote: String, stdin: Option<Vec<u8>>) -> Result<Exec, BackendError> {
        let mut cmd = tokio::process::Command::from(self.shared.base_command(&self.device));
        cmd.arg(remote)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        self.shared.spawns.fetch_add(1, Ordering::SeqCst);
        let mut child = cmd.spawn().map_err(|e| {
            BackendError(format!(
                "cannot start {}: {e}",
                self.shared.ssh_program.display()
            ))
        })?;
        let feeder = match (stdin, child.stdin.take()) {
            (Some(data), Some(mut pipe)) => Some(tokio::spawn(async move {
                let _ = pipe.write_all(&data).await;
                let _ = pipe.shutdown().await;
            })),
            _ => None,
        };
        let output = tokio::select! {
            out = child.wait_with_output() => out.map_err(|e| BackendError(format!("ssh failed: {e}")))?,
            () = self.cancel.cancelled() => {
                return Err(BackendError(format!("cancelled; the operation on device {} was stopped", self.device)));
            }
        };
        if let Some(f) = feeder {
            let _ = f.await;
        }
        Ok(Exec {
            code: output.status.code(),
            stdout: output.stdout,
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        })
    }

    fn failure(&self, what: &str, exec: &Exec) -> BackendError {
        if exec.code == Some(255) {
            BackendError(format!(
                "cannot reach device {} over ssh: {} (connections use the OpenSSH config and \
                 its keys only; no password or new authentication is attempted)",
                self.device,
                if exec.stderr.is_empty() {
                    "ssh exited with status 255"
                } else {
                    &exec.stderr
                }
            ))
        } else {
            BackendError(format!(
                "{what} on device {} failed (status {}): {}",
                self.device,
                exec.code
                    .map_or_else(|| "signal".to_string(), |c| c.to_string()),
                exec.stderr
            ))
        }
    }

    /// Reads the commit script's exit status and tagged lines back into a `Commit`,
    /// mapping the script's (sorted) indices back to the caller's through `order`.
    fn commit_outcome(
        &self,
        changes: &[Change],
        order: &[usize],
        exec: &Exec,
    ) -> Result<Commit, BackendError> {
        let text = String::from_utf8_lossy(&exec.stdout).into_owned();
        let original = |sorted: usize| order.get(sorted).copied().unwrap_or(sorted);
        let sha = |s: &str| (s != "absent" && !s.is_empty()).then(|| s.to_string());
        let staged: Vec<Staged> = text
            .lines()
            .filter_map(|l| parse_line(l, "STAGED"))
            .map(|(i, path)| Staged {
                index: original(i),
                staged_path: path.to_string(),
            })
            .collect();
        let find = |tag: &str| text.lines().find_map(|l| parse_line(l, tag));
        match exec.code {
            Some(0) => {
                let mut before = vec![None; changes.len()];
                for (i, old) in text.lines().filter_map(|l| parse_line(l, "OK")) {
                    if let Some(slot) = before.get_mut(original(i)) {
                        *slot = sha(old);
                    }
                }
                Ok(Commit::Done { before })
            }
            Some(77) => {
                let (i, current) = find("CONFLICT").ok_or_else(|| self.failure("write", exec))?;
                Ok(Commit::Conflict {
                    index: original(i),
                    current: sha(current),
                    staged,
                })
            }
            Some(73) => {
                let (i, what) = find("DENIED").ok_or_else(|| self.failure("write", exec))?;
                let detail = match what {
                    "file" => "the file is not writable",
                    "lock" => "cannot create the lock beside it",
                    _ => "its folder is not writable",
                };
                Ok(Commit::Denied {
                    index: original(i),
                    detail: format!("permission denied on device {}: {detail}", self.device),
                    staged,
                })
            }
            Some(74) => {
                let (i, _) = find("NOTFILE").ok_or_else(|| self.failure("write", exec))?;
                Ok(Commit::NotAFile { index: original(i) })
            }
            Some(75) => Err(BackendError(format!(
                "a file on device {} is locked by another writer; try again",
                self.device
            ))),
            Some(65) => {
                let done: Vec<String> = text
                    .lines()
                    .filter_map(|l| parse_line(l, "OK"))
                    .filter_map(|(i, _)| changes.get(original(i)).map(|c| c.path().to_string()))
                    .collect();
                Err(BackendError(format!(
                    "rename failed on device {}: {} (already changed: {})",
                    self.device,
                    exec.stderr,
                    if done.is_empty() {
                        "nothing".to_string()
                    } else {
                        done.join(", ")
                    }
                )))
            }
            _ => Err(self.failure("write", exec)),
        }
    }
}

fn parse_line<'a>(line: &'a str, tag: &str) -> Option<(usize, &'a str)> {
    let rest = line.strip_prefix(tag)?.strip_prefix(' ')?;
    let (index, tail) = rest.split_once(' ').unwrap_or((rest, ""));
    Some((index.parse().ok()?, tail))
}

impl FileBackend for SshBackend {
    async fn read(&self, path: &str) -> Result<Probe, BackendError> {
        let limit = self.max_read_bytes.saturating_add(1);
        let exec = self
            .exec(READ_SCRIPT, &[path.to_string(), limit.to_string()], None)
            .await?;
        match exec.code {
            Some(0) if exec.stdout.len() as u64 > self.max_read_bytes => Ok(Probe::TooLarge),
            Some(0) => Ok(Probe::File(Snapshot::new(exec.stdout))),
            Some(70) => Ok(Probe::Missing),
            Some(71) => Ok(Probe::NotAFile),
            Some(72) => Ok(Probe::Denied),
            _ if exec.stderr.contains("Permission denied") && exec.code != Some(255) => {
                Ok(Probe::Denied)
            }
            _ => Err(self.failure("read", &exec)),
        }
    }

    async fn read_many(&self, paths: &[String]) -> Result<Vec<Probe>, BackendError> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let limit = self.max_read_bytes.saturating_add(1);
        let mut args = vec![limit.to_string()];
        args.extend(paths.iter().cloned());
        let exec = self.exec(READ_MANY_SCRIPT, &args, None).await?;
        if exec.code != Some(0) {
            return Err(self.failure("read", &exec));
        }
        let mut probes = Vec::with_capacity(paths.len());
        let mut rest: &[u8] = &exec.stdout;
        while probes.len() < paths.len() {
            let bad = || BackendError(format!("garbled reply from device {}", self.device));
            let nl = rest.iter().position(|b| *b == b'\n').ok_or_else(bad)?;
            let header = std::str::from_utf8(&rest[..nl]).map_err(|_| bad())?;
            rest = &rest[nl + 1..];
            let probe = match header {
                "M" => Probe::Missing,
                "N" => Probe::NotAFile,
                "P" => Probe::Denied,
                _ => {
                    let size: usize = header
                        .strip_prefix("F ")
                        .and_then(|n| n.trim().parse().ok())
                        .ok_or_else(bad)?;
                    if rest.len() < size {
                        return Err(bad());
                    }
                    let bytes = rest[..size].to_vec();
                    rest = &rest[size..];
                    if bytes.len() as u64 > self.max_read_bytes {
                        Probe::TooLarge
                    } else {
                        Probe::File(Snapshot::new(bytes))
                    }
                }
            };
            probes.push(probe);
        }
        Ok(probes)
    }

    async fn commit(
        &self,
        changes: &[Change],
        stage_on_conflict: bool,
    ) -> Result<Commit, BackendError> {
        // Locks are taken in argument order: sort by path so two commits never wait on
        // each other crosswise; indices are mapped back in `commit_outcome`.
        let mut order: Vec<usize> = (0..changes.len()).collect();
        order.sort_by(|a, b| changes[*a].path().cmp(changes[*b].path()));
        let (args, stdin) = commit_script_input(changes, &order, stage_on_conflict);
        let exec = self.exec(COMMIT_SCRIPT, &args, Some(stdin)).await?;
        self.commit_outcome(changes, &order, &exec)
    }
}

/// The commit script's arguments and stdin: the changes in `order`, each as tag, path,
/// expectation and content length, the contents concatenated on stdin.
fn commit_script_input(
    changes: &[Change],
    order: &[usize],
    stage_on_conflict: bool,
) -> (Vec<String>, Vec<u8>) {
    let mut args = vec![
        if stage_on_conflict { "1" } else { "0" }.to_string(),
        changes.len().to_string(),
    ];
    let mut stdin = Vec::new();
    for &i in order {
        match &changes[i] {
            Change::Write {
                path,
                content,
                expect,
            } => {
                args.extend([
                    "W".to_string(),
                    path.clone(),
                    expect.wire().to_string(),
                    content.len().to_string(),
                ]);
                stdin.extend_from_slice(content);
            }
            Change::Delete { path, expect } => {
                args.extend([
                    "D".to_string(),
                    path.clone(),
                    expect.wire().to_string(),
                    "0".to_string(),
                ]);
            }
        }
    }
    (args, stdin)
}

/// The folder holding control sockets: must be ours and private.
pub(crate) fn check_private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let meta = std::fs::metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let me = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
    if me.is_some_and(|uid| uid != meta.uid()) {
        return Err(format!("{} is not owned by this user", dir.display()));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_have_no_single_quote_and_quoting_round_trips() {
        for s in [READ_SCRIPT, READ_MANY_SCRIPT, COMMIT_SCRIPT] {
            assert!(!s.contains('\''));
        }
        assert_eq!(sh_quote("a'b"), "'a'\\''b'");
    }
}
