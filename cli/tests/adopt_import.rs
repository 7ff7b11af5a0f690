//! `toolsurface import` through the built binary: the emitted arrays of tool-defs and of the
//! case study's `before` surface in every role × family (and the MCP dialect) come back byte
//! for byte; `toolsurface serve`'s own tools/list over stdio and streamable HTTP; two real
//! third-party MCP servers (installed, pinned, by scripts/test-setup-mcp-servers) import and
//! check clean; constructs the language cannot express are reported with their JSON pointers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::cli_support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use cli_support::{code, edit, repo, run, stderr, stdout, temp_copy};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_toolsurface")
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// `emit` of `dir` for role × family (× dialect) into a file.
fn emit_to(dir: &str, role: &str, family: &str, dialect: Option<&str>, file: &Path) -> Vec<u8> {
    let mut args = vec!["emit", dir, "--role", role, "--family", family];
    if let Some(d) = dialect {
        args.extend(["--dialect", d]);
    }
    let o = run(&args);
    assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
    std::fs::write(file, &o.stdout).unwrap();
    o.stdout
}

/// A published array without toolsurface's own MCP `_meta` keys (key order kept), as
/// canonical text. `_meta` is the one key a round trip cannot reproduce, by design: its
/// `io.toolsurface/sha256` names the bytes of the family the array was rendered for (an
/// import is a surface of its own, with its own bytes) and `io.toolsurface/traits` the
/// vocabulary of those definitions. `import` recognizes the keys and drops them; `emit`
/// derives them again for the imported surface. Issue 15's skill keys are not imported
/// either (`defer_loading`, Anthropic `cache_control`, and the Responses `tool_search` tool
/// whole: an import has no skills; `import` reports each). Everything else — `input_examples`,
/// `outputSchema`, `output_schema`, `responseJsonSchema`, `icons` — is compared whole.
fn without_own_meta(bytes: &[u8]) -> String {
    let mut doc: serde_json::Value = serde_json::from_slice(bytes).expect("a JSON tool array");
    let tools = match &mut doc {
        serde_json::Value::Array(tools) => tools,
        serde_json::Value::Object(o) => match o.get_mut("tools") {
            Some(serde_json::Value::Array(tools)) => tools,
            _ => return doc.to_string(),
        },
        _ => return doc.to_string(),
    };
    tools.retain(|t| t.get("type").and_then(|v| v.as_str()) != Some("tool_search"));
    for tool in tools.iter_mut() {
        let Some(o) = tool.as_object_mut() else {
            continue;
        };
        o.shift_remove("defer_loading");
        o.shift_remove("cache_control");
        if let Some(serde_json::Value::Object(meta)) = o.get_mut("_meta") {
            meta.retain(|k, _| !k.starts_with(toolsurface_compiler::emit::META_PREFIX));
            if meta.is_empty() {
                o.shift_remove("_meta");
            }
        }
    }
    doc.to_string()
}

/// `import` dropped none of the keys it maps (examples, outputs, icons): nothing reported.
fn assert_extras_mapped(import_output: &str) {
    for key in [
        "input_examples",
        "outputSchema",
        "output_schema",
        "responseJsonSchema",
        "icons",
        "_meta",
    ] {
        assert!(
            !import_output.contains(&format!("`{key}` has no equivalent"))
                && !import_output.contains(&format!("`{key}` is not imported")),
            "import reported `{key}` as dropped:\n{import_output}"
        );
    }
}

