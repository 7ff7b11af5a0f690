//! `set_workdirs` against real folder trees and real git repositories (git on PATH).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::names_support;

use std::fs;
use std::path::Path;
use std::process::Command;

use toolsurface_runtime::call::{ToolError, ToolNames};
use toolsurface_runtime::workdirs::{
    Mode, SetWorkdirsRequest, SyncDrive, WorkdirKind, Workdirs, detect_sync_drive,
};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn req(dirs: &[&Path], mode: Mode) -> SetWorkdirsRequest {
    SetWorkdirsRequest {
        dirs: dirs.iter().map(|d| d.display().to_string()).collect(),
        mode,
    }
}

fn model_err(r: Result<toolsurface_runtime::call::ToolOutput, ToolError>) -> String {
    match r {
        Err(ToolError::Model(m)) => m,
        other => panic!("expected a model error, got {other:?}"),
    }
}

/// A temp dir's canonical path (macOS /tmp is a symlink).
fn tmp() -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = fs::canonicalize(d.path()).unwrap();
    (d, p)
}

#[test]
fn a_plain_folder_gets_git_init_and_a_baseline_commit() {
    let (_d, root) = tmp();
    let proj = root.join("proj");
    fs::create_dir_all(proj.join("src")).unwrap();
    fs::write(proj.join("src/main.rs"), "fn main() {}\n").unwrap();
    fs::write(proj.join("AGENTS.md"), "# Rules\nBuild with -j2.\n").unwrap();

    let mut w = Workdirs::new(&root);
    let out = w
        .set_workdirs(&req(&[&proj], Mode::Set), &names_support::NAMES)
        .unwrap();
    assert!(
        out.text.ends_with(&format!(
            "declared working folders (1): {}\n(the declared set can be read again with \
             introspect target=workdirs)",
            proj.display()
        )),
        "{}",
        out.text
    );
    assert!(proj.join(".git").is_dir());
    assert_eq!(git(&proj, &["rev-list", "--count", "HEAD"]).trim(), "1");
    assert_eq!(
        git(&proj, &["log", "-1", "--format=%an <%ae>|%s"]).trim(),
        "toolsurface <toolsurface@localhost>|Baseline (declared workdir)"
    );
    let files = git(&proj, &["ls-files"]);
    assert_eq!(files, "AGENTS.md\nsrc/main.rs\n");
    assert!(git(&proj, &["status", "--porcelain"]).is_empty());

    assert!(
        out.text.contains("new: git init + baseline commit"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("# Rules\nBuild with -j2."),
        "{}",
        out.text
    );
    let s = out.structured.unwrap();
    assert_eq!(s["folders"][0]["agents_md"], "# Rules\nBuild with -j2.\n");
    assert_eq!(s["folders"][0]["workdir"]["kind"], "git");
    assert_eq!(s["folders"][0]["workdir"]["initialized"], true);

    let d = w.declared();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].path, proj);
    assert_eq!(d[0].kind, WorkdirKind::Git { root: proj.clone() });

    // Declaring it again recognises the repository; no second commit.
    let out = w
        .set_workdirs(&req(&[&proj], Mode::Set), &ToolNames::NONE)
        .unwrap();
    assert_eq!(git(&proj, &["rev-list", "--count", "HEAD"]).trim(), "1");
    assert!(out.text.contains("— git repository\n"), "{}", out.text);
}

#[test]
fn an_empty_plain_folder_still_gets_a_baseline() {
    let (_d, root) = tmp();
    let mut w = Workdirs::new(&root);
    let out = w
        .set_workdirs(&req(&[&root], Mode::Set), &ToolNames::NONE)
        .unwrap();
    assert_eq!(git(&root, &["rev-list", "--count", "HEAD"]).trim(), "1");
    assert!(
        out.text
            .contains(&format!("no AGENTS.md at {}", root.display())),
        "{}",
        out.text
    );
}

