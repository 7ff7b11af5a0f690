//! Output-schema conformance on real results: every structured result the host tests produce
//! goes through `host_support::assert_conforms` (inside `host_support::run`: a structured
//! result must come from an action declaring `output:` and conform to it); this file runs
//! every tool action that declares an `output:` at least once, every shape of a union output
//! this machine can produce (naming each validation, so a check that silently validates
//! nothing fails, and holding the list equal to the declarations), and shows that a result its
//! schema does not allow, or an undeclared structured result, is refused. The staged shapes of
//! file_edit and apply_patch need a permission failure, which root never meets: the runtime's
//! remote-file contract produces them as an unprivileged user over the test sshd, validated
//! there against the lock's output records (`runtime/tests/support/outputs.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::host_support;

use std::collections::BTreeSet;

use host_support::Fixture;
use host_support::assert_conforms;
use host_support::conforming;
use host_support::ok;
use host_support::structured;
use host_support::write;
use toolsurface::runtime::Turn;
use toolsurface::standard::Family;
use toolsurface::standard::Role;

#[tokio::test]
async fn every_declared_output_is_produced_and_conforms() {
    let fx = Fixture::new(Role::Main, Family::Chat);
    let mut validated = Vec::new();
    let mut run = async |name: &str, args: &str| {
        let batch = [("c1", name, args)];
        let results = fx.run(&Turn::normal(), &batch).await;
        ok(&results[0]);
        validated.extend(conforming(&fx.host, &batch, &results));
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
    assert_eq!(validated.len(), 14, "{validated:?}");
    let covered: BTreeSet<&str> = validated.iter().map(String::as_str).collect();
    assert_eq!(covered, SHELL_FAMILY.iter().copied().collect());
}

/// The tool actions [`every_declared_output_is_produced_and_conforms`] covers.
const SHELL_FAMILY: [&str; 10] = [
    "activate_skill",
    "monitor_start",
    "shell",
    "shell_session kill",
    "shell_session list",
    "shell_session poll",
    "shell_session resize",
    "shell_session unwatch",
    "shell_session wait",
    "sql_query",
];
/// [`files_messages_and_the_framework_conform`]'s.
const FILES_AND_FRAMEWORK: [&str; 12] = [
    "apply_patch",
    "file_edit",
    "grep_files",
    "introspect",
    "message_read context",
    "message_read history",
    "message_read payload",
    "message_read turns",
    "read_file",
    "search_memory",
    "set_workdirs",
    "write_file",
];
/// [`the_responses_shell_tools_conform`]'s.
const RESPONSES: [&str; 2] = ["exec_command", "write_stdin"];

#[test]
fn the_conformance_runs_cover_every_declared_output() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-defs");
    let sources = toolsurface_compiler::read_dir(&root).unwrap();
    let ir = toolsurface_compiler::compile(&sources).ir.unwrap();
    let declared: BTreeSet<String> = ir
        .tools
        .iter()
        .flat_map(|t| {
            t.actions
                .iter()
                .filter(|a| a.output.is_some())
                .map(|a| match &a.name {
                    Some(n) => format!("{} {n}", t.name),
                    None => t.name.clone(),
                })
        })
        .collect();
    let covered: BTreeSet<String> = SHELL_FAMILY
        .iter()
        .chain(&FILES_AND_FRAMEWORK)
        .chain(&RESPONSES)
        .map(|s| (*s).to_owned())
        .collect();
    assert_eq!(declared, covered);
    // Every standard tool declares its output on every action.
    let every_action = ir.tools.iter().map(|t| t.actions.len()).sum::<usize>();
    assert_eq!(declared.len(), every_action);
}

