//! StandardHost running the shell family on real processes through handle_batch, with the
//! JSON arguments a model sends: a command that finishes, one that becomes a session
//! (poll/wait/kill, and the case study's `shell_poll` alias), routing across two local
//! hosts, interrupts, and wake-ups.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::host_support;

use std::sync::Arc;

use host_support::Fixture;
use host_support::eventually;
use host_support::ok;
use host_support::structured;
use toolsurface::runtime::Outcome;
use toolsurface::runtime::Turn;
use toolsurface::runtime::WakeKind;
use toolsurface::standard::Family;
use toolsurface::standard::Role;

/// A command that prints `first`, then blocks until `<root>/<gate>` exists, then prints
/// `second` and exits 0. It cannot finish within any yield window before the test opens
/// the gate.
fn gated(first: &str, gate: &str, second: &str) -> String {
    let command =
        format!("echo {first}; while [ ! -e {gate} ]; do sleep 0.05; done; echo {second}");
    serde_json::json!({ "command": command, "yield_ms": 250 }).to_string()
}

fn session_id(result: &toolsurface::runtime::ToolResult) -> i64 {
    structured(result)["session_id"]
        .as_i64()
        .unwrap_or_else(|| panic!("no session_id: {}", result.text))
}

#[tokio::test]
async fn a_shell_call_that_finishes_answers_with_exit_code_and_output() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    let result = fx
        .one(
            "shell",
            r#"{"command":"echo hello-$((40+2)); pwd; exit 3"}"#,
        )
        .await;
    ok(&result);
    let facts = structured(&result);
    assert_eq!(facts["exit_code"], 3);
    assert_eq!(facts["running"], false);
    assert!(
        facts["session_id"].is_null(),
        "a finished command keeps no session"
    );
    let output = facts["output"].as_str().unwrap();
    assert!(output.contains("hello-42"), "{output}");
    let root = std::fs::canonicalize(fx.root()).unwrap();
    assert!(
        output.contains(root.to_str().unwrap()),
        "runs in the host root: {output}"
    );
}

#[tokio::test]
async fn a_session_is_polled_waited_for_and_killed() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    let started = fx
        .one("shell", &gated("first-line", "go", "second-line"))
        .await;
    ok(&started);
    assert_eq!(structured(&started)["running"], true);
    let id = session_id(&started);

    // Poll through the merged tool, then through the case study's alias.
    let poll = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"poll","session_id":{id}}}"#),
        )
        .await;
    ok(&poll);
    assert_eq!(structured(&poll)["running"], true);
    let aliased = fx
        .one(
            "shell_poll",
            &format!(r#"{{"session_id":{id},"peek":true}}"#),
        )
        .await;
    ok(&aliased);
    assert_eq!(structured(&aliased)["session_id"], id);

    // A kill-only field on wait is refused with the action named, and nothing runs.
    let strict = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"kill","session_id":{id},"timeout_s":3}}"#),
        )
        .await;
    assert!(strict.is_error);
    assert!(strict.text.contains("action=kill"), "{}", strict.text);

    // Open the gate; wait returns with the exit and the rest of the output.
    std::fs::write(fx.path("go"), "").unwrap();
    let waited = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"wait","session_id":{id},"timeout_s":120}}"#),
        )
        .await;
    ok(&waited);
    assert_eq!(structured(&waited)["exit_code"], 0, "{}", waited.text);
    assert!(
        structured(&waited)["output"]
            .as_str()
            .unwrap()
            .contains("second-line"),
        "{}",
        waited.text
    );

    // A second session, killed while running, then killed again (idempotent).
    let sleeper = fx
        .one(
            "shell",
            r#"{"command":"echo sleeping; exec sleep 600","yield_ms":250}"#,
        )
        .await;
    let sleeper_id = session_id(ok(&sleeper));
    let pid = fx
        .host
        .machine("alpha")
        .unwrap()
        .shell()
        .session_pid(sleeper_id)
        .unwrap();
    let list = ok(&fx.one("shell_session", r#"{"action":"list"}"#).await).clone();
    let listed: Vec<i64> = structured(&list)["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session_id"].as_i64().unwrap())
        .collect();
    assert!(listed.contains(&sleeper_id), "{}", list.text);
    let killed = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"kill","session_id":{sleeper_id}}}"#),
        )
        .await;
    ok(&killed);
    assert_eq!(structured(&killed)["running"], false, "{}", killed.text);
    // The process is really gone (its pid no longer names a live process of ours).
    let alive = std::path::Path::new(&format!("/proc/{pid}"))
        .exists()
        .then(|| std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default())
        .is_some_and(|stat| !stat.contains(") Z "));
    assert!(!alive, "pid {pid} still runs");
    let again = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"kill","session_id":{sleeper_id}}}"#),
        )
        .await;
    ok(&again);
    assert!(again.text.contains("already gone"), "{}", again.text);
}

