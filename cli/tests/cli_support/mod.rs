//! Helpers shared by the tests that drive the built `toolsurface` binary on temporary copies
//! of tool-defs (lock_check, diff_cli).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (this crate is its `cli/`): the binary runs there, on tool-defs/,
/// examples/ and tests/data/.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolsurface"))
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// Run with `input` on stdin.
pub fn run_with_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolsurface"))
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A temporary copy of the repository folder `rel`, as `<tmp>/<name>`.
pub fn temp_copy(rel: &str, name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(name);
    copy_dir(&repo().join(rel), &dir);
    (tmp, dir)
}

/// A temporary copy of tool-defs with its lock.
pub fn defs() -> (tempfile::TempDir, PathBuf) {
    temp_copy("tool-defs", "defs")
}

pub fn edit(dir: &Path, file: &str, from: &str, to: &str) {
    let p = dir.join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{file} does not contain {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}
