//! `toolsurface diff`: the consolidation ledger (pinned), stable JSON ids, git sources,
//! markdown and GitHub annotation output — the built binary on copies of tool-defs.
//! Refresh the pinned ledger with `UPDATE_EXPECT=1`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::cli_support;
use cli_support::*;

/// Compare with a file under tests/data, or rewrite it with UPDATE_EXPECT=1.
fn expect_file(name: &str, actual: &str) {
    let path = repo().join("tests/data").join(name);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} differs (UPDATE_EXPECT=1 to refresh):\n--- expected\n{expected}\n--- actual\n{actual}",
        path.display()
    );
}

#[test]
fn the_consolidation_ledger_is_pinned() {
    let o = run(&[
        "diff",
        "--from",
        "examples/consolidation/before",
        "--to",
        "tool-defs",
        "--role",
        "side_chat",
    ]);
    // The merged schemas are stricter than the tools they replace (bounds, patterns,
    // exactly_one_of) and the old ls/glob/find_files aliases went with their targets, so
    // the consolidation is breaking drift as a whole.
    assert_eq!(code(&o), 4, "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    let start = out.find("ledger side_chat").unwrap();
    let end = out.find("\nprompt caches:").unwrap();
    let summary = out.lines().find(|l| l.starts_with("findings: ")).unwrap();
    let pinned = format!("{}\n{summary}\n", &out[start..end]);
    expect_file("ledger_side_chat.txt", &pinned);
    assert!(pinned.contains("net −18 tools (32 → 14)"), "{pinned}");
    for family in ["chat ", "chat_strict", "responses", "anthropic", "gemini"] {
        let row = pinned
            .lines()
            .find(|l| l.trim_start().starts_with(family))
            .unwrap();
        assert!(row.contains("(−18)"), "{row}");
    }
    // Every merged name says where it went.
    assert!(out.contains("shell_poll: merged into shell_session {action: poll}"));
    assert!(out.contains("ssh_read_file: merged into read_file (host → device)"));
    assert!(out.contains("get_current_time: retired: Every event"));
}

#[test]
fn json_ids_are_stable_and_specific() {
    let (_t, dir) = defs();
    let d = dir.to_str().unwrap();
    edit(
        &dir,
        "tools/message_read.yaml",
        "values: [transcript, audit]",
        "values: [transcript]",
    );
    edit(
        &dir,
        "tools/shell_session.yaml",
        "optional: [host_id, timeout_s, until_output]",
        "optional: [host_id, until_output]",
    );
    // Its example must go too, or check refuses the folder (the example would be refused).
    edit(&dir, "tools/shell_session.yaml", r#""timeout_s": 60, "#, "");
    let lock = dir.join("surface.lock");
    let args = [
        "diff",
        "--from",
        lock.to_str().unwrap(),
        "--to",
        d,
        "--format",
        "json",
    ];
    let a = run(&args);
    let b = run(&args);
    assert_eq!(code(&a), 4);
    assert_eq!(a.stdout, b.stdout);
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let ids: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    for id in [
        "enum-value-removed/side_chat/message_read/view/audit",
        "field-removed/side_chat/shell_session/wait/timeout_s",
        "description-changed/side_chat/shell_session",
        "field-removed/steward/shell_session/wait/timeout_s",
    ] {
        assert!(ids.contains(&id), "{id} not in {ids:?}");
    }
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "field-removed/side_chat/shell_session/wait/timeout_s")
        .unwrap();
    assert_eq!(f["verdict"], "breaking");
    assert_eq!(f["cache"][0], "side_chat/chat");
    assert!(
        f["location"]["file"]
            .as_str()
            .unwrap()
            .ends_with("tools/shell_session.yaml")
    );
    // The cache effect: the array diverges at shell_session (index 1 on chat).
    let s = v["surfaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["role"] == "side_chat" && s["family"] == "chat")
        .unwrap();
    assert_eq!(s["status"], "changed");
    assert_eq!(s["first_tool"], 1);
    assert!(s["after"]["tokens"].as_u64().unwrap() < s["before"]["tokens"].as_u64().unwrap());
    assert_eq!(v["verdict"], "breaking");
}

#[test]
fn diff_defaults_to_the_lock_against_the_folder() {
    let (_t, dir) = defs();
    let d = dir.to_str().unwrap();
    let o = run(&["diff", "--to", d]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(stdout(&o).contains("findings: 0 breaking, 0 unknown, 0 compatible"));
    edit(
        &dir,
        "tools/grep_files.yaml",
        "Search file contents",
        "Search the contents of files",
    );
    let o = run(&["diff", "--to", d, "--family", "gemini"]);
    assert_eq!(code(&o), 3);
    let out = stdout(&o);
    assert!(out.contains("side_chat/gemini: changed"), "{out}");
    assert!(!out.contains("side_chat/chat:"), "{out}");
}

#[test]
fn git_sources_read_without_checkout() {
    // Definitions at HEAD against themselves: no drift, every surface present.
    let o = run(&[
        "diff",
        "--from",
        "git:HEAD:tool-defs",
        "--to",
        "git:HEAD:tool-defs",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["surfaces"].as_array().unwrap().len(), 20);
    assert_eq!(v["verdict"], "clean");
    // The committed before-surface against the committed tool-defs: the ledger.
    let o = run(&[
        "diff",
        "--from",
        "git:HEAD:examples/consolidation/before",
        "--to",
        "git:HEAD:tool-defs",
        "--role",
        "side_chat",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ledgers"][0]["net"], -18);
    // `git:HEAD` alone means the definitions folder (tool-defs) at HEAD.
    let o = run(&["diff", "--from", "git:HEAD", "--to", "git:HEAD:tool-defs"]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).contains("surface diff: git:HEAD → git:HEAD:tool-defs"));
    // A lock file at a revision.
    let o = run(&[
        "diff",
        "--from",
        "git:HEAD:tool-defs/surface.lock",
        "--to",
        "git:HEAD:tool-defs",
    ]);
    assert!(
        matches!(code(&o), 0 | 3 | 4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = run(&["diff", "--from", "git:no-such-rev-xyz", "--to", "tool-defs"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn github_annotations_point_at_the_yaml_line() {
    let (_t, dir) = defs();
    let d = dir.to_str().unwrap();
    // Narrowed, but not below limit's default of 2000 (a default out of bounds is invalid).
    edit(
        &dir,
        "tools/read_file.yaml",
        "maximum: 20000",
        "maximum: 5000",
    );
    edit(
        &dir,
        "tools/grep_files.yaml",
        "Search file contents",
        "Search the contents of files",
    );
    let o = run(&["diff", "--to", d, "--format", "github"]);
    assert_eq!(code(&o), 4);
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.contains("bound-narrowed/side_chat/read_file/limit/maximum"))
        .unwrap();
    assert!(line.starts_with("::error file="), "{line}");
    assert!(line.contains("tools/read_file.yaml,line="), "{line}");
    let file = std::fs::read_to_string(dir.join("tools/read_file.yaml")).unwrap();
    let n: usize = line
        .split("line=")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        file.lines().nth(n - 1).unwrap().contains("limit"),
        "line {n}"
    );
    assert!(out.contains("::warning "), "{out}");
}

#[test]
fn markdown_is_a_pr_summary() {
    let o = run(&[
        "diff",
        "--from",
        "examples/consolidation/before",
        "--to",
        "tool-defs",
        "--format",
        "markdown",
    ]);
    assert_eq!(code(&o), 4);
    let out = stdout(&o);
    assert!(
        out.starts_with("## Tool surface: **breaking drift**"),
        "{out}"
    );
    assert!(out.contains("### Ledger: side_chat"));
    assert!(out.contains("### Ledger: steward"));
    assert!(out.contains("| chat | 30 → 12 (−18) |"), "{out}");
    assert!(out.contains("<details>"));
}

#[test]
fn a_role_sandbox_change_is_judged_per_key() {
    let (_t, dir) = defs();
    let d = dir.to_str().unwrap();
    // Loosened: steward to full (its network follows the profile on; devices stay none).
    edit(
        &dir,
        "roles.yaml",
        "sandbox: { profile: workspace-write, network: off, devices: none }",
        "sandbox: { profile: full, devices: none }",
    );
    let o = run(&["diff", "--to", d]);
    assert_eq!(code(&o), 4, "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("role steward sandbox profile: workspace-write -> full (loosened)"),
        "{out}"
    );
    assert!(out.contains("sandbox-changed/steward/network"), "{out}");
    assert!(!out.contains("sandbox-changed/steward/devices"), "{out}");
    assert!(
        out.contains("findings: 2 breaking, 0 unknown, 0 compatible"),
        "{out}"
    );
    assert!(out.contains("roles.yaml:"), "located at the role: {out}");
    // `check` sees the unlocked policy; `lock` wants --accept-breaking.
    assert_ne!(code(&run(&["check", d])), 0);
    assert_ne!(code(&run(&["lock", d])), 0);
    // Tightened instead (main's network off, and so maintainer's, which extends main):
    // compatible, and `lock` takes it.
    let (_t2, dir2) = defs();
    let d2 = dir2.to_str().unwrap();
    edit(
        &dir2,
        "roles.yaml",
        "sandbox: { profile: workspace-write, network: on }",
        "sandbox: { profile: workspace-write, network: off }",
    );
    let out = stdout(&run(&["diff", "--to", d2]));
    assert!(
        out.contains("findings: 0 breaking, 0 unknown, 2 compatible"),
        "{out}"
    );
    assert!(
        out.contains("role main sandbox network: on -> off (tightened)"),
        "{out}"
    );
    let o = run(&["lock", d2]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lock = std::fs::read_to_string(dir2.join("surface.lock")).unwrap();
    assert!(
        lock.contains(
            "sandbox main {\"profile\":\"workspace-write\",\"network\":false,\"devices\":\"read-write\"}"
        ),
        "{lock}"
    );
    assert_eq!(code(&run(&["check", d2])), 0);
}
