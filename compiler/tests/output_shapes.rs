//! `shapes:`: a named output shape is read once, every reader of outputs sees it inlined,
//! and the published output schema lists it once under `$defs` with a `$ref` per use.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolsurface_compiler::Sources;
use toolsurface_compiler::diag::Diagnostic;
use toolsurface_compiler::emit;
use toolsurface_compiler::ir::{Dialect, Ir};

use crate::support::{self, resolve};

const SURFACE: &str = r#"
families:
  mcp: { dialect: mcp }
traits:
  parallel_safe: { type: bool, default: false, doc: "may overlap" }
  follow_up: { type: bool, default: false, doc: "targets a session" }
  poll: { type: bool, default: false, doc: "reads a session" }
  read_only: { type: bool, default: false, doc: "allowed in rehearsal turns" }
  result_on_interrupt: { type: bool, default: false, doc: "keeps its result" }
  idempotent: { type: bool, default: false, doc: "repeating it changes nothing more" }
"#;

const ROLES: &str = "main:\n  description: Main.\n  tools: [inbox]\n";

/// A tool with two actions whose outputs use `message` four times, once with a description
/// of the use's own; `message` uses `author`.
const WITH_SHAPES: &str = r#"
name: inbox
object: message
description: Read messages.
selector: { name: action, description: What to do }
fields:
  id: { type: string, description: Message id }
shapes:
  author:
    type: object
    description: Who wrote it
    properties:
      name: { type: string, description: Display name }
    required: [name]
  message:
    type: object
    description: One message
    properties:
      id: { type: string, description: Message id }
      by: { shape: author }
      text: { type: string, nullable: true, description: Its text }
    required: [id, by]
actions:
  list:
    description: The newest messages.
    output:
      type: object
      description: Newest first.
      properties:
        messages: { type: array, description: Newest first, items: { shape: message } }
        pinned: { shape: message, description: The pinned message }
      required: [messages]
  around:
    description: A message and its neighbours.
    required: [id]
    output:
      type: object
      description: The neighbourhood.
      properties:
        before: { type: array, description: Older, items: { shape: message } }
        message: { shape: message }
      required: [before, message]
"#;

fn compile(tool: &str) -> (Vec<Diagnostic>, Option<Ir>, Sources) {
    support::compile(&[
        ("roles.yaml", ROLES),
        ("surface.yaml", SURFACE),
        ("tools/inbox.yaml", tool),
    ])
}

fn ir(tool: &str) -> Ir {
    support::ir(&[
        ("roles.yaml", ROLES),
        ("surface.yaml", SURFACE),
        ("tools/inbox.yaml", tool),
    ])
}

fn refs_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r.clone());
            }
            m.values().for_each(|v| refs_in(v, out));
        }
        Value::Array(items) => items.iter().for_each(|i| refs_in(i, out)),
        _ => {}
    }
}

#[test]
fn a_shape_is_published_once_and_referenced_at_each_use() {
    let ir = ir(WITH_SHAPES);
    let tool = &ir.tools[0];
    let published: Value =
        serde_json::from_str(&emit::published_output_schema(tool).unwrap()).unwrap();
    let defs = published["$defs"].as_object().unwrap();
    assert_eq!(
        defs.keys().collect::<Vec<_>>(),
        ["author", "message"],
        "every shape used, once, in declaration order"
    );
    let mut refs = Vec::new();
    refs_in(&published, &mut refs);
    assert_eq!(
        refs.iter().filter(|r| *r == "#/$defs/message").count(),
        4,
        "{published}"
    );
    assert_eq!(refs.iter().filter(|r| *r == "#/$defs/author").count(), 1);
    // The root is written out (MCP wants `type: object` there), the use's own description
    // stands beside its `$ref`, a use without one is the bare `$ref`.
    assert_eq!(published["type"], "object");
    let list = &published["anyOf"][0]["properties"];
    assert_eq!(
        list["pinned"],
        json!({"$ref": "#/$defs/message", "description": "The pinned message"})
    );
    assert_eq!(
        list["messages"]["items"],
        json!({"$ref": "#/$defs/message"})
    );

    // Resolved, it is exactly the inlined schema, and the inlined one is what the actions'
    // records (the lock's, the hosts' validators) hold.
    let inlined: Value = serde_json::from_str(&emit::inlined_output_schema(tool).unwrap()).unwrap();
    assert_eq!(resolve(&published, defs), inlined);
    let list_action: Value =
        serde_json::from_str(&emit::action_output_schema(tool, Some("list")).unwrap()).unwrap();
    assert_eq!(list_action, inlined["anyOf"][0]);
    assert_eq!(
        list_action["properties"]["pinned"]["description"],
        "The pinned message"
    );
    assert_eq!(
        list_action["properties"]["messages"]["items"]["properties"]["by"]["description"],
        "Who wrote it"
    );
    let published_len = emit::published_output_schema(tool).unwrap().len();
    let inlined_len = emit::inlined_output_schema(tool).unwrap().len();
    assert!(
        published_len < inlined_len,
        "{published_len} vs {inlined_len}"
    );

    // The MCP array publishes the same schema as `outputSchema`.
    let e = emit::surface(&ir, "main", "mcp", Some(Dialect::Mcp)).unwrap();
    let tools: Value = serde_json::from_str(&e.bytes).unwrap();
    assert_eq!(tools[0]["outputSchema"], published);
}

