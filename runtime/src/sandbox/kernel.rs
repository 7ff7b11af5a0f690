//! The kernel half of the sandbox: Landlock (raw syscalls through `libc`), a hand-written
//! seccomp BPF filter for the network, no_new_privs and the capability bounding set. Only
//! the re-exec helper ([`super::helper_main`]) restricts itself with these; the runtime
//! process only probes ([`landlock_abi`]).
//!
//! Why no crate: the `landlock` crate is a fine wrapper, but what the helper needs is three
//! syscalls and four structs whose layout is kernel ABI (stable by definition), and the
//! `seccompiler` filter builder is heavier than the nine-instruction program below. `libc`
//! is already a dependency and has every constant but the Landlock ones, which are
//! declared here once, from `include/uapi/linux/landlock.h`.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

// include/uapi/linux/landlock.h
const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: libc::c_int = 1;

pub const FS_EXECUTE: u64 = 1 << 0;
pub const FS_WRITE_FILE: u64 = 1 << 1;
pub const FS_READ_FILE: u64 = 1 << 2;
pub const FS_READ_DIR: u64 = 1 << 3;
const FS_REFER: u64 = 1 << 13;
const FS_TRUNCATE: u64 = 1 << 14;
const FS_IOCTL_DEV: u64 = 1 << 15;
const NET_BIND_TCP: u64 = 1 << 0;
const NET_CONNECT_TCP: u64 = 1 << 1;
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The Landlock ABI version this kernel offers (0: none — not built in, disabled at boot,
/// or the syscall is blocked, e.g. by a container's seccomp profile), and why not.
pub fn landlock_abi() -> Result<i32, String> {
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) reads no memory.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    if v < 0 {
        let e = io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::ENOSYS) => "the kernel has no Landlock (Linux ≥ 5.13 with \
                 CONFIG_SECURITY_LANDLOCK, or the syscall is blocked by a container)"
                .to_owned(),
            Some(libc::EOPNOTSUPP) => "Landlock is built in but disabled at boot \
                 (add landlock to the lsm= kernel parameter)"
                .to_owned(),
            _ => format!("probing Landlock failed: {e}"),
        });
    }
    i32::try_from(v).map_err(|e| e.to_string())
}

/// Every filesystem right the kernel of ABI `abi` can handle.
fn fs_rights(abi: i32) -> u64 {
    let mut all = (1 << 13) - 1; // ABI 1: EXECUTE … MAKE_SYM
    if abi >= 2 {
        all |= FS_REFER;
    }
    if abi >= 3 {
        all |= FS_TRUNCATE;
    }
    if abi >= 5 {
        all |= FS_IOCTL_DEV;
    }
    all
}

/// The rights that apply to a file that is not a directory (the kernel refuses the others
/// on such a rule).
const FILE_RIGHTS: u64 = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV;

/// What the helper restricts itself to.
pub struct Rules<'a> {
    /// Fully writable trees (missing ones are skipped).
    pub write: &'a [&'a Path],
    /// Device files and directories usable for read, write and ioctl.
    pub devices: &'a [&'a str],
    /// Deny TCP bind/connect (Landlock ≥ 4) and non-Unix sockets and io_uring (seccomp).
    pub network_off: bool,
}

/// Restricts the calling thread (and what it execs) for good: no_new_privs, Landlock with
/// read+execute everywhere and everything under `rules.write`, signal scoping, and with the
/// network off the seccomp filter. An error means the restriction could not be made whole:
/// the caller must not exec anything.
pub fn restrict_self(abi: i32, rules: &Rules<'_>) -> io::Result<()> {
    prepare(abi, rules)?.apply()
}

/// A restriction built in advance (the Landlock ruleset filled, the seccomp program
/// assembled), so that applying it — [`Prepared::apply`] — is a handful of raw syscalls
/// that allocate nothing: safe in a `pre_exec` closure between fork and exec.
pub struct Prepared {
    ruleset: std::os::fd::OwnedFd,
    filter: Option<Vec<libc::sock_filter>>,
}

