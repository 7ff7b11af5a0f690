//! `lint` flags actions without an example with `check`'s own `no-example` rule: the same
//! places, wording and level (the rule is declared once, in
//! `compiler::load::examples::missing_examples`, and both commands call it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::cli_support;

use std::collections::BTreeSet;

use cli_support::{code, defs, edit, run, stderr, stdout};

/// `file:line:col: warning[no-example]: message` lines `check` prints on stderr.
fn check_warnings(dir: &str) -> BTreeSet<(String, u64, u64, String)> {
    let o = run(&["check", dir]);
    stderr(&o)
        .lines()
        .filter_map(|l| {
            let (place, message) = l.split_once(": warning[no-example]: ")?;
            let mut parts = place.rsplitn(3, ':');
            let col = parts.next()?.parse().ok()?;
            let line = parts.next()?.parse().ok()?;
            let file = parts.next()?.to_owned();
            Some((file, line, col, message.to_owned()))
        })
        .collect()
}

/// The no-example findings of `lint --format json` (every role).
fn lint_findings(dir: &str) -> BTreeSet<(String, u64, u64, String)> {
    let o = run(&["lint", dir, "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "no-example")
        .map(|f| {
            assert_eq!(f["level"], "warning", "{f}");
            assert!(
                f["evidence"][0]
                    .as_str()
                    .unwrap()
                    .starts_with("add `examples: [ { ... } ]` to the"),
                "{f}"
            );
            (
                f["file"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
                f["col"].as_u64().unwrap(),
                f["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn lint_reports_what_check_warns_about_actions_without_examples() {
    // The case study's `before` surface declares no examples: every resident tool is flagged.
    let dir = "examples/consolidation/before";
    let from_check = check_warnings(dir);
    assert!(from_check.len() > 20, "{from_check:?}");
    assert_eq!(lint_findings(dir), from_check);
}

#[test]
fn an_action_that_loses_its_examples_is_flagged_by_both() {
    let (_tmp, dir) = defs();
    assert!(lint_findings(&dir.display().to_string()).is_empty());
    edit(
        &dir,
        "tools/shell_session.yaml",
        "    examples: [{\"session_id\": 3, \"cols\": 120, \"rows\": 40}]\n",
        "",
    );
    let d = dir.display().to_string();
    let found = lint_findings(&d);
    assert_eq!(found, check_warnings(&d));
    let messages: Vec<&str> = found.iter().map(|(_, _, _, m)| m.as_str()).collect();
    assert_eq!(
        messages,
        ["tool `shell_session` action=resize has no example"]
    );
}