#[tokio::test]
async fn follow_ups_go_to_the_host_that_owns_the_session() {
    let fx = Fixture::with(Role::SideChat, Family::Chat, |c| {
        let beta = c.runtime.hosts["alpha"].root.with_file_name("beta");
        c.with_host("beta", beta)
    });
    let alpha_root = std::fs::canonicalize(fx.root()).unwrap();
    let beta_root = std::fs::canonicalize(fx.dir.path().join("beta")).unwrap();

    // A session on alpha (the bound host) that prints its folder once the gate opens.
    let started = fx
        .one(
            "shell",
            r#"{"command":"while [ ! -e go ]; do sleep 0.05; done; echo at:$(pwd)","yield_ms":250}"#,
        )
        .await;
    let id = session_id(ok(&started));

    // Re-bind the thread to beta: new commands run there.
    fx.host.runtime().bind_host("beta").unwrap();
    let here = ok(&fx.one("shell", r#"{"command":"pwd"}"#).await).clone();
    assert!(
        structured(&here)["output"]
            .as_str()
            .unwrap()
            .contains(beta_root.to_str().unwrap()),
        "{}",
        here.text
    );

    // Naming the wrong host is refused; the follow-up without a host goes to alpha.
    let wrong = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"poll","session_id":{id},"host_id":"beta"}}"#),
        )
        .await;
    assert!(wrong.is_error);
    assert!(
        wrong.text.contains("belongs to host alpha"),
        "{}",
        wrong.text
    );

    std::fs::write(alpha_root.join("go"), "").unwrap();
    let waited = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"wait","session_id":{id},"timeout_s":120}}"#),
        )
        .await;
    ok(&waited);
    let output = structured(&waited)["output"].as_str().unwrap().to_owned();
    assert!(
        output.contains(&format!("at:{}", alpha_root.display())),
        "{output}"
    );

    // A running session on each host: list shows both, each with its host.
    let a2 = {
        fx.host.runtime().bind_host("alpha").unwrap();
        session_id(ok(&fx
            .one("shell", r#"{"command":"exec sleep 600","yield_ms":250}"#)
            .await))
    };
    fx.host.runtime().bind_host("beta").unwrap();
    let b1 = session_id(ok(&fx
        .one("shell", r#"{"command":"exec sleep 600","yield_ms":250}"#)
        .await));
    let list = ok(&fx.one("shell_session", r#"{"action":"list"}"#).await).clone();
    let rows = structured(&list)["sessions"].as_array().unwrap().clone();
    let host_of = |id: i64| {
        rows.iter()
            .find(|r| r["session_id"] == id)
            .map(|r| r["host"].as_str().unwrap().to_owned())
    };
    assert_eq!(host_of(a2).as_deref(), Some("alpha"), "{}", list.text);
    assert_eq!(host_of(b1).as_deref(), Some("beta"), "{}", list.text);
    assert!(list.text.contains("host alpha:") && list.text.contains("host beta:"));
    let hosts = ok(&fx.one("introspect", r#"{"target":"hosts"}"#).await).clone();
    assert_eq!(structured(&hosts)["bound_host"], "beta");

    // Kill both through one batch; each goes to its own host.
    let results = fx
        .run(
            &Turn::normal(),
            &[
                ("k1", "shell_kill", &format!(r#"{{"session_id":{a2}}}"#)),
                (
                    "k2",
                    "shell_session",
                    &format!(r#"{{"action":"kill","session_id":{b1}}}"#),
                ),
            ],
        )
        .await;
    for r in &results {
        ok(r);
        assert_eq!(structured(r)["running"], false, "{}", r.text);
    }
}

#[tokio::test]
async fn an_interrupted_wait_keeps_its_real_output_and_the_next_call_says_it_did_not_run() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    let blocker = fx
        .one(
            "shell",
            r#"{"command":"echo first; while [ ! -e stop ]; do sleep 0.05; done","yield_ms":250}"#,
        )
        .await;
    let blocker_id = session_id(ok(&blocker));

    let turn = Turn::normal();
    let host = Arc::clone(&fx.host);
    let batch = host_support::calls(&[
        (
            "w1",
            "shell_session",
            &format!(r#"{{"action":"wait","session_id":{blocker_id},"timeout_s":300}}"#),
        ),
        ("m1", "introspect", r#"{"target":"hosts"}"#),
    ]);
    let running = {
        let turn = turn.clone();
        tokio::spawn(async move { host.handle_batch(batch, &turn).await })
    };
    // The wait holds the turn's write lock while it blocks.
    eventually("the wait to start", || turn.lock().try_read().is_err()).await;
    turn.interrupt();
    let results = running.await.unwrap().unwrap();

    assert_eq!(
        results[0].outcome,
        Outcome::InterruptedKept,
        "{}",
        results[0].text
    );
    assert!(!results[0].is_error, "{}", results[0].text);
    let facts = structured(&results[0]);
    assert_eq!(facts["interrupted"], true);
    assert_eq!(facts["running"], true);
    assert!(
        results[0].text.contains("interrupted"),
        "{}",
        results[0].text
    );

    assert_eq!(results[1].outcome, Outcome::NotStarted);
    assert!(results[1].is_error);
    assert_eq!(
        results[1].text,
        "introspect was not run: the turn was interrupted before it started"
    );

    // The session survived the interrupt.
    std::fs::write(fx.path("stop"), "").unwrap();
    let waited = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"wait","session_id":{blocker_id},"timeout_s":120}}"#),
        )
        .await;
    assert_eq!(structured(ok(&waited))["exit_code"], 0, "{}", waited.text);
}

#[tokio::test]
async fn an_interrupted_wait_hands_back_output_that_arrived_during_it() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    // Prints a line once `go` exists, then blocks until `stop` exists.
    let started = fx
        .one(
            "shell",
            r#"{"command":"while [ ! -e go ]; do sleep 0.05; done; echo arrived-late; while [ ! -e stop ]; do sleep 0.05; done","yield_ms":250}"#,
        )
        .await;
    let id = session_id(ok(&started));
    let shell = fx.host.machine("alpha").unwrap().shell().clone();
    std::fs::write(fx.path("go"), "").unwrap();
    eventually("the late line", || shell.buffer_usage(id).unwrap().0 > 0).await;

    let turn = Turn::normal();
    let host = Arc::clone(&fx.host);
    let batch = host_support::calls(&[(
        "w1",
        "shell_wait",
        &format!(r#"{{"session_id":{id},"timeout_s":300}}"#),
    )]);
    let running = {
        let turn = turn.clone();
        tokio::spawn(async move { host.handle_batch(batch, &turn).await })
    };
    eventually("the wait to start", || turn.lock().try_read().is_err()).await;
    turn.interrupt();
    let results = running.await.unwrap().unwrap();
    assert_eq!(results[0].outcome, Outcome::InterruptedKept);
    let output = structured(&results[0])["output"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        output.contains("arrived-late"),
        "the real partial output: {output}"
    );

    std::fs::write(fx.path("stop"), "").unwrap();
    let killed = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"wait","session_id":{id},"timeout_s":120}}"#),
        )
        .await;
    ok(&killed);
}

#[tokio::test]
async fn a_monitor_wakes_the_conversation() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    let mut wakes = fx.host.take_wake_receiver().unwrap();
    assert!(fx.host.take_wake_receiver().is_none(), "one receiver");
    // Prints READY once `go` exists, exits 7 once `stop` exists. (The gap between the two
    // is deliberate: the shell family drops a pending match watcher when the process exits,
    // so output printed right before exit may race its match wake-up.)
    let started = fx
        .one(
            "monitor_start",
            r#"{"command":"while [ ! -e go ]; do sleep 0.05; done; echo READY; while [ ! -e stop ]; do sleep 0.05; done; exit 7","until_output":"READY"}"#,
        )
        .await;
    let id = session_id(ok(&started));
    std::fs::write(fx.path("go"), "").unwrap();
    let matched = wakes.recv().await.unwrap();
    assert_eq!((matched.session_id, matched.host.as_str()), (id, "alpha"));
    assert!(
        matches!(&matched.kind, WakeKind::Matched { text } if text.contains("READY")),
        "{matched:?}"
    );
    std::fs::write(fx.path("stop"), "").unwrap();
    let exited = wakes.recv().await.unwrap();
    assert_eq!(exited.session_id, id);
    assert_eq!(exited.kind, WakeKind::Exited { code: Some(7) }, "{exited}");
    assert!(exited.to_string().contains("exit"), "{exited}");
}

#[tokio::test]
async fn a_call_without_result_on_interrupt_gets_the_honest_text() {
    // sql_query (the sqlite skill) blocks on a real lock: another session of ours holds the
    // database exclusively through the sqlite3 shell.
    let fx = Fixture::new(Role::Main, Family::Chat);
    let status = std::process::Command::new("sqlite3")
        .arg(fx.path("data.db"))
        .arg("create table t(x); insert into t values (1);")
        .status()
        .unwrap();
    assert!(status.success());
    ok(&fx.one("activate_skill", r#"{"name":"sqlite"}"#).await);
    let holder = fx
        .one(
            "shell",
            r#"{"command":"exec sqlite3 data.db","yield_ms":250}"#,
        )
        .await;
    let holder_id = session_id(ok(&holder));
    let locked = fx
        .one(
            "shell_session",
            &format!(
                r#"{{"action":"poll","session_id":{holder_id},"chars":"BEGIN EXCLUSIVE;\nSELECT 'lock'||'ed';\n"}}"#
            ),
        )
        .await;
    ok(&locked);
    if !locked.text.contains("locked") {
        let waited = fx
            .one(
                "shell_session",
                &format!(
                    r#"{{"action":"wait","session_id":{holder_id},"until_output":"locked","timeout_s":60}}"#
                ),
            )
            .await;
        assert!(waited.text.contains("locked"), "{}", waited.text);
    }

    let turn = Turn::normal();
    let host = Arc::clone(&fx.host);
    let batch = host_support::calls(&[(
        "q1",
        "sql_query",
        r#"{"database":"data.db","sql":"select x from t"}"#,
    )]);
    let running = {
        let turn = turn.clone();
        tokio::spawn(async move { host.handle_batch(batch, &turn).await })
    };
    // A parallel-safe call holds the read side of the turn's lock while it runs.
    eventually("the query to start", || turn.lock().try_write().is_err()).await;
    turn.interrupt();
    let results = running.await.unwrap().unwrap();
    assert_eq!(results[0].outcome, Outcome::InterruptedDropped);
    assert!(results[0].is_error);
    assert!(
        results[0]
            .text
            .starts_with("sql_query was interrupted after ")
            && results[0].text.ends_with(" s; its output was not kept"),
        "{}",
        results[0].text
    );

    // Release the lock; the database answers again.
    ok(&fx
        .one(
            "shell_session",
            &format!(
                r#"{{"action":"poll","session_id":{holder_id},"chars":"ROLLBACK;\n.quit\n"}}"#
            ),
        )
        .await);
    let waited = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"wait","session_id":{holder_id},"timeout_s":60}}"#),
        )
        .await;
    assert_eq!(structured(ok(&waited))["exit_code"], 0, "{}", waited.text);
    let answer = fx
        .one(
            "sql_query",
            r#"{"database":"data.db","sql":"select x from t"}"#,
        )
        .await;
    assert_eq!(structured(ok(&answer))["rows"], serde_json::json!([[1]]));
}

#[tokio::test]
async fn exec_command_and_write_stdin_on_the_responses_family() {
    let fx = Fixture::new(Role::Main, Family::Responses);
    let started = fx
        .one("exec_command", r#"{"cmd":"exec cat","yield_time_ms":250}"#)
        .await;
    let id = session_id(ok(&started));
    let echoed = fx
        .one(
            "write_stdin",
            &format!(r#"{{"session_id":{id},"chars":"typed-line\n","yield_time_ms":250}}"#),
        )
        .await;
    ok(&echoed);
    if !echoed.text.contains("typed-line") {
        let waited = fx
            .one(
                "shell_session",
                &format!(
                    r#"{{"action":"wait","session_id":{id},"until_output":"typed-line","timeout_s":60}}"#
                ),
            )
            .await;
        assert!(waited.text.contains("typed-line"), "{}", waited.text);
    }
    // `shell` is not offered on this family; the session is closed with ctrl-d.
    let refused = fx.one("shell", r#"{"command":"true"}"#).await;
    assert!(refused.is_error);
    let closed = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"poll","session_id":{id},"keys":["ctrl-d"]}}"#),
        )
        .await;
    ok(&closed);
    let waited = fx
        .one(
            "shell_session",
            &format!(r#"{{"action":"wait","session_id":{id},"timeout_s":60}}"#),
        )
        .await;
    assert_eq!(structured(ok(&waited))["exit_code"], 0, "{}", waited.text);
}
