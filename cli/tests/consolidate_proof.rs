//! The proof of issue 19: on a copy of examples/consolidation/before, `lint` with a usage
//! fixture finds the case study's merge groups, delete candidates and the keep of
//! set_workdirs; running exactly the commands it suggests turns the copy into a surface whose
//! side_chat ledger (`diff --from before`) is net −18 with the same groups as the
//! hand-written tool-defs (tests/data/ledger_side_chat.txt), and `check` is clean.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::cli_support;
use cli_support::*;

use std::collections::BTreeSet;
use std::path::Path;

const USAGE: &str = "tests/data/consolidate/usage_before.json";

fn lint_json(dir: &Path) -> Vec<serde_json::Value> {
    let o = run(&[
        "lint",
        dir.to_str().unwrap(),
        "--role",
        "side_chat",
        "--usage",
        USAGE,
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    v["findings"].as_array().unwrap().clone()
}

fn finding<'a>(findings: &'a [serde_json::Value], id: &str) -> &'a serde_json::Value {
    findings
        .iter()
        .find(|f| f["id"] == id)
        .unwrap_or_else(|| panic!("no finding {id} in {findings:#?}"))
}

/// The merge groups of a ledger: (delta, the merged names), and the retired names.
fn groups(ledger: &str) -> (BTreeSet<(String, BTreeSet<String>)>, BTreeSet<String>) {
    let mut merged = BTreeSet::new();
    let mut retired = BTreeSet::new();
    let mut section = "";
    for line in ledger.lines() {
        let t = line.trim_start();
        if t.starts_with("retired (") {
            section = "retired";
        } else if t.starts_with("merged (") {
            section = "merged";
        } else if t.starts_with("net ") {
            section = "";
        } else if section == "retired" && line.starts_with("    ") && !line.starts_with("      ") {
            retired.insert(t.split_whitespace().next().unwrap().to_owned());
        } else if section == "merged"
            && t.starts_with('−')
            && let Some((head, _)) = t.split_once(" → ")
        {
            let (delta, names) = head.split_once("  ").unwrap();
            let names = names.split(", ").map(|s| s.trim().to_owned()).collect();
            merged.insert((delta.to_owned(), names));
        }
    }
    (merged, retired)
}

