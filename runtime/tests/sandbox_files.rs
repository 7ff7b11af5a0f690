//! The file tools' escape table, through the real tools on this machine's file system and
//! kernel, for every profile: under `workspace-write` and `read-only` every row is refused
//! (terminally: no confirm_token, nothing staged) and nothing outside changes; under
//! `full` every row works. Plus a thread flipping a directory and a symlink while
//! write_file loops, `set_workdirs /`, and sql_query's database path and ATTACH.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::shell_support;
use crate::support::names_support;

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use shell_support::ctx;
use toolsurface_runtime::call::{HandlerResult, ToolError};
use toolsurface_runtime::data::{self, SqlQueryRequest};
use toolsurface_runtime::files::{ApplyPatch, FileEdit, FileHost, FileHostConfig, WriteFile};
use toolsurface_runtime::sandbox::{Confinement, Policy, Profile, kernel_status};
use toolsurface_runtime::workdirs::{Mode, SetWorkdirsRequest, Workdirs};

const CONV: &str = "c1";

/// base/{proj, proj-evil, outside}, the file host rooted at proj, confined by `profile`.
struct Fixture {
    _base: tempfile::TempDir,
    proj: PathBuf,
    outside: PathBuf,
    staging: PathBuf,
    files: FileHost,
    confinement: Arc<Confinement>,
}

fn fixture(profile: Profile) -> Fixture {
    assert!(
        kernel_status(None).abi >= 1,
        "these tests need Landlock (the commit backstop): {:?}",
        kernel_status(None)
    );
    let base = tempfile::tempdir().unwrap();
    let base_path = std::fs::canonicalize(base.path()).unwrap();
    let proj = base_path.join("proj");
    let outside = base_path.join("outside");
    let staging = base_path.join("staging");
    for d in [&proj, &outside, &base_path.join("proj-evil")] {
        std::fs::create_dir(d).unwrap();
    }
    std::fs::write(outside.join("secret"), "secret\n").unwrap();
    std::fs::write(outside.join("hard"), "hard\n").unwrap();
    std::fs::write(proj.join("inside.txt"), "inside\n").unwrap();
    symlink(outside.join("secret"), proj.join("lf")).unwrap();
    symlink(&outside, proj.join("ld")).unwrap();
    symlink("c2", proj.join("c1")).unwrap();
    symlink("../outside", proj.join("c2")).unwrap();
    std::fs::hard_link(outside.join("hard"), proj.join("hl")).unwrap();
    let mut config = FileHostConfig::new(&proj);
    config.staging_dir = Some(staging.clone());
    let files = FileHost::new(config).unwrap();
    let confinement = Arc::new(Confinement::new(Policy::of(profile), &proj, None).unwrap());
    files.confine(CONV, confinement.clone());
    Fixture {
        _base: base,
        proj,
        outside,
        staging,
        files,
        confinement,
    }
}

fn write(path: &str) -> WriteFile {
    WriteFile {
        overwrite: true,
        ..WriteFile::new(path, "escaped\n")
    }
}

/// Every row: the call, and the outside file that must not change (or appear).
async fn rows(f: &Fixture) -> Vec<(&'static str, HandlerResult, PathBuf)> {
    let o = &f.outside;
    let proc_root = format!("/proc/self/root{}", o.join("f5").display());
    let twin = f.proj.with_file_name("proj-evil").join("f6");
    let mut out = Vec::new();
    let cases: Vec<(&str, String, PathBuf)> = vec![
        ("dotdot", "../outside/f1".into(), o.join("f1")),
        ("absolute", o.join("f2").display().to_string(), o.join("f2")),
        ("symlink_file", "lf".into(), o.join("secret")),
        ("symlink_dir", "ld/f3".into(), o.join("f3")),
        ("relative_chain", "c1/f4".into(), o.join("f4")),
        ("proc_self_root", proc_root, o.join("f5")),
        ("prefix_twin", twin.display().to_string(), twin.clone()),
        (
            "new_under_symlinked_parent",
            "ld/newdir/f7".into(),
            o.join("newdir/f7"),
        ),
    ];
    for (name, path, watched) in cases {
        let r = f.files.write_file(CONV, &ctx(), write(&path)).await;
        out.push((name, r, watched));
    }
    let edit = FileEdit {
        path: "lf".into(),
        // Under full the row above already replaced "secret"; "e" is in both.
        old_text: "e".into(),
        new_text: "E".into(),
        replace_all: true,
        expected_sha256: None,
        device: None,
    };
    let r = f.files.file_edit(CONV, &ctx(), edit).await;
    out.push(("file_edit_symlink", r, o.join("secret")));
    let patch = "*** Begin Patch\n*** Update File: inside.txt\n*** Move to: ../outside/moved.txt\n@@\n-inside\n+moved\n*** End Patch\n";
    let r = f
        .files
        .apply_patch(
            CONV,
            &ctx(),
            ApplyPatch {
                patch: patch.into(),
                device: None,
            },
        )
        .await;
    out.push(("patch_move_to_outside", r, o.join("moved.txt")));
    out
}

