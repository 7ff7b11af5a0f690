//! `toolsurface check` against `surface.lock`, `toolsurface lock` and `toolsurface stats`,
//! run as the built binary on temporary copies of tool-defs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use crate::cli_support;
use cli_support::*;

fn check(dir: &Path) -> Output {
    run(&["check", dir.to_str().unwrap()])
}

#[test]
fn check_is_clean_on_the_repo() {
    for dir in ["tool-defs", "examples/consolidation/before"] {
        let o = run(&["check", dir]);
        assert_eq!(code(&o), 0, "{dir}:\n{}{}", stdout(&o), stderr(&o));
        assert!(
            stdout(&o).contains("surface.lock matches"),
            "{}",
            stdout(&o)
        );
    }
}

#[test]
fn check_never_writes_and_a_copy_is_clean() {
    let (_t, dir) = defs();
    let before = std::fs::read_to_string(dir.join("surface.lock")).unwrap();
    let o = check(&dir);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    edit(
        &dir,
        "tools/grep_files.yaml",
        "Search file contents",
        "Search the contents of files",
    );
    let o = check(&dir);
    assert_eq!(code(&o), 3);
    assert_eq!(
        std::fs::read_to_string(dir.join("surface.lock")).unwrap(),
        before
    );
}

#[test]
fn a_description_edit_is_compatible_drift() {
    let (_t, dir) = defs();
    edit(
        &dir,
        "tools/grep_files.yaml",
        "Search file contents",
        "Search the contents of files",
    );
    let o = check(&dir);
    assert_eq!(code(&o), 3, "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("compatible description-changed/side_chat/grep_files"),
        "{out}"
    );
    assert!(
        out.contains("grep_files: description text of the tool changed"),
        "{out}"
    );
    assert!(out.contains("busts side_chat/chat"), "{out}");
    assert!(out.contains("toolsurface lock"), "{out}");
}

#[test]
fn removing_a_tool_everywhere_is_breaking() {
    let (_t, dir) = defs();
    edit(&dir, "roles.yaml", "    - set_workdirs\n", "");
    std::fs::remove_file(dir.join("tools/set_workdirs.yaml")).unwrap();
    let o = check(&dir);
    assert_eq!(code(&o), 4, "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("breaking   tool-removed/side_chat/set_workdirs"),
        "{out}"
    );
    assert!(
        out.contains("tool-removed/maintainer/set_workdirs"),
        "{out}"
    );
}

#[test]
fn removing_a_tool_with_an_alias_to_its_new_home_is_compatible() {
    let (_t, dir) = defs();
    let text = std::fs::read_to_string(dir.join("tools/set_workdirs.yaml")).unwrap();
    std::fs::write(
        dir.join("tools/declare_workdirs.yaml"),
        text.replacen("name: set_workdirs", "name: declare_workdirs", 1),
    )
    .unwrap();
    std::fs::remove_file(dir.join("tools/set_workdirs.yaml")).unwrap();
    edit(
        &dir,
        "roles.yaml",
        "    - set_workdirs\n",
        "    - declare_workdirs\n",
    );
    let aliases = std::fs::read_to_string(dir.join("aliases.yaml")).unwrap();
    std::fs::write(
        dir.join("aliases.yaml"),
        format!("{aliases}\nset_workdirs:\n  tool: declare_workdirs\n"),
    )
    .unwrap();
    let o = check(&dir);
    assert_eq!(code(&o), 3, "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("set_workdirs: merged into declare_workdirs"),
        "{out}"
    );
    assert!(
        out.contains("compatible tool-merged/side_chat/set_workdirs"),
        "{out}"
    );
    assert!(!out.contains("breaking   "), "{out}");
}

#[test]
fn a_required_field_added_is_breaking() {
    let (_t, dir) = defs();
    edit(
        &dir,
        "tools/grep_files.yaml",
        "required: [pattern]",
        "required: [pattern, path]",
    );
    let o = check(&dir);
    assert_eq!(code(&o), 4, "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("breaking   required-added/side_chat/grep_files/path"),
        "{out}"
    );
    assert!(out.contains("path is now required (was optional)"), "{out}");
}

