//! Emission end to end from small YAML folders (through the real loader): nested property
//! descriptions, `like` families with freeform tools, templates per family, family filtering,
//! skills, and the published order.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolsurface_compiler::diag::render_all;
use toolsurface_compiler::emit::{self, Emitted};
use toolsurface_compiler::ir::{Dialect, Ir};
use toolsurface_compiler::{SourceFile, Sources};

// `skills: append` everywhere: these tests are about the tool shapes and the published order
// (skill tools after the resident ones only on activation); the strategies have their own
// tests (tests/emit_skills*.rs in the facade).
const SURFACE: &str = r#"
families:
  chat:        { dialect: openai-chat, skills: append }
  chat_strict: { dialect: openai-chat, strict: true, like: chat, skills: append }
  responses:   { dialect: openai-responses, skills: append }
  responses_b: { dialect: openai-responses, like: responses, skills: append }
  anthropic:   { dialect: anthropic, skills: append }
  gemini:      { dialect: gemini, skills: append }
traits:
  parallel_safe: { type: bool, default: false, doc: "may overlap" }
  follow_up: { type: bool, default: false, doc: "targets a session" }
  poll: { type: bool, default: false, doc: "reads a session" }
  read_only: { type: bool, default: false, doc: "allowed in rehearsal turns" }
  result_on_interrupt: { type: bool, default: false, doc: "keeps its result" }
  idempotent: { type: bool, default: false, doc: "repeating it changes nothing more" }
"#;

const ROLES: &str = r#"
base:
  description: Base.
  tools: [patch, jobs, note]
  skills: [extra]
more:
  description: More.
  extends: base
  tools: [activate_skill]
"#;

const PATCH: &str = r#"
name: patch
object: file
description: |
  Patch files{% if family == "gemini" %} (gemini){% endif %}.
families: [responses, anthropic, gemini]
fields:
  patch: { type: string, min_length: 1, description: "The patch." }
  device: { type: string, description: "Machine." }
required: [patch]
freeform:
  families: [responses]
  field: patch
  syntax: lark
  grammar: grammars/patch.lark
"#;

const JOBS: &str = r#"
name: jobs
object: job
description: Manage jobs.
route: local
selector:
  name: action
  description: What to do.
fields:
  id: { type: integer, minimum: 1, description: "Job id." }
  spec:
    type: array
    min_items: 1
    items:
      type: object
      properties:
        key: { type: string, description: "Setting name." }
        weight: { type: number, minimum: 0.5, maximum: 2.0, description: "Weight." }
      required: [key]
    description: "Settings."
actions:
  start:
    description: Start one.
    required: [spec]
  stop:
    description: Stop one.
    required: [id]
    traits: { idempotent: true }
  show:
    required: [id]
    traits: { read_only: true, idempotent: true }
"#;

const NOTE: &str = r#"
name: note
object: note
description: Write a note.
families: [chat, anthropic, gemini]
fields:
  text: { type: string, max_length: 100, description: "Text." }
  tag: { type: enum, values: [a, b], description: "Tag." }
required: [text]
"#;

const ACTIVATE: &str = r#"
name: activate_skill
object: skill
description: Activate a skill.
route: local
fields:
  name: { type: string, description: "Skill name." }
required: [name]
"#;

const EXTRA: &str = r#"
name: extra
description: Extra tools.
tools: [lookup]
"#;

const LOOKUP: &str = r#"
name: lookup
object: thing
description: Look a thing up.
fields:
  q: { type: string, description: "Query." }
required: [q]
traits: { read_only: true }
"#;

fn ir() -> Ir {
    let mut files: Vec<SourceFile> = [
        ("grammars/patch.lark", "start: /.+/\n"),
        ("roles.yaml", ROLES),
        ("skills/extra.yaml", EXTRA),
        ("surface.yaml", SURFACE),
        ("tools/activate_skill.yaml", ACTIVATE),
        ("tools/jobs.yaml", JOBS),
        ("tools/lookup.yaml", LOOKUP),
        ("tools/note.yaml", NOTE),
        ("tools/patch.yaml", PATCH),
    ]
    .into_iter()
    .map(|(path, text)| SourceFile::new(path.to_owned(), text.trim_start().to_owned()))
    .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let sources = Sources {
        root: "defs".into(),
        files,
    };
    let compiled = toolsurface_compiler::compile(&sources);
    assert!(
        !compiled.has_errors(),
        "{}",
        render_all(&compiled.diagnostics, &sources)
    );
    compiled.ir.unwrap()
}

fn emit(ir: &Ir, role: &str, family: &str, dialect: Option<Dialect>) -> Emitted {
    emit::surface(ir, role, family, dialect).unwrap()
}

fn tools(e: &Emitted) -> Vec<Value> {
    serde_json::from_str(&e.bytes).unwrap()
}

fn names(e: &Emitted) -> Vec<&str> {
    e.tools.iter().map(|t| t.name.as_str()).collect()
}