/// Import `input`, then: exit 0, the round trip reported equal, `check` clean, `emit` of the
/// imported folder byte-identical to the input but for toolsurface's own `_meta`.
fn assert_round_trip(input: &Path, role: &str, family: &str, bytes: &[u8], out: &Path) {
    let o = run(&[
        "import",
        "--from",
        &s(input),
        "--out",
        &s(out),
        "--role",
        role,
    ]);
    assert_eq!(code(&o), 0, "{}\n{}", stdout(&o), stderr(&o));
    assert_only_skill_keys_differ(&stdout(&o), input);
    let c = run(&["check", &s(out)]);
    assert_eq!(
        code(&c),
        0,
        "check {}: {}{}",
        s(out),
        stdout(&c),
        stderr(&c)
    );
    let again = run(&["emit", &s(out), "--role", role, "--family", family]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert_extras_mapped(&format!("{}{}", stdout(&o), stderr(&o)));
    assert!(
        without_own_meta(&again.stdout) == without_own_meta(bytes),
        "{}: emit of the imported folder differs from the input",
        s(input)
    );
}

/// The round trip printed no difference, or only the skill keys an import has no skills for
/// (`defer_loading`, `cache_control`, the `tool_search` tool; see [`without_own_meta`]), each
/// reported at its pointer.
fn assert_only_skill_keys_differ(text: &str, input: &Path) {
    let Some((_, diffs)) = text.split_once("round-trip differences") else {
        assert!(text.contains("equals the input"), "{}: {text}", s(input));
        return;
    };
    for line in diffs.lines().skip(1).take_while(|l| l.starts_with("  ")) {
        assert!(
            (line.contains("`defer_loading`")
                || line.contains("`cache_control`")
                || line.contains("the `tool_search` tool is not published"))
                && line.ends_with(']'),
            "{}: an unexpected difference {line:?} in:\n{text}",
            s(input)
        );
    }
}

/// Every role × family of a definitions folder (`emit --list`).
fn surfaces(dir: &str) -> Vec<(String, String)> {
    stdout(&run(&["emit", dir, "--list"]))
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(r, f)| (r.to_owned(), f.to_owned()))
        .collect()
}

/// The family an import of a family's array writes (its dialect's).
fn imported_family(dir: &str, family: &str) -> &'static str {
    let surface = std::fs::read_to_string(repo().join(dir).join("surface.yaml")).unwrap();
    let line = surface
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{family}:")))
        .unwrap();
    if line.contains("openai-responses") {
        "responses"
    } else if line.contains("anthropic") {
        "anthropic"
    } else if line.contains("gemini") {
        "gemini"
    } else {
        "chat"
    }
}

fn round_trip_every_surface(dir: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let list = surfaces(dir);
    assert!(list.len() >= 10, "{list:?}");
    for (i, (role, family)) in list.iter().enumerate() {
        let input = tmp.path().join(format!("{i}.json"));
        let bytes = emit_to(dir, role, family, None, &input);
        let out = tmp.path().join(format!("out{i}"));
        assert_round_trip(&input, role, imported_family(dir, family), &bytes, &out);
    }
    // The MCP dialect of one role.
    let (role, family) = &list[0];
    let input = tmp.path().join("mcp.json");
    let bytes = emit_to(dir, role, family, Some("mcp"), &input);
    assert_round_trip(&input, role, "mcp", &bytes, &tmp.path().join("out-mcp"));
}

#[test]
fn tool_defs_round_trips_in_every_role_and_family() {
    round_trip_every_surface("tool-defs");
}

#[test]
fn the_case_study_before_surface_round_trips_in_every_role_and_family() {
    round_trip_every_surface("examples/consolidation/before");
}