#[test]
fn lint_suggests_the_case_study_and_its_commands_reproduce_the_ledger() {
    let (_tmp, dir) = temp_copy("examples/consolidation/before", "surface");
    let findings = lint_json(&dir);

    // Every finding points at a real file:line:col.
    for f in &findings {
        let file = Path::new(f["file"].as_str().unwrap());
        assert!(file.is_file(), "{f}");
        let line = f["line"].as_u64().unwrap() as usize;
        let lines = std::fs::read_to_string(file).unwrap().lines().count();
        assert!(
            line >= 1 && line <= lines && f["col"].as_u64().unwrap() >= 1,
            "{f}"
        );
    }

    // The four merge groups.
    let shell = finding(&findings, "merge/shell_session");
    for t in [
        "shell_poll",
        "shell_wait",
        "shell_kill",
        "shell_list",
        "shell_resize",
        "shell_watch_remove",
    ] {
        assert!(shell["command"].as_str().unwrap().contains(t), "{shell}");
    }
    assert!(
        shell["verdict"]
            .as_str()
            .unwrap()
            .contains("by action: poll, wait, kill, list, resize"),
        "{shell}"
    );
    let messages = finding(&findings, "merge/message_read");
    assert!(
        messages["verdict"]
            .as_str()
            .unwrap()
            .contains("by mode: history, context, payload"),
        "{messages}"
    );
    let ssh = finding(
        &findings,
        "merge/ssh_read_file+ssh_write_file+ssh_file_edit",
    );
    assert!(
        ssh["verdict"]
            .as_str()
            .unwrap()
            .contains("into read_file, write_file, file_edit"),
        "{ssh}"
    );
    let introspect = finding(&findings, "merge/introspect");
    assert!(
        introspect["verdict"]
            .as_str()
            .unwrap()
            .starts_with("merge llm_config_inspect, list_models into introspect by target"),
        "{introspect}"
    );
    // The delete candidates: the time and listing tools (and the two covered by another tool).
    for t in [
        "get_current_time",
        "parse_timestamp",
        "list_dir",
        "glob_files",
        "get_facts",
        "get_workdirs",
    ] {
        let f = finding(&findings, &format!("delete/{t}"));
        assert_eq!(f["command"], format!("toolsurface retire {t}"));
    }
    // Keep: set_workdirs, with its evidence.
    let keep = finding(&findings, "keep/set_workdirs");
    assert!(
        keep["evidence"][0]
            .as_str()
            .unwrap()
            .contains("384 calls in 378 threads"),
        "{keep}"
    );
    assert!(!findings.iter().any(|f| f["id"] == "delete/set_workdirs"));
    // Observed confusion shows up.
    finding(&findings, "confusable/read_file~ssh_read_file");

    // Run exactly what the lint suggests.
    let commands: Vec<String> = findings
        .iter()
        .filter(|f| f["rule"] == "merge" || f["rule"] == "delete")
        .filter_map(|f| f["command"].as_str())
        .flat_map(|c| c.split(" && ").map(str::to_owned).collect::<Vec<_>>())
        .collect();
    assert_eq!(commands.len(), 12, "{commands:#?}");
    for c in &commands {
        assert!(
            !c.contains('\''),
            "a suggested command needs no quoting: {c}"
        );
        let mut args: Vec<&str> = c.split_whitespace().skip(1).collect();
        args.extend(["--dir", dir.to_str().unwrap()]);
        let o = run(&args);
        assert_eq!(code(&o), 0, "{c}\n{}{}", stdout(&o), stderr(&o));
        eprintln!("$ {c}\n{}", stdout(&o).lines().next().unwrap_or(""));
    }

    // check is clean once the new surface is accepted into its lock.
    let o = run(&[
        "lock",
        dir.to_str().unwrap(),
        "--accept-breaking",
        "--reason",
        "consolidation",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // No error, and no warning the consolidation caused: the case study's surface declares
    // no `examples:`, so `no-example` warnings come with the input (issue 16).
    let o = run(&["check", dir.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let report = stderr(&o);
    let other_warnings: Vec<&str> = report
        .lines()
        .filter(|l| l.contains("warning[") && !l.contains("warning[no-example]"))
        .map(str::trim)
        .collect();
    assert!(other_warnings.is_empty(), "{other_warnings:#?}");
    // Nothing left to merge or delete.
    let after = lint_json(&dir);
    assert!(
        !after
            .iter()
            .any(|f| f["rule"] == "merge" || f["rule"] == "delete"),
        "{after:#?}"
    );

    // The ledger: net −18, the same groups as the hand-written tool-defs.
    let o = run(&[
        "diff",
        "--from",
        "examples/consolidation/before",
        "--to",
        dir.to_str().unwrap(),
        "--role",
        "side_chat",
    ]);
    let out = stdout(&o);
    let ledger: String = out
        .lines()
        .skip_while(|l| !l.starts_with("ledger side_chat"))
        .take_while(|l| !l.starts_with("prompt caches"))
        .map(|l| format!("{l}\n"))
        .collect();
    eprintln!("{ledger}");
    assert!(ledger.contains("net −18 tools (32 → 14)"), "{out}");
    let hand = std::fs::read_to_string(repo().join("tests/data/ledger_side_chat.txt")).unwrap();
    assert_eq!(groups(&ledger), groups(&hand), "{ledger}");
    assert_eq!(groups(&ledger).0.len(), 4);
    assert_eq!(groups(&ledger).1.len(), 6);
}

/// With the case study's own names (`--as …,unwatch`, `--param device --rename host=device`,
/// `--as llm,models`), the side_chat ledger's retired and merged sections and its net line
/// are the hand-written consolidation's, byte for byte (sizes differ: the hand-written
/// tool-defs also tightened bounds and reworded descriptions).
#[test]
fn the_case_study_names_reproduce_the_hand_written_ledger() {
    let (_tmp, dir) = temp_copy("examples/consolidation/before", "surface");
    let d = dir.to_str().unwrap();
    let mut steps: Vec<Vec<&str>> = vec![
        vec![
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
        ],
        vec![
            "merge",
            "message_history_read",
            "message_context_read",
            "message_payload_read",
            "--into",
            "message_read",
            "--prefer",
            "limit=message_history_read",
        ],
        vec![
            "merge",
            "ssh_read_file",
            "--into",
            "read_file",
            "--param",
            "device",
            "--rename",
            "host=device",
        ],
        vec![
            "merge",
            "ssh_write_file",
            "--into",
            "write_file",
            "--param",
            "device",
            "--rename",
            "host=device",
        ],
        vec![
            "merge",
            "ssh_file_edit",
            "--into",
            "file_edit",
            "--param",
            "device",
            "--rename",
            "host=device",
        ],
        vec![
            "merge",
            "llm_config_inspect",
            "list_models",
            "--into",
            "introspect",
            "--selector",
            "target",
            "--as",
            "llm,models",
        ],
    ];
    for t in [
        "list_dir",
        "glob_files",
        "get_facts",
        "get_workdirs",
        "get_current_time",
        "parse_timestamp",
    ] {
        steps.push(vec!["retire", t]);
    }
    for mut s in steps {
        s.extend(["--dir", d]);
        let o = run(&s);
        assert_eq!(code(&o), 0, "{s:?}\n{}", stderr(&o));
    }
    let o = run(&[
        "diff",
        "--from",
        "examples/consolidation/before",
        "--to",
        d,
        "--role",
        "side_chat",
    ]);
    let head = |text: &str| -> String {
        text.lines()
            .skip_while(|l| !l.starts_with("ledger side_chat"))
            .take_while(|l| !l.trim_start().starts_with("family "))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let hand = std::fs::read_to_string(repo().join("tests/data/ledger_side_chat.txt")).unwrap();
    assert_eq!(head(&stdout(&o)), head(&hand));
    assert!(head(&hand).contains("net −18 tools (32 → 14)"));
}