#[test]
fn family_filtering_and_published_order() {
    let ir = ir();
    assert_eq!(names(&emit(&ir, "base", "chat", None)), ["jobs", "note"]);
    assert_eq!(
        names(&emit(&ir, "base", "chat_strict", None)),
        ["jobs", "note"]
    );
    assert_eq!(
        names(&emit(&ir, "base", "responses", None)),
        ["patch", "jobs"]
    );
    assert_eq!(
        names(&emit(&ir, "base", "gemini", None)),
        ["patch", "jobs", "note"]
    );
    // Inherited tools first.
    assert_eq!(
        names(&emit(&ir, "more", "anthropic", None)),
        ["patch", "jobs", "note", "activate_skill"]
    );
    let e = emit(&ir, "more", "anthropic", None);
    assert_eq!(e.skills.len(), 1);
    assert_eq!(e.skills[0].name, "extra");
    assert_eq!(e.skills[0].tools[0].name, "lookup");
}

#[test]
fn freeform_in_responses_and_its_like_family_only() {
    let ir = ir();
    for fam in ["responses", "responses_b"] {
        let t = &tools(&emit(&ir, "base", fam, None))[0];
        assert_eq!(
            t,
            &json!({"type":"custom","name":"patch","description":"Patch files.",
                    "format":{"type":"grammar","syntax":"lark","definition":"start: /.+/\n"}}),
            "{fam}"
        );
    }
    let a = &tools(&emit(&ir, "base", "anthropic", None))[0];
    assert_eq!(a["input_schema"]["required"], json!(["patch"]));
    let g = &tools(&emit(&ir, "base", "gemini", None))[0];
    assert_eq!(g["description"], "Patch files (gemini).");
}

#[test]
fn nested_descriptions_bounds_and_prefixes() {
    let ir = ir();
    let t = &tools(&emit(&ir, "base", "anthropic", None))[1];
    let p = &t["input_schema"];
    assert_eq!(
        p["properties"]["action"]["description"],
        "What to do.\n- start: Start one.\n- stop: Stop one.\n- show"
    );
    assert_eq!(p["properties"]["id"]["description"], "stop/show: Job id.");
    assert_eq!(p["properties"]["spec"]["description"], "start: Settings.");
    let item = &p["properties"]["spec"]["items"];
    assert_eq!(item["properties"]["key"]["description"], "Setting name.");
    assert_eq!(item["required"], json!(["key"]));
    assert_eq!(item["additionalProperties"], false);
    let bytes = &emit(&ir, "base", "anthropic", None).bytes;
    assert!(
        bytes.contains(
            r#""weight":{"type":"number","description":"Weight.","minimum":0.5,"maximum":2}"#
        ),
        "{bytes}"
    );
    assert_eq!(p["required"], json!(["action"]));
}

#[test]
fn strict_family_nests_null_unions() {
    let ir = ir();
    let e = emit(&ir, "base", "chat_strict", None);
    let t = &tools(&e)[0]["function"];
    assert_eq!(t["strict"], true);
    let p = &t["parameters"];
    assert_eq!(p["required"], json!(["action", "id", "spec"]));
    assert_eq!(p["properties"]["spec"]["type"], json!(["array", "null"]));
    let item = &p["properties"]["spec"]["items"];
    assert_eq!(item["type"], "object");
    assert_eq!(item["required"], json!(["key", "weight"]));
    assert_eq!(
        item["properties"]["weight"]["type"],
        json!(["number", "null"])
    );
    let note = &tools(&e)[1]["function"]["parameters"];
    assert_eq!(note["properties"]["text"]["type"], "string");
    assert!(note["properties"]["text"].get("maxLength").is_none());
    assert_eq!(note["properties"]["tag"]["enum"], json!(["a", "b", null]));
}

#[test]
fn mcp_annotations_use_declared_traits() {
    let ir = ir();
    let e = emit(&ir, "base", "gemini", Some(Dialect::Mcp));
    let t = tools(&e);
    // jobs: not all read_only; `idempotent` declared but `start` lacks it; local route.
    assert_eq!(
        t[1]["annotations"],
        json!({"title":"Jobs","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false})
    );
    assert_eq!(t[1]["title"], "Jobs");
    // patch runs on the thread's host: open world.
    assert_eq!(t[0]["annotations"]["openWorldHint"], true);
    // gemini-rendered templates, mcp shape; the gemini family's MCP rendering leaves
    // `additionalProperties` out (google-genai's MCP conversion crashes on it).
    assert_eq!(t[0]["description"], "Patch files (gemini).");
    assert_eq!(t[0]["inputSchema"]["type"], "object");
    assert!(t[0]["inputSchema"].get("additionalProperties").is_none());
}

#[test]
fn gemini_spelling() {
    let ir = ir();
    let t = tools(&emit(&ir, "base", "gemini", None));
    let jobs = &t[1]["parameters"];
    assert_eq!(jobs["type"], "OBJECT");
    assert_eq!(jobs["properties"]["spec"]["items"]["type"], "OBJECT");
    assert!(
        jobs["properties"]["spec"]["items"]
            .get("additionalProperties")
            .is_none()
    );
    assert_eq!(
        t[2]["parameters"]["properties"]["tag"],
        json!({"type":"STRING","description":"Tag.","enum":["a","b"]})
    );
}
