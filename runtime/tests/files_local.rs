//! The file tools on this machine: the shared contract (support/contract.rs) plus what
//! only exists locally (confirm tokens, create_only) and a real permission failure, run as
//! uid `nobody` in a child process because root ignores mode bits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::process::Command;

use support::contract::{self, Side, field, field_str, model_err, ok, sha};
use toolsurface_runtime::files::{FileHost, FileHostConfig, WriteFile};

macro_rules! contract_tests {
    ($($name:ident),* $(,)?) => {$(
        #[tokio::test]
        async fn $name() {
            contract::$name(&Side::local()).await;
        }
    )*};
}

contract_tests!(
    edits_without_prior_read_and_reports_old_and_new_sha,
    ambiguous_match_fails_with_every_location,
    missing_match_fails_with_the_nearest_fragment,
    explicit_sha_is_strict_and_a_prefix_is_accepted,
    a_concurrent_change_aborts_the_write,
    an_unread_file_is_staged_and_overwrite_writes,
    a_read_file_may_be_replaced,
    writes_are_atomic_and_keep_the_mode,
    apply_patch_adds_updates_moves_and_deletes,
    apply_patch_is_all_or_nothing,
    a_symlink_is_written_through,
);

#[tokio::test]
async fn relative_paths_resolve_against_the_root() {
    let s = Side::local();
    let root = s.base.clone();
    contract::relative_paths_resolve_against_the_root(&s, &root).await;
}

#[tokio::test]
async fn confirm_token_applies_the_staged_copy_while_the_file_is_unchanged() {
    let s = Side::local();
    s.put("t.txt", "original\n");
    let out = ok(s.write(s.write_req("t.txt", "staged content\n")).await);
    let token = field_str(&out, "confirm_token");
    assert!(token.starts_with("ct-"), "{}", out.text);
    assert_eq!(s.get("t.txt").as_deref(), Some("original\n"));
    // a token names its file
    let err = model_err(
        s.write(WriteFile {
            confirm_token: Some(token.clone()),
            ..s.write_req("other.txt", "")
        })
        .await,
    );
    assert!(err.contains("belongs to"), "{err}");
    // other content than the staged one is refused
    let err = model_err(
        s.write(WriteFile {
            confirm_token: Some(token.clone()),
            ..s.write_req("t.txt", "different\n")
        })
        .await,
    );
    assert!(err.contains("staged content"), "{err}");
    // applied while unchanged
    let out = ok(s
        .write(WriteFile {
            confirm_token: Some(token.clone()),
            ..s.write_req("t.txt", "")
        })
        .await);
    assert_eq!(field_str(&out, "status"), "written");
    assert_eq!(s.get("t.txt").as_deref(), Some("staged content\n"));
    // single use
    let err = model_err(
        s.write(WriteFile {
            confirm_token: Some(token),
            ..s.write_req("t.txt", "")
        })
        .await,
    );
    assert!(err.contains("unknown"), "{err}");
}

#[tokio::test]
async fn confirm_token_is_void_once_the_file_changed() {
    let s = Side::local();
    s.put("t.txt", "original\n");
    let out = ok(s.write(s.write_req("t.txt", "mine\n")).await);
    let token = field_str(&out, "confirm_token");
    let staged = field(&out, "staged_paths")[0].as_str().unwrap().to_string();
    s.put("t.txt", "someone else\n");
    let err = model_err(
        s.write(WriteFile {
            confirm_token: Some(token),
            ..s.write_req("t.txt", "")
        })
        .await,
    );
    assert!(
        err.contains("changed since the content was staged"),
        "{err}"
    );
    assert_eq!(s.get("t.txt").as_deref(), Some("someone else\n"));
    assert_eq!(fs::read_to_string(staged).unwrap(), "mine\n");
}

#[tokio::test]
async fn create_only_creates_and_never_replaces() {
    let s = Side::local();
    let out = ok(s
        .write(WriteFile {
            create_only: true,
            ..s.write_req("c.txt", "1\n")
        })
        .await);
    assert_eq!(field_str(&out, "status"), "created");
    ok(s.read("c.txt").await);
    let err = model_err(
        s.write(WriteFile {
            create_only: true,
            ..s.write_req("c.txt", "2\n")
        })
        .await,
    );
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(s.get("c.txt").as_deref(), Some("1\n"));
    // create_only with overwrite: Call::parse refuses the pair (forbidden_with,
    // tests/parse.rs); a request built by hand with both is refused as an argument error.
    let err = contract::argument_err(
        s.write(WriteFile {
            create_only: true,
            overwrite: true,
            ..s.write_req(
                "c.txt", "3
",
            )
        })
        .await,
    );
    assert!(err.contains("overwrite and create_only"), "{err}");
    assert_eq!(
        s.get("c.txt").as_deref(),
        Some(
            "1
"
        )
    );
}