/// With every publishing switch on (Responses `output_schema`, Gemini `responseJsonSchema`, an
/// icon), the Responses, Gemini and MCP arrays still come back whole: outputs, examples and
/// the icon are mapped, and the imported surface.yaml turns the output switch on.
#[test]
fn outputs_and_icons_round_trip_with_every_switch_on() {
    let (_tmp, dir) = temp_copy("tool-defs", "on");
    edit(
        &dir,
        "surface.yaml",
        "responses:   { dialect: openai-responses }",
        "responses:   { dialect: openai-responses, output_schema: true }",
    );
    edit(
        &dir,
        "surface.yaml",
        "gemini:      { dialect: gemini }",
        "gemini:      { dialect: gemini, output_schema: true }",
    );
    let session = dir.join("tools/shell_session.yaml");
    let mut text = std::fs::read_to_string(&session).unwrap();
    text.push_str("icon: { src: 'data:image/svg+xml;base64,PHN2Zy8+', mime_type: image/svg+xml, sizes: [any], theme: dark }\n");
    std::fs::write(&session, text).unwrap();
    let roles = std::fs::read_to_string(dir.join("roles.yaml")).unwrap();
    let lifted: String = roles
        .lines()
        .map(|l| match l.split_once("token_budget:") {
            Some((head, _)) => format!("{head}token_budget: 40000\n"),
            None => format!("{l}\n"),
        })
        .collect();
    std::fs::write(dir.join("roles.yaml"), lifted).unwrap();
    std::fs::remove_file(dir.join("surface.lock")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let d = s(&dir);
    for (i, (family, dialect, key)) in [
        ("responses", None, "\"output_schema\""),
        ("gemini", None, "\"responseJsonSchema\""),
        ("anthropic", Some("mcp"), "\"icons\""),
    ]
    .into_iter()
    .enumerate()
    {
        let input = tmp.path().join(format!("{i}.json"));
        let bytes = emit_to(&d, "main", family, dialect, &input);
        assert!(
            String::from_utf8_lossy(&bytes).contains(key),
            "{family}: no {key}"
        );
        let imported = dialect.unwrap_or(family);
        let out = tmp.path().join(format!("out{i}"));
        assert_round_trip(&input, "main", imported, &bytes, &out);
    }
}

const OUTPUT_UNMAPPABLE: &str = r##"{"tools": [
  {"name": "stats", "description": "Stats.", "inputSchema": {"type": "object", "properties": {}},
   "outputSchema": {"type": "object", "properties": {
     "count": {"type": "integer", "minimum": 0, "description": "Rows."},
     "byName": {"type": "object", "description": "Counts per name."},
     "either": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "Either."}
   }, "required": ["count"], "additionalProperties": false},
   "icons": [{"src": "https://example.com/a.svg"}, {"src": "https://example.com/b.svg"}],
   "_meta": {"io.toolsurface/sha256": "00", "vendor/x": 1}},
  {"name": "kinds", "description": "Kinds.", "inputSchema": {"type": "object", "properties": {}},
   "outputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {
     "kind": {"type": ["string", "null"], "enum": ["a", "b", null], "description": "The kind."},
     "rows": {"type": "array", "description": "Any cells."},
     "since": {"type": "string", "format": "date-time", "title": "Since", "description": "From."}
   }, "required": ["kind", "rows"], "additionalProperties": false}}
]}"##;

/// An output `output:` cannot say as written is reported by pointer and left out whole (never
/// published differently); one it can say becomes `output:`, with the keywords it does not
/// model (`$schema`, `format`, `title`) kept verbatim at their node (`json_schema:`) and
/// named; foreign `_meta` keys become `meta:` and every icon is kept; toolsurface's own
/// `_meta` keys are not imported.
#[test]
fn an_output_the_language_cannot_express_is_reported_and_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("tools.json");
    std::fs::write(&input, OUTPUT_UNMAPPABLE).unwrap();
    let out = tmp.path().join("out");
    let o = run(&["import", "--from", &s(&input), "--out", &s(&out)]);
    let text = stdout(&o);
    assert_eq!(code(&o), 0, "{text}\n{}", stderr(&o));
    let want = "stats: `outputSchema` kept verbatim (`output_schema:`), so no typed result is generated: `anyOf` has no equivalent in `output:` at /tools/0/outputSchema/properties/either/anyOf (and 1 more) [/tools/0/outputSchema]";
    assert!(text.contains(want), "missing {want:?} in:\n{text}");
    for (key, at) in [
        ("$schema", "/tools/1/outputSchema/$schema"),
        ("format", "/tools/1/outputSchema/properties/since/format"),
        ("title", "/tools/1/outputSchema/properties/since/title"),
    ] {
        let want = format!(
            "kinds: `{key}` kept verbatim (`json_schema:`): published as written, read by no typed result [{at}]"
        );
        assert!(text.contains(&want), "missing {want:?} in:\n{text}");
    }
    assert!(!text.contains("io.toolsurface/sha256"), "{text}");
    assert!(text.contains("equals the input"), "{text}");
    let stats = std::fs::read_to_string(out.join("tools/stats.yaml")).unwrap();
    assert!(!stats.contains("output:"), "{stats}");
    assert!(
        stats.contains("output_schema: {\"type\":\"object\""),
        "{stats}"
    );
    assert!(
        stats.contains("icon:\n  - src: \"https://example.com/a.svg\"\n  - src: \"https://example.com/b.svg\"\nmeta:\n  \"vendor/x\": 1\n"),
        "{stats}"
    );
    let kinds = std::fs::read_to_string(out.join("tools/kinds.yaml")).unwrap();
    assert!(
        kinds.contains("output:\n  type: object\n  properties:\n    kind:\n      type: enum\n      description: \"The kind.\"\n      nullable: true\n      values: [\"a\", \"b\"]"),
        "{kinds}"
    );
    assert!(
        kinds.contains("      json_schema: {\"format\":\"date-time\",\"title\":\"Since\"}\n")
            && kinds.contains(
                "  json_schema: {\"$schema\":\"http://json-schema.org/draft-07/schema#\"}\n"
            ),
        "{kinds}"
    );
    let emitted = stdout(&run(&[
        "emit",
        &s(&out),
        "--role",
        "main",
        "--family",
        "mcp",
    ]));
    assert!(
        emitted.contains(r#""outputSchema":{"type":"object","properties":{"kind":{"type":["string","null"],"description":"The kind.","enum":["a","b",null]},"rows":{"type":"array","description":"Any cells."},"since":{"type":"string","description":"From.","format":"date-time","title":"Since"}},"required":["kind","rows"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}"#),
        "{emitted}"
    );
}

