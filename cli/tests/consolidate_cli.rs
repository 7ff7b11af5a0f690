//! `lint`, `merge` and `retire` as a user meets them: refusals that write nothing, edits that
//! keep every untouched line, the ssh → `device` rename, retire's report of what still
//! names a tool, output formats, `--deny`, thresholds and `--help` examples. The built
//! binary on temporary copies of examples/consolidation/before.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::cli_support;
use cli_support::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const USAGE: &str = "tests/data/consolidate/usage_before.json";

fn before() -> (tempfile::TempDir, PathBuf) {
    temp_copy("examples/consolidation/before", "before")
}

fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

fn d(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

#[test]
fn a_field_conflict_is_spelled_out_and_nothing_is_written() {
    let (_t, dir) = before();
    let was = snapshot(&dir);
    let o = run(&[
        "merge",
        "message_history_read",
        "message_payload_read",
        "--into",
        "message_read",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(
        err.contains("field `limit` is declared differently"),
        "{err}"
    );
    assert!(err.contains("message_history_read: type: integer; minimum: 1; description: Maximum number of messages."), "{err}");
    assert!(err.contains("--prefer limit=message_history_read"), "{err}");
    assert_eq!(snapshot(&dir), was);
    // With the choice made it goes through.
    let o = run(&[
        "merge",
        "message_history_read",
        "message_payload_read",
        "--into",
        "message_read",
        "--prefer",
        "limit=message_payload_read",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(read(&dir, "tools/message_read.yaml").contains("description: Maximum characters."));
}

#[test]
fn a_result_that_would_not_check_is_refused_with_the_reason() {
    let (_t, dir) = before();
    let was = snapshot(&dir);
    // `ls` is an alias: a tool of that name would shadow it.
    let o = run(&[
        "merge",
        "shell_poll",
        "shell_wait",
        "--into",
        "ls",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(
        err.contains("would not pass check (nothing written)"),
        "{err}"
    );
    assert!(err.contains("alias-shadows-tool"), "{err}");
    assert_eq!(snapshot(&dir), was);
    // Unknown tools, plain-tool rule, --as count: refused before anything is compiled.
    let o = run(&["merge", "nope", "--into", "x", "--dir", d(&dir)]);
    assert!(
        stderr(&o).contains("`nope` is not a tool of this folder"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "merge",
        "shell_poll",
        "shell_wait",
        "--into",
        "s",
        "--as",
        "a",
        "--dir",
        d(&dir),
    ]);
    assert!(
        stderr(&o).contains("--as names 1 action(s) for 2 tool(s)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(snapshot(&dir), was);
}

#[test]
fn untouched_lines_keep_their_comments_and_layout() {
    let (_t, dir) = before();
    let roles = read(&dir, "roles.yaml");
    let aliases = read(&dir, "aliases.yaml");
    let o = run(&[
        "merge",
        "shell_poll",
        "shell_wait",
        "shell_kill",
        "shell_list",
        "shell_resize",
        "shell_watch_remove",
        "--into",
        "shell_session",
        "--as",
        "poll,wait,kill,list,resize,unwatch",
        "--prefer",
        "route=shell_poll",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().next().unwrap(),
        "−5: shell_poll, shell_wait, shell_kill, shell_list, shell_resize, shell_watch_remove → shell_session (new) by action: poll, wait, kill, list, resize, unwatch"
    );
    // roles.yaml: exactly the old names' lines changed, the first one now the new name.
    let new_roles = read(&dir, "roles.yaml");
    let expected: String = roles
        .lines()
        .filter(|l| {
            ![
                "shell_wait",
                "shell_kill",
                "shell_list",
                "shell_resize",
                "shell_watch_remove",
            ]
            .contains(&l.trim().trim_start_matches("- "))
        })
        .map(|l| format!("{}\n", l.replace("- shell_poll", "- shell_session")))
        .collect();
    assert_eq!(new_roles, expected);
    // aliases.yaml: the old text untouched, the new aliases appended.
    let new_aliases = read(&dir, "aliases.yaml");
    assert!(new_aliases.starts_with(&aliases), "{new_aliases}");
    assert!(
        new_aliases
            .contains("shell_watch_remove:\n  tool: shell_session\n  set: { action: unwatch }\n"),
        "{new_aliases}"
    );
    for old in [
        "shell_poll",
        "shell_wait",
        "shell_kill",
        "shell_list",
        "shell_resize",
        "shell_watch_remove",
    ] {
        assert!(!dir.join(format!("tools/{old}.yaml")).exists());
    }
    // References were pointed at the new tool and the repeated ones collapsed.
    let shell = read(&dir, "tools/shell.yaml");
    assert!(
        shell.contains("follow it with {{ tool(\"shell_session\") }}. Use it"),
        "{shell}"
    );
    assert!(
        stdout(&o).contains(
            "note: tools/shell.yaml:4: a reference to shell_poll now names shell_session"
        )
    );
    // One action per old tool with its own fields and traits; the folder checks.
    let st = read(&dir, "tools/shell_session.yaml");
    assert!(st.contains("  resize:\n    description: Resize the PTY of a background shell session (for full-screen programs).\n    required: [session_id, cols, rows]\n    optional: [host_id]\n    traits: { follow_up: true }\n"), "{st}");
    assert!(
        st.contains("traits: { result_on_interrupt: true }\n"),
        "{st}"
    );
    let o = run(&["check", d(&dir)]);
    assert!(!stderr(&o).contains("error["), "{}", stderr(&o));
}

#[test]
fn ssh_tools_become_the_device_parameter() {
    let (_t, dir) = before();
    let o = run(&[
        "merge",
        "ssh_read_file",
        "--into",
        "read_file",
        "--param",
        "device",
        "--rename",
        "host=device",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().next().unwrap(),
        "−1: ssh_read_file → read_file (host → device)"
    );
    assert!(
        read(&dir, "aliases.yaml")
            .contains("ssh_read_file:\n  tool: read_file\n  rename: { host: device }\n")
    );
    let rf = read(&dir, "tools/read_file.yaml");
    assert!(rf.contains("  device:\n    type: string\n    description: SSH host - an OpenSSH alias, hostname or user@host.\n"), "{rf}");
    // Without --param the missing field is named, with the command that adds it.
    let o = run(&[
        "merge",
        "ssh_write_file",
        "--into",
        "write_file",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains(
            "`ssh_write_file` has field `host`, which `write_file` lacks: add it with --param host"
        ),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "merge",
        "ssh_write_file",
        "ssh_file_edit",
        "--into",
        "write_file",
        "--param",
        "device",
        "--rename",
        "host=device",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 1, "file_edit's fields are not write_file's");
    // The diff groups the renames the way the hand-written consolidation does.
    for (t, into) in [
        ("ssh_write_file", "write_file"),
        ("ssh_file_edit", "file_edit"),
    ] {
        let o = run(&[
            "merge",
            t,
            "--into",
            into,
            "--param",
            "device",
            "--rename",
            "host=device",
            "--dir",
            d(&dir),
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    run(&["lock", d(&dir), "--accept-breaking", "--reason", "ssh"]);
    let o = run(&[
        "diff",
        "--from",
        "examples/consolidation/before",
        "--to",
        d(&dir),
        "--role",
        "side_chat",
    ]);
    assert!(
        stdout(&o).contains("−3  ssh_read_file, ssh_write_file, ssh_file_edit → the `device` parameter of read_file, write_file, file_edit"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn choice_field_and_existing_selector_targets() {
    let (_t, dir) = before();
    let o = run(&[
        "merge",
        "list_models",
        "--into",
        "introspect",
        "--selector",
        "target",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        read(&dir, "tools/introspect.yaml").contains("pattern: '^(?:tools|skills|hosts|models)$'")
    );
    assert!(
        read(&dir, "aliases.yaml")
            .contains("list_models:\n  tool: introspect\n  set: { target: models }\n")
    );
    // A plain target without that field: refused with the reason.
    let o = run(&[
        "merge",
        "get_facts",
        "--into",
        "search_memory",
        "--selector",
        "mode",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("`search_memory` has no field `mode`"),
        "{}",
        stderr(&o)
    );
    // Into a tool that already has actions: new actions appended.
    let o = run(&[
        "merge",
        "shell_poll",
        "shell_wait",
        "--into",
        "shell_session",
        "--prefer",
        "route=shell_poll",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run(&[
        "merge",
        "shell_kill",
        "--into",
        "shell_session",
        "--as",
        "kill",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().next().unwrap(),
        "−1: shell_kill → shell_session by action: kill"
    );
    let st = read(&dir, "tools/shell_session.yaml");
    assert!(
        st.contains("  kill:\n    description: Kill a background shell session"),
        "{st}"
    );
}

#[test]
fn retire_reports_what_still_names_the_tool() {
    let (_t, dir) = before();
    let o = run(&[
        "retire",
        "shell_wait",
        "--message",
        "Use shell_poll.",
        "--dir",
        d(&dir),
    ]);
    assert_eq!(code(&o), 1, "written, but check fails");
    assert_eq!(
        stdout(&o).lines().next().unwrap(),
        "−1: shell_wait retired: Use shell_poll."
    );
    let err = stderr(&o);
    assert!(
        err.contains("tools/exec_command.yaml:4:269: error[template-retired-tool]"),
        "{err}"
    );
    assert!(
        err.contains("tools/shell.yaml:4:234: error[template-retired-tool]"),
        "{err}"
    );
    assert!(read(&dir, "retired.yaml").contains("shell_wait:\n  message: Use shell_poll.\n"));
    assert!(!read(&dir, "roles.yaml").contains("shell_wait"));
    assert!(!dir.join("tools/shell_wait.yaml").exists());
    // The folder is now invalid: every command refuses it until it is fixed.
    let o = run(&["retire", "glob_files", "--dir", d(&dir)]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("template-retired-tool"));
    // replaceable_by: supplies message and tools; aliases leading to it retire with it.
    let (_t2, dir) = before();
    let o = run(&["retire", "glob_files", "--dir", d(&dir)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("note: aliases find_files, glob led to glob_files: retired with it"),
        "{}",
        stdout(&o)
    );
    let retired = read(&dir, "retired.yaml");
    assert!(
        retired.contains("glob:\n  message: Run `rg --files -g '<glob>'`"),
        "{retired}"
    );
    assert!(!read(&dir, "aliases.yaml").contains("glob_files"));
    assert!(
        read(&dir, "tools/grep_files.yaml")
            .contains("To find files by name use {{ shell_tool() }}.")
    );
    // No message and nothing declared: refused.
    let o = run(&["retire", "shell_kill", "--dir", d(&dir)]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("--message"), "{}", stderr(&o));
}

#[test]
fn formats_deny_and_thresholds() {
    let o = run(&[
        "lint",
        "examples/consolidation/before",
        "--role",
        "side_chat",
        "--format",
        "github",
    ]);
    assert_eq!(code(&o), 0);
    assert!(
        stdout(&o).lines().any(|l| l.starts_with("::warning file=examples/consolidation/before/tools/list_dir.yaml,line=20,col=1,title=delete/list_dir::")),
        "{}",
        stdout(&o)
    );
    let o = run(&["lint", "examples/consolidation/before", "--deny", "warning"]);
    assert_eq!(code(&o), 1);
    let o = run(&["lint", "examples/consolidation/before", "--deny", "error"]);
    assert_eq!(code(&o), 0);
    let text = stdout(&o);
    assert!(
        text.contains(
            "examples/consolidation/before/tools/shell_poll.yaml:1:1: warning[merge/shell_session]"
        ),
        "{text}"
    );
    assert!(
        text.contains("    run: toolsurface merge shell_poll"),
        "{text}"
    );
    // Keep follows the thresholds.
    let o = run(&[
        "lint",
        "examples/consolidation/before",
        "--usage",
        USAGE,
        "--format",
        "json",
    ]);
    assert!(stdout(&o).contains("\"keep/set_workdirs\""));
    let o = run(&[
        "lint",
        "examples/consolidation/before",
        "--usage",
        USAGE,
        "--format",
        "json",
        "--keep-threads",
        "1000",
        "--keep-share",
        "0.5",
    ]);
    assert!(!stdout(&o).contains("\"keep/set_workdirs\""));
    // A bad usage file is a usage error naming the problem.
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("u.json");
    std::fs::write(&bad, r#"{"threads": 1, "calls": 1}"#).unwrap();
    let o = run(&[
        "lint",
        "examples/consolidation/before",
        "--usage",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("has no `tools` list"), "{}", stderr(&o));
}

#[test]
fn transcripts_feed_lint_directly() {
    let o = run(&[
        "lint",
        "tool-defs",
        "--transcripts",
        "tests/data/transcripts/chat-conversations.jsonl",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["findings"].is_array());
}

#[test]
fn every_command_has_an_example_in_its_help() {
    for cmd in ["lint", "merge", "retire"] {
        let o = run(&[cmd, "--help"]);
        assert_eq!(code(&o), 0);
        let out = stdout(&o);
        assert!(
            out.contains("Examples:") && out.contains(&format!("toolsurface {cmd} ")),
            "{out}"
        );
    }
}

#[test]
fn an_unknown_replaceable_by_tool_is_an_error_finding() {
    let (_t, dir) = before();
    edit(
        &dir,
        "tools/list_dir.yaml",
        "tools: [shell, exec_command]",
        "tools: [shell, exec_comand]",
    );
    let o = run(&["lint", d(&dir), "--deny", "error"]);
    assert_eq!(code(&o), 1);
    assert!(
        stdout(&o).contains("error[replaceable-unknown/list_dir/exec_comand]"),
        "{}",
        stdout(&o)
    );
    // A malformed key is check's business.
    edit(&dir, "tools/list_dir.yaml", "  message:", "  mesage:");
    let o = run(&["check", d(&dir)]);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("unknown key `mesage`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn prose_mentions_and_look_alikes() {
    let (_t, dir) = before();
    edit(
        &dir,
        "tools/monitor_start.yaml",
        "so you can end the turn",
        "so you can end the turn (no need for shell_wait)",
    );
    let o = run(&["lint", d(&dir), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let ids: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"mention/monitor_start/shell_wait"), "{ids:?}");
    // tool("shell_kill") in the same description is a checked reference, not prose.
    assert!(
        !ids.contains(&"mention/monitor_start/shell_kill"),
        "{ids:?}"
    );
    // Look-alikes only when a model sees both: shell and exec_command never share a family.
    assert!(
        ids.contains(&"confusable/get_workdirs~set_workdirs")
            || ids.contains(&"delete/get_workdirs"),
        "{ids:?}"
    );
    assert!(!ids.contains(&"confusable/exec_command~shell"), "{ids:?}");
    // Copy drift: session_id described identically in five shell tools.
    assert!(
        ids.iter()
            .any(|i| i.starts_with("copy-drift/session_id/shell_poll+")),
        "{ids:?}"
    );
}

#[test]
fn a_role_over_its_token_budget_is_an_error_finding() {
    let (_t, dir) = before();
    edit(
        &dir,
        "roles.yaml",
        "token_budget: 5700",
        "token_budget: 1000",
    );
    let o = run(&["lint", d(&dir), "--role", "side_chat", "--deny", "error"]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.contains("error[budget/side_chat]"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("roles.yaml:5:1:"), "{line}");
    assert!(out.contains("over its token_budget of 1000"), "{out}");
    // Other roles are not linted with --role side_chat.
    assert!(!out.contains("budget/main"), "{out}");
}

/// An adopted surface, consolidated as lint suggests: an MCP array with camelCase and
/// hyphenated tool names, fields generated code spells alike (`commentId`, `comment_id`), a
/// field named `action`, and a default that differs between tools. import, fill the objects,
/// run lint's merge command as printed: it applies, the drift is compatible, and every old
/// call (old name, old field spelling) still parses, into its own action with its own default.
#[test]
fn an_adopted_surface_merges_as_lint_suggests_and_every_old_call_still_parses() {
    let tmp = tempfile::tempdir().unwrap();
    let tools = tmp.path().join("tools.json");
    std::fs::write(
        &tools,
        r#"{"tools":[
 {"name":"issueList","description":"List issues.","inputSchema":{"type":"object","properties":{"owner":{"type":"string"},"perPage":{"type":"integer","default":30}},"required":["owner"]}},
 {"name":"issueSearch","description":"Search issues.","inputSchema":{"type":"object","properties":{"owner":{"type":"string"},"query":{"type":"string"},"perPage":{"type":"integer","default":10},"action":{"type":"string","description":"Sort by."}},"required":["owner","query"]}},
 {"name":"issue-comment","description":"Comment on an issue.","inputSchema":{"type":"object","properties":{"owner":{"type":"string"},"commentId":{"type":"integer"},"body":{"type":"string"}},"required":["owner","commentId","body"]}},
 {"name":"issueReact","description":"React to a comment.","inputSchema":{"type":"object","properties":{"owner":{"type":"string"},"comment_id":{"type":"integer"},"action":{"type":"string","description":"Sort by."}},"required":["owner","comment_id"]}}
]}"#,
    )
    .unwrap();
    let dir = tmp.path().join("defs");
    let o = run(&["import", "--from", d(&tools), "--out", d(&dir)]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    for t in ["issueList", "issueSearch", "issue-comment", "issueReact"] {
        let p = dir.join(format!("tools/{t}.yaml"));
        let text = std::fs::read_to_string(&p).unwrap();
        let filled: String = text
            .lines()
            .map(|l| {
                if l.starts_with("object: \"\"") {
                    "object: issue\n".to_owned()
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        std::fs::write(&p, filled).unwrap();
    }
    assert_eq!(code(&run(&["lock", d(&dir)])), 0);
    let o = run(&["lint", d(&dir), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let commands: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "merge")
        .filter_map(|f| f["command"].as_str())
        .collect();
    assert_eq!(
        commands,
        [
            "toolsurface merge issueList issueSearch issue-comment issueReact --into issue --selector mode --as list,search,comment,react --rename comment_id=commentId"
        ]
    );
    let mut argv: Vec<&str> = commands[0].split(' ').skip(1).collect();
    argv.extend(["--dir", d(&dir)]);
    let m = run(&argv);
    assert_eq!(code(&m), 0, "{}{}", stdout(&m), stderr(&m));
    let merged = read(&dir, "tools/issue.yaml");
    assert!(
        merged.contains("    defaults: { perPage: 30 }\n"),
        "{merged}"
    );
    assert!(
        merged.contains("    defaults: { perPage: 10 }\n"),
        "{merged}"
    );
    let c = run(&["check", d(&dir)]);
    assert_eq!(
        code(&c),
        3,
        "compatible drift: {}{}",
        stdout(&c),
        stderr(&c)
    );
    let call = |name: &str, args: &str| {
        format!(
            r#"{{"role":"main","family":"mcp","skills":[],"name":"{name}","arguments":{args}}}"#
        )
    };
    let lines = [
        call("issueList", r#"{"owner":"o"}"#),
        call("issueSearch", r#"{"owner":"o","query":"q","action":"new"}"#),
        call("issue-comment", r#"{"owner":"o","commentId":5,"body":"b"}"#),
        call("issueReact", r#"{"owner":"o","comment_id":5}"#),
    ];
    let o = run_with_stdin(
        &["validate", "--jsonl", "--defs", d(&dir)],
        &lines.join("\n"),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        concat!(
            r#"{"ok":true,"call":{"name":"issue","arguments":{"mode":"list","owner":"o"}}}"#,
            "\n",
            r#"{"ok":true,"call":{"name":"issue","arguments":{"mode":"search","owner":"o","query":"q","action":"new"}}}"#,
            "\n",
            r#"{"ok":true,"call":{"name":"issue","arguments":{"mode":"comment","owner":"o","commentId":5,"body":"b"}}}"#,
            "\n",
            r#"{"ok":true,"call":{"name":"issue","arguments":{"mode":"react","owner":"o","commentId":5}}}"#,
            "\n",
        )
    );
}