#[test]
fn shapes_and_yaml_anchors_say_the_same_results() {
    // The same outputs written with anchors: every reader of outputs sees the same types.
    let anchored = r#"
name: inbox
object: message
description: Read messages.
selector: { name: action, description: What to do }
fields:
  id: { type: string, description: Message id }
actions:
  list:
    description: The newest messages.
    output:
      type: object
      description: Newest first.
      properties:
        messages:
          type: array
          description: Newest first
          items: &message
            type: object
            description: One message
            properties:
              id: { type: string, description: Message id }
              by: { type: object, description: Who wrote it, properties: { name: { type: string, description: Display name } }, required: [name] }
              text: { type: string, nullable: true, description: Its text }
            required: [id, by]
        pinned:
          type: object
          description: The pinned message
          properties:
            id: { type: string, description: Message id }
            by: { type: object, description: Who wrote it, properties: { name: { type: string, description: Display name } }, required: [name] }
            text: { type: string, nullable: true, description: Its text }
          required: [id, by]
      required: [messages]
  around:
    description: A message and its neighbours.
    required: [id]
    output:
      type: object
      description: The neighbourhood.
      properties:
        before: { type: array, description: Older, items: *message }
        message: *message
      required: [before, message]
"#;
    let (a, b) = (ir(WITH_SHAPES), ir(anchored));
    for action in ["list", "around"] {
        assert_eq!(
            emit::action_output_schema(&a.tools[0], Some(action)),
            emit::action_output_schema(&b.tools[0], Some(action)),
            "{action}"
        );
    }
    assert_eq!(
        emit::inlined_output_schema(&a.tools[0]),
        emit::published_output_schema(&b.tools[0])
    );
}

/// A tool whose `shapes:` are the given lines, its output `{ shape: <root> }` under one
/// property.
fn with_shapes(shapes: &str, root: &str) -> String {
    format!(
        "name: inbox\nobject: message\ndescription: Read messages.\nshapes:\n{shapes}\noutput:\n  type: object\n  description: Result.\n  properties:\n    value: {{ shape: {root}, description: The value }}\n  required: [value]\n"
    )
}

fn codes(tool: &str) -> Vec<(&'static str, String)> {
    let (diags, _, _) = compile(tool);
    diags.into_iter().map(|d| (d.code, d.message)).collect()
}

#[test]
fn a_chain_of_shapes_is_not_a_cycle() {
    // s0 uses s1 … s9 uses s10: a long chain, no recursion (an importer once called the
    // eighth link "recursive").
    let mut shapes = String::new();
    for i in 0..10 {
        shapes.push_str(&format!(
            "  s{i}: {{ type: object, description: Link {i}, properties: {{ next: {{ shape: s{} }} }}, required: [next] }}\n",
            i + 1
        ));
    }
    shapes.push_str("  s10: { type: string, description: The end }\n");
    let ir = ir(&with_shapes(&shapes, "s0"));
    let published: Value =
        serde_json::from_str(&emit::published_output_schema(&ir.tools[0]).unwrap()).unwrap();
    assert_eq!(published["$defs"].as_object().unwrap().len(), 11);
    assert_eq!(
        published["properties"]["value"],
        json!({"$ref": "#/$defs/s0", "description": "The value"})
    );
}

#[test]
fn a_cycle_is_refused_with_its_path() {
    let shapes = "  a: { type: object, description: A, properties: { b: { shape: b } } }\n  b: { type: array, description: B, items: { shape: a } }\n";
    let found = codes(&with_shapes(shapes, "a"));
    assert!(
        found
            .iter()
            .any(|(c, m)| *c == "recursive-shape" && m.contains("a → b → a")),
        "{found:?}"
    );
}

#[test]
fn an_unknown_shape_is_refused_with_a_suggestion_and_an_unused_one_warned() {
    let shapes =
        "  message: { type: string, description: M }\n  spare: { type: integer, description: S }\n";
    let (diags, _, _) = compile(&with_shapes(shapes, "mesage"));
    let unknown = diags.iter().find(|d| d.code == "unknown-shape").unwrap();
    assert!(unknown.message.contains("`mesage`"), "{}", unknown.message);
    assert!(
        unknown.hint.as_deref().unwrap_or("").contains("message"),
        "{:?}",
        unknown.hint
    );
    let unused: Vec<&str> = diags
        .iter()
        .filter(|d| d.code == "unused-shape")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(unused.len(), 2, "{unused:?}");

    // A shape only an unused shape uses is unused too (and both are still checked).
    let shapes = "  message: { type: string, description: M }\n  spare: { type: object, description: S, properties: { inner: { shape: inner } } }\n  inner: { type: integer, description: I }\n";
    let found = codes(&with_shapes(shapes, "message"));
    let unused: Vec<&str> = found
        .iter()
        .filter(|(c, _)| *c == "unused-shape")
        .map(|(_, m)| m.as_str())
        .collect();
    assert_eq!(
        unused,
        [
            "shape `spare` is used by no field and no output of the tool",
            "shape `inner` is used by no field and no output of the tool"
        ],
        "{found:?}"
    );
}

#[test]
fn a_shape_that_multiplies_past_the_guard_is_refused() {
    // Each level uses the one below twice: 2^20 nodes inlined, refused before it is built.
    let mut shapes = String::new();
    for i in 0..20 {
        shapes.push_str(&format!(
            "  s{i}: {{ type: object, description: L, properties: {{ l: {{ shape: s{n} }}, r: {{ shape: s{n} }} }} }}\n",
            n = i + 1
        ));
    }
    shapes.push_str("  s20: { type: string, description: Leaf }\n");
    let found = codes(&with_shapes(&shapes, "s0"));
    assert!(
        found.iter().any(|(c, m)| *c == "shape-too-large"
            && m.contains(&toolsurface_compiler::load::shapes::MAX_INLINED_NODES.to_string())),
        "{found:?}"
    );
}
