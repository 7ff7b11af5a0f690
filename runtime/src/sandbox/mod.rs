//! What a role's tools may touch, and how that is enforced: the policy model (profile,
//! writable roots, protected paths, network, devices, enforcement), one [`Confinement`] per
//! conversation and host (its live writable roots and its private temp dir), the file
//! tools' checks ([`Confinement::check_write`] and friends, on descriptor-resolved paths,
//! see [`resolve`]) and the re-exec helper every shell child is spawned through
//! ([`helper_main`], kernel side in [`kernel`]).
//!
//! # The helper
//!
//! portable-pty has no `pre_exec`, so on a PTY confinement is applied by a program: the
//! shell family spawns `<helper> __sandbox-exec <shell> -c <command>` with the policy as
//! JSON in [`POLICY_ENV`] (not argv; the helper removes it before exec). On pipes the same
//! restriction ([`kernel::Prepared`], built before the fork) is applied in `pre_exec`, one
//! exec fewer. Either way the child sets
//! no_new_privs, drops dangerous capabilities from the bounding set, restricts itself with
//! Landlock (read+execute everywhere, everything under the writable roots, the terminal
//! devices usable, signals to processes outside the sandbox refused) and with the network
//! off also TCP (Landlock) and every non-Unix socket and io_uring (seccomp), then execs. It
//! never runs the command when a step fails.
//!
//! Which program is the helper, first match wins: [`ShellConfig::sandbox_helper`], the
//! [`HELPER_ENV`] variable, the running binary if it called [`serve_helper_from_main`]
//! (the `toolsurface` CLI does), then a `toolsurface-sandbox` (this crate's bin target) or
//! `toolsurface` next to the running binary or one folder up (how test binaries under
//! `target/*/deps` and examples under `target/*/examples` find it).
//!
//! [`ShellConfig::sandbox_helper`]: crate::shell::ShellConfig::sandbox_helper

pub mod kernel;
pub mod resolve;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use serde_json::json;

/// argv\[1\] that makes a binary act as the helper.
pub const HELPER_ARG: &str = "__sandbox-exec";
/// The runtime crate's helper binary.
pub const HELPER_BIN: &str = "toolsurface-sandbox";
/// The CLI binary, which serves as helper too.
pub const CLI_BIN: &str = "toolsurface";
/// The helper's policy (JSON), removed before the command runs.
pub const POLICY_ENV: &str = "TOOLSURFACE_SANDBOX_POLICY";
/// A program to use as helper (it is run as `<program> __sandbox-exec …`).
pub const HELPER_ENV: &str = "TOOLSURFACE_SANDBOX_HELPER";
/// Devices every sandboxed command may open read/write (terminals included, so `tty`,
/// `script` and nested PTYs work).
pub const DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// How much a role may write, least first (the shared vocabulary; `read-only`: nothing but
/// the conversation's private temp dir, the shell's scratch space, and the file tools write
/// nothing; `workspace-write`: the host root, the declared workdirs, the temp dir and the
/// host's extra roots; `full`: unconfined).
pub use toolsurface_kernel::vocab::SandboxProfile as Profile;

/// What the `device` argument of the file tools may do, least first (the shared
/// vocabulary).
pub use toolsurface_kernel::vocab::SandboxDevices as Devices;

/// What happens when the kernel cannot enforce a confined profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Enforcement {
    /// Refuse to serve (and to spawn).
    #[default]
    Required,
    /// Serve; shell commands run unconfined and every result says so.
    Warn,
}

impl Enforcement {
    pub fn as_str(self) -> &'static str {
        match self {
            Enforcement::Required => "required",
            Enforcement::Warn => "warn",
        }
    }
}

/// One role's effective policy on one host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    pub profile: Profile,
    /// Outbound and inbound network for shell children.
    pub network: bool,
    pub devices: Devices,
    /// Paths inside the writable roots the file tools never write (relative: under every
    /// root; absolute: that path).
    pub protect: Vec<PathBuf>,
    /// More writable roots (the host's, e.g. `~/.cache`).
    pub extra_write: Vec<PathBuf>,
    pub enforcement: Enforcement,
}

/// Protected inside every writable root: git hooks and config run code outside the
/// sandbox; `.toolsurface` holds the runtime's own stores.
pub const DEFAULT_PROTECT: [&str; 3] = [".git/hooks", ".git/config", ".toolsurface"];