#[test]
fn an_existing_repository_and_its_subfolders_are_left_alone() {
    let (_d, root) = tmp();
    let repo = root.join("repo");
    fs::create_dir_all(repo.join("pkg/inner")).unwrap();
    fs::write(repo.join("AGENTS.md"), "repo rules\n").unwrap();
    fs::write(repo.join("pkg/inner/x.txt"), "x\n").unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "AGENTS.md"]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let head = git(&repo, &["rev-parse", "HEAD"]);

    let mut w = Workdirs::new(&root);
    let out = w
        .set_workdirs(
            &req(&[&repo.join("pkg/inner"), &repo], Mode::Set),
            &ToolNames::NONE,
        )
        .unwrap();
    assert_eq!(
        git(&repo, &["rev-parse", "HEAD"]),
        head,
        "history untouched"
    );
    assert!(
        !repo.join("pkg/inner/.git").exists(),
        "no nested repository"
    );
    // pkg/inner/x.txt stays untracked: nothing was added or committed.
    assert!(git(&repo, &["status", "--porcelain"]).contains("?? pkg/"));
    let d = w.declared();
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].path, repo.join("pkg/inner"));
    assert_eq!(d[0].kind, WorkdirKind::Git { root: repo.clone() });
    assert!(!d[0].initialized);
    assert!(
        out.text
            .contains(&format!("inside git repository {}", repo.display())),
        "{}",
        out.text
    );
    // The root AGENTS.md is the repository's.
    assert_eq!(out.text.matches("repo rules").count(), 2, "{}", out.text);
}

#[test]
fn svn_working_copies_are_recognised_not_inited() {
    let (_d, root) = tmp();
    let wc = root.join("wc");
    fs::create_dir_all(wc.join(".svn")).unwrap();
    fs::create_dir_all(wc.join("trunk/src")).unwrap();
    let mut w = Workdirs::new(&root);
    let out = w
        .set_workdirs(&req(&[&wc.join("trunk/src")], Mode::Set), &ToolNames::NONE)
        .unwrap();
    assert!(!wc.join("trunk/src/.git").exists());
    assert!(!wc.join(".git").exists());
    assert_eq!(w.declared()[0].kind, WorkdirKind::Svn { root: wc.clone() });
    assert!(out.text.contains("inside svn working copy"), "{}", out.text);
}

#[test]
fn sync_drive_folders_are_not_git_inited_and_say_why() {
    let (_d, root) = tmp();
    let proj = root.join("Dropbox").join("notes");
    fs::create_dir_all(&proj).unwrap();
    fs::write(proj.join("a.md"), "a\n").unwrap();
    let mut w = Workdirs::new(&root);
    let out = w
        .set_workdirs(&req(&[&proj], Mode::Set), &ToolNames::NONE)
        .unwrap();
    assert!(!proj.join(".git").exists());
    let d = &w.declared()[0];
    assert_eq!(d.kind, WorkdirKind::Plain);
    assert_eq!(d.sync_drive, Some(SyncDrive::Dropbox));
    assert!(!d.initialized);
    assert!(
        out.text
            .contains("in Dropbox; not git-inited: it is synced by Dropbox"),
        "{}",
        out.text
    );

    // A marker file identifies a renamed Dropbox folder.
    let renamed = root.join("Work Files").join("proj");
    fs::create_dir_all(&renamed).unwrap();
    fs::write(root.join("Work Files/.dropbox"), "{}").unwrap();
    w.set_workdirs(&req(&[&renamed], Mode::Add), &ToolNames::NONE)
        .unwrap();
    assert!(!renamed.join(".git").exists());
    assert_eq!(w.declared()[1].sync_drive, Some(SyncDrive::Dropbox));

    // A git repository inside a sync drive is still a git repository.
    let repo = root.join("Google Drive/My Drive/code");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    w.set_workdirs(&req(&[&repo], Mode::Add), &ToolNames::NONE)
        .unwrap();
    let d = &w.declared()[2];
    assert_eq!(d.kind, WorkdirKind::Git { root: repo.clone() });
    assert_eq!(d.sync_drive, Some(SyncDrive::GoogleDrive));
}