#[tokio::test]
async fn apply_patch_paths_are_relative_to_the_root_and_the_device_line_must_agree() {
    let s = Side::local();
    s.put("src/lib.rs", "pub fn a() {}\n");
    ok(s
        .patch("*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-pub fn a() {}\n+pub fn b() {}\n*** End Patch")
        .await);
    assert_eq!(s.get("src/lib.rs").as_deref(), Some("pub fn b() {}\n"));
    let err = model_err(
        s.host
            .apply_patch(
                "c",
                &contract::ctx(),
                toolsurface_runtime::files::ApplyPatch {
                    patch: "*** Begin Patch\n*** Device: nas\n*** Delete File: src/lib.rs\n*** End Patch"
                        .into(),
                    device: Some("other".into()),
                },
            )
            .await,
    );
    assert!(err.contains("disagree"), "{err}");
    assert_eq!(s.host.ssh_spawn_count(), 0);
    assert!(s.view.join("src/lib.rs").exists());
}

/// The helper half of the permission test: runs inside the child started as `nobody`.
fn permission_child(root: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut cfg = FileHostConfig::new(root);
    cfg.staging_dir = Some(format!("{root}/staging").into());
    let host = FileHost::new(cfg).unwrap();
    let results: Vec<serde_json::Value> = rt.block_on(async {
        let mut v = Vec::new();
        // an existing, read, root-owned 0644 file
        let _ = host
            .read_file(
                "c",
                &contract::ctx(),
                toolsurface_runtime::files::ReadFile {
                    path: "locked/owned-by-root.txt".into(),
                    offset: 1,
                    limit: 2000,
                    device: None,
                },
            )
            .await;
        for (path, overwrite) in [
            ("locked/owned-by-root.txt", true),
            ("locked/new.txt", false),
            ("open/owned-by-root.txt", true),
        ] {
            let r = host
                .write_file(
                    "c",
                    &contract::ctx(),
                    WriteFile {
                        path: path.into(),
                        content: format!("from nobody: {path}\n"),
                        overwrite,
                        ..WriteFile::new("", "")
                    },
                )
                .await;
            v.push(match r {
                Ok(o) => serde_json::json!({"text": o.text, "structured": o.structured}),
                Err(e) => serde_json::json!({"error": e.to_string()}),
            });
        }
        let r = host
            .file_edit(
                "c",
                &contract::ctx(),
                toolsurface_runtime::files::FileEdit {
                    path: "locked/owned-by-root.txt".into(),
                    old_text: "root".into(),
                    new_text: "nobody".into(),
                    replace_all: false,
                    expected_sha256: None,
                    device: None,
                },
            )
            .await;
        v.push(match r {
            Ok(o) => serde_json::json!({"text": o.text, "structured": o.structured}),
            Err(e) => serde_json::json!({"error": e.to_string()}),
        });
        v
    });
    println!("RESULT:{}", serde_json::Value::Array(results));
}