/// An MCP server's tools/list through the real client, imported, equals `emit --dialect mcp`.
fn assert_mcp_import(args: &[&str], role: &str, family: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("served");
    let mut full = args.to_vec();
    let outs = s(&out);
    full.extend(["--out", &outs, "--role", role]);
    let o = run(&full);
    assert_eq!(code(&o), 0, "{}\n{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("equals the input"), "{}", stdout(&o));
    let want = emit_to(
        "tool-defs",
        role,
        family,
        Some("mcp"),
        &tmp.path().join("want.json"),
    );
    let got = run(&["emit", &outs, "--role", role, "--family", "mcp"]);
    assert_extras_mapped(&format!("{}{}", stdout(&o), stderr(&o)));
    assert!(
        without_own_meta(&got.stdout) == without_own_meta(&want),
        "imported tools/list differs from emit --dialect mcp"
    );
    assert_eq!(code(&run(&["check", &outs])), 0);
}

#[test]
fn serve_over_stdio_imports_as_its_own_published_tools() {
    let cmd = format!("{} serve --role side_chat --workdir {}", bin(), s(&repo()));
    assert_mcp_import(&["import", "--mcp-stdio", &cmd], "side_chat", "chat");
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_over_http_imports_as_its_own_published_tools() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let _server = Server(
        Command::new(bin())
            .args([
                "serve",
                "--role",
                "main",
                "--family",
                "anthropic",
                "--http",
                &addr,
            ])
            .current_dir(repo())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::net::TcpStream::connect(&addr).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "serve --http did not listen"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let url = format!("http://{addr}/mcp");
    assert_mcp_import(&["import", "--mcp-http", &url], "main", "anthropic");
}

/// The pinned third-party servers (scripts/test-setup-mcp-servers installs them).
fn installed(rel: &str) -> PathBuf {
    let p = repo().join("target/mcp-servers").join(rel);
    assert!(
        p.exists(),
        "{} is missing: run scripts/test-setup-mcp-servers (scripts/test does)",
        p.display()
    );
    p
}

#[test]
fn the_filesystem_mcp_server_imports_and_checks_clean() {
    let server = installed("filesystem/node_modules/.bin/mcp-server-filesystem");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let out = tmp.path().join("fs");
    let cmd = format!("'{}' '{}'", s(&server), s(&root));
    let o = run(&[
        "import",
        "--mcp-stdio",
        &cmd,
        "--out",
        &s(&out),
        "--role",
        "files",
    ]);
    let text = stdout(&o);
    assert_eq!(code(&o), 0, "{text}\n{}", stderr(&o));
    for tool in [
        "read_text_file",
        "write_file",
        "edit_file",
        "list_directory",
        "search_files",
    ] {
        assert!(
            out.join("tools").join(format!("{tool}.yaml")).is_file(),
            "{tool}: {text}"
        );
    }
    // camelCase names every provider accepts are kept as written, never renamed.
    assert!(!text.contains("renamed"), "{text}");
    let edit = std::fs::read_to_string(out.join("tools/edit_file.yaml")).unwrap();
    assert!(
        edit.contains("oldText:") && edit.contains("dryRun:"),
        "{edit}"
    );
    assert!(
        !text.contains("[/tools/5/inputSchema/properties/edits/items/properties/oldText]"),
        "{text}"
    );
    let c = run(&["check", &s(&out)]);
    assert_eq!(code(&c), 0, "{}{}", stdout(&c), stderr(&c));
}

#[test]
fn the_git_mcp_server_imports_and_checks_clean() {
    let server = installed("git/bin/mcp-server-git");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("git");
    let cmd = format!("'{}'", s(&server));
    let o = run(&[
        "import",
        "--mcp-stdio",
        &cmd,
        "--out",
        &s(&out),
        "--role",
        "git",
    ]);
    let text = stdout(&o);
    assert_eq!(code(&o), 0, "{text}\n{}", stderr(&o));
    for tool in ["git_status", "git_diff", "git_commit", "git_log"] {
        assert!(
            out.join("tools").join(format!("{tool}.yaml")).is_file(),
            "{tool}: {text}"
        );
    }
    // Optional-with-null unions (pydantic's anyOf [T, null]) are kept as unions.
    let log = std::fs::read_to_string(out.join("tools/git_log.yaml")).unwrap();
    assert!(
        log.contains("type: any_of\n") && log.contains("- type: \"null\"\n"),
        "{log}"
    );
    let roles = std::fs::read_to_string(out.join("roles.yaml")).unwrap();
    assert!(
        roles.find("- git_status").unwrap() < roles.find("- git_log").unwrap(),
        "{roles}"
    );
    let c = run(&["check", &s(&out)]);
    assert_eq!(code(&c), 0, "{}{}", stdout(&c), stderr(&c));
}

const UNMAPPABLE: &str = r##"[
  {"name": "query", "description": "Run {{ a }} query.", "input_schema": {
    "type": "object",
    "$defs": {"Range": {"type": "object", "properties": {"from": {"type": "integer"}}, "required": ["from"]}},
    "properties": {
      "range": {"$ref": "#/$defs/Range", "description": "Rows."},
      "labels": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "description": "Labels."},
      "value": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "A value."},
      "limit": {"type": "integer", "exclusiveMinimum": 0, "default": 10, "description": "Max rows."},
      "maxRows": {"type": "integer", "description": "Cap."}
    },
    "required": ["range"]
  }},
  {"name": "fetch", "description": "Fetch a page.", "input_schema": {
    "type": "object",
    "$defs": {"Page Ref": {"type": "string"}, "Unused": {"type": "object"}},
    "properties": {"page": {"$ref": "#/$defs/Page%20Ref"}}
  }},
  {"name": "session", "description": "Manage a session.", "input_schema": {
    "oneOf": [
      {"type": "object", "properties": {"op": {"const": "open"}, "name": {"type": "string", "description": "Name."}}, "required": ["op", "name"]},
      {"type": "object", "properties": {"op": {"enum": ["close"]}, "id": {"type": "integer", "minimum": 1, "description": "Id."}}, "required": ["op", "id"]}
    ]
  }}
]"##;

