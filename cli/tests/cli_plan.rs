//! The plan's CLI edges, with the real binary: `plan` is byte-stable and says its format,
//! `plan --schema` describes it, `conformance --check` fails on a missing or edited corpus
//! file and passes once written, and the oracle (`validate --jsonl`) answers the same with the
//! compiled-in surface and with `--defs tool-defs` (the plan interpreter).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::cli_support::{self, run};

/// The oracle's answers to `lines` (one request each), read from a process that exits 0.
fn oracle(args: &[&str], lines: &[&str]) -> String {
    let out = cli_support::run_with_stdin(args, &lines.join("\n"));
    assert!(out.status.success(), "{}", cli_support::stderr(&out));
    cli_support::stdout(&out)
}

#[test]
fn plan_is_byte_stable_and_its_schema_describes_it() {
    let a = run(&["plan", "tool-defs"]);
    let b = run(&["plan", "tool-defs"]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    let plan: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(plan["format"], toolsurface_compiler::plan::PLAN_FORMAT);
    assert_eq!(plan["surfaces"].as_array().unwrap().len(), 20);
    let schema = run(&["plan", "--schema"]);
    let schema: serde_json::Value = serde_json::from_slice(&schema.stdout).unwrap();
    let props = schema["properties"].as_object().unwrap();
    for key in plan.as_object().unwrap().keys() {
        assert!(props.contains_key(key), "the schema lacks {key}");
    }
}

/// A field's `default:` is in the plan, beside the field it belongs to (what every generator's
/// typed request fills in), and only where the definition declares one.
#[test]
fn the_plan_carries_each_fields_default() {
    let out = run(&["plan", "tool-defs"]);
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tool = |name: &str| {
        plan["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone()
    };
    let field = |t: &serde_json::Value, name: &str| {
        t["actions"][0]["object"]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap()
            .clone()
    };
    let shell = tool("shell");
    assert_eq!(field(&shell, "yield_ms")["default"], 10000);
    assert_eq!(field(&shell, "tty")["default"], false);
    assert!(field(&shell, "command").get("default").is_none());
}

#[test]
fn conformance_check_fails_on_drift_and_passes_when_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let check = || run(&["conformance", "tool-defs", "--out", out, "--check"]);
    assert_eq!(check().status.code(), Some(1), "an empty folder is drift");
    let w = run(&["conformance", "tool-defs", "--out", out]);
    assert!(w.status.success());
    assert_eq!(check().status.code(), Some(0));
    let shell = dir.path().join("shell.jsonl");
    let text = std::fs::read_to_string(&shell).unwrap();
    std::fs::write(&shell, text.replacen("refuse", "accept", 1)).unwrap();
    let c = check();
    assert_eq!(c.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&c.stderr).contains("shell.jsonl: differs"));
}

#[test]
fn the_oracle_answers_alike_from_the_generated_parser_and_the_plan() {
    let lines = [
        r#"{"role":"side_chat","family":"chat","name":"shell_session","arguments":"{\"action\":\"kill\",\"session_id\":4242,\"timeout_s\":3}"}"#,
        r#"{"role":"main","family":"chat","name":"sql_query","arguments":{}}"#,
        r#"{"role":"main","family":"chat","skills":["sqlite"],"name":"shell_sesion","arguments":{}}"#,
        r#"{"role":"side_chat","family":"chat","name":"read_file","arguments":"{\"path\":\"a\",\"offset\":5.0}"}"#,
        r#"{"role":"nobody","family":"chat","name":"x"}"#,
        "not json",
    ];
    let standard = oracle(&["validate", "--jsonl"], &lines);
    let planned = oracle(&["validate", "--jsonl", "--defs", "tool-defs"], &lines);
    let got: Vec<serde_json::Value> = standard
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(got.len(), lines.len(), "one answer per request");
    assert_eq!(
        got[0]["message"],
        "action=kill: unexpected field timeout_s (it belongs to wait)"
    );
    assert_eq!(got[1]["kind"], "NotOffered");
    assert_eq!(
        got[2]["message"],
        "unknown tool shell_sesion (did you mean shell_session?)"
    );
    assert_eq!(got[3]["call"]["arguments"]["offset"], 5);
    assert_eq!(got[4]["kind"], "Scope");
    assert_eq!(got[5]["kind"], "Request");
    // Scope wording differs (the generated enums vs the plan's lists); every call answer agrees.
    for (s, p) in standard.lines().zip(planned.lines()).take(4) {
        assert_eq!(s, p);
    }
}

/// `at_most_one_of` lowers to a `forbidden_with` rule per pair, so the plan (and every
/// backend reading it) refuses two of a group and takes one or none.
#[test]
fn at_most_one_of_refuses_two_of_a_group() {
    let dir = tempfile::tempdir().unwrap();
    let defs = dir.path();
    std::fs::create_dir(defs.join("tools")).unwrap();
    std::fs::write(
        defs.join("surface.yaml"),
        "families:\n  chat: { dialect: openai-chat }\ntraits:\n  parallel_safe: { type: bool, default: false, doc: p }\n  follow_up: { type: bool, default: false, doc: f }\n  poll: { type: bool, default: false, doc: p }\n  read_only: { type: bool, default: false, doc: r }\n  result_on_interrupt: { type: bool, default: false, doc: r }\n",
    )
    .unwrap();
    std::fs::write(
        defs.join("roles.yaml"),
        "main:\n  description: m\n  tools: [put]\n",
    )
    .unwrap();
    std::fs::write(
        defs.join("tools/put.yaml"),
        "name: put\nobject: file\ndescription: Put.\nfields:\n  a: { type: string, description: A. }\n  b: { type: boolean, description: B. }\n  c: { type: integer, description: C. }\nat_most_one_of: [[a, b, c]]\nexamples: [ { a: x } ]\n",
    )
    .unwrap();
    let lines = [
        r#"{"role":"main","family":"chat","name":"put","arguments":{"a":"x","c":1}}"#,
        r#"{"role":"main","family":"chat","name":"put","arguments":{"a":"x","b":false}}"#,
        r#"{"role":"main","family":"chat","name":"put","arguments":{"c":2}}"#,
    ];
    let text = oracle(
        &["validate", "--jsonl", "--defs", defs.to_str().unwrap()],
        &lines,
    );
    let got: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(got.len(), 3, "{text}");
    assert_eq!(
        got[0]["message"],
        "put: a and c were both given; pass at most one of a, b or c."
    );
    // A boolean counts only when true.
    assert_eq!(got[1]["call"]["arguments"]["a"], "x", "{text}");
    assert_eq!(got[2]["call"]["arguments"]["c"], 2, "{text}");
}
