//! The file tools with `device`, against a real sshd on 127.0.0.1 started by the test
//! (support/sshd.rs) in its own mount namespace: the same absolute path names different
//! local and remote files, so "acts on the remote file, not the local one" is checked, not
//! assumed. Plus what only concerns devices: refused options, hostile device strings (no
//! process spawned), user@host, the multiplexed connection, a real permission failure as
//! an unprivileged login, and a 100-write compare-and-swap race.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use support::contract::{self, Side, ctx, field, field_str, model_err, ok, sha};
use support::sshd::{ALIAS, DEAD_ALIAS, TEST_USER_HOME, USER_ALIAS};
use toolsurface_runtime::files::{
    ApplyPatch, FileEdit, FileHost, FileHostConfig, ReadFile, WriteFile,
};

macro_rules! contract_tests {
    ($($name:ident),* $(,)?) => {$(
        #[tokio::test]
        async fn $name() {
            let side = Side::remote();
            contract::$name(&side).await;
            // every operation went over ssh, and none touched the local folder
            assert!(side.host.ssh_spawn_count() > 0);
            assert_eq!(fs::read_dir(&side.base).unwrap().count(), 0, "local folder untouched");
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

/// Relative paths resolve against the remote login folder (the unprivileged account's
/// home, a tmpfs only the server sees).
#[tokio::test]
async fn relative_paths_resolve_against_the_remote_home() {
    let s = Side::remote_as(USER_ALIAS);
    let home = s.sshd.as_ref().unwrap().remote_view(TEST_USER_HOME);
    contract::relative_paths_resolve_against_the_root(&s, &home).await;
    assert!(
        !Path::new(TEST_USER_HOME).join("rel").exists(),
        "local home untouched"
    );
}

/// "read_file, write_file, file_edit and apply_patch with device act on the remote file,
/// not on a local path of the same name"
#[tokio::test]
async fn device_acts_on_the_remote_file_not_the_local_one() {
    let s = Side::remote();
    let local = s.base.join("same.txt");
    fs::write(&local, "LOCAL\n").unwrap();
    s.put("same.txt", "REMOTE\n");

    let out = ok(s.read("same.txt").await);
    assert_eq!(field_str(&out, "content"), "REMOTE\n");
    assert_eq!(field_str(&out, "sha256"), sha("REMOTE\n"));

    ok(s.write(s.write_req("same.txt", "REMOTE 2\n")).await);
    assert_eq!(s.get("same.txt").as_deref(), Some("REMOTE 2\n"));

    ok(s.edit("same.txt", "REMOTE 2", "REMOTE 3").await);
    assert_eq!(s.get("same.txt").as_deref(), Some("REMOTE 3\n"));

    let p = s.path("same.txt");
    ok(s.patch(&format!(
        "*** Begin Patch\n*** Update File: {p}\n-REMOTE 3\n+REMOTE 4\n*** End Patch"
    ))
    .await);
    assert_eq!(s.get("same.txt").as_deref(), Some("REMOTE 4\n"));

    // the local file of the same name never changed, and no local file appeared
    assert_eq!(fs::read_to_string(&local).unwrap(), "LOCAL\n");
    assert_eq!(fs::read_dir(&s.base).unwrap().count(), 1);

    // an edit whose text exists only locally fails remotely
    let err = model_err(s.edit("same.txt", "LOCAL", "x").await);
    assert!(err.contains("not found"), "{err}");
}

/// The `*** Device:` line of a patch alone selects the device; a disagreeing parameter is
/// refused before anything runs.
#[tokio::test]
async fn the_patch_device_line_selects_the_device() {
    let s = Side::remote();
    s.put("d.txt", "remote\n");
    fs::write(s.base.join("d.txt"), "local\n").unwrap();
    let p = s.path("d.txt");
    let out = s
        .host
        .apply_patch(
            "c",
            &ctx(),
            ApplyPatch {
                patch: format!(
                    "*** Begin Patch\n*** Device: {ALIAS}\n*** Update File: {p}\n-remote\n+patched\n*** End Patch"
                ),
                device: None,
            },
        )
        .await;
    ok(out);
    assert_eq!(s.get("d.txt").as_deref(), Some("patched\n"));
    assert_eq!(fs::read_to_string(s.base.join("d.txt")).unwrap(), "local\n");
    let before = s.host.ssh_spawn_count();
    let err = model_err(
        s.host
            .apply_patch(
                "c",
                &ctx(),
                ApplyPatch {
                    patch: format!(
                        "*** Begin Patch\n*** Device: {ALIAS}\n*** Delete File: {p}\n*** End Patch"
                    ),
                    device: Some(USER_ALIAS.into()),
                },
            )
            .await,
    );
    assert!(err.contains("disagree"), "{err}");
    assert_eq!(s.host.ssh_spawn_count(), before);
    assert_eq!(s.get("d.txt").as_deref(), Some("patched\n"));
}

/// "create_only and confirm_token with device are refused, naming expected_sha256 /
/// overwrite as the remote preconditions" — before any connection.
#[tokio::test]
async fn create_only_and_confirm_token_with_device_are_refused() {
    let s = Side::remote();
    for req in [
        WriteFile {
            create_only: true,
            ..s.write_req("x.txt", "x")
        },
        WriteFile {
            confirm_token: Some("ct-0123".into()),
            ..s.write_req("x.txt", "x")
        },
    ] {
        // Call::parse refuses both first (forbidden_with); a hand-built request meets this.
        let err = contract::argument_err(s.write(req).await);
        assert!(
            err.contains("expected_sha256") && err.contains("overwrite"),
            "{err}"
        );
    }
    assert_eq!(s.host.ssh_spawn_count(), 0);
    assert_eq!(s.get("x.txt"), None);
}

/// At least 30 hostile device strings, refused by every tool with nothing spawned.
#[tokio::test]
async fn hostile_devices_are_refused_before_anything_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let host = FileHost::new(FileHostConfig::new(tmp.path())).unwrap();
    let hostile = [
        "-oProxyCommand=touch /tmp/pwned",
        "-oProxyCommand=x",
        "-i",
        "-i/root/.ssh/id_ed25519",
        "-F/tmp/evil",
        "-",
        "--",
        "-p2222",
        "host -oProxyCommand=x",
        " host",
        "host ",
        "ho st",
        "host\tname",
        "host\nname",
        "host\rname",
        "",
        "a;b",
        "a|b",
        "a&b",
        "a&&b",
        "$(id)",
        "${HOME}",
        "`id`",
        "a`id`",
        "'host'",
        "\"host\"",
        "a>b",
        "a<b",
        "a*",
        "a?",
        "~root",
        "a\\b",
        "a/b",
        "host:22",
        "user@-oProxyCommand=x",
        "@host",
        "user@",
        "u@v@w",
        "[::1",
        "[]",
        "[::1]:22",
        "[not-ipv6]",
        "ssh://host",
        "host%h",
        "host,other",
        "a=b",
        "a!b",
        "a#b",
        "a(b)",
        "a{b}",
        "host\0",
        "hôst",
        ".hidden",
        &"a".repeat(400),
    ];
    assert!(hostile.len() >= 30);
    let ctx = ctx();
    for d in hostile {
        let dev = Some(d.to_string());
        let results = [
            host.read_file(
                "c",
                &ctx,
                ReadFile {
                    path: "/etc/hostname".into(),
                    device: dev.clone(),
                    offset: 1,
                    limit: 2000,
                },
            )
            .await,
            host.write_file(
                "c",
                &ctx,
                WriteFile {
                    path: "/tmp/x".into(),
                    content: "x".into(),
                    device: dev.clone(),
                    ..WriteFile::new("", "")
                },
            )
            .await,
            host.file_edit(
                "c",
                &ctx,
                FileEdit {
                    path: "/tmp/x".into(),
                    old_text: "a".into(),
                    new_text: "b".into(),
                    device: dev.clone(),
                    replace_all: false,
                    expected_sha256: None,
                },
            )
            .await,
            host.apply_patch(
                "c",
                &ctx,
                ApplyPatch {
                    patch: "*** Begin Patch\n*** Delete File: /tmp/x\n*** End Patch".into(),
                    device: dev.clone(),
                },
            )
            .await,
        ];
        for r in results {
            let err = contract::argument_err(r);
            assert!(err.contains("refused"), "{d:?}: {err}");
        }
        // the patch's own device line obeys the same rule (when it is one line)
        if !d.contains('\n') && !d.contains('\r') && !d.trim().is_empty() && d.trim() == d {
            let err = contract::argument_err(
                host.apply_patch(
                    "c",
                    &ctx,
                    ApplyPatch {
                        patch: format!(
                            "*** Begin Patch\n*** Device: {d}\n*** Delete File: /tmp/x\n*** End Patch"
                        ),
                        device: None,
                    },
                )
                .await,
            );
            assert!(err.contains("refused"), "{d:?}: {err}");
        }
    }
    assert_eq!(host.ssh_spawn_count(), 0, "no ssh process was started");
    assert!(!Path::new("/tmp/pwned").exists());
}

/// `user@host` works like an alias (no registration needed).
#[tokio::test]
async fn user_at_host_reaches_the_same_machine() {
    let s = Side::remote();
    s.put("u.txt", "via user@host\n");
    let out = ok(s
        .read_req(ReadFile {
            path: s.path("u.txt"),
            device: Some("root@127.0.0.1".into()),
            offset: 1,
            limit: 2000,
        })
        .await);
    assert_eq!(field_str(&out, "content"), "via user@host\n");
}

/// One multiplexed connection per device, one ssh exec per operation.
#[tokio::test]
async fn operations_share_one_multiplexed_connection() {
    let s = Side::remote();
    s.put("m.txt", "0\n");
    let mut handles = Vec::new();
    for _ in 0..6 {
        handles.push(s.read("m.txt"));
    }
    for r in futures_join(handles).await {
        ok(r);
    }
    assert_eq!(s.host.ssh_spawn_count(), 6, "one ssh exec per operation");
    let sockets: Vec<_> = fs::read_dir(s.host.control_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(sockets.len(), 1, "one control socket: {sockets:?}");
    let mode = fs::metadata(s.host.control_dir())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o700);
    // the master answers on that socket
    let check = Command::new("ssh")
        .arg("-F")
        .arg(&s.sshd.as_ref().unwrap().ssh_config)
        .arg("-S")
        .arg(&sockets[0])
        .args(["-O", "check", ALIAS])
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

async fn futures_join<F: std::future::Future>(fs: Vec<F>) -> Vec<F::Output> {
    futures_all(fs.into_iter().map(Box::pin).collect()).await
}

async fn futures_all<F: std::future::Future + Unpin>(mut fs: Vec<F>) -> Vec<F::Output> {
    use std::task::Poll;
    let mut outs: Vec<Option<F::Output>> = fs.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in fs.iter_mut().enumerate() {
            if outs[i].is_none() {
                match std::pin::Pin::new(&mut *f).poll(cx) {
                    Poll::Ready(v) => outs[i] = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outs.into_iter().map(|o| o.unwrap()).collect()
}

/// An unreachable device: a clear error, no password prompt (BatchMode).
#[tokio::test]
async fn an_unreachable_device_is_a_clear_error() {
    let s = Side::remote();
    let err = model_err(
        s.read_req(ReadFile {
            path: "/etc/hostname".into(),
            device: Some(DEAD_ALIAS.into()),
            offset: 1,
            limit: 2000,
        })
        .await,
    );
    assert!(err.contains("cannot reach device tsdead"), "{err}");
    assert!(err.contains("no password"), "{err}");
}

/// "file permission failures stage the content without changing authentication or using
/// sudo": logged in as the unprivileged account, writing a root-owned file.
#[tokio::test]
async fn permission_failures_stage_the_content_remotely() {
    let s = Side::remote_as(USER_ALIAS);
    let sshd = s.sshd.as_ref().unwrap();
    // a root-owned 0755 folder with a root-owned 0644 file
    let locked = s.view.join("locked");
    fs::create_dir_all(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(locked.join("root.txt"), "owned by root\n").unwrap();
    fs::set_permissions(locked.join("root.txt"), fs::Permissions::from_mode(0o644)).unwrap();
    // a folder the account may write in, holding a root-owned 0644 file
    let open = s.view.join("open");
    fs::create_dir_all(&open).unwrap();
    std::os::unix::fs::chown(&open, Some(sshd.uid), Some(sshd.gid)).unwrap();
    fs::write(open.join("root.txt"), "owned by root\n").unwrap();

    let cases = [
        ("locked/root.txt", "folder is not writable"),
        ("locked/new.txt", "folder is not writable"),
        ("open/root.txt", "file is not writable"),
    ];
    for (rel, why) in cases {
        let out = ok(s
            .write(WriteFile {
                overwrite: true,
                ..s.write_req(rel, "from tsfiles\n")
            })
            .await);
        assert_eq!(field_str(&out, "status"), "staged", "{}", out.text);
        assert!(out.text.contains("permission denied"), "{}", out.text);
        assert!(out.text.contains(why), "{why}: {}", out.text);
        assert!(field(&out, "confirm_token").is_null());
        let staged = field(&out, "staged_paths")[0].as_str().unwrap().to_string();
        assert!(
            staged.starts_with(&format!("{USER_ALIAS}:/tmp/toolsurface-staged.")),
            "{staged}"
        );
        let view = s.staged_view(&staged);
        assert_eq!(fs::read_to_string(&view).unwrap(), "from tsfiles\n");
        assert_eq!(
            fs::metadata(&view).unwrap().uid(),
            sshd.uid,
            "staged by the login, not root"
        );
        fs::remove_dir_all(view.parent().unwrap()).unwrap();
    }
    // file_edit too
    let out = ok(s.edit("open/root.txt", "root", "tsfiles").await);
    assert_eq!(field_str(&out, "status"), "staged", "{}", out.text);
    let staged = field(&out, "staged_paths")[0].as_str().unwrap().to_string();
    fs::remove_dir_all(s.staged_view(&staged).parent().unwrap()).unwrap();
    // one ssh exec per write, two for the edit (read, then compare-and-swap): nothing was
    // retried with other credentials, sudo or a new login
    assert_eq!(s.host.ssh_spawn_count(), 3 + 2);
    // apply_patch too: its staged result is the same shape.
    let patch = format!(
        "*** Begin Patch\n*** Update File: {}\n@@\n-owned by root\n+patched\n*** End Patch",
        s.path("open/root.txt")
    );
    let out = ok(s.patch(&patch).await);
    assert_eq!(field_str(&out, "status"), "staged", "{}", out.text);
    let staged = field(&out, "staged_paths")[0].as_str().unwrap().to_string();
    fs::remove_dir_all(s.staged_view(&staged).parent().unwrap()).unwrap();
    // Every staged result above was validated against the locked output schemas.
    assert!(support::outputs::COUNT.load(std::sync::atomic::Ordering::Relaxed) >= 5);
    // nothing changed: contents, modes, owners; no temp or lock left
    for dir in [&locked, &open] {
        let f = dir.join("root.txt");
        assert_eq!(fs::read_to_string(&f).unwrap(), "owned by root\n");
        let m = fs::metadata(&f).unwrap();
        assert_eq!((m.uid(), m.permissions().mode() & 0o777), (0, 0o644));
        let names: Vec<_> = fs::read_dir(dir).unwrap().collect();
        assert_eq!(names.len(), 1, "{dir:?}");
    }
    assert_eq!(
        fs::metadata(&locked).unwrap().permissions().mode() & 0o777,
        0o755
    );
}

/// "the write is a remote CAS: a concurrent change aborts it" — under load: a writer on
/// the remote machine (a shell loop honouring the documented lock) appends lines while
/// 100 read + compare-and-swap writes append others. Every write either lands or reports a
/// conflict, and no line of either writer is lost.
#[tokio::test]
async fn a_concurrent_remote_writer_loses_no_update_over_100_cas_writes() {
    let s = Side::remote();
    s.put("race.txt", "");
    let sshd = s.sshd.as_ref().unwrap();
    let target = s.path("race.txt");
    let stop = s.path("race.stop");
    let count = s.path("race.count");
    let dir = s.path("");
    let writer = format!(
        "cd '{dir}' || exit 1; j=0; \
         while [ ! -e '{stop}' ] && [ $j -lt 3000 ]; do \
           until mkdir .race.txt.toolsurface-lock 2>/dev/null; do sleep 0.005; done; \
           cp '{target}' .race.tmp && echo \"B $j\" >> .race.tmp && mv .race.tmp '{target}'; \
           rmdir .race.txt.toolsurface-lock; j=$((j+1)); echo $j > '{count}'; sleep 0.1; \
         done"
    );
    let mut remote_writer = Command::new("ssh")
        .arg("-F")
        .arg(&sshd.ssh_config)
        .args(["-o", "BatchMode=yes", ALIAS, &writer])
        .spawn()
        .unwrap();
    let _stop_on_panic = StopFile(sshd.remote_view(&stop));
    // wait until the remote writer has started writing
    while s.get("race.count").is_none() {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let mut landed = Vec::new();
    let mut conflicts = 0;
    for i in 0..100 {
        let read = ok(s.read("race.txt").await);
        let seen = field_str(&read, "sha256");
        let content = field_str(&read, "content");
        let r = s
            .write(WriteFile {
                expected_sha256: Some(seen.clone()),
                ..s.write_req("race.txt", &format!("{content}A {i}\n"))
            })
            .await;
        match r {
            Ok(o) => {
                assert_eq!(field_str(&o, "status"), "written", "{}", o.text);
                assert_eq!(field_str(&o, "old_sha256"), seen);
                landed.push(i);
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
    fs::write(sshd.remote_view(&stop), "").unwrap();
    assert!(remote_writer.wait().unwrap().success());
    let b_count: usize = s.get("race.count").unwrap().trim().parse().unwrap();
    let final_text = s.get("race.txt").unwrap();
    let lines: Vec<&str> = final_text.lines().collect();
    let a_lines: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("A "))
        .map(|l| l.to_string())
        .collect();
    let b_lines = lines.iter().filter(|l| l.starts_with("B ")).count();
    assert_eq!(landed.len() + conflicts, 100);
    assert_eq!(
        a_lines,
        landed.iter().map(|i| format!("A {i}")).collect::<Vec<_>>(),
        "every landed write is in the file, in order"
    );
    assert_eq!(b_lines, b_count, "no line of the remote writer was lost");
    assert_eq!(lines.len(), landed.len() + b_count);
    eprintln!(
        "race: {} landed, {conflicts} conflicts reported, remote writer {b_count}",
        landed.len()
    );
}

/// file_edit's read and write are separate round trips: a change in between aborts it.
#[tokio::test]
async fn a_remote_edit_racing_a_writer_never_loses_the_other_write() {
    let s = Side::remote();
    s.put("e.txt", "counter\n");
    let sshd = s.sshd.as_ref().unwrap();
    let target = s.path("e.txt");
    let stop = s.path("e.stop");
    let dir = s.path("");
    let writer = format!(
        "cd '{dir}' || exit 1; j=0; \
         while [ ! -e '{stop}' ] && [ $j -lt 3000 ]; do \
           until mkdir .e.txt.toolsurface-lock 2>/dev/null; do sleep 0.005; done; \
           cp '{target}' .e.tmp && echo \"B $j\" >> .e.tmp && mv .e.tmp '{target}'; \
           rmdir .e.txt.toolsurface-lock; j=$((j+1)); echo $j > e.count; sleep 0.1; \
         done"
    );
    let mut remote_writer = Command::new("ssh")
        .arg("-F")
        .arg(&sshd.ssh_config)
        .args(["-o", "BatchMode=yes", ALIAS, &writer])
        .spawn()
        .unwrap();
    let _stop_on_panic = StopFile(sshd.remote_view(&stop));
    while s.get("e.count").is_none() {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let mut edits = 0;
    for i in 0..30 {
        let r = s
            .edit("e.txt", "counter\n", &format!("counter\nA {i}\n"))
            .await;
        match r {
            Ok(o) => {
                assert_eq!(field_str(&o, "status"), "edited", "{}", o.text);
                edits += 1;
            }
            Err(e) => assert!(
                e.to_string().contains("changed while it was being edited"),
                "{e}"
            ),
        }
    }
    fs::write(sshd.remote_view(&stop), "").unwrap();
    assert!(remote_writer.wait().unwrap().success());
    let b_count: usize = s.get("e.count").unwrap().trim().parse().unwrap();
    let text = s.get("e.txt").unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("B ")).count(),
        b_count,
        "{text}"
    );
    assert_eq!(text.lines().filter(|l| l.starts_with("A ")).count(), edits);
}

/// Stops a remote writer loop even when an assertion fails first.
struct StopFile(std::path::PathBuf);

impl Drop for StopFile {
    fn drop(&mut self) {
        let _ = fs::write(&self.0, "");
    }
}

/// A cancelled call stops its ssh process and says so.
#[tokio::test]
async fn a_cancelled_call_stops_the_remote_operation() {
    let s = Side::remote();
    s.put("c.txt", "x\n");
    let cx = ctx();
    cx.cancel.cancel();
    let err = model_err(
        s.host
            .read_file(
                "c",
                &cx,
                ReadFile {
                    path: s.path("c.txt"),
                    device: s.device.clone(),
                    offset: 1,
                    limit: 2000,
                },
            )
            .await,
    );
    assert!(err.contains("cancelled"), "{err}");
    // the next call works normally
    ok(s.read("c.txt").await);
}