/// Builds the helper's restriction for `rules` without applying it.
pub fn prepare(abi: i32, rules: &Rules<'_>) -> io::Result<Prepared> {
    Ok(Prepared {
        ruleset: ruleset(abi, rules, true)?,
        filter: rules.network_off.then(network_filter),
    })
}

impl Prepared {
    /// no_new_privs, the capability drop, Landlock, then the network filter, on the
    /// calling thread (and what it execs). Allocation-free.
    pub fn apply(&self) -> io::Result<()> {
        set_no_new_privs()?;
        drop_dangerous_capabilities();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&self.ruleset);
        // SAFETY: restrict_self on the ruleset fd we own; flags 0.
        if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if let Some(filter) = &self.filter {
            install_filter(filter)?;
        }
        Ok(())
    }
}

/// The file tools' kernel backstop: restricts the calling thread (only) to writing under
/// `write` (read everywhere), for the one commit it then runs. The thread should end after.
pub fn restrict_thread_writes(abi: i32, write: &[&Path]) -> io::Result<()> {
    set_no_new_privs()?;
    let rules = Rules {
        write,
        devices: &[],
        network_off: false,
    };
    let ruleset = ruleset(abi, &rules, false)?;
    let fd = std::os::fd::AsRawFd::as_raw_fd(&ruleset);
    // SAFETY: restrict_self on the ruleset fd we own; flags 0.
    if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn set_no_new_privs() -> io::Result<()> {
    // SAFETY: prctl(PR_SET_NO_NEW_PRIVS, 1) takes no pointers.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Creates and fills the ruleset; `process` adds the network and scope rights (a shell
/// child), otherwise only the file system is handled.
fn ruleset(abi: i32, rules: &Rules<'_>, process: bool) -> io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    let fs = fs_rights(abi);
    let attr = RulesetAttr {
        handled_access_fs: fs,
        handled_access_net: if process && rules.network_off && abi >= 4 {
            NET_BIND_TCP | NET_CONNECT_TCP
        } else {
            0
        },
        scoped: match (process && abi >= 6, rules.network_off) {
            (false, _) => 0,
            (true, false) => SCOPE_SIGNAL,
            (true, true) => SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET,
        },
    };
    // SAFETY: a valid attr of the size passed; the kernel zero-extends older layouts.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            &attr as *const RulesetAttr,
            std::mem::size_of::<RulesetAttr>(),
            0u32,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just gave us this descriptor (O_CLOEXEC by default).
    let ruleset =
        unsafe { std::os::fd::OwnedFd::from_raw_fd(i32::try_from(fd).map_err(io::Error::other)?) };
    add_rules(std::os::fd::AsRawFd::as_raw_fd(&ruleset), abi, rules)?;
    Ok(ruleset)
}

fn add_rules(ruleset: i32, abi: i32, rules: &Rules<'_>) -> io::Result<()> {
    let fs = fs_rights(abi);
    add_path(
        ruleset,
        Path::new("/"),
        FS_EXECUTE | FS_READ_FILE | FS_READ_DIR,
        true,
    )?;
    for root in rules.write {
        add_path(ruleset, root, fs, false)?;
    }
    let device = (FS_READ_FILE | FS_WRITE_FILE | FS_IOCTL_DEV) & fs;
    for dev in rules.devices {
        add_path(ruleset, Path::new(dev), device | FS_READ_DIR, false)?;
    }
    Ok(())
}

/// Adds one path-beneath rule. A missing path is skipped unless `required`.
fn add_path(ruleset: i32, path: &Path, access: u64, required: bool) -> io::Result<()> {
    let c = CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: a NUL-terminated path; O_PATH opens nothing for reading or writing.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        let e = io::Error::last_os_error();
        if !required && e.raw_os_error() == Some(libc::ENOENT) {
            return Ok(());
        }
        return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display())));
    }
    // Rights that make sense only on directories are refused on a file.
    let is_dir = std::fs::metadata(path).map(|m| m.is_dir()).unwrap_or(false);
    let access = if is_dir { access } else { access & FILE_RIGHTS };
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: fd,
    };
    // SAFETY: a valid rule attr; fd is open.
    let r = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
        )
    };
    let e = io::Error::last_os_error();
    // SAFETY: closing the O_PATH fd we opened.
    unsafe { libc::close(fd) };
    if r != 0 {
        return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display())));
    }
    Ok(())
}

