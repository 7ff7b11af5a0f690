//! `toolsurface usage` and `toolsurface replay` on the transcript fixtures (every format and
//! layout, tests/data/transcripts) and on generated transcripts, through the built binary:
//! what they count, the malformed lines they name, the exit codes of the breaking gate.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::cli_support;

use cli_support::{code, repo, run, stderr, stdout};
use serde_json::Value;
use toolsurface_cli::transcript::generate::{Config, Layout, write_all};
use toolsurface_cli::transcript::{self, Event};

const FIXTURES: &str = "tests/data/transcripts";
const BEFORE: &str = "examples/consolidation/before";

fn json_of(args: &[&str]) -> (i32, Value, String) {
    let o = run(args);
    let v: Value = serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}):\n{}\n{}", stdout(&o), stderr(&o)));
    (code(&o), v, stderr(&o))
}

fn tool<'v>(report: &'v Value, name: &str) -> &'v Value {
    report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tool"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {report:#}"))
}

fn action<'v>(tool: &'v Value, name: &str) -> &'v Value {
    tool["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["action"] == name)
        .unwrap_or_else(|| panic!("no action {name} in {tool:#}"))
}

#[test]
fn every_fixture_format_is_detected_and_counted() {
    let (status, r, err) = json_of(&["usage", FIXTURES, "--format", "json"]);
    assert_eq!(status, 0, "{err}");
    assert_eq!(r["files"], 8);
    assert_eq!(r["calls"], 36);
    for f in transcript::Format::ALL {
        assert!(
            r["formats"][f.as_str()].as_u64().unwrap_or(0) > 0,
            "{} not detected: {}",
            f.as_str(),
            r["formats"]
        );
    }
    // The two malformed lines are named file:line, and the rest is still read.
    assert_eq!(r["malformed"]["count"], 2);
    let lines: Vec<String> = r["malformed"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{}:{}", m["file"].as_str().unwrap(), m["line"]))
        .collect();
    assert_eq!(
        lines,
        [
            "tests/data/transcripts/agent-log.jsonl:9",
            "tests/data/transcripts/chat-conversations.jsonl:3"
        ]
    );
    assert!(
        err.contains("tests/data/transcripts/chat-conversations.jsonl:3: skipped"),
        "{err}"
    );
    // Threads: 2 chat conversations + 2 batch + 2 responses + 2 anthropic + 1 codex session +
    // 2 agent-log threads + 1 whole-file conversation + 2 messages sessions (each with calls).
    assert_eq!(r["threads"], 14);
}

#[test]
fn usage_counts_per_tool_and_per_action_with_definitions() {
    let (status, r, _) = json_of(&["usage", FIXTURES, "--defs", "tool-defs", "--format", "json"]);
    assert_eq!(status, 0);
    // shell_poll, shell_kill and shell_list are aliases of shell_session actions now.
    let s = tool(&r, "shell_session");
    assert_eq!(s["calls"], 3);
    assert_eq!(s["threads"], 2);
    assert_eq!(action(s, "poll")["calls"], 1);
    assert_eq!(action(s, "kill")["calls"], 1);
    assert_eq!(
        action(s, "kill")["errors"],
        1,
        "the kill's result said Error"
    );
    assert_eq!(action(s, "list")["calls"], 1);
    // ssh_read_file + read_file are read_file now; in every thread that wrote, it came first.
    let read = tool(&r, "read_file");
    assert_eq!(read["calls"], 4);
    assert_eq!(read["threads"], 3);
    assert_eq!(read["first_before_write"]["threads"], 3);
    let w = tool(&r, "set_workdirs");
    assert_eq!(w["calls"], 2);
    assert_eq!(w["median_first_position"], 1.0);
    // Both threads that declared workdirs did so before their first file write.
    assert_eq!(w["first_before_write"]["threads"], 2);
    assert_eq!(w["first_before_write"]["of_writing_threads"], 2);
    // Error results: the Anthropic is_error flag, a Codex exit code, an "error:" text.
    assert_eq!(tool(&r, "write_file")["errors"], 1);
    assert_eq!(tool(&r, "exec_command")["errors"], 1);
    assert_eq!(tool(&r, "apply_patch")["errors"], 1);
}

#[test]
fn usage_reports_confusion_signals() {
    let (_, r, _) = json_of(&["usage", FIXTURES, "--format", "json"]);
    let signals: Vec<(String, String, String)> = r["confusion"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().unwrap().to_owned(),
                c["from"].as_str().unwrap().to_owned(),
                c["to"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let has =
        |k: &str, a: &str, b: &str| signals.iter().any(|s| s == &(k.into(), a.into(), b.into()));
    // read_file then ssh_read_file on the same path: a look-alike with overlapping arguments.
    assert!(
        has("look-alike-follow-up", "read_file", "ssh_read_file"),
        "{signals:?}"
    );
    // ssh_write_file refused (permission denied) then shell.
    assert!(
        has("error-then-other-tool", "ssh_write_file", "shell"),
        "{signals:?}"
    );
    assert!(
        has("error-then-other-tool", "apply_patch", "file_edit"),
        "{signals:?}"
    );
    // Not a look-alike: set_workdirs then shell.
    assert!(
        !signals.iter().any(|s| s.1 == "set_workdirs"),
        "{signals:?}"
    );
}

#[test]
fn usage_text_and_markdown_render_the_same_rows() {
    let text = stdout(&run(&["usage", FIXTURES, "--defs", "tool-defs"]));
    assert!(
        text.starts_with("36 calls in 14 threads, 8 files"),
        "{text}"
    );
    assert!(text.contains("set_workdirs"), "{text}");
    assert!(text.contains("confusion signals:"), "{text}");
    let md = stdout(&run(&["usage", FIXTURES, "--format", "markdown"]));
    assert!(md.contains("| tool / action | calls |"), "{md}");
    assert!(
        md.contains("| look-alike-follow-up | `read_file` | `ssh_read_file` |"),
        "{md}"
    );
}

#[test]
fn replay_from_the_old_surface_is_a_breaking_gate() {
    let (status, r, _) = json_of(&[
        "replay",
        FIXTURES,
        "--from",
        BEFORE,
        "--to",
        "tool-defs",
        "--role",
        "side_chat",
        "--format",
        "json",
    ]);
    assert_eq!(status, 4, "a call the old surface accepted is refused");
    let to = &r["to"];
    assert_eq!(to["calls"], 36);
    assert_eq!(to["as_is"], 21);
    let alias: u64 = to["via_alias"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(alias, 7);
    let retired: Vec<&str> = to["retired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        retired,
        ["get_current_time", "get_workdirs", "glob_files", "list_dir"]
    );
    // The message the model now gets is the retired entry's, verbatim.
    let msg = to["retired"][0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with(
            "get_current_time was retired: Every event and tool result carries an `at` timestamp"
        ),
        "{msg}"
    );
    // Refusals grouped by text, with examples.
    let kill = to["refused"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| {
            g["message"] == "action=kill: session_id: expected an integer of at least 1, got 0"
        })
        .unwrap();
    assert_eq!(kill["calls"], 1);
    assert_eq!(
        kill["examples"][0],
        "tests/data/transcripts/chat-conversations.jsonl:2"
    );
    // The break: shell_kill with session_id 0 (the bound-narrowed finding); the 4 retired calls
    // are counted apart.
    assert_eq!(r["breaking"]["calls"], 1);
    assert_eq!(r["breaking"]["retired_since"], 4);
    assert_eq!(r["from"]["as_is"], 33);
    // The per-format family: Responses and Codex calls were parsed for the responses family.
    let families: Vec<&str> = r["families"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(families, ["chat", "responses", "anthropic"]);
    assert!(!to["refused"].as_array().unwrap().iter().any(|g| {
        g["message"]
            .as_str()
            .unwrap()
            .contains("exec_command is not offered")
    }));
}

#[test]
fn replay_against_the_same_surface_breaks_nothing() {
    let o = run(&[
        "replay",
        FIXTURES,
        "--from",
        BEFORE,
        "--to",
        BEFORE,
        "--role",
        "side_chat",
    ]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(stdout(&o).contains("breaking: 0 of the"), "{}", stdout(&o));
}

#[test]
fn replay_usage_errors() {
    let o = run(&["replay", "no/such/file.jsonl"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("no/such/file.jsonl: no such transcript file or folder"),
        "{}",
        stderr(&o)
    );
    let o = run(&["replay", FIXTURES, "--role", "nobody"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("unknown role `nobody`"),
        "{}",
        stderr(&o)
    );
    let o = run(&["replay", "--help"]);
    assert!(
        stdout(&o).contains("toolsurface replay logs/"),
        "the help shows an example"
    );
    let o = run(&["usage", "--help"]);
    assert!(
        stdout(&o).contains("toolsurface usage logs/"),
        "the help shows an example"
    );
}

#[test]
fn a_line_that_is_not_utf8_is_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.jsonl");
    let mut bytes = br#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","type":"function","function":{"name":"shell","arguments":"{}"}}]}]}"#.to_vec();
    bytes.extend_from_slice(b"\n\xff\xfe not text\n");
    std::fs::write(&p, bytes).unwrap();
    let mut calls = 0;
    let s = transcript::read_files(&[&p], &mut |e| {
        if let Event::Call(_) = e {
            calls += 1
        }
    })
    .unwrap();
    assert_eq!(calls, 1);
    assert_eq!(s.malformed_count, 1);
    assert_eq!(
        (s.malformed[0].line, s.malformed[0].reason.as_str()),
        (2, "not UTF-8")
    );
}

fn before_ir() -> toolsurface_compiler::Ir {
    let sources = toolsurface_compiler::read_dir(&repo().join(BEFORE)).unwrap();
    toolsurface_compiler::compile(&sources).ir.unwrap()
}

#[test]
fn generated_transcripts_are_read_back_call_for_call() {
    let dir = tempfile::tempdir().unwrap();
    let g = write_all(
        &before_ir(),
        &Config::new("side_chat", "chat", 800, 12),
        dir.path(),
    )
    .unwrap();
    assert_eq!(g.files.len(), Layout::ALL.len());
    assert!(g.calls > 8000, "{} calls", g.calls);
    let d = dir.path().display().to_string();
    let (status, r, err) = json_of(&["usage", &d, "--format", "json"]);
    assert_eq!(status, 0, "{err}");
    assert_eq!(r["calls"].as_u64().unwrap(), g.calls);
    assert_eq!(r["malformed"]["count"], 0);
    assert_eq!(r["threads"].as_u64().unwrap(), 800);
    for f in transcript::Format::ALL {
        assert!(
            r["formats"][f.as_str()].as_u64().unwrap_or(0) > 0,
            "{} missing",
            f.as_str()
        );
    }
    let signals = r["confusion"].as_array().unwrap();
    assert!(signals.iter().any(|s| s["kind"] == "look-alike-follow-up"));
    assert!(signals.iter().any(|s| s["kind"] == "error-then-other-tool"));
    // Replayed against the surface it was generated for, the mistakes are refused and
    // everything else parses as-is; against tool-defs, old names go through aliases or retire.
    let (status, r, _) = json_of(&[
        "replay",
        &d,
        "--to",
        BEFORE,
        "--role",
        "side_chat",
        "--family",
        "chat",
        "--format",
        "json",
    ]);
    assert_eq!(status, 0);
    let to = &r["to"];
    assert_eq!(to["calls"].as_u64().unwrap(), g.calls);
    let refused: u64 = to["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["calls"].as_u64().unwrap())
        .sum();
    let as_is = to["as_is"].as_u64().unwrap();
    assert_eq!(as_is + refused, g.calls);
    assert!(
        refused > 0 && refused * 10 < g.calls,
        "{refused} refused of {}",
        g.calls
    );
    let (status, r, _) = json_of(&[
        "replay",
        &d,
        "--from",
        BEFORE,
        "--to",
        "tool-defs",
        "--role",
        "side_chat",
        "--family",
        "chat",
        "--format",
        "json",
    ]);
    assert_eq!(status, 4);
    assert!(r["to"]["via_alias"].as_array().unwrap().len() >= 5);
    assert!(r["to"]["retired"].as_array().unwrap().len() >= 4);
}

#[test]
fn the_generator_is_deterministic() {
    let ir = before_ir();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let c = Config::new("side_chat", "chat", 50, 8);
    write_all(&ir, &c, a.path()).unwrap();
    write_all(&ir, &c, b.path()).unwrap();
    for l in Layout::ALL {
        let x = std::fs::read(a.path().join(l.file_name())).unwrap();
        let y = std::fs::read(b.path().join(l.file_name())).unwrap();
        assert!(x == y && !x.is_empty(), "{}", l.file_name());
    }
}

#[test]
fn diff_replay_puts_real_call_counts_on_breaking_findings() {
    let args = [
        "diff",
        "--from",
        BEFORE,
        "--to",
        "tool-defs",
        "--role",
        "side_chat",
        "--format",
        "json",
        "--replay",
        FIXTURES,
    ];
    let (status, d, err) = json_of(&args);
    assert_eq!(status, 4, "{err}");
    assert_eq!(d["replay"]["calls"], 36);
    assert_eq!(d["replay"]["broken"], 1);
    let count = |id: &str| {
        d["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == id)
            .unwrap_or_else(|| panic!("no finding {id}"))["replay_calls_broken"]
            .as_u64()
    };
    // The fixture's shell_kill with session_id 0 is the one real call the narrowed bound breaks;
    // shell_poll's identical narrowing breaks none.
    assert_eq!(
        count("bound-narrowed/side_chat/shell_kill/session_id/minimum"),
        Some(1)
    );
    assert_eq!(
        count("bound-narrowed/side_chat/shell_poll/session_id/minimum"),
        Some(0)
    );
    // Compatible findings carry no count.
    assert_eq!(count("tool-retired/side_chat/get_current_time"), None);
    let text = stdout(&run(&[
        "diff",
        "--from",
        BEFORE,
        "--to",
        "tool-defs",
        "--role",
        "side_chat",
        "--replay",
        FIXTURES,
    ]));
    assert!(
        text.contains("replay: 36 real calls; 1 that the old surface accepted are refused now"),
        "{text}"
    );
    assert!(
        text.contains(
            "        1 real calls  bound-narrowed/side_chat/shell_kill/session_id/minimum"
        ),
        "{text}"
    );
    let md = stdout(&run(&[
        "diff",
        "--from",
        BEFORE,
        "--to",
        "tool-defs",
        "--role",
        "side_chat",
        "--format",
        "markdown",
        "--replay",
        FIXTURES,
    ]));
    assert!(
        md.contains("| `bound-narrowed/side_chat/shell_kill/session_id/minimum` | 1 |"),
        "{md}"
    );
    // A lock cannot be replayed against.
    let o = run(&[
        "diff",
        "--from",
        "tool-defs/surface.lock",
        "--to",
        "tool-defs",
        "--replay",
        FIXTURES,
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("--replay needs --from and --to to be definitions folders"),
        "{}",
        stderr(&o)
    );
}