#[test]
fn what_the_language_cannot_express_is_reported_with_its_pointer() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("tools.json");
    std::fs::write(&input, UNMAPPABLE).unwrap();
    let out = tmp.path().join("out");
    let o = run(&["import", "--from", &s(&input), "--out", &s(&out)]);
    let text = stdout(&o);
    assert_eq!(code(&o), 0, "{text}\n{}", stderr(&o));
    for want in [
        "fetch: a `$defs` entry no property refers to: kept verbatim (`parameters: json_schema:`), published beside the shapes [/1/input_schema/$defs/Unused]",
        "query: `patternProperties` kept verbatim (`json_schema:`): published as written, not checked by Call::parse [/0/input_schema/properties/labels]",
        "query: `exclusiveMinimum` kept verbatim (`json_schema:`): published as written, not checked by Call::parse [/0/input_schema/properties/limit]",
        "session: a root `oneOf` discriminated by `op`: mapped to a selector with one action per branch",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    // A camelCase name is kept as written (no rename to note); `lint` suggests snake_case.
    assert!(!text.contains("renamed"), "{text}");
    let lint = stdout(&run(&["lint", &s(&out)]));
    assert!(
        lint.contains("note[snake-case/query/maxRows]: field `maxRows` of `query` could be `max_rows` (snake_case)"),
        "{lint}"
    );
    let query = std::fs::read_to_string(out.join("tools/query.yaml")).unwrap();
    assert!(query.contains("\n  maxRows:\n"), "{query}");
    // `$defs` whose entries the properties use are shapes, checked by Call::parse.
    assert!(
        query.contains("shapes:\n  Range:\n    type: object\n    properties:\n      from:\n        type: integer\n"),
        "{query}"
    );
    assert!(
        query.contains("  range:\n    shape: Range\n    description: \"Rows.\"\n"),
        "{query}"
    );
    assert!(!text.contains("query: `$"), "{text}");
    // `#/$defs/Page%20Ref` names the entry `Page Ref`: a shape of that name.
    let fetch = std::fs::read_to_string(out.join("tools/fetch.yaml")).unwrap();
    assert!(
        fetch.contains("shapes:\n  Page Ref:\n    type: string\n"),
        "{fetch}"
    );
    assert!(fetch.contains("  page:\n    shape: Page Ref\n"), "{fetch}");
    // A union, a default: the language has them.
    assert!(query.contains("  value:\n    type: any_of\n    branches:\n      - type: string\n      - type: integer\n"), "{query}");
    assert!(query.contains("    default: 10\n"), "{query}");
    // The discriminated union became a selector with actions, each with its own fields.
    let session = std::fs::read_to_string(out.join("tools/session.yaml")).unwrap();
    assert!(session.contains("selector:\n  name: op"), "{session}");
    assert!(
        session.contains("  open:\n    description: \"\"\n    required: [name]\n    optional: []"),
        "{session}"
    );
    assert!(
        session.contains("  close:\n    description: \"\"\n    required: [id]"),
        "{session}"
    );
    // A description that reads as template syntax is kept verbatim.
    let query = std::fs::read_to_string(out.join("tools/query.yaml")).unwrap();
    assert!(
        query.contains(r#"description: "{% raw %}Run {{ a }} query.{% endraw %}""#),
        "{query}"
    );
    assert!(query.contains("object: \"\"  # TODO"), "{query}");
    let emitted = stdout(&run(&[
        "emit",
        &s(&out),
        "--role",
        "main",
        "--family",
        "anthropic",
    ]));
    assert!(
        emitted.contains(r#""description":"Run {{ a }} query.""#),
        "{emitted}"
    );
    // The session call rules are per action now.
    let v = run(&["check", &s(&out)]);
    assert_eq!(code(&v), 0, "{}{}", stdout(&v), stderr(&v));
}

#[test]
fn out_is_never_overwritten_without_force() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("tools.json");
    std::fs::write(&input, UNMAPPABLE).unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep.txt"), "mine").unwrap();
    let o = run(&["import", "--from", &s(&input), "--out", &s(&out)]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("is not empty; pass --force"),
        "{}",
        stderr(&o)
    );
    assert!(!out.join("surface.yaml").exists());
    let o = run(&["import", "--from", &s(&input), "--out", &s(&out), "--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(out.join("keep.txt")).unwrap(),
        "mine"
    );
    let o = run(&["import", "--help"]);
    assert!(stdout(&o).contains("toolsurface import --from tools.json --out tool-defs"));
}

#[test]
fn a_file_that_is_no_tools_array_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("x.json");
    std::fs::write(&input, r#"{"hello": 1}"#).unwrap();
    let o = run(&[
        "import",
        "--from",
        &s(&input),
        "--out",
        &s(&tmp.path().join("o")),
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("not a tools array of a known shape"),
        "{}",
        stderr(&o)
    );
}

/// An input over the providers' usual limits imports: the limits it needs are written into
/// surface.yaml (and said), `check` passes and warns only where the dialect's provider
/// documents a lower limit (OpenAI), not for MCP.
#[test]
fn the_limits_the_input_needs_are_written_and_check_warns_per_provider() {
    let long = "x".repeat(1500);
    let chat: Vec<serde_json::Value> = (0..130)
        .map(|i| {
            serde_json::json!({"type": "function", "function": {"name": format!("t{i}"),
                "description": long, "parameters": {"type": "object", "properties": {},
                "additionalProperties": false}}})
        })
        .collect();
    let mcp = serde_json::json!({"tools": [{"name": "t", "description": long,
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false}}]});
    let tmp = tempfile::tempdir().unwrap();
    for (name, doc, warns) in [
        ("chat", serde_json::Value::Array(chat), true),
        ("mcp", mcp, false),
    ] {
        let input = tmp.path().join(format!("{name}.json"));
        std::fs::write(&input, doc.to_string()).unwrap();
        let out = tmp.path().join(name);
        let o = run(&["import", "--from", &s(&input), "--out", &s(&out)]);
        let text = stdout(&o);
        assert_eq!(code(&o), 0, "{text}\n{}", stderr(&o));
        assert!(text.contains("the input needs `limits: {"), "{text}");
        let surface = std::fs::read_to_string(out.join("surface.yaml")).unwrap();
        let tools = if warns { 130 } else { 128 };
        assert!(
            surface.contains(&format!(
                "limits: {{ max_tools: {tools}, max_description_chars: 1500 }}"
            )),
            "{surface}"
        );
        let c = run(&["check", &s(&out)]);
        let said = format!("{}{}", stdout(&c), stderr(&c));
        assert_eq!(code(&c), 0, "{said}");
        assert_eq!(said.contains("warning[provider-limit]"), warns, "{said}");
    }
}

/// Gemini `parametersJsonSchema` is read (not dropped) and published back under the family's
/// `parameters_json_schema: true`; BFCL's `dict` / `float` map to object / number at every
/// depth, reported; MCP read-only annotations come back as they were (a fixpoint).
#[test]
fn gemini_json_schema_bfcl_types_and_mcp_read_only_round_trip() {
    let gemini = r#"[{"functionDeclarations": [{"name": "read_file", "description": "Read a file.",
      "parametersJsonSchema": {"type": "object", "properties": {
        "path": {"type": "string", "description": "The path."},
        "limit": {"type": "integer", "description": "At most.", "minimum": 1}},
        "required": ["path"], "additionalProperties": false}}]}]"#;
    let bfcl = r#"[{"name": "move", "description": "Move.", "parameters": {"type": "dict",
      "properties": {"to": {"type": "dict", "description": "Where.", "properties": {
        "x": {"type": "float", "description": "X."}}, "required": ["x"]}},
      "required": ["to"]}}]"#;
    let mcp = r#"{"tools": [{"name": "get_me", "title": "Get me", "description": "Who am I.",
      "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
      "annotations": {"title": "Get me", "readOnlyHint": true}}]}"#;
    let tmp = tempfile::tempdir().unwrap();
    for (name, doc) in [("gemini", gemini), ("bfcl", bfcl), ("mcp", mcp)] {
        let input = tmp.path().join(format!("{name}.json"));
        std::fs::write(&input, doc).unwrap();
        let out = tmp.path().join(name);
        let o = run(&["import", "--from", &s(&input), "--out", &s(&out)]);
        let text = stdout(&o);
        assert_eq!(code(&o), 0, "{text}\n{}", stderr(&o));
        let c = run(&["check", &s(&out)]);
        assert_eq!(code(&c), 0, "{}{}", stdout(&c), stderr(&c));
        match name {
            "bfcl" => {
                for want in [
                    "type `dict` (BFCL's spelling): mapped to `object` [/0/parameters/type]",
                    "mapped to `object` [/0/parameters/properties/to/type]",
                    "type `float` (BFCL's spelling): mapped to `number` [/0/parameters/properties/to/properties/x/type]",
                    "`type` \"float\" → \"NUMBER\" [/0/parameters/properties/to/properties/x/type]",
                ] {
                    assert!(text.contains(want), "missing {want:?} in:\n{text}");
                }
                assert!(!text.contains("mapped to no fields"), "{text}");
                let tool = std::fs::read_to_string(out.join("tools/move.yaml")).unwrap();
                assert!(tool.contains("x:\n        type: number"), "{tool}");
            }
            _ => {
                assert!(text.contains("equals the input"), "{name}: {text}");
                // Import of the emit is the same folder: a fixpoint.
                let family = if name == "gemini" { "gemini" } else { "mcp" };
                let emitted = tmp.path().join(format!("{name}.emitted.json"));
                emit_to(&s(&out), "main", family, None, &emitted);
                let again = tmp.path().join(format!("{name}-again"));
                let o2 = run(&["import", "--from", &s(&emitted), "--out", &s(&again)]);
                assert_eq!(code(&o2), 0, "{}", stdout(&o2));
                for f in [
                    "surface.yaml",
                    &format!(
                        "tools/{}.yaml",
                        if name == "gemini" {
                            "read_file"
                        } else {
                            "get_me"
                        }
                    ),
                ] {
                    let strip = |p: &Path| {
                        std::fs::read_to_string(p.join(f))
                            .unwrap()
                            .lines()
                            .filter(|l| {
                                !l.starts_with("# Imported") && !l.contains("Imported from")
                            })
                            .collect::<Vec<_>>()
                            .join("\n")
                    };
                    assert_eq!(strip(&out), strip(&again), "{name}: {f}");
                }
            }
        }
    }
}

