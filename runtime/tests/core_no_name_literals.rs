//! The runtime core never compares a tool name with a string literal: meaning that used to
//! live in names comes from the `CallInfo` tables. This scans the core's sources for quoted
//! standard tool names (including the retired ones) and for `tool_name()` comparisons in
//! every source file of the crate (core and tool families alike), outside unit tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;

/// Every name the standard definitions give a tool: the tool files' names, the aliases and
/// the retired names (the top-level keys of aliases.yaml and retired.yaml). Derived from
/// tool-defs/ so a tool added there is scanned for without editing this test.
fn tool_names() -> Vec<String> {
    let defs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-defs");
    let mut names = Vec::new();
    {
        let dir = "tools";
        for entry in std::fs::read_dir(defs.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yaml") {
                names.push(path.file_stem().unwrap().to_string_lossy().into_owned());
            }
        }
    }
    for file in ["aliases.yaml", "retired.yaml"] {
        let text = std::fs::read_to_string(defs.join(file)).unwrap();
        for line in text.lines() {
            let starts_key = line.chars().next().is_some_and(|c| c.is_ascii_lowercase());
            if let Some((key, _)) = line.split_once(':').filter(|_| starts_key) {
                names.push(key.trim().to_owned());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

fn sources() -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // The whole crate: the core and every tool family.
    let mut files = Vec::new();
    let mut dirs = vec![src];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn no_quoted_tool_name_in_the_core() {
    let files = sources();
    assert!(files.len() >= 30, "scanned too little: {files:?}");
    let names = tool_names();
    for expected in [
        "shell_session",
        "sql_query",
        "get_current_time",
        "shell_poll",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not in {names:?}"
        );
    }
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        // Unit tests (after `#[cfg(test)]`) may name tools.
        let lines = text.lines().take_while(|l| l.trim() != "#[cfg(test)]");
        for (line_no, line) in lines.enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for name in &names {
                if code.contains(&format!("\"{name}\"")) {
                    found.push(format!(
                        "{}:{}: {}",
                        file.display(),
                        line_no + 1,
                        line.trim()
                    ));
                }
            }
            if code.contains("tool_name()") && (code.contains("==") || code.contains("match")) {
                found.push(format!(
                    "{}:{}: {}",
                    file.display(),
                    line_no + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "tool names compared in runtime source:\n{}",
        found.join("\n")
    );
}
