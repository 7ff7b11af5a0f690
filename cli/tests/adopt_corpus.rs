//! The adoption corpus the project builds itself: the live `tools/list` of eight third-party MCP
//! servers installed from npm and PyPI at pinned versions (scripts/test-setup-mcp-servers), plus
//! provider arrays written here in each shape. For every surface: `import` exits 0, `check` of
//! the folder exits 0, every round-trip difference is printed as a note at its JSON pointer (the
//! comparison is keyword by keyword, compiler/src/import/roundtrip.rs), and importing the
//! folder's own `emit` writes the same definitions again (a fixpoint).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::cli_support;

use std::path::{Path, PathBuf};

use cli_support::{code, repo, run, stderr, stdout};

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// An installed server's executable (scripts/test-setup-mcp-servers installs it; scripts/test
/// runs that first).
fn installed(rel: &str) -> PathBuf {
    let p = repo().join("target/mcp-servers").join(rel);
    assert!(
        p.exists(),
        "{} is missing: run scripts/test-setup-mcp-servers (scripts/test does)",
        p.display()
    );
    p
}

/// The round-trip section of an import's output: every line is a note ending in its pointer.
fn assert_every_difference_has_its_pointer(what: &str, text: &str) -> usize {
    let Some((_, diffs)) = text.split_once("round-trip differences") else {
        assert!(text.contains("equals the input"), "{what}: {text}");
        return 0;
    };
    let lines: Vec<&str> = diffs
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    for line in &lines {
        let at = line.rfind(" [/").unwrap_or(usize::MAX);
        assert!(
            at != usize::MAX && line.ends_with(']'),
            "{what}: a difference without its pointer: {line:?}"
        );
    }
    lines.len()
}

/// The definitions a folder holds (the header comments name the source: left out).
fn definitions(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for sub in ["", "tools"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                let text = std::fs::read_to_string(&p).unwrap();
                let kept: Vec<&str> = text
                    .lines()
                    .filter(|l| !l.contains("Imported") && !l.starts_with("# Imported"))
                    .collect();
                out.push((
                    p.file_name().unwrap().to_string_lossy().into(),
                    kept.join("\n"),
                ));
            }
        }
    }
    out.sort();
    out
}

/// Import (from `args`), check, then import the folder's own emit: the same definitions.
fn adopt(what: &str, args: &[&str], family: &str, tmp: &Path) -> usize {
    let out = tmp.join(what);
    let mut argv = vec!["import"];
    argv.extend_from_slice(args);
    let out_s = s(&out);
    argv.extend(["--out", &out_s]);
    let o = run(&argv);
    let text = stdout(&o);
    assert_eq!(code(&o), 0, "{what}: {text}\n{}", stderr(&o));
    let differences = assert_every_difference_has_its_pointer(what, &text);
    let c = run(&["check", &out_s]);
    assert_eq!(code(&c), 0, "{what}: check: {}{}", stdout(&c), stderr(&c));
    let e = run(&["emit", &out_s, "--role", "main", "--family", family]);
    assert_eq!(code(&e), 0, "{what}: emit: {}", stderr(&e));
    let emitted = tmp.join(format!("{what}.emitted.json"));
    std::fs::write(&emitted, &e.stdout).unwrap();
    let again = tmp.join(format!("{what}-again"));
    let o2 = run(&["import", "--from", &s(&emitted), "--out", &s(&again)]);
    assert_eq!(code(&o2), 0, "{what}: re-import: {}", stdout(&o2));
    assert!(
        stdout(&o2).contains("equals the input"),
        "{what}: the import of its own emit differs:\n{}",
        stdout(&o2)
    );
    let e2 = run(&["emit", &s(&again), "--role", "main", "--family", family]);
    assert_eq!(code(&e2), 0, "{what}: emit again: {}", stderr(&e2));
    assert!(
        e2.stdout == e.stdout,
        "{what}: emit is not a fixpoint of import"
    );
    // The definitions too, but for descriptions (the language trims them; a trailing space
    // is a reported difference of the first import, not of the second).
    assert_eq!(
        definitions(&out).len(),
        definitions(&again).len(),
        "{what}: the re-import wrote other files"
    );
    differences
}

#[test]
fn eight_registry_mcp_servers_round_trip_with_no_difference() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let db = tmp.path().join("db.sqlite");
    let servers: Vec<(&str, String)> = vec![
        (
            "filesystem",
            format!(
                "'{}' '{}'",
                s(&installed(
                    "filesystem/node_modules/.bin/mcp-server-filesystem"
                )),
                s(&root)
            ),
        ),
        (
            "git",
            format!("'{}'", s(&installed("git/bin/mcp-server-git"))),
        ),
        (
            "everything",
            format!(
                "'{}'",
                s(&installed(
                    "everything/node_modules/.bin/mcp-server-everything"
                ))
            ),
        ),
        (
            "memory",
            format!(
                "'{}'",
                s(&installed("memory/node_modules/.bin/mcp-server-memory"))
            ),
        ),
        (
            "sequential_thinking",
            format!(
                "'{}'",
                s(&installed(
                    "sequential-thinking/node_modules/.bin/mcp-server-sequential-thinking"
                ))
            ),
        ),
        (
            "time",
            format!("'{}'", s(&installed("time/bin/mcp-server-time"))),
        ),
        (
            "fetch",
            format!("'{}'", s(&installed("fetch/bin/mcp-server-fetch"))),
        ),
        (
            "sqlite",
            format!(
                "'{}' --db-path '{}'",
                s(&installed("sqlite/bin/mcp-server-sqlite")),
                s(&db)
            ),
        ),
    ];
    for (what, cmd) in &servers {
        // Every keyword of every tool comes back: what the language has no construct for is
        // kept verbatim (and named in a note), so nothing differs.
        let n = adopt(what, &["--mcp-stdio", cmd], "mcp", tmp.path());
        assert_eq!(n, 0, "{what}: {n} round-trip differences");
    }
}