impl Policy {
    /// The profile's defaults: network off except under `full`, devices read-write except
    /// read-only's `read`, the default protected paths.
    pub fn of(profile: Profile) -> Policy {
        Policy {
            profile,
            network: profile.default_network(),
            devices: profile.default_devices(),
            protect: match profile {
                Profile::Full => Vec::new(),
                _ => DEFAULT_PROTECT.iter().map(PathBuf::from).collect(),
            },
            extra_write: Vec::new(),
            enforcement: Enforcement::Required,
        }
    }

    pub fn full() -> Policy {
        Policy::of(Profile::Full)
    }

    /// This policy no looser than `ceiling`: the lower profile, the network only if both
    /// allow it, the fewer device rights, both protect lists.
    pub fn within(mut self, ceiling: &Policy) -> Policy {
        self.profile = self.profile.min(ceiling.profile);
        self.network &= ceiling.network;
        self.devices = self.devices.min(ceiling.devices);
        for p in &ceiling.protect {
            if !self.protect.contains(p) {
                self.protect.push(p.clone());
            }
        }
        self
    }

    pub fn is_confined(&self) -> bool {
        self.profile != Profile::Full
    }

    /// One sentence for the model (the role's instructions and `introspect sandbox`).
    pub fn sentence(&self) -> String {
        match self.profile {
            Profile::Full => "Sandbox: full — tools are not confined.".to_owned(),
            Profile::ReadOnly => format!(
                "Sandbox: read-only — files may be read anywhere but not written (commands \
                 may write only their private temp dir, $TMPDIR); network is {}.",
                on_off(self.network)
            ),
            Profile::WorkspaceWrite => format!(
                "Sandbox: workspace-write — files may be read anywhere and written only \
                 inside the working folders and $TMPDIR ({} and the runtime's own stores \
                 protected); network is {}.",
                self.protect
                    .iter()
                    .filter(|p| p.is_relative())
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                on_off(self.network)
            ),
        }
    }
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

// ---------------------------------------------------------------------------------------
// The kernel and the helper, as this process sees them

/// Whether shell children can be confined here, and why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelStatus {
    /// The Landlock ABI (0 when there is none).
    pub abi: i32,
    /// The helper program, when one was found and its preflight passed.
    pub helper: Option<PathBuf>,
    /// Why confinement is not possible (None: it is).
    pub problem: Option<String>,
}

impl KernelStatus {
    pub fn can_enforce(&self) -> bool {
        self.problem.is_none()
    }
}

static SELF_HELPER: OnceLock<()> = OnceLock::new();

/// For a binary's `main`: when argv\[1\] is [`HELPER_ARG`], act as the helper (never
/// returns); otherwise remember that this binary can be its own helper and return.
/// Call it before any thread is started.
pub fn serve_helper_from_main() {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == HELPER_ARG) {
        std::process::exit(helper_main(args.collect()));
    }
    let _ = SELF_HELPER.set(());
}

fn find_helper() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(HELPER_ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    if SELF_HELPER.get().is_some() {
        return Ok(exe);
    }
    let dirs = [exe.parent(), exe.parent().and_then(Path::parent)];
    for dir in dirs.into_iter().flatten() {
        for name in [HELPER_BIN, CLI_BIN] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(format!(
        "no sandbox helper found (looked for {HELPER_BIN} and {CLI_BIN} next to {}); \
         build it (cargo build -p toolsurface-runtime --bin {HELPER_BIN}) or name one \
         with {HELPER_ENV} or the sandbox_helper setting",
        exe.display()
    ))
}

/// The kernel's and the helper's status for `helper` (None: the discovered one), probed
/// once per helper and process: the Landlock ABI, then one real confined run of `true`.
pub fn kernel_status(helper: Option<&Path>) -> KernelStatus {
    static CACHE: OnceLock<Mutex<BTreeMap<Option<PathBuf>, KernelStatus>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(BTreeMap::new()));
    let key = helper.map(Path::to_path_buf);
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    map.entry(key).or_insert_with(|| probe(helper)).clone()
}