#[test]
fn sync_drives_by_path_components() {
    let cases: &[(&str, Option<SyncDrive>)] = &[
        ("/Users/ann/Dropbox (Personal)/x", Some(SyncDrive::Dropbox)),
        (
            "/Users/ann/Library/CloudStorage/Dropbox/x",
            Some(SyncDrive::Dropbox),
        ),
        (
            "/Users/ann/OneDrive - Contoso/Docs",
            Some(SyncDrive::OneDrive),
        ),
        ("/mnt/c/Users/ann/OneDrive/Docs", Some(SyncDrive::OneDrive)),
        (
            "/Users/ann/Library/Mobile Documents/com~apple~CloudDocs/p",
            Some(SyncDrive::ICloudDrive),
        ),
        (
            "/mnt/c/Users/ann/iCloudDrive/p",
            Some(SyncDrive::ICloudDrive),
        ),
        ("/Users/ann/iCloud Drive/p", Some(SyncDrive::ICloudDrive)),
        (
            "/Users/ann/Library/CloudStorage/GoogleDrive-ann@example.com/My Drive/p",
            Some(SyncDrive::GoogleDrive),
        ),
        ("/Users/ann/Google Drive/p", Some(SyncDrive::GoogleDrive)),
        (
            "/Users/ann/Library/CloudStorage/OneDrive-Personal/p",
            Some(SyncDrive::OneDrive),
        ),
        ("/home/ann/src/dropbox-sdk/x", None),
        ("/home/ann/src/dropbox/x", None),
        ("/home/ann/src/onedrive-client/x", None),
        ("/home/ann/My Drive/x", None),
        ("/home/ann/src/myproject", None),
    ];
    for (p, want) in cases {
        assert_eq!(detect_sync_drive(Path::new(p)), *want, "{p}");
    }
}

#[test]
fn relative_paths_resolve_against_the_base_and_errors_change_nothing() {
    let (_d, root) = tmp();
    fs::create_dir_all(root.join("a")).unwrap();
    fs::create_dir_all(root.join("b")).unwrap();
    fs::write(root.join("file.txt"), "x").unwrap();
    let mut w = Workdirs::new(&root);
    w.set_workdirs(
        &SetWorkdirsRequest {
            dirs: vec!["a".into()],
            mode: Mode::Set,
        },
        &ToolNames::NONE,
    )
    .unwrap();
    assert_eq!(w.declared()[0].path, root.join("a"));

    let e = model_err(w.set_workdirs(
        &SetWorkdirsRequest {
            dirs: vec!["b".into(), "nope/deeper".into()],
            mode: Mode::Set,
        },
        &ToolNames::NONE,
    ));
    assert!(e.contains("\"nope/deeper\""), "{e}");
    assert!(
        e.contains(&root.join("nope/deeper").display().to_string()),
        "{e}"
    );
    assert!(e.contains("does not exist"), "{e}");
    assert!(
        !root.join("b/.git").exists(),
        "b must not be inited when the call fails"
    );
    assert_eq!(w.declared().len(), 1);

    let e = model_err(w.set_workdirs(
        &SetWorkdirsRequest {
            dirs: vec!["file.txt".into()],
            mode: Mode::Add,
        },
        &ToolNames::NONE,
    ));
    assert!(e.contains("is not a directory"), "{e}");
}