/// Provider arrays in every shape, written here with the constructs real surfaces use
/// (camelCase and hyphenated names, long descriptions, descriptions ending in a line break,
/// Gemini's JSON Schema key, BFCL's types, read-only MCP annotations, a hosted tool, unions,
/// defaults, open objects).
#[test]
fn provider_arrays_in_every_shape_adopt_with_every_difference_named() {
    let long = "Search the code. ".repeat(80).trim_end().to_owned();
    let chat = serde_json::json!([{"type": "function", "function": {"name": "searchCode",
        "description": long, "parameters": {"type": "object", "properties": {
            "perPage": {"type": "integer", "description": "Page size.", "minimum": 1, "maximum": 100},
            "query": {"type": "string", "description": "What.\n"}},
        "required": ["query"], "additionalProperties": false}}}]);
    let responses = serde_json::json!([{"type": "function", "name": "list-files",
        "description": "List files.", "parameters": {"type": "object", "properties": {
            "dir": {"type": "string", "description": "Where."}}, "required": ["dir"],
        "additionalProperties": false}, "strict": false}]);
    let anthropic = serde_json::json!([{"type": "bash_20250124", "name": "bash"},
        {"name": "note", "description": "Take a note.", "input_schema": {"type": "object",
        "properties": {"text": {"type": "string", "description": "The note."},
          "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags."}},
        "required": ["text"], "additionalProperties": false}}]);
    let gemini = serde_json::json!([{"functionDeclarations": [{"name": "read_file",
        "description": "Read.", "parametersJsonSchema": {"type": "object", "properties": {
            "filePath": {"type": "string", "description": "Path."}}, "required": ["filePath"],
        "additionalProperties": false}}]}]);
    let bfcl = serde_json::json!([{"name": "mv", "description": "Move.", "parameters": {
        "type": "dict", "properties": {"to": {"type": "float", "description": "Where."}},
        "required": ["to"]}}]);
    let mcp = serde_json::json!({"tools": [{"name": "get_me", "description": "Me.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
        "annotations": {"title": "Get me", "readOnlyHint": true}},
      {"name": "update_issue", "title": "Update an issue", "description": "Update.",
        "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema",
          "$defs": {"Label": {"type": "string", "minLength": 1}},
          "title": 7,
          "type": "object", "properties": {
            "state": {"type": "string", "enum": ["open", "closed"], "default": "open", "description": "State."},
            "due": {"type": ["string", "null"], "format": "date", "description": "Due date."},
            "assignee": {"anyOf": [{"type": "string", "description": "A login."}, {"type": "integer", "minimum": 1}], "description": "Who."},
            "kind": {"const": "issue", "description": "Always issue."},
            "labels": {"type": "array", "items": {"$ref": "#/$defs/Label"}, "description": "Labels."},
            "fields": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Custom fields."},
            "limit": {"type": "integer", "exclusiveMinimum": 0, "description": "Limit."},
            "ratio": {"type": ["integer", "number"], "enum": [1, 2.5], "description": "Ratio."},
            "mode": {"type": "string", "default": 3, "description": "Mode."},
            "odd": {"type": "string", "title": 5, "examples": "x", "description": ["Odd."]}},
          "required": ["state"]}}]});
    let tmp = tempfile::tempdir().unwrap();
    for (what, doc, family) in [
        ("chat", chat, "chat"),
        ("responses", responses, "responses"),
        ("anthropic", anthropic, "anthropic"),
        ("gemini", gemini, "gemini"),
        ("bfcl", bfcl, "gemini"),
        ("mcp", mcp, "mcp"),
    ] {
        let input = tmp.path().join(format!("{what}.json"));
        std::fs::write(&input, doc.to_string()).unwrap();
        let n = adopt(what, &["--from", &s(&input)], family, tmp.path());
        if what == "mcp" {
            // A keyword a type list maps once per listed type is published once; a default the
            // type refuses is kept verbatim (the folder still checks).
            let emitted = std::fs::read_to_string(tmp.path().join("mcp.emitted.json")).unwrap();
            assert_eq!(emitted.matches(r#""enum":[1,2.5]"#).count(), 1, "{emitted}");
            assert!(emitted.contains(r#""default":3"#), "{emitted}");
            // Annotations of another JSON type than the language's are kept as written.
            assert!(emitted.contains(r#""title":5"#), "{emitted}");
            assert!(emitted.contains(r#""description":["Odd."]"#), "{emitted}");
            // So is a root title that is no string (`parameters: json_schema:`).
            assert!(emitted.contains(r#""title":7"#), "{emitted}");
        }
        // The Anthropic array holds a hosted `bash_20250124`: kept as a `hosted:` entry.
        let clean = matches!(what, "chat" | "responses" | "anthropic" | "gemini" | "mcp");
        assert!(!clean || n == 0, "{what}: {n} differences");
        assert!(clean || n > 0, "{what}: its differences went unreported");
    }
}