fn probe(helper: Option<&Path>) -> KernelStatus {
    let abi = match kernel::landlock_abi() {
        Ok(abi) => abi,
        Err(problem) => {
            return KernelStatus {
                abi: 0,
                helper: None,
                problem: Some(problem),
            };
        }
    };
    let found = match helper {
        Some(h) => Ok(h.to_path_buf()),
        None => find_helper(),
    };
    let program = match found {
        Ok(p) => p,
        Err(problem) => {
            return KernelStatus {
                abi,
                helper: None,
                problem: Some(problem),
            };
        }
    };
    let policy = HelperPolicy {
        write: Vec::new(),
        network: false,
    };
    let run = std::process::Command::new(&program)
        .arg(HELPER_ARG)
        .arg("true")
        .env(POLICY_ENV, policy.to_json())
        .stdin(std::process::Stdio::null())
        .output();
    let problem = match run {
        Ok(out) if out.status.success() => None,
        Ok(out) => Some(format!(
            "the sandbox helper {} failed its preflight ({}): {}",
            program.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Some(format!(
            "the sandbox helper {} could not be run: {e}",
            program.display()
        )),
    };
    KernelStatus {
        abi,
        helper: problem.is_none().then_some(program),
        problem,
    }
}

/// What the helper receives in [`POLICY_ENV`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HelperPolicy {
    /// Writable trees.
    pub write: Vec<PathBuf>,
    pub network: bool,
}

impl HelperPolicy {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The restriction, built now (Landlock ruleset filled, seccomp program assembled) for
    /// [`kernel::Prepared::apply`] to enforce later without allocating.
    pub fn prepare(&self) -> io::Result<kernel::Prepared> {
        let abi = kernel::landlock_abi().map_err(io::Error::other)?;
        let write: Vec<&Path> = self.write.iter().map(PathBuf::as_path).collect();
        kernel::prepare(
            abi,
            &kernel::Rules {
                write: &write,
                devices: &DEVICES,
                network_off: !self.network,
            },
        )
    }
}

/// The helper: `args` are the program and its arguments, the policy is in [`POLICY_ENV`].
/// Restricts itself and execs; returns (an exit code) only when it could not.
pub fn helper_main(args: Vec<OsString>) -> i32 {
    let Some((program, rest)) = args.split_first() else {
        eprintln!("toolsurface sandbox: usage: {HELPER_ARG} PROGRAM [ARG…]");
        return 2;
    };
    let policy: HelperPolicy = match std::env::var(POLICY_ENV)
        .map_err(|e| e.to_string())
        .and_then(|s| serde_json::from_str(&s).map_err(|e| e.to_string()))
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!(
                "toolsurface sandbox: no valid policy in {POLICY_ENV} ({e}); nothing was run"
            );
            return 126;
        }
    };
    if let Err(e) = policy.prepare().and_then(|p| p.apply()) {
        eprintln!("toolsurface sandbox: the sandbox could not be applied ({e}); nothing was run");
        return 126;
    }
    let e = std::process::Command::new(program)
        .args(rest)
        .env_remove(POLICY_ENV)
        .exec();
    eprintln!(
        "toolsurface sandbox: cannot run {}: {e}",
        Path::new(program).display()
    );
    if e.kind() == io::ErrorKind::NotFound {
        127
    } else {
        126
    }
}

// ---------------------------------------------------------------------------------------
// One conversation's confinement on one host

/// How a shell child is started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Launch {
    /// Directly (profile `full`, or `warn` without kernel support: then `note` says so).
    Direct { note: Option<String> },
    /// Confined under `policy`: on a PTY through the helper `program` (the policy in
    /// [`POLICY_ENV`]); on pipes in the forked child itself (the same restriction,
    /// prepared before the fork, applied in `pre_exec`: one exec fewer). `env` is what
    /// the command gets on top ($TMPDIR, $TMPPREFIX).
    Helper {
        program: PathBuf,
        env: Vec<(String, String)>,
        policy: HelperPolicy,
    },
}

/// A conversation's policy on one host plus its live state: the declared workdirs (which
/// follow `set_workdirs`) and a private temp dir, removed when the confinement is dropped.
#[derive(Debug)]
pub struct Confinement {
    policy: Policy,
    host_root: PathBuf,
    helper: Option<PathBuf>,
    tmp: tempfile::TempDir,
    workdirs: Mutex<Vec<PathBuf>>,
}

