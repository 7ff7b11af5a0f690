//! The runtime core never compares a tool name with a string literal: meaning that used to
//! live in names comes from the `CallInfo` tables. This scans the core's sources for quoted
//! standard tool names (including the retired ones) and for `tool_name()` comparisons in
//! every source file of the crate (core and tool families alike), outside unit tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;

const TOOL_NAMES: [&str; 25] = [
    "shell",
    "exec_command",
    "write_stdin",
    "shell_session",
    "monitor_start",
    "read_file",
    "write_file",
    "file_edit",
    "apply_patch",
    "grep_files",
    "message_read",
    "introspect",
    "set_workdirs",
    "search_memory",
    "activate_skill",
    "get_current_time",
    "parse_timestamp",
    "get_facts",
    "get_workdirs",
    "list_dir",
    "glob_files",
    "shell_poll",
    "shell_wait",
    "ssh_read_file",
    "list_models",
];

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
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        // Unit tests (after `#[cfg(test)]`) may name tools.
        let lines = text.lines().take_while(|l| l.trim() != "#[cfg(test)]");
        for (line_no, line) in lines.enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for name in TOOL_NAMES {
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