#[tokio::test]
async fn files_messages_and_the_framework_conform() {
    use toolsurface::runtime::LlmProviderConfig;
    use toolsurface::runtime::Secret;
    let fx = Fixture::with(Role::Main, Family::Chat, |c| {
        let mut provider = LlmProviderConfig::new("openai", "https://api.example/v1");
        provider.models = vec!["gpt-5".into(), "gpt-5-mini".into()];
        provider.default_model = Some("gpt-5".into());
        provider.api_key = Some(Secret::new("sk-never-shown"));
        c.with_llm(provider)
    });
    let mut validated = Vec::new();
    let mut run = async |name: &str, args: &str| {
        let batch = [("c1", name, args)];
        let results = fx.run(&Turn::normal(), &batch).await;
        ok(&results[0]);
        validated.extend(conforming(&fx.host, &batch, &results));
        results.into_iter().next().unwrap()
    };
    // Files: every shape root can produce.
    write(&fx.path("a.txt"), "one\ntwo\nthree\n");
    std::fs::write(fx.path("blob.bin"), b"\x00\x01binary").unwrap();
    let text = run("read_file", r#"{"path":"a.txt","limit":2}"#).await;
    assert_eq!(structured(&text)["truncated"], true);
    let binary = run("read_file", r#"{"path":"blob.bin"}"#).await;
    assert_eq!(structured(&binary)["binary"], true);
    let created = run("write_file", r#"{"path":"new.txt","content":"x\n"}"#).await;
    assert_eq!(structured(&created)["status"], "created");
    let written = run("write_file", r#"{"path":"a.txt","content":"1\n"}"#).await;
    assert_eq!(structured(&written)["status"], "written");
    write(&fx.path("unread.txt"), "mine\n");
    // Nothing written: an error result, still with its declared (staged) shape.
    let stage = [(
        "c1",
        "write_file",
        r#"{"path":"unread.txt","content":"theirs\n"}"#,
    )];
    let staged = fx.run(&Turn::normal(), &stage).await.remove(0);
    assert!(
        staged.is_error,
        "a staged write is an error result: {}",
        staged.text
    );
    assert_eq!(structured(&staged)["status"], "staged");
    let staged_validated = conforming(&fx.host, &stage, std::slice::from_ref(&staged));
    assert_eq!(staged_validated, ["write_file"]);
    let token = structured(&staged)["confirm_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let confirm = format!(r#"{{"path":"unread.txt","content":"","confirm_token":"{token}"}}"#);
    let confirmed = run("write_file", &confirm).await;
    assert_eq!(structured(&confirmed)["status"], "written");
    let edited = run(
        "file_edit",
        r#"{"path":"new.txt","old_text":"x","new_text":"y"}"#,
    )
    .await;
    assert_eq!(structured(&edited)["replacements"], 1);
    let patch = "*** Begin Patch\n*** Add File: added.txt\n+hello\n*** Update File: new.txt\n@@\n-y\n+z\n*** Delete File: unread.txt\n*** End Patch";
    let applied = run(
        "apply_patch",
        &serde_json::json!({ "patch": patch }).to_string(),
    )
    .await;
    assert_eq!(structured(&applied)["files"].as_array().unwrap().len(), 3);
    run("grep_files", r#"{"pattern":"hello"}"#).await;
    // Messages: every view of history, context and payload.
    let sample = std::fs::File::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/transcripts/sample.jsonl"
    ))
    .unwrap();
    toolsurface::runtime::import_jsonl(
        fx.host.message_store().as_ref(),
        std::io::BufReader::new(sample),
    )
    .unwrap();
    for view in ["transcript", "audit"] {
        let args = format!(r#"{{"mode":"history","session_id":"sess-review","view":"{view}"}}"#);
        run("message_read", &args).await;
    }
    run(
        "message_read",
        r#"{"mode":"turns","session_id":"sess-review"}"#,
    )
    .await;
    run(
        "message_read",
        r#"{"mode":"history","channel":"infra","limit":1}"#,
    )
    .await;
    run(
        "message_read",
        r#"{"mode":"context","message_id":"m-0008","before":1,"after":1}"#,
    )
    .await;
    let page = run(
        "message_read",
        r#"{"mode":"payload","message_id":"m-0007","field":"tool_result","limit":10}"#,
    )
    .await;
    assert!(structured(&page)["next_offset"].is_i64(), "{}", page.text);
    fx.host
        .fact_store()
        .add_fact(
            "Build with -j2",
            "sess-build/m-0018",
            "2026-11-13T23:10:00+08:00",
        )
        .unwrap();
    run("search_memory", r#"{"query":"build"}"#).await;
    // The framework: every introspect target, every set_workdirs mode.
    for target in [
        "tools",
        "skills",
        "hosts",
        "workdirs",
        "llm",
        "llm:openai",
        "models",
    ] {
        run("introspect", &format!(r#"{{"target":"{target}"}}"#)).await;
    }
    write(&fx.path("proj/AGENTS.md"), "Build with -j2.\n");
    std::fs::create_dir_all(fx.path("other")).unwrap();
    run("set_workdirs", r#"{"dirs":["proj"]}"#).await;
    run("set_workdirs", r#"{"dirs":["other"],"mode":"add"}"#).await;
    run("set_workdirs", r#"{"dirs":["other"],"mode":"remove"}"#).await;
    run("set_workdirs", r#"{"dirs":[]}"#).await;
    // read_file ×2, write_file ×4, file_edit, apply_patch, grep_files, message_read ×6,
    // search_memory, introspect ×7, set_workdirs ×4.
    validated.extend(staged_validated);
    assert_eq!(validated.len(), 27, "{validated:?}");
    let covered: BTreeSet<&str> = validated.iter().map(String::as_str).collect();
    assert_eq!(covered, FILES_AND_FRAMEWORK.iter().copied().collect());
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
    // A union output: a result matching none of its shapes fails (read_file's text shape
    // without `content`, which its binary shape does not allow either).
    write(&fx.path("r.txt"), "x\n");
    let batch = [("c1", "read_file", r#"{"path":"r.txt"}"#)];
    let mut results = fx.run(&Turn::normal(), &batch).await;
    assert_eq!(assert_conforms(&fx.host, &batch, &results), 1);
    results[0]
        .structured
        .as_mut()
        .and_then(|v| v.as_object_mut())
        .unwrap()
        .remove("content");
    let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        assert_conforms(&fx.host, &batch, &results)
    }));
    assert!(refused.is_err(), "a result matching no shape must fail");
}

/// A structured result from an action that declares no output fails: the check reads the
/// declarations of a copy of tool-defs whose read_file has no `output:`.
#[tokio::test]
async fn a_structured_result_nobody_declared_fails() {
    let fx = Fixture::new(Role::SideChat, Family::Chat);
    write(&fx.path("r.txt"), "x\n");
    let batch = [("c1", "read_file", r#"{"path":"r.txt"}"#)];
    let results = fx.run(&Turn::normal(), &batch).await;
    let ir = without_output(host_support::standard_ir(), "read_file");
    let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        host_support::conforming_to(&ir, &fx.host, &batch, &results)
    }));
    assert!(
        refused.is_err(),
        "an undeclared structured result must fail"
    );
}

fn without_output(ir: &toolsurface_compiler::Ir, tool: &str) -> toolsurface_compiler::Ir {
    let mut ir = ir.clone();
    for t in ir.tools.iter_mut().filter(|t| t.name == tool) {
        for a in &mut t.actions {
            a.output = None;
        }
    }
    ir
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