/// "file permission failures stage the content without changing authentication or using
/// sudo": the operations run as uid/gid 65534 (`nobody`) in a child process (this test
/// binary re-executed for this one test), against a root-owned folder and file.
#[test]
fn permission_failures_stage_the_content() {
    if let Ok(root) = std::env::var("TS_FILES_PERMISSION_CHILD") {
        permission_child(&root);
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let locked = root.join("locked");
    let staging = root.join("staging");
    fs::create_dir_all(&locked).unwrap();
    fs::create_dir_all(&staging).unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::chown(&staging, Some(65534), Some(65534)).unwrap();
    let file = locked.join("owned-by-root.txt");
    fs::write(&file, "owned by root\n").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
    // a folder anyone may write to, holding a file only root may write
    let open = root.join("open");
    fs::create_dir_all(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let open_file = open.join("owned-by-root.txt");
    fs::write(&open_file, "owned by root\n").unwrap();
    fs::set_permissions(&open_file, fs::Permissions::from_mode(0o644)).unwrap();

    let exe = std::env::current_exe().unwrap();
    let out = Command::new(&exe)
        .args([
            "--exact",
            // the test's name as libtest lists it: its module path within the test binary
            &format!(
                "{}::permission_failures_stage_the_content",
                module_path!()
                    .split_once("::")
                    .map_or(module_path!(), |(_, m)| m)
            ),
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TS_FILES_PERMISSION_CHILD", &root)
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.split_once("RESULT:").map(|(_, json)| json))
        .unwrap_or_else(|| panic!("no result from the child: {stdout}"));
    let results: Vec<serde_json::Value> = serde_json::from_str(line).unwrap();
    assert_eq!(results.len(), 4);
    for r in &results {
        let s = &r["structured"];
        assert_eq!(s["status"], "staged", "{r}");
        assert!(
            r["text"].as_str().unwrap().contains("permission denied"),
            "{r}"
        );
        let staged = s["staged_paths"][0].as_str().unwrap();
        assert!(staged.starts_with(staging.to_str().unwrap()), "{staged}");
        let content = fs::read_to_string(staged).unwrap();
        assert!(content.contains("nobody"), "{content}");
    }
    // nothing changed: content, mode, owner; no new file; no temp or lock left behind
    assert_eq!(fs::read_to_string(&file).unwrap(), "owned by root\n");
    let meta = fs::metadata(&file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o7777, 0o644);
    assert_eq!((meta.uid(), meta.gid()), (0, 0));
    let names: Vec<String> = fs::read_dir(&locked)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["owned-by-root.txt".to_string()]);
    assert_eq!(
        fs::metadata(&locked).unwrap().permissions().mode() & 0o7777,
        0o755
    );
    assert_eq!(fs::read_to_string(&open_file).unwrap(), "owned by root\n");
    let names: Vec<String> = fs::read_dir(&open)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["owned-by-root.txt".to_string()],
        "temp and lock removed"
    );
    assert!(
        results[2]["text"]
            .as_str()
            .unwrap()
            .contains("not writable"),
        "{}",
        results[2]
    );
    let _ = sha("");
}

/// The local write is the same compare-and-swap: 100 read + CAS writes race a writer
/// thread that honours the lock convention (`mkdir <dir>/.<name>.toolsurface-lock`);
/// every write lands or reports a conflict, and no line of either writer is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_concurrent_local_writer_loses_no_update_over_100_cas_writes() {
    let s = Side::local();
    s.put("race.txt", "");
    let dir = s.view.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = stop.clone();
    let writer = std::thread::spawn(move || {
        let lock = dir.join(".race.txt.toolsurface-lock");
        let mut j = 0usize;
        while !stop2.load(std::sync::atomic::Ordering::SeqCst) {
            while fs::create_dir(&lock).is_err() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let mut text = fs::read_to_string(dir.join("race.txt")).unwrap();
            text.push_str(&format!("B {j}\n"));
            fs::write(dir.join(".race.tmp"), text).unwrap();
            fs::rename(dir.join(".race.tmp"), dir.join("race.txt")).unwrap();
            fs::remove_dir(&lock).unwrap();
            j += 1;
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        j
    });
    let mut landed = Vec::new();
    let mut conflicts = 0;
    for i in 0..100 {
        let read = ok(s.read("race.txt").await);
        let seen = field_str(&read, "sha256");
        let content = field_str(&read, "content");
        match s
            .write(WriteFile {
                expected_sha256: Some(seen.clone()),
                ..s.write_req("race.txt", &format!("{content}A {i}\n"))
            })
            .await
        {
            Ok(o) => {
                assert_eq!(field_str(&o, "status"), "written", "{}", o.text);
                assert_eq!(field_str(&o, "old_sha256"), seen);
                landed.push(format!("A {i}"));
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("does not match") && msg.contains(&seen),
                    "{msg}"
                );
                conflicts += 1;
            }
        }
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let b_count = writer.join().unwrap();
    let text = s.get("race.txt").unwrap();
    let a: Vec<&str> = text.lines().filter(|l| l.starts_with("A ")).collect();
    assert_eq!(landed.len() + conflicts, 100);
    assert_eq!(a, landed.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        text.lines().filter(|l| l.starts_with("B ")).count(),
        b_count
    );
    eprintln!(
        "local race: {} landed, {conflicts} conflicts, writer {b_count}",
        landed.len()
    );
}

/// The private control folder exists while the host lives and is removed with it.
#[test]
fn the_control_folder_is_private_and_removed_with_the_host() {
    let tmp = tempfile::tempdir().unwrap();
    let host = FileHost::new(FileHostConfig::new(tmp.path())).unwrap();
    let dir = host.control_dir().to_path_buf();
    assert_eq!(
        fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    drop(host);
    assert!(!dir.exists(), "{dir:?} left behind");
}