#[test]
fn an_enum_value_removed_is_breaking() {
    let (_t, dir) = defs();
    edit(
        &dir,
        "tools/message_read.yaml",
        "values: [transcript, audit]",
        "values: [transcript]",
    );
    let o = check(&dir);
    assert_eq!(code(&o), 4, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("breaking   enum-value-removed/side_chat/message_read/view/audit"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_bound_narrowed_is_breaking_and_widened_is_compatible() {
    let (_t, dir) = defs();
    // Narrowed, but not below limit's default of 2000 (a default out of bounds is invalid).
    edit(
        &dir,
        "tools/read_file.yaml",
        "maximum: 20000",
        "maximum: 5000",
    );
    let o = check(&dir);
    assert_eq!(code(&o), 4, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("breaking   bound-narrowed/side_chat/read_file/limit/maximum"),
        "{}",
        stdout(&o)
    );
    edit(
        &dir,
        "tools/read_file.yaml",
        "maximum: 5000",
        "maximum: 90000",
    );
    let o = check(&dir);
    assert_eq!(code(&o), 3, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("compatible bound-widened/side_chat/read_file/limit/maximum"));
}

#[test]
fn a_stale_lock_entry_is_drift() {
    let (_t, dir) = defs();
    let lock = std::fs::read_to_string(dir.join("surface.lock")).unwrap();
    // Copy the steward × chat block under a role that no longer exists.
    let start = lock.find("surface steward chat\n").unwrap();
    let end = start + lock[start..].find("\n\n").unwrap();
    let block = lock[start..end].replacen("surface steward chat", "surface reviewer chat", 1);
    let stale = format!("{}\n\n{block}{}", &lock[..end], &lock[end..]);
    std::fs::write(dir.join("surface.lock"), stale).unwrap();
    let o = check(&dir);
    assert_eq!(code(&o), 4, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("role-removed/reviewer"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_missing_lock_is_drift_and_says_how_to_lock() {
    let (_t, dir) = defs();
    std::fs::remove_file(dir.join("surface.lock")).unwrap();
    let o = check(&dir);
    assert_eq!(code(&o), 3);
    assert!(
        stdout(&o).contains("run `toolsurface lock"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_hand_edited_lock_is_invalid() {
    let (_t, dir) = defs();
    edit(
        &dir,
        "surface.lock",
        "\"description\":\"",
        "\"description\":\"X",
    );
    let o = check(&dir);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("not a valid lock"), "{}", stderr(&o));
}

#[test]
fn a_token_budget_exceeded_is_invalid_with_the_numbers() {
    let (_t, dir) = defs();
    edit(
        &dir,
        "roles.yaml",
        "  token_budget: 4900",
        "  token_budget: 1000",
    );
    let o = check(&dir);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("role side_chat: the anthropic array costs"),
        "{err}"
    );
    assert!(err.contains("over its token_budget of 1000"), "{err}");
}

#[test]
fn lock_refuses_breaking_without_the_flag_and_records_the_reason() {
    let (_t, dir) = defs();
    let d = dir.to_str().unwrap();
    let before = std::fs::read_to_string(dir.join("surface.lock")).unwrap();
    edit(
        &dir,
        "tools/read_file.yaml",
        "maximum: 20000",
        "maximum: 5000",
    );
    let o = run(&["lock", d]);
    assert_eq!(code(&o), 4, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("refused"), "{}", stdout(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("surface.lock")).unwrap(),
        before
    );
    // The flag alone is a usage error: a reason is required.
    let o = run(&["lock", d, "--accept-breaking"]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    let o = run(&[
        "lock",
        d,
        "--accept-breaking",
        "--reason",
        "reads are capped at 100 lines now",
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let lock = std::fs::read_to_string(dir.join("surface.lock")).unwrap();
    // The newest record is the last one (the committed lock may carry older ones).
    let accepted = lock.lines().rfind(|l| l.starts_with("accepted ")).unwrap();
    assert!(
        accepted.contains("reads are capped at 100 lines now"),
        "{accepted}"
    );
    assert!(
        accepted.contains("bound-narrowed/side_chat/read_file/limit/maximum"),
        "{accepted}"
    );
    let date = accepted.split(' ').nth(1).unwrap();
    assert_eq!(date.len(), 10, "{date}");
    assert_eq!(code(&check(&dir)), 0);
    // No temporary files left behind.
    let stray: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(stray.is_empty());
    // Compatible drift is accepted without the flag; the record stays.
    edit(
        &dir,
        "tools/grep_files.yaml",
        "Search file contents",
        "Search the contents of files",
    );
    let o = run(&["lock", d]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let lock = std::fs::read_to_string(dir.join("surface.lock")).unwrap();
    assert!(lock.contains("reads are capped at 100 lines now"));
    assert_eq!(code(&check(&dir)), 0);
}

#[test]
fn lock_is_deterministic() {
    let (_t, dir) = defs();
    std::fs::remove_file(dir.join("surface.lock")).unwrap();
    let o = run(&["lock", dir.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    // A fresh lock has no history: compare everything but the `accepted` records (and the
    // comment introducing them), which only `lock --accept-breaking` writes.
    let surface_lines = |text: &str| -> Vec<String> {
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| !l.starts_with("accepted "))
            .map(str::to_owned)
            .collect();
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        lines
    };
    let written = std::fs::read_to_string(dir.join("surface.lock")).unwrap();
    let committed = std::fs::read_to_string(repo().join("tool-defs/surface.lock")).unwrap();
    assert_eq!(surface_lines(&written), surface_lines(&committed));
}

#[test]
fn stats_prints_token_counts() {
    let o = run(&["stats", "tool-defs", "--role", "side_chat"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    // The tokens column agrees with the lock.
    let lock = std::fs::read_to_string(repo().join("tool-defs/surface.lock")).unwrap();
    let block = &lock[lock.find("surface side_chat chat\n").unwrap()..];
    let tokens: String = block
        .lines()
        .find(|l| l.trim_start().starts_with("tokens "))
        .unwrap()
        .trim_start()["tokens ".len()..]
        .to_owned();
    let row = out
        .lines()
        .find(|l| l.starts_with("side_chat  chat "))
        .unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[4], tokens, "{row}");
    assert_eq!(cols[5], "4900");
    assert!(out.contains("side_chat × chat: costliest tools"), "{out}");
    assert!(out.contains("  5. "), "{out}");
    assert!(!out.contains("\nmain "), "{out}");
    // What message_read's `shapes:` save: the published output schema is the lock's, and
    // smaller than the same schema inlined.
    let published = lock
        .lines()
        .find_map(|l| l.strip_prefix("output message_read "))
        .unwrap();
    let line = out
        .lines()
        .find(|l| l.starts_with("  message_read: message — output schema "))
        .unwrap_or_else(|| panic!("{out}"));
    let numbers: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    let [tokens, bytes, inlined_tokens, inlined_bytes] = numbers[..] else {
        panic!("{line}")
    };
    assert_eq!(bytes, published.len(), "{line}");
    assert!(published.contains("\"$defs\":{\"message\":"), "{published}");
    assert!(
        inlined_bytes > 2 * bytes && inlined_tokens > 2 * tokens,
        "{line}"
    );
}

/// A definitions file that is not UTF-8 is an invalid definition (exit 1, at the first bad
/// byte), not an I/O error (exit 2).
#[test]
fn a_definitions_file_that_is_not_utf8_is_invalid_with_its_position() {
    let (_t, dir) = defs();
    let path = dir.join("tools/grep_files.yaml");
    let mut bytes = std::fs::read(&path).unwrap();
    let second_line = bytes.iter().position(|b| *b == b'\n').unwrap() + 1;
    bytes.insert(second_line + 2, 0xff);
    std::fs::write(&path, bytes).unwrap();
    let o = check(&dir);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        all.contains("tools/grep_files.yaml:2:3: error[not-utf8]"),
        "{all}"
    );
}
