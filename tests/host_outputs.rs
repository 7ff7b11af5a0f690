//! Output-schema conformance on real results: every structured result the host tests produce
//! goes through `host_support::assert_conforms` (inside `host_support::run`); this file runs
//! each tool action that declares an `output:` at least once (counting the validations, so a
//! check that silently validates nothing fails), and shows that a result its schema does not
//! allow is refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod host_support;

use host_support::Fixture;
use host_support::assert_conforms;
use host_support::ok;
use host_support::structured;
use toolsurface::runtime::Turn;
use toolsurface::standard::Family;
use toolsurface::standard::Role;

#[tokio::test]
async fn every_declared_output_is_produced_and_conforms() {
    let fx = Fixture::new(Role::Main, Family::Chat);
    let mut validated = 0;
    let mut run = async |name: &str, args: &str| {
        let batch = [("c1", name, args)];
        let results = fx.run(&Turn::normal(), &batch).await;
        ok(&results[0]);
        validated += assert_conforms(&fx.host, &batch, &results);
        results.into_iter().next().unwrap()
    };
    run("shell", r#"{"command":"echo done"}"#).await;
    let long = run("shell", r#"{"command":"echo a; sleep 30","yield_ms":250}"#).await;
    let id = structured(&long)["session_id"].as_i64().unwrap();
    run(
        "shell_session",
        &format!(r#"{{"action":"poll","session_id":{id}}}"#),
    )
    .await;
    run(
        "shell_session",
        &format!(r#"{{"action":"wait","session_id":{id},"timeout_s":0.2}}"#),
    )
    .await;
    run("shell_session", r#"{"action":"list"}"#).await;
    run(
        "shell_session",
        &format!(r#"{{"action":"unwatch","session_id":{id}}}"#),
    )
    .await;
    run(
        "shell_session",
        &format!(r#"{{"action":"kill","session_id":{id}}}"#),
    )
    .await;
    let tty = run(
        "shell",
        r#"{"command":"sleep 30","tty":true,"yield_ms":250}"#,
    )
    .await;
    let tty_id = structured(&tty)["session_id"].as_i64().unwrap();
    run(
        "shell_session",
        &format!(r#"{{"action":"resize","session_id":{tty_id},"cols":100,"rows":30}}"#),
    )
    .await;
    run(
        "shell_session",
        &format!(r#"{{"action":"kill","session_id":{tty_id}}}"#),
    )
    .await;
    run(
        "monitor_start",
        r#"{"command":"sleep 30","until_output":"x"}"#,
    )
    .await;
    run("activate_skill", r#"{"name":"sqlite"}"#).await;
    std::fs::write(
        fx.path("mk.py"),
        "import sqlite3\nc = sqlite3.connect('t.db')\nc.executescript(\"CREATE TABLE t(a INTEGER, b TEXT); INSERT INTO t VALUES (1, 1.5), (2, NULL);\")\nc.commit()\n",
    )
    .unwrap();
    run("shell", r#"{"command":"python3 mk.py"}"#).await;
    run(
        "sql_query",
        r#"{"database":"t.db","sql":"SELECT a, b FROM t"}"#,
    )
    .await;
    // shell ×4, poll, wait, list, unwatch, kill ×2, resize, monitor_start, activate_skill,
    // sql_query: each validated once.
    assert_eq!(validated, 14);
}

#[tokio::test]
async fn a_result_its_schema_does_not_allow_fails() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    let batch = [("c1", "shell", r#"{"command":"exit 2"}"#)];
    let mut results = fx.run(&Turn::normal(), &batch).await;
    assert_eq!(assert_conforms(&fx.host, &batch, &results), 1);
    for planted in [
        serde_json::json!({"exit_code": "two"}),
        serde_json::json!({"undeclared": true}),
    ] {
        let mut wrong = results[0].structured.clone().unwrap();
        for (k, v) in planted.as_object().unwrap() {
            wrong[k] = v.clone();
        }
        results[0].structured = Some(wrong);
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            assert_conforms(&fx.host, &batch, &results)
        }));
        assert!(
            refused.is_err(),
            "a non-conforming result must fail: {planted}"
        );
    }
    results[0].structured = None;
    let missing = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        assert_conforms(&fx.host, &batch, &results)
    }));
    assert!(
        missing.is_err(),
        "a declared output with no structured result must fail"
    );
}

#[tokio::test]
async fn the_responses_shell_tools_conform() {
    let fx = Fixture::new(Role::SideChat, Family::Responses);
    let start = [(
        "c1",
        "exec_command",
        r#"{"cmd":"read line; echo got-$line","yield_time_ms":250}"#,
    )];
    let results = fx.run(&Turn::normal(), &start).await;
    ok(&results[0]);
    assert_eq!(assert_conforms(&fx.host, &start, &results), 1);
    let id = structured(&results[0])["session_id"].as_i64().unwrap();
    let args = format!(r#"{{"session_id":{id},"chars":"x\n","yield_time_ms":2000}}"#);
    let write = [("c2", "write_stdin", args.as_str())];
    let results = fx.run(&Turn::normal(), &write).await;
    ok(&results[0]);
    assert_eq!(assert_conforms(&fx.host, &write, &results), 1);
}
