//! `toolsurface check` on the bad-definition corpus cases that only the CLI refuses: an
//! example that `Call::parse`'s rules refuse (decoded by the facade's call checker, which the
//! compiler cannot reach). Each such case has `expected-check.txt`: the exact stderr of
//! `toolsurface check <case>` on the case overlaid on `_base` (the overlay rules of
//! compiler/tests/bad_defs.rs: case files replace base files, `base-omits.txt` drops some).
//! `UPDATE_EXPECT=1 cargo test -p toolsurface --test check_examples` rewrites them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bad")
}

fn copy_tree(from: &Path, to: &Path, skip: &[&str], rel: &str) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel_path = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if skip.contains(&rel_path.as_str())
            || name.starts_with("expected")
            || name == "base-omits.txt"
        {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target, skip, &rel_path);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn cases_only_check_refuses_print_exactly_their_expected_diagnostics() {
    let mut cases: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|c| corpus().join(c).join("expected-check.txt").exists())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no case has expected-check.txt");
    let work = tempfile::tempdir().unwrap();
    for case in &cases {
        let dir = work.path().join(case);
        std::fs::create_dir_all(&dir).unwrap();
        let omits =
            std::fs::read_to_string(corpus().join(case).join("base-omits.txt")).unwrap_or_default();
        let omitted: Vec<&str> = omits.lines().map(str::trim).collect();
        copy_tree(&corpus().join("_base"), &dir, &omitted, "");
        copy_tree(&corpus().join(case), &dir, &[], "");
        let out = Command::new(env!("CARGO_BIN_EXE_toolsurface"))
            .args(["check", case.as_str()])
            .current_dir(work.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{case}: check must refuse it");
        let actual = String::from_utf8(out.stderr).unwrap();
        let expected_path = corpus().join(case).join("expected-check.txt");
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap();
        assert_eq!(actual, expected, "{case}: check's diagnostics differ");
    }
}