#[test]
fn set_add_remove_and_clear() {
    let (_d, root) = tmp();
    for n in ["a", "b", "c"] {
        fs::create_dir_all(root.join(n)).unwrap();
    }
    let mut w = Workdirs::new(&root);
    let names = |w: &Workdirs| -> Vec<String> {
        w.declared()
            .iter()
            .map(|d| d.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    let r = |dirs: &[&str], mode| SetWorkdirsRequest {
        dirs: dirs.iter().map(|s| s.to_string()).collect(),
        mode,
    };
    w.set_workdirs(&r(&["a", "b"], Mode::Set), &ToolNames::NONE)
        .unwrap();
    assert_eq!(names(&w), vec!["a", "b"]);
    let out = w
        .set_workdirs(&r(&["b", "c"], Mode::Add), &ToolNames::NONE)
        .unwrap();
    assert_eq!(names(&w), vec!["a", "b", "c"]);
    assert!(out.text.contains("was already declared"), "{}", out.text);
    w.set_workdirs(&r(&["./a/../a"], Mode::Remove), &ToolNames::NONE)
        .unwrap();
    assert_eq!(names(&w), vec!["b", "c"]);
    let e = model_err(w.set_workdirs(&r(&["c", "zzz"], Mode::Remove), &ToolNames::NONE));
    assert!(e.contains("not declared: zzz"), "{e}");
    assert_eq!(
        names(&w),
        vec!["b", "c"],
        "a failing remove changes nothing"
    );
    w.set_workdirs(&r(&["c"], Mode::Set), &ToolNames::NONE)
        .unwrap();
    assert_eq!(names(&w), vec!["c"]);
    let out = w
        .set_workdirs(&r(&[], Mode::Set), &ToolNames::NONE)
        .unwrap();
    assert!(w.declared().is_empty());
    assert_eq!(out.text, "cleared: no working folders declared");
    assert_eq!(w.describe(), "no working folders declared");
    // The definition allows an empty list (mode=set clears); add/remove with none is
    // refused as an argument error.
    match w.set_workdirs(&r(&[], Mode::Add), &ToolNames::NONE) {
        Err(ToolError::Argument(m)) => assert!(m.contains("dirs is empty"), "{m}"),
        other => panic!("expected an argument error, got {other:?}"),
    }
}

#[test]
fn a_removed_folder_that_no_longer_exists_can_be_removed() {
    let (_d, root) = tmp();
    fs::create_dir_all(root.join("gone")).unwrap();
    let mut w = Workdirs::new(&root);
    w.set_workdirs(
        &SetWorkdirsRequest {
            dirs: vec!["gone".into()],
            mode: Mode::Set,
        },
        &ToolNames::NONE,
    )
    .unwrap();
    fs::remove_dir_all(root.join("gone")).unwrap();
    w.set_workdirs(
        &SetWorkdirsRequest {
            dirs: vec!["gone".into()],
            mode: Mode::Remove,
        },
        &ToolNames::NONE,
    )
    .unwrap();
    assert!(w.declared().is_empty());
}

#[test]
fn a_failed_baseline_leaves_the_folder_as_it_was() {
    let (_d, root) = tmp();
    let proj = root.join("proj");
    fs::create_dir_all(proj.join("sub")).unwrap();
    fs::write(proj.join("a.txt"), "a\n").unwrap();
    // An embedded repository without commits makes `git add --all` fail.
    git(&proj.join("sub"), &["init", "-q"]);
    let mut w = Workdirs::new(&root);
    let out = w
        .set_workdirs(&req(&[&proj], Mode::Set), &ToolNames::NONE)
        .unwrap();
    assert!(
        !proj.join(".git").exists(),
        "the half-made repository is removed"
    );
    assert!(
        proj.join("sub/.git").is_dir(),
        "the embedded one is untouched"
    );
    let d = &w.declared()[0];
    assert_eq!(d.kind, WorkdirKind::Plain);
    assert!(!d.initialized);
    let why = d.not_initialized_because.as_deref().unwrap();
    assert!(why.starts_with("git add (baseline) failed:"), "{why}");
    assert!(
        out.text.contains("plain folder; not git-inited: git add"),
        "{}",
        out.text
    );
}
