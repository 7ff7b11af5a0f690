//! A real OpenSSH server on 127.0.0.1 for the remote file tests and the `remote` bench:
//! temp host and client keys, a temp authorized_keys, an sshd_config on a free high port,
//! a client ssh_config with Host aliases, and `/usr/sbin/sshd -D` started inside its own
//! mount namespace (`unshare -m`) with a private tmpfs over [`TestSshd::area`] and over the
//! test account's home. The same absolute path therefore names two different files: the
//! local one, and the remote one reachable by the test through `/proc/<sshd pid>/root`
//! ([`TestSshd::remote_view`]). `/root` is a private tmpfs there as well, so root's remote
//! login runs no rc files of this machine (a slow `.bashrc` would otherwise dominate every
//! remote operation, as it would on a real server). Needs root (unshare, sshd) —
//! scripts/test runs as root.
//! std only, so the root package's bench can include it with `#[path]`.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Alias logging in as root.
pub const ALIAS: &str = "tsremote";
/// Alias logging in as the unprivileged test account.
pub const USER_ALIAS: &str = "tsuser";
/// The unprivileged account (created by scripts/test-setup-users).
pub const TEST_USER: &str = "tsfiles";
/// Its home (a mount point; a private tmpfs in the server's namespace).
pub const TEST_USER_HOME: &str = "/var/lib/tsfiles";
/// An alias whose port has no server (for "cannot reach" errors).
pub const DEAD_ALIAS: &str = "tsdead";

const SSHD: &str = "/usr/sbin/sshd";

pub struct TestSshd {
    /// The temp folder holding keys and configs (same on both sides).
    pub dir: PathBuf,
    /// A folder that exists on both sides but with different contents: the server
    /// sees a private tmpfs here.
    pub area: PathBuf,
    pub port: u16,
    /// The client config to pass as `-F` / `FileHostConfig::ssh_config`.
    pub ssh_config: PathBuf,
    pub uid: u32,
    pub gid: u32,
    child: Child,
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn id_of(flag: &str) -> Option<u32> {
    let out = Command::new("id").arg(flag).arg(TEST_USER).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

fn scripts_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    for cand in [manifest.join("scripts"), manifest.join("../scripts")] {
        if cand.join("test-setup-users").exists() {
            return cand;
        }
    }
    manifest.join("../scripts")
}

/// Makes sure the unprivileged test account exists (running scripts/test-setup-users).
pub fn ensure_test_user() -> (u32, u32) {
    if id_of("-u").is_none() || !Path::new(TEST_USER_HOME).is_dir() {
        let script = scripts_dir().join("test-setup-users");
        let status = Command::new("sh").arg(&script).status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "cannot create the test account {TEST_USER}: run scripts/test-setup-users as root \
             (scripts/test does)"
        );
    }
    match (id_of("-u"), id_of("-g")) {
        (Some(u), Some(g)) => (u, g),
        _ => panic!("account {TEST_USER} missing: run scripts/test-setup-users as root"),
    }
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    l.local_addr().expect("local addr").port()
}

fn fresh_dir() -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "ts-sshd-{}-{}-{nanos}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    fs::create_dir_all(&dir).expect("create test folder");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).expect("chmod test folder");
    dir
}

fn write(path: &Path, text: &str, mode: u32) {
    let mut f = fs::File::create(path).expect("create file");
    f.write_all(text.as_bytes()).expect("write file");
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod file");
}