fn assert_refused(name: &str, r: &HandlerResult) {
    match r {
        Err(ToolError::Model(m)) => {
            assert!(m.contains("refused"), "{name}: {m}");
            assert!(
                !m.contains("confirm_token"),
                "{name}: a refusal offers a token: {m}"
            );
        }
        other => panic!("{name}: not refused: {other:?}"),
    }
}

async fn escape_table(profile: Profile) {
    let f = fixture(profile);
    for (name, r, watched) in rows(&f).await {
        match profile {
            Profile::Full => {
                assert!(r.is_ok(), "{name} should work under full: {r:?}");
                assert!(
                    watched.exists(),
                    "{name}: {} not written",
                    watched.display()
                );
            }
            _ => {
                assert_refused(name, &r);
                let unchanged = match watched.file_name().and_then(|n| n.to_str()) {
                    Some("secret") => {
                        std::fs::read_to_string(&watched).ok().as_deref() == Some("secret\n")
                    }
                    _ => !watched.exists(),
                };
                assert!(unchanged, "{name}: {} changed", watched.display());
            }
        }
    }
    // A pre-existing hard link: the write replaces the link (read-only refuses it); the
    // outside inode never changes.
    let r = f.files.write_file(CONV, &ctx(), write("hl")).await;
    match profile {
        Profile::ReadOnly => assert_refused("hardlink", &r),
        _ => assert!(r.is_ok(), "hardlink: {r:?}"),
    }
    assert_eq!(
        std::fs::read_to_string(f.outside.join("hard")).unwrap(),
        "hard\n"
    );
    if profile != Profile::Full {
        let staged = std::fs::read_dir(&f.staging)
            .map(|d| d.count())
            .unwrap_or(0);
        assert_eq!(staged, 0, "a refusal staged something");
    }
}

#[tokio::test]
async fn file_escapes_are_refused_under_workspace_write() {
    escape_table(Profile::WorkspaceWrite).await;
}

#[tokio::test]
async fn file_escapes_are_refused_under_read_only() {
    escape_table(Profile::ReadOnly).await;
}

#[tokio::test]
async fn file_escapes_work_under_full() {
    escape_table(Profile::Full).await;
}

/// Inside the roots everything still works; protected paths are refused.
#[tokio::test]
async fn workspace_write_writes_inside_and_refuses_protected_paths() {
    let f = fixture(Profile::WorkspaceWrite);
    f.files
        .write_file(CONV, &ctx(), write("sub/new.txt"))
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(f.proj.join("sub/new.txt")).unwrap(),
        "escaped\n"
    );
    let tmp_file = f.confinement.tmp().join("scratch.txt");
    f.files
        .write_file(CONV, &ctx(), write(&tmp_file.display().to_string()))
        .await
        .unwrap();
    for p in [
        ".git/hooks/pre-commit",
        ".git/config",
        ".toolsurface/facts.sqlite3",
    ] {
        let r = f.files.write_file(CONV, &ctx(), write(p)).await;
        assert_refused(p, &r);
        let Err(ToolError::Model(m)) = r else {
            unreachable!()
        };
        assert!(m.contains("protected"), "{m}");
    }
}

/// A thread swaps `proj/flip` between a real folder and a symlink to the outside while
/// write_file keeps writing `flip/f`: whatever wins each race, nothing appears outside.
#[tokio::test]
async fn a_racing_symlink_swap_never_writes_outside() {
    let f = fixture(Profile::WorkspaceWrite);
    let flip = f.proj.join("flip");
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU32::new(0));
    let flipper = {
        let (flip, outside, stop) = (flip.clone(), f.outside.clone(), stop.clone());
        let counter = swaps.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::remove_dir_all(&flip).or_else(|_| std::fs::remove_file(&flip));
                let _ = std::fs::create_dir(&flip);
                let _ = std::fs::remove_dir_all(&flip).or_else(|_| std::fs::remove_file(&flip));
                let _ = symlink(&outside, &flip);
                counter.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    // At least 300 writes and 200 swaps (the machine may be loaded), at most 5000 writes.
    let (mut written, mut by_kernel) = (0, 0);
    for i in 0..5000 {
        if i >= 300 && swaps.load(Ordering::Relaxed) >= 200 {
            break;
        }
        match f.files.write_file(CONV, &ctx(), write("flip/f")).await {
            Ok(_) => written += 1,
            Err(ToolError::Model(m)) if m.contains("was denied") => by_kernel += 1,
            Err(_) => {}
        }
    }
    eprintln!("race: {written} written, {by_kernel} refused by the kernel backstop");
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    let swaps = swaps.load(Ordering::Relaxed);
    assert!(swaps >= 200, "the flipper ran {swaps} times");
    assert!(
        !f.outside.join("f").exists(),
        "a write landed outside ({written} writes succeeded)"
    );
}

