//! The case study's remote-file contract, written once and run by `files_local` (on this
//! machine) and `files_remote` (with `device`, against the test sshd).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;
use toolsurface_runtime::call::{CallContext, HandlerResult, ToolError, ToolOutput};
use toolsurface_runtime::files::{
    ApplyPatch, FileEdit, FileHost, FileHostConfig, ReadFile, WriteFile,
};

use super::sshd::TestSshd;

pub fn sha(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

pub fn ctx() -> CallContext {
    CallContext {
        call_id: "call".into(),
        cancel: CancellationToken::new(),
        host: "test".into(),
        rehearsal: false,
        names: &super::names_support::NAMES,
    }
}

/// One side of the contract: where requests go, and how the test reaches the same files
/// directly.
pub struct Side {
    pub host: FileHost,
    pub device: Option<String>,
    /// The folder requests name (absolute, on the target machine).
    pub base: PathBuf,
    /// The same folder as the test process reaches it.
    pub view: PathBuf,
    pub conversation: String,
    /// Kept alive for the side's lifetime (declared after `host`: dropped after it).
    pub sshd: Option<TestSshd>,
    pub tmp: Option<tempfile::TempDir>,
}

impl Side {
    /// Files on this machine, in a fresh temp folder.
    pub fn local() -> Side {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("work");
        fs::create_dir_all(&base).unwrap();
        let mut cfg = FileHostConfig::new(&base);
        cfg.staging_dir = Some(tmp.path().join("staging"));
        Side {
            host: FileHost::new(cfg).unwrap(),
            device: None,
            view: base.clone(),
            base,
            conversation: "conv-1".into(),
            sshd: None,
            tmp: Some(tmp),
        }
    }

    /// Files on the test sshd's machine, through `device` = `alias`.
    pub fn remote_as(alias: &str) -> Side {
        let sshd = TestSshd::start();
        let base = sshd.area.join("work");
        let view = sshd.remote_view(&base);
        fs::create_dir_all(&view).unwrap();
        fs::set_permissions(&view, fs::Permissions::from_mode(0o777)).unwrap();
        // The local folder of the same name exists too, with different contents.
        fs::create_dir_all(&base).unwrap();
        let mut cfg = FileHostConfig::new("/nonexistent-local-root");
        cfg.ssh_config = Some(sshd.ssh_config.clone());
        cfg.staging_dir = Some(sshd.dir.join("local-staging"));
        Side {
            host: FileHost::new(cfg).unwrap(),
            device: Some(alias.to_string()),
            base,
            view,
            conversation: "conv-1".into(),
            sshd: Some(sshd),
            tmp: None,
        }
    }

    pub fn remote() -> Side {
        Side::remote_as(super::sshd::ALIAS)
    }

    pub fn path(&self, rel: &str) -> String {
        self.base.join(rel).to_string_lossy().into_owned()
    }
    /// Where a staged path reported by a result can be read by the test.
    pub fn staged_view(&self, reported: &str) -> PathBuf {
        let bare = match &self.device {
            Some(d) => reported
                .strip_prefix(&format!("{d}:"))
                .unwrap_or(reported)
                .to_string(),
            None => reported.to_string(),
        };
        match &self.sshd {
            Some(s) => s.remote_view(&bare),
            None => PathBuf::from(bare),
        }
    }
    pub fn put(&self, rel: &str, text: &str) {
        let p = self.view.join(rel);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(p, text).unwrap();
    }
    pub fn get(&self, rel: &str) -> Option<String> {
        fs::read_to_string(self.view.join(rel)).ok()
    }
    pub fn mode(&self, rel: &str) -> u32 {
        fs::metadata(self.view.join(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    }
    pub fn set_mode(&self, rel: &str, mode: u32) {
        fs::set_permissions(self.view.join(rel), fs::Permissions::from_mode(mode)).unwrap();
    }
    pub fn entries(&self) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(&self.view)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    pub async fn read(&self, rel: &str) -> HandlerResult {
        self.read_req(ReadFile {
            path: self.path(rel),
            device: self.device.clone(),
            offset: 1,
            limit: 2000,
        })
        .await
    }
    pub async fn read_req(&self, req: ReadFile) -> HandlerResult {
        conforms(
            "read_file",
            self.host.read_file(&self.conversation, &ctx(), req).await,
        )
    }
    pub async fn write(&self, req: WriteFile) -> HandlerResult {
        let req = WriteFile {
            device: req.device.or_else(|| self.device.clone()),
            ..req
        };
        conforms(
            "write_file",
            self.host.write_file(&self.conversation, &ctx(), req).await,
        )
    }
    pub fn write_req(&self, rel: &str, content: &str) -> WriteFile {
        WriteFile {
            path: self.path(rel),
            content: content.into(),
            ..WriteFile::new("", "")
        }
    }
    pub async fn edit(&self, rel: &str, old: &str, new: &str) -> HandlerResult {
        self.edit_req(FileEdit {
            path: self.path(rel),
            old_text: old.into(),
            new_text: new.into(),
            replace_all: false,
            expected_sha256: None,
            device: None,
        })
        .await
    }
    pub async fn edit_req(&self, req: FileEdit) -> HandlerResult {
        let req = FileEdit {
            device: req.device.or_else(|| self.device.clone()),
            ..req
        };
        conforms(
            "file_edit",
            self.host.file_edit(&self.conversation, &ctx(), req).await,
        )
    }
    pub async fn patch(&self, patch: &str) -> HandlerResult {
        let result = self
            .host
            .apply_patch(
                &self.conversation,
                &ctx(),
                ApplyPatch {
                    patch: patch.into(),
                    device: self.device.clone(),
                },
            )
            .await;
        conforms("apply_patch", result)
    }
}

/// Every successful result of the contract conforms to its tool's locked output schema.
fn conforms(tool: &str, result: HandlerResult) -> HandlerResult {
    if let Ok(out) = &result {
        super::outputs::assert_conforms(tool, out);
    }
    result
}

pub fn ok(r: HandlerResult) -> ToolOutput {
    match r {
        Ok(o) => o,
        Err(e) => panic!("expected success, got {e}"),
    }
}

pub fn model_err(r: HandlerResult) -> String {
    match r {
        Err(ToolError::Model(m)) => m,
        Err(other) => panic!("expected a model error, got {other}"),
        Ok(o) => panic!("expected an error, got {}", o.text),
    }
}

/// The text of a refusal about the arguments alone (a request `Call::parse` would refuse).
pub fn argument_err(r: HandlerResult) -> String {
    match r {
        Err(ToolError::Argument(m)) => m,
        Err(other) => panic!("expected an argument error, got {other:?}"),
        Ok(o) => panic!("expected an error, got {}", o.text),
    }
}

pub fn field(o: &ToolOutput, name: &str) -> Value {
    o.structured.as_ref().expect("structured")[name].clone()
}

/// Removes the staged copies a result names (remote ones live in the server's /tmp).
pub fn discard_staged(s: &Side, o: &ToolOutput) {
    for p in field(o, "staged_paths").as_array().into_iter().flatten() {
        if let Some(dir) = p
            .as_str()
            .and_then(|p| s.staged_view(p).parent().map(Path::to_path_buf))
        {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

pub fn field_str(o: &ToolOutput, name: &str) -> String {
    field(o, name).as_str().unwrap_or_default().to_string()
}

// ---------------------------------------------------------------------------------------
// The contract

/// "edits without a prior read and reports old/new sha"
pub async fn edits_without_prior_read_and_reports_old_and_new_sha(s: &Side) {
    let before = "fn main() {\n    println!(\"old\");\n}\n";
    s.put("main.rs", before);
    let out = ok(s.edit("main.rs", "\"old\"", "\"new\"").await);
    let after = before.replace("\"old\"", "\"new\"");
    assert_eq!(s.get("main.rs").as_deref(), Some(after.as_str()));
    assert_eq!(field_str(&out, "old_sha256"), sha(before));
    assert_eq!(field_str(&out, "new_sha256"), sha(&after));
    assert!(out.text.contains(&sha(before)) && out.text.contains(&sha(&after)));
    let diff = field_str(&out, "diff");
    assert!(diff.contains("-    println!(\"old\");"), "{diff}");
    assert!(diff.contains("+    println!(\"new\");"), "{diff}");
}

/// "ambiguous ... matches fail with locations"
pub async fn ambiguous_match_fails_with_every_location(s: &Side) {
    let text = "a = 1\nb = 2\na = 1\nc = 3\na = 1\n";
    s.put("conf.txt", text);
    let err = model_err(s.edit("conf.txt", "a = 1", "a = 9").await);
    assert!(err.contains("3 places"), "{err}");
    assert!(err.contains("lines 1, 3, 5"), "{err}");
    assert_eq!(s.get("conf.txt").as_deref(), Some(text), "nothing changed");
    // replace_all takes them all.
    let out = ok(s
        .edit_req(FileEdit {
            path: s.path("conf.txt"),
            old_text: "a = 1".into(),
            new_text: "a = 9".into(),
            replace_all: true,
            expected_sha256: None,
            device: None,
        })
        .await);
    assert_eq!(field(&out, "replacements"), 3);
    assert_eq!(
        s.get("conf.txt").as_deref(),
        Some("a = 9\nb = 2\na = 9\nc = 3\na = 9\n")
    );
}

/// "... missing matches fail with ... nearest fragment"
pub async fn missing_match_fails_with_the_nearest_fragment(s: &Side) {
    let text =
        "alpha\nbeta\nfn compute_total(items: &[Item]) -> u64 {\n    items.len()\n}\nomega\n";
    s.put("lib.rs", text);
    let err = model_err(
        s.edit("lib.rs", "fn compute_totals(items: &[Item]) -> u32 {", "x")
            .await,
    );
    assert!(err.contains("not found"), "{err}");
    assert!(err.contains("Nearest fragment (line 3"), "{err}");
    assert!(
        err.contains("fn compute_total(items: &[Item]) -> u64 {"),
        "{err}"
    );
    assert_eq!(s.get("lib.rs").as_deref(), Some(text));
}

/// "explicit expected_sha256 stays strict; a matching prefix is accepted"
pub async fn explicit_sha_is_strict_and_a_prefix_is_accepted(s: &Side) {
    let v1 = "one\n";
    s.put("f.txt", v1);
    let wrong = sha("something else");
    let err = model_err(
        s.write(WriteFile {
            expected_sha256: Some(wrong.clone()),
            ..s.write_req("f.txt", "two\n")
        })
        .await,
    );
    assert!(err.contains(&wrong) && err.contains(&sha(v1)), "{err}");
    assert_eq!(s.get("f.txt").as_deref(), Some(v1));
    // a prefix that is too short is refused, saying why (Call::parse refuses it first)
    let err = argument_err(
        s.write(WriteFile {
            expected_sha256: Some(sha(v1)[..7].to_string()),
            ..s.write_req("f.txt", "two\n")
        })
        .await,
    );
    assert!(err.contains("at least 8"), "{err}");
    assert_eq!(s.get("f.txt").as_deref(), Some(v1));
    // an 8-digit prefix (upper case is fine) is accepted
    ok(s.write(WriteFile {
        expected_sha256: Some(sha(v1)[..8].to_uppercase()),
        ..s.write_req("f.txt", "two\n")
    })
    .await);
    assert_eq!(s.get("f.txt").as_deref(), Some("two\n"));
    // file_edit: strict too
    let err = model_err(
        s.edit_req(FileEdit {
            path: s.path("f.txt"),
            old_text: "two".into(),
            new_text: "three".into(),
            expected_sha256: Some(sha(v1)),
            replace_all: false,
            device: None,
        })
        .await,
    );
    assert!(err.contains("does not match"), "{err}");
    ok(s.edit_req(FileEdit {
        path: s.path("f.txt"),
        old_text: "two".into(),
        new_text: "three".into(),
        expected_sha256: Some(sha("two\n")[..10].to_string()),
        replace_all: false,
        device: None,
    })
    .await);
    assert_eq!(s.get("f.txt").as_deref(), Some("three\n"));
}

/// "the write is a CAS: a concurrent change aborts it"
pub async fn a_concurrent_change_aborts_the_write(s: &Side) {
    s.put("cas.txt", "v1\n");
    let read = ok(s.read("cas.txt").await);
    let seen = field_str(&read, "sha256");
    s.put("cas.txt", "changed by someone else\n");
    // explicit precondition: refused
    let err = model_err(
        s.write(WriteFile {
            expected_sha256: Some(seen.clone()),
            ..s.write_req("cas.txt", "mine\n")
        })
        .await,
    );
    assert!(err.contains("does not match"), "{err}");
    // implicit precondition (the read): staged, not written
    let out = ok(s.write(s.write_req("cas.txt", "mine\n")).await);
    assert_eq!(field_str(&out, "status"), "staged");
    assert!(out.text.contains("changed since"), "{}", out.text);
    discard_staged(s, &out);
    assert_eq!(
        s.get("cas.txt").as_deref(),
        Some("changed by someone else\n")
    );
    // file_edit checks the file between its read and its write as well: exercised by the
    // race tests; here, a stale expected sha on an edit aborts.
    let err = model_err(
        s.edit_req(FileEdit {
            path: s.path("cas.txt"),
            old_text: "someone".into(),
            new_text: "me".into(),
            expected_sha256: Some(seen),
            replace_all: false,
            device: None,
        })
        .await,
    );
    assert!(err.contains("does not match"), "{err}");
    assert_eq!(
        s.get("cas.txt").as_deref(),
        Some("changed by someone else\n")
    );
}

/// "an unread existing file is staged, not overwritten; overwrite=true writes"
pub async fn an_unread_file_is_staged_and_overwrite_writes(s: &Side) {
    s.put("keep.txt", "precious\n");
    let out = ok(s.write(s.write_req("keep.txt", "replacement\n")).await);
    assert_eq!(field_str(&out, "status"), "staged");
    assert!(
        out.text.contains("not read in this conversation"),
        "{}",
        out.text
    );
    assert_eq!(s.get("keep.txt").as_deref(), Some("precious\n"));
    let staged = field(&out, "staged_paths")[0].as_str().unwrap().to_string();
    assert_eq!(
        fs::read_to_string(s.staged_view(&staged)).unwrap(),
        "replacement\n",
        "the staged copy holds the content"
    );
    assert_eq!(field_str(&out, "current_sha256"), sha("precious\n"));
    if let Some(dir) = s.staged_view(&staged).parent() {
        fs::remove_dir_all(dir).unwrap();
    }
    // overwrite: true writes
    let out = ok(s
        .write(WriteFile {
            overwrite: true,
            ..s.write_req("keep.txt", "replacement\n")
        })
        .await);
    assert_eq!(field_str(&out, "status"), "written");
    assert_eq!(field_str(&out, "old_sha256"), sha("precious\n"));
    assert_eq!(s.get("keep.txt").as_deref(), Some("replacement\n"));
    // a new file is simply created
    let out = ok(s.write(s.write_req("sub/new.txt", "fresh\n")).await);
    assert_eq!(field_str(&out, "status"), "created");
    assert_eq!(s.get("sub/new.txt").as_deref(), Some("fresh\n"));
}

/// the read is remembered: a read file may be replaced without overwrite
pub async fn a_read_file_may_be_replaced(s: &Side) {
    s.put("r.txt", "1\n2\n3\n4\n");
    let out = ok(s
        .read_req(ReadFile {
            path: s.path("r.txt"),
            offset: 2,
            limit: 2,
            device: s.device.clone(),
        })
        .await);
    assert_eq!(field_str(&out, "sha256"), sha("1\n2\n3\n4\n"));
    assert_eq!(field_str(&out, "content"), "2\n3\n");
    assert!(out.text.contains("     2\t2\n     3\t3\n"), "{}", out.text);
    assert!(out.text.contains("lines 2-3 of 4"), "{}", out.text);
    let out = ok(s.write(s.write_req("r.txt", "new\n")).await);
    assert_eq!(field_str(&out, "status"), "written");
    assert_eq!(s.get("r.txt").as_deref(), Some("new\n"));
    // ...and our own write keeps it known: a second write needs no re-read
    ok(s.write(s.write_req("r.txt", "newer\n")).await);
    assert_eq!(s.get("r.txt").as_deref(), Some("newer\n"));
    // another conversation has not read it
    let other = s
        .host
        .write_file(
            "conv-2",
            &ctx(),
            WriteFile {
                device: s.device.clone(),
                ..s.write_req("r.txt", "other\n")
            },
        )
        .await;
    let other = ok(other);
    assert_eq!(field_str(&other, "status"), "staged");
    discard_staged(s, &other);
    assert_eq!(s.get("r.txt").as_deref(), Some("newer\n"));
}

/// writes are atomic: mode kept, no temporary files left, a failed write keeps the old file
pub async fn writes_are_atomic_and_keep_the_mode(s: &Side) {
    s.put("script.sh", "#!/bin/sh\necho 1\n");
    s.set_mode("script.sh", 0o751);
    ok(s.edit("script.sh", "echo 1", "echo 2").await);
    assert_eq!(s.get("script.sh").as_deref(), Some("#!/bin/sh\necho 2\n"));
    assert_eq!(s.mode("script.sh"), 0o751);
    assert_eq!(
        s.entries(),
        vec!["script.sh".to_string()],
        "no temp or lock left"
    );
    // a failed write (the target is a folder) changes nothing
    fs::create_dir_all(s.view.join("adir")).unwrap();
    let err = model_err(
        s.write(WriteFile {
            overwrite: true,
            ..s.write_req("adir", "x")
        })
        .await,
    );
    assert!(err.contains("folder"), "{err}");
    assert!(s.view.join("adir").is_dir());
    assert_eq!(
        s.entries(),
        vec!["adir".to_string(), "script.sh".to_string()]
    );
}

/// apply_patch: Add, Update (with Move to) and Delete
pub async fn apply_patch_adds_updates_moves_and_deletes(s: &Side) {
    s.put("p/a.txt", "one\ntwo\nthree\n");
    s.put("p/b.txt", "bee\n");
    s.put("p/c.txt", "sea\n");
    let base = s.path("p");
    let patch = format!(
        "*** Begin Patch\n*** Add File: {base}/new.txt\n+hello\n+world\n\
         *** Update File: {base}/a.txt\n@@\n one\n-two\n+TWO\n three\n\
         *** Update File: {base}/b.txt\n*** Move to: {base}/moved/b2.txt\n@@\n-bee\n+buzz\n\
         *** Delete File: {base}/c.txt\n*** End Patch\n"
    );
    let out = ok(s.patch(&patch).await);
    assert_eq!(s.get("p/new.txt").as_deref(), Some("hello\nworld\n"));
    assert_eq!(s.get("p/a.txt").as_deref(), Some("one\nTWO\nthree\n"));
    assert_eq!(s.get("p/b.txt"), None);
    assert_eq!(s.get("p/moved/b2.txt").as_deref(), Some("buzz\n"));
    assert_eq!(s.get("p/c.txt"), None);
    assert_eq!(field(&out, "files").as_array().unwrap().len(), 5);
}

/// apply_patch checks every file before writing any: all or nothing
pub async fn apply_patch_is_all_or_nothing(s: &Side) {
    s.put("q/a.txt", "one\ntwo\n");
    s.put("q/b.txt", "bee\n");
    let base = s.path("q");
    let patch = format!(
        "*** Begin Patch\n*** Update File: {base}/a.txt\n-one\n+ONE\n\
         *** Add File: {base}/new.txt\n+x\n\
         *** Update File: {base}/b.txt\n-no such line\n+y\n\
         *** Delete File: {base}/missing.txt\n*** End Patch"
    );
    let err = model_err(s.patch(&patch).await);
    assert!(err.contains("no file was changed"), "{err}");
    assert!(err.contains("b.txt, hunk 1"), "{err}");
    assert!(err.contains("missing.txt"), "{err}");
    assert_eq!(s.get("q/a.txt").as_deref(), Some("one\ntwo\n"));
    assert_eq!(s.get("q/new.txt"), None);
    assert_eq!(s.get("q/b.txt").as_deref(), Some("bee\n"));
    // Add over an existing file is refused as well (nothing written)
    let patch = format!(
        "*** Begin Patch\n*** Update File: {base}/a.txt\n-one\n+ONE\n\
         *** Add File: {base}/b.txt\n+clobber\n*** End Patch"
    );
    let err = model_err(s.patch(&patch).await);
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(s.get("q/a.txt").as_deref(), Some("one\ntwo\n"));
}

/// relative paths: the local root, or the remote login folder
pub async fn relative_paths_resolve_against_the_root(s: &Side, root_view: &Path) {
    let out = ok(s
        .write(WriteFile {
            path: "rel/dir/x.txt".into(),
            content: "rel\n".into(),
            ..WriteFile::new("", "")
        })
        .await);
    assert_eq!(field_str(&out, "status"), "created");
    assert_eq!(
        fs::read_to_string(root_view.join("rel/dir/x.txt")).unwrap(),
        "rel\n"
    );
    let out = ok(s
        .read_req(ReadFile {
            path: "rel/dir/../dir/x.txt".into(),
            device: s.device.clone(),
            offset: 1,
            limit: 2000,
        })
        .await);
    assert_eq!(field_str(&out, "sha256"), sha("rel\n"));
    let err = model_err(
        s.read_req(ReadFile {
            path: "rel/nope.txt".into(),
            device: s.device.clone(),
            offset: 1,
            limit: 2000,
        })
        .await,
    );
    assert!(err.contains("does not exist"), "{err}");
}

/// A write through a symlink replaces the file it points to and keeps the link.
pub async fn a_symlink_is_written_through(s: &Side) {
    s.put("target.txt", "v1\n");
    std::os::unix::fs::symlink(s.path("target.txt"), s.view.join("link.txt")).unwrap();
    ok(s.edit("link.txt", "v1", "v2").await);
    assert_eq!(s.get("target.txt").as_deref(), Some("v2\n"));
    let meta = fs::symlink_metadata(s.view.join("link.txt")).unwrap();
    assert!(meta.file_type().is_symlink(), "the link is still a link");
    ok(s.write(WriteFile {
        overwrite: true,
        ..s.write_req("link.txt", "v3\n")
    })
    .await);
    assert_eq!(s.get("target.txt").as_deref(), Some("v3\n"));
    assert!(
        fs::symlink_metadata(s.view.join("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}
