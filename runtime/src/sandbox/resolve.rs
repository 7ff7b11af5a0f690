//! Where a file tool's write would land, decided on the file system and confirmed by
//! descriptor: the deepest existing ancestor canonicalized (so `..`, symlink chains,
//! `/proc/self/root/…` and prefix twins are seen for what they are), then re-opened beneath
//! its writable root with `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
//! RESOLVE_NO_SYMLINKS)`, which fails if any component became a symlink meanwhile. What
//! happens between this check and the write is the kernel's to refuse: confined commits
//! run on a Landlock-restricted thread ([`super::kernel::restrict_thread_writes`]).

use std::ffi::CString;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// `path` (absolute) with its deepest existing ancestor canonicalized and the rest (which
/// does not exist, so holds no symlink) appended; and that ancestor.
pub fn canonical_target(path: &Path) -> io::Result<(PathBuf, PathBuf)> {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if std::fs::symlink_metadata(&existing).is_ok() {
            break;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => {
                return Err(io::Error::other(format!(
                    "{} has no existing ancestor",
                    path.display()
                )));
            }
        }
    }
    let base = std::fs::canonicalize(&existing)?;
    let mut full = base.clone();
    for name in rest.iter().rev() {
        full.push(name);
    }
    Ok((full, base))
}

/// Opens `rel` (relative, symlink-free) beneath the directory `root` as an `O_PATH`
/// descriptor, refusing `..`, absolute and any symlinks and magic links (`/proc/…/fd`).
pub fn open_beneath(root: &Path, rel: &Path) -> io::Result<OwnedFd> {
    let root_c = CString::new(root.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: a NUL-terminated path; O_PATH opens nothing for reading or writing.
    let dirfd = unsafe {
        libc::open(
            root_c.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if dirfd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: we own the descriptor just opened.
    let dir = unsafe { OwnedFd::from_raw_fd(dirfd) };
    let rel = if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    };
    let rel_c = CString::new(rel.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: zeroed open_how is "no flags"; the fields are set below.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_PATH | libc::O_CLOEXEC) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS | libc::RESOLVE_NO_SYMLINKS;
    // SAFETY: valid dirfd, NUL-terminated path, a valid open_how of the size passed.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            std::os::fd::AsRawFd::as_raw_fd(&dir),
            rel_c.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = i32::try_from(fd).map_err(io::Error::other)?;
    // SAFETY: the kernel just gave us this descriptor.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}