/// The shape is read per tool: an Anthropic array that starts with a server tool is still
/// Anthropic (its `input_schema`s kept); a provider-hosted tool is kept as a `hosted:` entry,
/// reported where it stands, and published back verbatim.
#[test]
fn a_hosted_tool_first_does_not_decide_the_shape_and_is_kept_as_an_entry() {
    let doc = r#"[{"type": "bash_20250124", "name": "bash"},
      {"name": "note", "description": "Take a note.", "input_schema": {"type": "object",
        "properties": {"text": {"type": "string", "description": "The note."}},
        "required": ["text"], "additionalProperties": false}}]"#;
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("mixed.json");
    std::fs::write(&input, doc).unwrap();
    let out = tmp.path().join("out");
    let o = run(&["import", "--from", &s(&input), "--out", &s(&out)]);
    let text = stdout(&o);
    assert_eq!(code(&o), 0, "{text}\n{}", stderr(&o));
    assert!(text.contains("imported 2 tools (anthropic)"), "{text}");
    assert!(
        text.contains("bash: the provider-hosted tool `bash`: kept as a pass-through entry (`hosted:`), published verbatim in `anthropic` only [/0]"),
        "{text}"
    );
    assert!(text.contains("equals the input"), "{text}");
    let bash = std::fs::read_to_string(out.join("tools/bash.yaml")).unwrap();
    assert!(
        bash.contains(
            "hosted: {\"type\":\"bash_20250124\",\"name\":\"bash\"}\nfamilies: [anthropic]"
        ),
        "{bash}"
    );
    let tool = std::fs::read_to_string(out.join("tools/note.yaml")).unwrap();
    assert!(tool.contains("text:\n    type: string"), "{tool}");
    let c = run(&["check", &s(&out)]);
    assert_eq!(code(&c), 0, "{}{}", stdout(&c), stderr(&c));
}