/// Capabilities a root child has no business keeping (module loading, raw I/O, mounts,
/// BPF, the clock, device nodes, MAC policy, reboot). Dropped from the bounding set, so
/// they are gone after exec; a non-root helper lacks CAP_SETPCAP and drops nothing
/// (it has none of them anyway).
fn drop_dangerous_capabilities() {
    const CAPS: [libc::c_ulong; 12] = [12, 16, 17, 21, 22, 25, 27, 32, 33, 34, 38, 39];
    // SAFETY: geteuid takes no arguments.
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    for cap in CAPS {
        // SAFETY: prctl(PR_CAPBSET_DROP, cap) takes no pointers; EINVAL for a capability
        // this kernel does not know is harmless.
        unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) };
    }
}

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

fn stmt(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u32, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

/// The network filter: `socket()` of any family but `AF_UNIX` and the three io_uring
/// calls fail with EPERM (io_uring would bypass the socket check); a foreign syscall ABI
/// (x32, i386 `int 0x80` and its `socketcall`) is not allowed at all. Everything else
/// passes. UDP needs this: Landlock handles UDP only from ABI 10.
pub fn network_filter() -> Vec<libc::sock_filter> {
    use libc::{BPF_ABS, BPF_JEQ, BPF_JGE, BPF_JMP, BPF_K, BPF_LD, BPF_RET, BPF_W};
    let deny = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    let allow = libc::SECCOMP_RET_ALLOW;
    // struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low half on little-endian).
    let arg0 = if cfg!(target_endian = "big") { 20 } else { 16 };
    let mut p = vec![
        stmt(BPF_LD | BPF_W | BPF_ABS, 4),
        jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH, 1, 0),
        stmt(BPF_RET | BPF_K, libc::SECCOMP_RET_KILL_PROCESS),
        stmt(BPF_LD | BPF_W | BPF_ABS, 0),
    ];
    if cfg!(target_arch = "x86_64") {
        // The x32 ABI: same arch value, syscall numbers with bit 30 set.
        p.push(jump(BPF_JMP | BPF_JGE | BPF_K, 0x4000_0000, 0, 1));
        p.push(stmt(BPF_RET | BPF_K, deny));
    }
    for nr in [
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        p.push(jump(BPF_JMP | BPF_JEQ | BPF_K, nr as u32, 0, 1));
        p.push(stmt(BPF_RET | BPF_K, deny));
    }
    p.push(jump(
        BPF_JMP | BPF_JEQ | BPF_K,
        libc::SYS_socket as u32,
        1,
        0,
    ));
    p.push(stmt(BPF_RET | BPF_K, allow));
    p.push(stmt(BPF_LD | BPF_W | BPF_ABS, arg0));
    p.push(jump(BPF_JMP | BPF_JEQ | BPF_K, libc::AF_UNIX as u32, 0, 1));
    p.push(stmt(BPF_RET | BPF_K, allow));
    p.push(stmt(BPF_RET | BPF_K, deny));
    p
}

fn install_filter(filter: &[libc::sock_filter]) -> io::Result<()> {
    let prog = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: a valid program that outlives the call; no_new_privs is already set.
    let r = unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER,
            &prog as *const libc::sock_fprog,
            0,
            0,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