impl TestSshd {
    /// Starts the server; panics (never skips) if anything is missing.
    pub fn start() -> TestSshd {
        assert!(
            Path::new(SSHD).exists(),
            "{SSHD} is missing: run scripts/test (it installs openssh-server)"
        );
        let (uid, gid) = ensure_test_user();
        let dir = fresh_dir();
        let keys = dir.join("ssh");
        let area = dir.join("area");
        fs::create_dir_all(&keys).expect("mkdir ssh");
        fs::create_dir_all(&area).expect("mkdir area");
        fs::set_permissions(&keys, fs::Permissions::from_mode(0o755)).expect("chmod");
        fs::set_permissions(&area, fs::Permissions::from_mode(0o755)).expect("chmod");
        fs::create_dir_all("/run/sshd").expect("mkdir /run/sshd (privilege separation)");
        for key in ["host_key", "client_key"] {
            run(Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-C", key, "-f"])
                .arg(keys.join(key)));
        }
        let client_pub = fs::read_to_string(keys.join("client_key.pub")).expect("client pub");
        write(&keys.join("authorized_keys"), &client_pub, 0o644);
        let host_pub = fs::read_to_string(keys.join("host_key.pub")).expect("host pub");
        write(
            &keys.join("known_hosts"),
            &format!("tsfiles-test {}", host_pub.trim()),
            0o644,
        );
        let port = free_port();
        let k = keys.display();
        let sshd_config = keys.join("sshd_config");
        write(
            &sshd_config,
            &format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {k}/host_key\n\
                 PidFile {k}/sshd.pid\nAuthorizedKeysFile {k}/authorized_keys\nStrictModes no\n\
                 PubkeyAuthentication yes\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nUsePAM no\nPermitRootLogin prohibit-password\n\
                 AllowUsers root {TEST_USER}\nMaxSessions 64\nMaxStartups 64\nPrintMotd no\n\
                 LogLevel ERROR\n"
            ),
            0o644,
        );
        let ssh_config = keys.join("ssh_config");
        write(
            &ssh_config,
            &format!(
                "Host {ALIAS} {USER_ALIAS} 127.0.0.1\n  HostName 127.0.0.1\n  Port {port}\n\
                 \x20 IdentityFile {k}/client_key\n  IdentitiesOnly yes\n\
                 \x20 HostKeyAlias tsfiles-test\n  UserKnownHostsFile {k}/known_hosts\n\
                 \x20 GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n\
                 \x20 LogLevel ERROR\n\
                 Host {ALIAS} 127.0.0.1\n  User root\nHost {USER_ALIAS}\n  User {TEST_USER}\n\
                 Host {DEAD_ALIAS}\n  HostName 127.0.0.1\n  Port {dead}\n  User root\n\
                 \x20 IdentityFile {k}/client_key\n  IdentitiesOnly yes\n  ConnectTimeout 5\n",
                dead = free_port(),
            ),
            0o644,
        );
        let log = fs::File::create(dir.join("sshd.log")).expect("sshd log");
        let script = format!(
            "mount -t tmpfs -o mode=0755 tmpfs \"$1\" && \
             mount -t tmpfs -o mode=0755,uid={uid},gid={gid} tmpfs \"$2\" && \
             mount -t tmpfs -o mode=0700 tmpfs /root && \
             exec {SSHD} -D -e -f \"$3\""
        );
        let mut child = Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c", &script, "sh"])
            .arg(&area)
            .arg(TEST_USER_HOME)
            .arg(&sshd_config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start unshare/sshd: {e}"));
        // Readiness, not speed: on a loaded 2-core machine (the Python suite runs beside this
        // one) sshd has been seen to take over 10 s to listen, so wait up to a minute.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "sshd exited ({status}): {}",
                    fs::read_to_string(dir.join("sshd.log")).unwrap_or_default()
                );
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        assert!(
            TcpStream::connect(("127.0.0.1", port)).is_ok(),
            "sshd did not start listening on 127.0.0.1:{port} within 60 s: {}",
            fs::read_to_string(dir.join("sshd.log")).unwrap_or_default()
        );
        TestSshd {
            dir,
            area,
            port,
            ssh_config,
            uid,
            gid,
            child,
        }
    }

    /// The sshd process id (its mount namespace is the remote side).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Where the test reaches a remote absolute path directly (through the server's
    /// mount namespace).
    pub fn remote_view(&self, path: impl AsRef<Path>) -> PathBuf {
        let p = path.as_ref();
        let rel = p.strip_prefix("/").unwrap_or(p);
        PathBuf::from(format!("/proc/{}/root", self.pid())).join(rel)
    }

    /// The server log (for failure messages).
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default()
    }
}

impl Drop for TestSshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.dir);
    }
}
