//! The runtime writes no tool name itself. Meaning that used to live in names comes from the
//! `CallInfo` tables, and a text that names a tool asks the surface (`ctx.names`, the
//! generated `TOOL_NAMES`), so a rename in the YAML renames it in the texts. This scans every
//! string literal of every source file of the crate (core and tool families alike, outside
//! unit tests) for any name tool-defs/ gives a tool (every tool file, sql_query included; aliases; retired
//! names) as a word, and for `tool_name()` comparisons.
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

/// Words that are a tool's name but, in these phrases, plain English (the shell tool's name
/// is also what a shell is).
const PLAIN_ENGLISH: &[&str] = &["shell session", "shell characters"];

/// Every string literal of `text` before `#[cfg(test)]`, with its line: "…", r"…", r#"…"#,
/// b"…"; comments and char literals skipped, `\` line continuations joined as rustc joins them.
fn string_literals(text: &str) -> Vec<(usize, String)> {
    let text = text.split("\n#[cfg(test)]").next().unwrap_or_default();
    let b = text.as_bytes();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    let newlines = |s: &[u8]| s.iter().filter(|c| **c == b'\n').count();
    while i < b.len() {
        let rest = &text[i..];
        let word_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |e| e + 2);
            line += newlines(&b[i..i + end]);
            i += end;
        } else if let Some(start) = raw_string_start(rest).filter(|_| !word_before) {
            let hashes = &rest[rest.find('r').unwrap() + 1..start - 1];
            let close = format!("\"{hashes}");
            let end = rest[start..].find(&close).unwrap() + start;
            out.push((line, rest[start..end].to_owned()));
            line += newlines(&b[i..i + end]);
            i += end + close.len();
        } else if rest.starts_with('"') {
            let mut j = 1;
            let mut s = String::new();
            let chars: Vec<char> = rest.chars().collect();
            let mut k = 1;
            while chars[k] != '"' {
                if chars[k] == '\\' && chars[k + 1] == '\n' {
                    k += 2;
                    while chars[k].is_whitespace() {
                        k += 1;
                    }
                    continue;
                }
                if chars[k] == '\\' {
                    s.push(chars[k]);
                    s.push(chars[k + 1]);
                    k += 2;
                    continue;
                }
                s.push(chars[k]);
                k += 1;
            }
            for c in &chars[..=k] {
                j += c.len_utf8();
            }
            out.push((line, s));
            line += newlines(&b[i..i + j - 1]);
            i += j - 1;
        } else if rest.starts_with('\'') {
            // A char literal ('x', '\n', '"') or a lifetime ('a): skip the literal whole.
            let lit = rest
                .char_indices()
                .skip(1)
                .take(12)
                .find(|(_, c)| *c == '\'');
            let is_char = lit.is_some_and(|(e, _)| e <= 3 || rest[1..].starts_with('\\'));
            i += match lit {
                Some((e, _)) if is_char => e + 1,
                _ => 1,
            };
        } else {
            if b[i] == b'\n' {
                line += 1;
            }
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// Where the text of a raw string literal starting at `rest` begins (`r"`, `r#"`, `br##"`…).
fn raw_string_start(rest: &str) -> Option<usize> {
    let after_b = rest.strip_prefix('b').unwrap_or(rest);
    let after_r = after_b.strip_prefix('r')?;
    let hashes = after_r.len() - after_r.trim_start_matches('#').len();
    after_r[hashes..]
        .starts_with('"')
        .then(|| rest.len() - after_r.len() + hashes + 1)
}

/// Whether `name` occurs in `s` as a word (not inside a longer identifier or a
/// hyphenated name like `shell-reaper`).
fn names_word(s: &str, name: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    s.match_indices(name).any(|(i, _)| {
        let before = s[..i].chars().next_back().is_none_or(|c| !part(c));
        let after = s[i + name.len()..].chars().next().is_none_or(|c| !part(c));
        before && after
    })
}

#[test]
fn the_scanner_finds_names_in_every_kind_of_literal() {
    let source = "let a = \"call write_file\"; // \"shell\"\nlet b = r#\"x \"sql_query\" y\"#;\nlet c = '\"'; let d = \"multi \\\n      shell_session kill\";\n/* \"grep_files\" */ let e = \"shell-reaper\";\n#[cfg(test)]\nlet f = \"read_file\";";
    let lits = string_literals(source);
    let texts: Vec<&str> = lits.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(
        texts,
        [
            "call write_file",
            "x \"sql_query\" y",
            "multi shell_session kill",
            "shell-reaper"
        ]
    );
    assert_eq!(lits[2].0, 3);
    assert!(names_word(texts[0], "write_file"));
    assert!(names_word(texts[2], "shell_session") && !names_word(texts[2], "shell"));
    assert!(!names_word(texts[3], "shell"));
}

#[test]
fn no_tool_name_in_any_runtime_string() {
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
    let mut scanned = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, literal) in string_literals(&text) {
            scanned += 1;
            let mut plain = literal.clone();
            for phrase in PLAIN_ENGLISH {
                plain = plain.replace(phrase, "");
            }
            for name in names.iter().filter(|n| names_word(&plain, n)) {
                found.push(format!("{}:{line}: {name} in {literal:?}", file.display()));
            }
        }
        let lines = text.lines().take_while(|l| l.trim() != "#[cfg(test)]");
        for (line_no, line) in lines.enumerate() {
            let code = line.split("//").next().unwrap_or_default();
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
    assert!(scanned > 500, "only {scanned} string literals scanned");
    assert!(
        found.is_empty(),
        "tool names written in runtime source (ask ctx.names instead):\n{}",
        found.join("\n")
    );
}
