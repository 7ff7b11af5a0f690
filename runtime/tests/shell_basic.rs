//! The shell family against real processes: commands, sessions, prompts, keys, resize,
//! kill, interrupts, list, monitors and output cuts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::shell_support;

use shell_support::{ctx, kill};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use toolsurface_runtime::call::{ToolError, ToolOutput};
use toolsurface_runtime::registry::SessionRegistry;
use toolsurface_runtime::shell::*;

struct Fixture {
    host: ShellHost,
    registry: Arc<SessionRegistry>,
    wakes: mpsc::UnboundedReceiver<WakeUp>,
    _dir: tempfile::TempDir,
}

fn fixture() -> Fixture {
    fixture_with(ShellConfig::default())
}

fn fixture_with(config: ShellConfig) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let registry = Arc::new(SessionRegistry::new());
    let (tx, rx) = mpsc::unbounded_channel();
    let host = ShellHost::with_config("alpha", dir.path(), registry.clone(), Arc::new(tx), config);
    Fixture {
        host,
        registry,
        wakes: rx,
        _dir: dir,
    }
}

fn s(out: &ToolOutput) -> &Value {
    out.structured.as_ref().unwrap()
}

fn output(out: &ToolOutput) -> String {
    s(out)["output"].as_str().unwrap().to_owned()
}

fn sid(out: &ToolOutput) -> i64 {
    s(out)["session_id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no session id in {}", out.text))
}

async fn run(host: &ShellHost, command: &str, tty: bool, yield_ms: u64) -> ToolOutput {
    host.shell(
        &ctx(),
        ShellRequest {
            command: command.into(),
            tty,
            yield_ms,
            ..shell_support::shell("")
        },
    )
    .await
    .unwrap()
}

async fn wait(host: &ShellHost, id: i64, until: Option<&str>, timeout_s: f64) -> ToolOutput {
    host.shell_session(
        &ctx(),
        ShellSession::Wait(Wait {
            session_id: id,
            host_id: None,
            timeout_s,
            until_output: until.map(Into::into),
        }),
    )
    .await
    .unwrap()
}

/// Waits (generously) until the process has exited, collecting every output on the way.
async fn wait_exit(host: &ShellHost, id: i64) -> (ToolOutput, String) {
    let mut all = String::new();
    for _ in 0..10 {
        let out = wait(host, id, None, 30.0).await;
        all.push_str(&output(&out));
        if !s(&out)["running"].as_bool().unwrap() {
            return (out, all);
        }
    }
    panic!("session {id} did not exit in 300 s");
}