/// set_workdirs cannot widen the sandbox: `/` (and a prefix twin) is outside the bounds.
#[test]
fn set_workdirs_outside_the_bounds_is_refused() {
    let f = fixture(Profile::WorkspaceWrite);
    let mut w = Workdirs::new(&f.proj);
    w.set_bounds(Some(vec![f.proj.clone()]));
    for dir in [
        "/".to_owned(),
        f.proj.with_file_name("proj-evil").display().to_string(),
    ] {
        let req = SetWorkdirsRequest {
            dirs: vec![dir.clone()],
            mode: Mode::Set,
        };
        let err = w.set_workdirs(&req, &names_support::NAMES).unwrap_err();
        let ToolError::Model(m) = err else {
            panic!("{dir}: {err:?}")
        };
        assert!(m.contains("refused") && m.contains("workdir_bounds"), "{m}");
    }
    assert!(w.declared().is_empty());
}

/// A real database file with one table (sql_query itself opens read-only).
fn make_db(path: &Path) {
    let out = std::process::Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(format!(
            "import sqlite3; c = sqlite3.connect({:?}); c.execute('create table t (x)'); \
             c.execute('insert into t values (1)'); c.commit()",
            path.display().to_string()
        ))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// sql_query opens and ATTACHes only databases inside the workspace, never the runtime's
/// own stores; under full both work.
#[test]
fn sql_query_refuses_outside_databases_and_attach() {
    for profile in [Profile::WorkspaceWrite, Profile::ReadOnly, Profile::Full] {
        let f = fixture(profile);
        let inside = f.proj.join("db.sqlite");
        let outside = f.outside.join("o.sqlite");
        std::fs::create_dir_all(f.proj.join(".toolsurface")).unwrap();
        let store = f.proj.join(".toolsurface/messages.sqlite3");
        for p in [&inside, &outside, &store] {
            make_db(p);
        }
        let c = f.confinement.clone();
        let check: data::DatabaseCheck = Arc::new(move |p| c.check_database(p));
        let run = |database: &Path, sql: String| {
            data::sql_query_checked(
                &f.proj,
                &SqlQueryRequest {
                    database: database.display().to_string(),
                    sql,
                    limit: 100,
                },
                check.clone(),
            )
        };
        let ok = run(&inside, "select x from t".into());
        assert!(ok.is_ok(), "{profile:?}: {ok:?}");
        let attach = run(
            &inside,
            format!("attach database '{}' as o", outside.display()),
        );
        let direct = run(&outside, "select x from t".into());
        let own = run(&store, "select x from t".into());
        for (name, r) in [("attach", attach), ("outside", direct), ("own store", own)] {
            if profile == Profile::Full {
                assert!(r.is_ok(), "{profile:?} {name}: {r:?}");
            } else {
                assert_refused(name, &r);
            }
        }
    }
}

/// `devices` is checked where a `device` argument exists, before any ssh: none refuses
/// reads, read refuses writes, read-only refuses writes whatever `devices` says.
#[tokio::test]
async fn the_device_argument_obeys_devices() {
    use toolsurface_runtime::files::ReadFile;
    use toolsurface_runtime::sandbox::Devices;
    let cases = [
        (Profile::WorkspaceWrite, Devices::None, true, true),
        (Profile::WorkspaceWrite, Devices::Read, false, true),
        (Profile::ReadOnly, Devices::ReadWrite, false, true),
    ];
    for (profile, devices, read_refused, write_refused) in cases {
        let f = fixture(profile);
        let mut policy = Policy::of(profile);
        policy.devices = devices;
        let c = Arc::new(Confinement::new(policy, &f.proj, None).unwrap());
        f.files.confine(CONV, c);
        let read = ReadFile {
            path: "/etc/hostname".into(),
            device: Some("nosuchhost.invalid".into()),
            offset: 1,
            limit: 2000,
        };
        let before = f.files.ssh_spawn_count();
        let r = f.files.read_file(CONV, &ctx(), read).await;
        let refused = matches!(&r, Err(ToolError::Model(m)) if m.contains("refused"));
        assert_eq!(refused, read_refused, "{profile:?} {devices:?} read: {r:?}");
        if refused {
            assert_eq!(
                f.files.ssh_spawn_count(),
                before,
                "a refused read started ssh"
            );
        }
        let w = WriteFile {
            device: Some("nosuchhost.invalid".into()),
            ..write("/tmp/x")
        };
        let before = f.files.ssh_spawn_count();
        let r = f.files.write_file(CONV, &ctx(), w).await;
        let refused = matches!(&r, Err(ToolError::Model(m)) if m.contains("refused"));
        assert_eq!(
            refused, write_refused,
            "{profile:?} {devices:?} write: {r:?}"
        );
        assert_eq!(
            f.files.ssh_spawn_count(),
            before,
            "a refused write started ssh"
        );
    }
}