impl Confinement {
    /// `host_root` is writable under `workspace-write` (the host's operator chose it);
    /// `helper` overrides the discovered helper.
    pub fn new(
        policy: Policy,
        host_root: impl Into<PathBuf>,
        helper: Option<PathBuf>,
    ) -> io::Result<Confinement> {
        let tmp = tempfile::Builder::new()
            .prefix("toolsurface-tmp-")
            .tempdir()?;
        Ok(Confinement {
            policy,
            host_root: host_root.into(),
            helper,
            tmp,
            workdirs: Mutex::new(Vec::new()),
        })
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The conversation's private temp dir ($TMPDIR and $TMPPREFIX of its commands).
    pub fn tmp(&self) -> &Path {
        self.tmp.path()
    }

    /// The declared workdirs changed (sessions started before keep their roots).
    pub fn set_workdirs(&self, dirs: Vec<PathBuf>) {
        *self.workdirs.lock().unwrap_or_else(|p| p.into_inner()) = dirs;
    }

    /// The trees writes may land in, canonical where they exist. Empty under `full`
    /// (everything) — ask [`Policy::is_confined`] first.
    pub fn writable_roots(&self) -> Vec<PathBuf> {
        let mut roots = vec![self.tmp.path().to_path_buf()];
        if self.policy.profile == Profile::WorkspaceWrite {
            roots.push(self.host_root.clone());
            roots.extend(
                self.workdirs
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .iter()
                    .cloned(),
            );
            roots.extend(self.policy.extra_write.iter().cloned());
        }
        let mut out: Vec<PathBuf> = Vec::new();
        for r in roots {
            let r = std::fs::canonicalize(&r).unwrap_or(r);
            if !out.contains(&r) {
                out.push(r);
            }
        }
        out
    }

    pub fn kernel(&self) -> KernelStatus {
        kernel_status(self.helper.as_deref())
    }

    /// How to start a shell child now, or a refusal (`required` without kernel support).
    pub fn launch(&self) -> Result<Launch, String> {
        if !self.policy.is_confined() {
            return Ok(Launch::Direct { note: None });
        }
        let status = self.kernel();
        let tmp = self.tmp.path().display().to_string();
        let tmp_env = vec![
            ("TMPDIR".to_owned(), tmp.clone()),
            ("TMPPREFIX".to_owned(), format!("{tmp}/zsh")),
        ];
        if let (Some(program), None) = (&status.helper, &status.problem) {
            return Ok(Launch::Helper {
                program: program.clone(),
                env: tmp_env,
                policy: HelperPolicy {
                    write: self.writable_roots(),
                    network: self.policy.network,
                },
            });
        }
        let problem = status
            .problem
            .unwrap_or_else(|| "no sandbox helper".to_owned());
        match self.policy.enforcement {
            Enforcement::Warn => Ok(Launch::Direct {
                note: Some(format!(
                    "[sandbox: this command ran UNCONFINED — the kernel cannot enforce the \
                     {} profile here ({problem}); enforcement is warn]",
                    self.policy.profile.as_str()
                )),
            }),
            Enforcement::Required => Err(format!(
                "refused — the {} sandbox cannot be enforced here ({problem}) and \
                 enforcement is required; nothing was run",
                self.policy.profile.as_str()
            )),
        }
    }

    /// The file tools' refusal for a local write to `target` (absolute, its final symlink
    /// already followed as the local backend does), or `Ok`. A refusal is terminal: the
    /// caller stages nothing and issues no confirm_token.
    pub fn check_write(&self, target: &Path) -> Result<(), String> {
        match self.policy.profile {
            Profile::Full => return Ok(()),
            Profile::ReadOnly => {
                return Err(format!(
                    "refused — this role is read-only: {} was not written (nothing was \
                     staged); ask the user for a role or sandbox that may write",
                    target.display()
                ));
            }
            Profile::WorkspaceWrite => {}
        }
        let roots = self.writable_roots();
        let list = roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let (canonical, existing) = resolve::canonical_target(target).map_err(|e| {
            format!(
                "refused — cannot resolve {}: {e}; nothing was written",
                target.display()
            )
        })?;
        let Some(root) = roots.iter().find(|r| canonical.starts_with(r)) else {
            let via = if canonical != target {
                format!(
                    " (it resolves through a symlink to {})",
                    canonical.display()
                )
            } else {
                String::new()
            };
            return Err(format!(
                "refused — {}{via} is outside this role's writable roots ({list}); write \
                 inside a working folder, or ask the user to widen the sandbox; nothing was \
                 written or staged",
                target.display()
            ));
        };
        // Confirmed by descriptor: the existing part re-opened beneath its root with no
        // symlink or magic link on the way.
        let rel = existing.strip_prefix(root).unwrap_or(Path::new(""));
        resolve::open_beneath(root, rel).map_err(|e| {
            format!(
                "refused — {} changed while it was checked ({e}); nothing was written",
                target.display()
            )
        })?;
        for p in &self.policy.protect {
            let protected = if p.is_absolute() {
                p.clone()
            } else {
                root.join(p)
            };
            if canonical.starts_with(&protected) {
                return Err(format!(
                    "refused — {} is protected ({}: git hooks and config run outside the \
                     sandbox, and the runtime's own stores are not the model's to write); \
                     nothing was written",
                    target.display(),
                    p.display()
                ));
            }
        }
        Ok(())
    }

    /// Where `sql_query` may open or ATTACH databases: the host root, the declared
    /// workdirs, the extra roots and the temp dir (under every confined profile), never a
    /// protected path (the runtime's own stores among them). `Ok` under `full`.
    pub fn check_database(&self, path: &Path) -> Result<(), String> {
        if !self.policy.is_confined() {
            return Ok(());
        }
        let mut roots = vec![self.tmp.path().to_path_buf(), self.host_root.clone()];
        roots.extend(
            self.workdirs
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .cloned(),
        );
        roots.extend(self.policy.extra_write.iter().cloned());
        let roots: Vec<PathBuf> = roots
            .into_iter()
            .map(|r| std::fs::canonicalize(&r).unwrap_or(r))
            .collect();
        let (canonical, _) = resolve::canonical_target(path)
            .map_err(|e| format!("refused — cannot resolve {}: {e}", path.display()))?;
        let Some(root) = roots.iter().find(|r| canonical.starts_with(r)) else {
            return Err(format!(
                "refused — {} is outside the folders this role may open databases in ({}); \
                 copy the database into a working folder, or ask the user to widen the \
                 sandbox",
                canonical.display(),
                roots
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        for p in &self.policy.protect {
            let protected = if p.is_absolute() {
                p.clone()
            } else {
                root.join(p)
            };
            let protected = std::fs::canonicalize(&protected).unwrap_or(protected);
            if canonical.starts_with(&protected) {
                return Err(format!(
                    "refused — {} is protected ({}): the runtime's own stores are read \
                     through their own tools",
                    canonical.display(),
                    p.display()
                ));
            }
        }
        Ok(())
    }

    /// The refusal for a file tool's `device` argument (`write`: the call changes files).
    pub fn check_device(&self, device: &str, write: bool) -> Result<(), String> {
        if write && self.policy.profile == Profile::ReadOnly {
            return Err(format!(
                "refused — this role is read-only: nothing is written on {device} either"
            ));
        }
        match (self.policy.devices, write) {
            (Devices::None, _) => Err(format!(
                "refused — this role's sandbox allows no remote devices (devices: none); \
                 {device} was not contacted"
            )),
            (Devices::Read, true) => Err(format!(
                "refused — this role's sandbox lets it read remote devices but not write \
                 them (devices: read); nothing was written on {device}"
            )),
            _ => Ok(()),
        }
    }

    /// The roots a confined commit's thread may write (the kernel backstop), with `extra`
    /// (the staging folder) added; `None` when there is nothing to restrict or the kernel
    /// has no Landlock.
    pub fn backstop(&self, extra: &Path) -> Option<(i32, Vec<PathBuf>)> {
        if self.policy.profile != Profile::WorkspaceWrite {
            return None;
        }
        // A rule needs the folder to exist; staging creates it (0700) anyway.
        let _ = std::fs::create_dir_all(extra);
        let abi = kernel::landlock_abi().ok()?;
        let mut roots = self.writable_roots();
        roots.push(extra.to_path_buf());
        Some((abi, roots))
    }

    /// What `introspect sandbox` shows.
    pub fn describe(&self) -> serde_json::Value {
        let status = self.kernel();
        json!({
            "profile": self.policy.profile.as_str(),
            "writable_roots": self.writable_roots(),
            "protected": self.policy.protect,
            "protected_in_shell": false,
            "network": on_off(self.policy.network),
            "devices": self.policy.devices.as_str(),
            "enforcement": self.policy.enforcement.as_str(),
            "landlock_abi": status.abi,
            "shell_confined": self.policy.is_confined() && status.can_enforce(),
            "problem": status.problem,
            "tmpdir": self.tmp.path(),
            "sentence": self.policy.sentence(),
        })
    }
}