fn pid_exists(pid: i64) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_finishes_in_the_window() {
    let f = fixture();
    for tty in [false, true] {
        let out = run(&f.host, "echo hello; echo err >&2", tty, 10_000).await;
        let st = s(&out);
        assert_eq!(st["exit_code"], 0, "{}", out.text);
        assert_eq!(st["running"], false);
        assert!(
            st["session_id"].is_null(),
            "finished and released: {}",
            out.text
        );
        assert_eq!(output(&out), "hello\nerr\n", "tty={tty}");
        assert!(out.text.contains("Exit code: 0"));
    }
    let out = run(&f.host, "exit 3", false, 10_000).await;
    assert_eq!(s(&out)["exit_code"], 3);
    assert!(
        f.registry.list().is_empty(),
        "released ids: {:?}",
        f.registry.list()
    );
    assert_eq!(f.host.session_count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn environment_and_workdir_are_normalised() {
    let f = fixture();
    let sub = f._dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let out = f
        .host
        .exec_command(
            &ctx(),
            ExecCommandRequest {
                cmd: "pwd; echo $PAGER $GIT_PAGER $NO_COLOR $CLICOLOR $LANG $TERM".into(),
                workdir: Some("sub".into()),
                ..shell_support::exec_command("")
            },
        )
        .await
        .unwrap();
    let text = output(&out);
    let mut lines = text.lines();
    assert_eq!(
        std::fs::canonicalize(lines.next().unwrap()).unwrap(),
        std::fs::canonicalize(&sub).unwrap()
    );
    assert_eq!(lines.next().unwrap(), "cat cat 1 0 C.UTF-8 dumb");
    let out = run(
        &f.host,
        "echo $TERM; test -t 0 && echo isatty",
        true,
        10_000,
    )
    .await;
    assert_eq!(output(&out), "xterm-256color\nisatty\n");
    let err = f
        .host
        .shell(
            &ctx(),
            ShellRequest {
                command: "true".into(),
                workdir: Some("missing".into()),
                ..shell_support::shell("")
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Model(m) if m.contains("not a directory")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_command_becomes_a_session_and_wait_until_output_matches() {
    let f = fixture();
    let out = run(
        &f.host,
        "echo start; sleep 1; echo tick; echo READY 42; sleep 1000",
        false,
        250,
    )
    .await;
    assert_eq!(s(&out)["running"], true, "{}", out.text);
    let id = sid(&out);
    assert_eq!(f.registry.owner(id).as_deref(), Some("alpha"));
    let w = wait(&f.host, id, Some(r"READY \d+"), 120.0).await;
    assert_eq!(s(&w)["matched"], "READY 42", "{}", w.text);
    assert_eq!(s(&w)["running"], true);
    assert!(output(&w).contains("READY 42"));
    // Already-read output does not match again: this wait runs into its timeout.
    let w = wait(&f.host, id, Some("READY"), 0.3).await;
    assert!(s(&w)["matched"].is_null(), "{}", w.text);
    assert_eq!(s(&w)["timed_out"], true);
    kill(&f.host, id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_is_answered_through_poll_chars() {
    let f = fixture();
    let out = run(&f.host, "read -p 'name? ' n; echo \"hello $n\"", true, 250).await;
    let id = sid(&out);
    let mut seen = output(&out);
    if !seen.contains("name? ") {
        seen.push_str(&output(&wait(&f.host, id, Some(r"name\? "), 60.0).await));
    }
    assert!(seen.contains("name? "), "{seen}");
    let p = f
        .host
        .poll(
            &ctx(),
            Poll {
                session_id: id,
                chars: Some("alice\n".into()),
                ..shell_support::poll(0)
            },
        )
        .await
        .unwrap();
    let (done, rest) = wait_exit(&f.host, id).await;
    let all = format!("{}{}", output(&p), rest);
    assert!(all.contains("hello alice"), "{all}");
    assert_eq!(s(&done)["exit_code"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_through_keys_stops_sleep() {
    // The host ignores SIGINT, as one started in the background by a script does (`host &`,
    // nohup): an ignored signal survives exec, so the session must reset it for `ctrl-c` to
    // reach its command. Restored below (process-wide; the other tests' children reset it
    // too, and none of them sends SIGINT).
    // SAFETY: signal(2) with SIG_IGN/SIG_DFL changes a disposition, nothing else.
    let before = unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
    let f = fixture();
    for tty in [true, false] {
        // The key goes once the shell runs the command: a SIGINT that lands while bash is
        // still starting up (a loaded machine, well past a 250 ms yield) is lost.
        let out = run(&f.host, "echo ready; sleep 1000", tty, 250).await;
        let id = sid(&out);
        if !output(&out).contains("ready") {
            let seen = wait(&f.host, id, Some("ready"), 60.0).await;
            assert!(output(&seen).contains("ready"), "tty={tty}: {}", seen.text);
        }
        f.host
            .poll(
                &ctx(),
                Poll {
                    session_id: id,
                    keys: Some(vec!["ctrl-c".into()]),
                    ..shell_support::poll(0)
                },
            )
            .await
            .unwrap();
        let (done, _) = wait_exit(&f.host, id).await;
        assert_eq!(s(&done)["exit_code"], 130, "tty={tty}: {}", done.text);
        assert_eq!(s(&done)["signal"], 2);
    }
    let out = run(&f.host, "sleep 1000", true, 250).await;
    let err = f
        .host
        .poll(
            &ctx(),
            Poll {
                session_id: sid(&out),
                keys: Some(vec!["hyper-q".into()]),
                ..shell_support::poll(0)
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Argument(m) if m.contains("unknown key")));
    kill(&f.host, sid(&out)).await;
    // SAFETY: as above.
    unsafe { libc::signal(libc::SIGINT, before) };
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resize_is_seen_by_stty_size() {
    let f = fixture();
    let out = run(&f.host, "stty size; read x; stty size", true, 250).await;
    let id = sid(&out);
    let mut seen = output(&out);
    if !seen.contains("24 80") {
        seen.push_str(&output(&wait(&f.host, id, Some("24 80"), 60.0).await));
    }
    assert!(seen.contains("24 80"), "{seen}");
    f.host
        .resize(
            &ctx(),
            Resize {
                session_id: id,
                host_id: None,
                cols: 132,
                rows: 43,
            },
        )
        .await
        .unwrap();
    f.host
        .poll(
            &ctx(),
            Poll {
                session_id: id,
                keys: Some(vec!["enter".into()]),
                peek: true,
                ..shell_support::poll(0)
            },
        )
        .await
        .unwrap();
    let (_, rest) = wait_exit(&f.host, id).await;
    assert!(rest.contains("43 132"), "{rest}");
    // A pipe session has no terminal to resize.
    let out = run(&f.host, "sleep 1000", false, 250).await;
    let err = f
        .host
        .resize(
            &ctx(),
            Resize {
                session_id: sid(&out),
                host_id: None,
                cols: 100,
                rows: 30,
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Model(m) if m.contains("no terminal")));
    kill(&f.host, sid(&out)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_twice_is_fine() {
    let f = fixture();
    let out = run(&f.host, "sleep 1000", true, 250).await;
    let id = sid(&out);
    let pid = f.host.session_pid(id).unwrap();
    let k1 = kill(&f.host, id).await;
    assert_eq!(s(&k1)["already_gone"], false, "{}", k1.text);
    assert_eq!(s(&k1)["running"], false, "{}", k1.text);
    assert_eq!(s(&k1)["signal"], 15, "{}", k1.text);
    assert!(!pid_exists(pid.into()), "leader {pid} still exists");
    let k2 = kill(&f.host, id).await;
    assert_eq!(s(&k2)["already_gone"], true, "{}", k2.text);
    assert!(k2.text.contains("already gone"), "{}", k2.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_also_removes_a_background_grandchild() {
    let f = fixture();
    // A background child of the shell, and one orphaned at once (its parent `sh` exits):
    // that one is re-parented away from the session's leader before the kill.
    let commands = [
        "sleep 1000 & echo \"GC $!\"; sleep 1000",
        "sh -c 'sleep 1000 & echo \"GC $!\"'; sleep 1000",
    ];
    for (tty, command) in [(false, 0), (true, 0), (false, 1), (true, 1)] {
        let command = commands[command];
        let out = run(&f.host, command, tty, 250).await;
        let id = sid(&out);
        let mut seen = output(&out);
        if !seen.contains("GC ") {
            seen.push_str(&output(&wait(&f.host, id, Some(r"GC \d+"), 60.0).await));
        }
        let gc: i64 = seen
            .split("GC ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no grandchild pid in {seen:?}"));
        assert!(pid_exists(gc));
        let k = kill(&f.host, id).await;
        assert_eq!(s(&k)["running"], false, "{}", k.text);
        // The grandchild was killed and reaped (not left as anyone's zombie).
        let mut gone = false;
        for _ in 0..300 {
            if !pid_exists(gc) {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(
            gone,
            "grandchild {gc} of `{command}` still exists (tty={tty})"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_mid_window_keeps_the_session() {
    let f = fixture();
    let c = ctx();
    let cancel = c.cancel.clone();
    let host = f.host.clone();
    let call = tokio::spawn(async move {
        host.shell(
            &c,
            ShellRequest {
                command: "echo STARTED; sleep 1000".into(),
                yield_ms: 30_000,
                ..shell_support::shell("")
            },
        )
        .await
    });
    // Interrupt once the command has visibly started (the window is 30 s): the session is
    // already registered, and a peek does not move its cursor.
    let mut started = false;
    for _ in 0..1200 {
        if let Some((id, _)) = f.registry.list().first().cloned() {
            let p = f
                .host
                .poll(
                    &ctx(),
                    Poll {
                        session_id: id,
                        peek: true,
                        ..shell_support::poll(0)
                    },
                )
                .await
                .unwrap();
            if output(&p).contains("STARTED") {
                started = true;
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(started, "the command never printed STARTED");
    cancel.cancel();
    let out = call.await.unwrap().unwrap();
    assert_eq!(s(&out)["interrupted"], true, "{}", out.text);
    assert_eq!(s(&out)["running"], true);
    assert!(output(&out).contains("STARTED"), "{}", out.text);
    let id = sid(&out);
    assert_eq!(f.registry.owner(id).as_deref(), Some("alpha"));
    let listed = f.host.list(&ctx()).await.unwrap();
    assert!(
        s(&listed)["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["session_id"] == id),
        "{}",
        listed.text
    );
    kill(&f.host, id).await;

    // wait interrupted: the partial result comes back.
    let out = run(&f.host, "echo A; sleep 1000", false, 250).await;
    let id = sid(&out);
    let c = ctx();
    c.cancel.cancel();
    let w = f
        .host
        .wait(
            &c,
            Wait {
                session_id: id,
                host_id: None,
                timeout_s: 300.0,
                until_output: Some("never".into()),
            },
        )
        .await
        .unwrap();
    assert_eq!(s(&w)["interrupted"], true, "{}", w.text);
    kill(&f.host, id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_shows_running_and_exited_unread_and_exit_wakes() {
    let mut f = fixture();
    let out = run(&f.host, "read x; sleep 0.5; echo bye-$x", false, 250).await;
    let id = sid(&out);
    let other = sid(&run(&f.host, "sleep 1000", false, 250).await);
    let l = f.host.list(&ctx()).await.unwrap();
    let rows = s(&l)["sessions"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 2, "{}", l.text);
    assert!(rows.iter().all(|r| r["running"] == true));
    // Let it finish without reading its output: the exit wake-up tells us.
    f.host
        .write_stdin(
            &ctx(),
            WriteStdinRequest {
                session_id: id,
                chars: Some("now\n".into()),
                yield_time_ms: 0,
                ..shell_support::write_stdin(0)
            },
        )
        .await
        .unwrap();
    let wake = tokio::time::timeout(Duration::from_secs(60), f.wakes.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(wake.session_id, id);
    assert_eq!(wake.host, "alpha");
    assert!(
        matches!(wake.kind, WakeKind::Exited { code: Some(0) }),
        "{wake:?}"
    );
    // The exit is known before the last output is; wait for the output to arrive.
    let mut row = Value::Null;
    for _ in 0..600 {
        let l = f.host.list(&ctx()).await.unwrap();
        row = s(&l)["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["session_id"] == id)
            .cloned()
            .unwrap_or(Value::Null);
        if row["unread_bytes"].as_u64().unwrap_or(0) > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(row["running"], false, "{row}");
    assert!(row["unread_bytes"].as_u64().unwrap() > 0, "{row}");
    let p = f
        .host
        .poll(
            &ctx(),
            Poll {
                session_id: id,
                ..shell_support::poll(0)
            },
        )
        .await
        .unwrap();
    assert!(output(&p).contains("bye-now"), "{}", p.text);
    let l = f.host.list(&ctx()).await.unwrap();
    let ids: Vec<i64> = s(&l)["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["session_id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![other], "read and exited drops off the list");
    // Killing gives no wake-up; unwatch on the other was not needed.
    kill(&f.host, other).await;
    assert!(f.wakes.try_recv().is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn monitor_wakes_on_match_and_unwatch_removes_the_exit_wake() {
    let mut f = fixture();
    let m = f
        .host
        .monitor_start(
            &ctx(),
            MonitorStartRequest {
                command: "echo booting; sleep 0.5; echo SERVER READY on 8080; sleep 2; exit 4"
                    .into(),
                until_output: Some(r"READY on \d+".into()),
                workdir: None,
            },
        )
        .await
        .unwrap();
    let id = sid(&m);
    let match_id = s(&m)["watchers"]["match"].as_i64().unwrap();
    let exit_id = s(&m)["watchers"]["exit"].as_i64().unwrap();
    let wake = tokio::time::timeout(Duration::from_secs(60), f.wakes.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(wake.watcher_id, Some(match_id));
    assert_eq!(
        wake.kind,
        WakeKind::Matched {
            text: "READY on 8080".into()
        }
    );
    // The match watcher fired once and is gone; remove the exit watcher by id.
    let u = f
        .host
        .unwatch(
            &ctx(),
            Unwatch {
                session_id: id,
                host_id: None,
                watcher_id: Some(exit_id),
            },
        )
        .await
        .unwrap();
    assert_eq!(s(&u)["removed"], serde_json::json!([exit_id]), "{}", u.text);
    assert_eq!(s(&u)["remaining"], serde_json::json!([]));
    let (done, _) = wait_exit(&f.host, id).await;
    assert_eq!(s(&done)["exit_code"], 4);
    assert!(f.wakes.try_recv().is_err(), "no wake-up after unwatch");

    // A monitor without unwatch wakes on exit.
    let m = f
        .host
        .monitor_start(
            &ctx(),
            MonitorStartRequest {
                command: "exit 7".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let wake = tokio::time::timeout(Duration::from_secs(60), f.wakes.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(wake.session_id, sid(&m));
    assert!(matches!(wake.kind, WakeKind::Exited { code: Some(7) }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_output_tokens_cuts_the_middle_and_offset_reads_it() {
    let f = fixture();
    let out = f
        .host
        .shell(
            &ctx(),
            ShellRequest {
                command: "seq 1 100000".into(),
                max_output_tokens: 100,
                ..shell_support::shell("")
            },
        )
        .await
        .unwrap();
    let st = s(&out);
    assert_eq!(st["exit_code"], 0, "{}", out.text);
    let text = output(&out);
    assert!(text.starts_with("1\n2\n3\n"), "{text}");
    assert!(text.ends_with("99999\n100000\n"), "{text}");
    assert!(
        text.contains("truncated; read them with shell_session poll offset=200"),
        "{text}"
    );
    assert!(st["truncated_bytes"].as_u64().unwrap() > 500_000);
    // The session is kept so the middle can be read back.
    let id = sid(&out);
    let p = f
        .host
        .poll(
            &ctx(),
            Poll {
                session_id: id,
                offset: Some(200),
                peek: true,
                ..shell_support::poll(0)
            },
        )
        .await
        .unwrap();
    assert_eq!(s(&p)["offset"], 200);
    // Bytes 0–17 are 1–9, then three bytes per number: byte 200 is the newline after 70.
    assert!(output(&p).starts_with("\n71\n72\n"), "{}", p.text);
    assert_eq!(s(&p)["running"], false);
}

/// Every budget the definition allows is honoured: `max_output_tokens: 1` (shell.yaml's
/// minimum) keeps four bytes, where the runtime used to raise any budget below 16 tokens to
/// 16 without a word (64 bytes, which would have shown these 26 uncut).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_smallest_max_output_tokens_the_definition_allows_is_honoured() {
    let f = fixture();
    let out = f
        .host
        .shell(
            &ctx(),
            ShellRequest {
                command: "printf abcdefghijklmnopqrstuvwxyz".into(),
                max_output_tokens: 1,
                ..shell_support::shell("")
            },
        )
        .await
        .unwrap();
    let st = s(&out);
    assert_eq!(st["exit_code"], 0, "{}", out.text);
    assert_eq!(st["truncated_bytes"], 22, "{}", out.text);
    let text = output(&out);
    assert!(text.starts_with("ab\n[… 22 bytes"), "{text}");
    assert!(text.ends_with("…]\nyz"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cap_evicts_exited_sessions_and_refuses_when_all_run() {
    let f = fixture_with(ShellConfig {
        max_sessions: 3,
        ..Default::default()
    });
    let mut ids = Vec::new();
    for _ in 0..3 {
        let out = run(&f.host, "sleep 1000", false, 250).await;
        assert!(out.text.contains("warning:"), "{}", out.text);
        ids.push(sid(&out));
    }
    let err = f
        .host
        .shell(
            &ctx(),
            ShellRequest {
                command: "echo no".into(),
                ..shell_support::shell("")
            },
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Model(m) if m.contains("are running")),
        "{err:?}"
    );
    kill(&f.host, ids[1]).await;
    let out = run(&f.host, "echo yes", false, 10_000).await;
    assert_eq!(output(&out), "yes\n");
    assert!(
        out.text
            .contains(&format!("evicted exited session {}", ids[1])),
        "{}",
        out.text
    );
    assert_eq!(f.registry.owner(ids[1]), None);
    let err = f
        .host
        .poll(
            &ctx(),
            Poll {
                session_id: ids[1],
                ..shell_support::poll(0)
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Model(m) if m.contains("no shell session")));
    for id in [ids[0], ids[2]] {
        kill(&f.host, id).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_command_and_write_stdin_drive_a_pipe_session() {
    let f = fixture();
    let out = f
        .host
        .exec_command(
            &ctx(),
            ExecCommandRequest {
                cmd: "while read l; do echo \"got $l\"; done; echo closed".into(),
                yield_time_ms: 250,
                ..shell_support::exec_command("")
            },
        )
        .await
        .unwrap();
    let id = sid(&out);
    // write_stdin collects output for its window (ending early only on exit).
    let w = f
        .host
        .write_stdin(
            &ctx(),
            WriteStdinRequest {
                session_id: id,
                chars: Some("one\n".into()),
                yield_time_ms: 2_000,
                ..shell_support::write_stdin(0)
            },
        )
        .await
        .unwrap();
    let mut seen = output(&w);
    if !seen.contains("got one") {
        seen.push_str(&output(&wait(&f.host, id, Some("got one"), 60.0).await));
    }
    assert!(seen.contains("got one"), "{seen}");
    assert!(
        !seen.contains("one\none"),
        "pipes do not echo input: {seen}"
    );
    // ctrl-d on a pipe session closes stdin: the loop ends.
    f.host
        .poll(
            &ctx(),
            Poll {
                session_id: id,
                keys: Some(vec!["ctrl-d".into()]),
                ..shell_support::poll(0)
            },
        )
        .await
        .unwrap();
    let (done, rest) = wait_exit(&f.host, id).await;
    assert_eq!(s(&done)["exit_code"], 0, "{}", done.text);
    // The poll above may have read "closed" already; offset 0 reads everything again.
    let p = f
        .host
        .poll(
            &ctx(),
            Poll {
                session_id: id,
                offset: Some(0),
                ..shell_support::poll(0)
            },
        )
        .await
        .unwrap();
    assert_eq!(output(&p), "got one\nclosed\n", "{rest}");
    let err = f
        .host
        .write_stdin(
            &ctx(),
            WriteStdinRequest {
                session_id: id,
                chars: Some("late\n".into()),
                ..shell_support::write_stdin(0)
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Model(m) if m.contains("could not write")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_escalates_to_sigkill_when_term_is_ignored() {
    let f = fixture_with(ShellConfig {
        kill_grace: Duration::from_millis(300),
        ..Default::default()
    });
    let out = run(&f.host, "trap '' TERM; echo armed; sleep 1000", false, 250).await;
    let id = sid(&out);
    let mut seen = output(&out);
    if !seen.contains("armed") {
        seen.push_str(&output(&wait(&f.host, id, Some("armed"), 60.0).await));
    }
    let k = kill(&f.host, id).await;
    assert!(k.text.contains("SIGKILL"), "{}", k.text);
    assert_eq!(s(&k)["running"], false, "{}", k.text);
    assert_eq!(s(&k)["signal"], 9, "{}", k.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_to_a_terminal_nobody_reads_fails_instead_of_hanging() {
    let f = fixture();
    // Raw input (canonical mode would drop what does not fit in a line instead).
    let out = run(&f.host, "stty -icanon -echo; echo raw; sleep 60", true, 250).await;
    let id = sid(&out);
    if !output(&out).contains("raw") {
        let w = wait(&f.host, id, Some("^raw$"), 60.0).await;
        assert!(s(&w)["matched"].is_string(), "{}", w.text);
    }
    let host = f.host.clone();
    // Far more than the terminal's input queue holds; `sleep` never reads it.
    let sent = tokio::task::spawn_blocking(move || host.send_input(id, &vec![b'x'; 1 << 20]));
    let sent = tokio::time::timeout(Duration::from_secs(60), sent)
        .await
        .expect("writing to a full terminal input hung")
        .unwrap();
    let err = sent.expect_err("1 MiB fitted into a terminal nobody reads");
    assert!(format!("{err:?}").contains("input is full"), "{err:?}");
    kill(&f.host, id).await;
}
