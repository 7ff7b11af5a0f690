//! `shapes:` in the arguments: a field type `{ shape: name }` is read once, every reader sees
//! the definition in place, each JSON-Schema dialect publishes it once under the parameters'
//! `$defs` with a `$ref` per use, and Gemini's OpenAPI subset writes it out at each use.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolsurface_compiler::Sources;
use toolsurface_compiler::diag::Diagnostic;
use toolsurface_compiler::emit;
use toolsurface_compiler::ir::{Dialect, Ir};

use crate::support::{self, RUNTIME_TRAITS, resolve};

const SURFACE: &str = r#"
families:
  chat: { dialect: openai-chat }
  strict: { dialect: openai-chat, strict: true }
  gemini: { dialect: gemini }
traits:
"#;

const ROLES: &str = "main:\n  description: Main.\n  tools: [move]\n";

/// `point` used by a required field, an optional field, array items and another shape.
const WITH_SHAPES: &str = r#"
name: move
object: robot
description: Move the robot.
shapes:
  point:
    type: object
    description: A point
    properties:
      x: { type: integer, minimum: 0, description: "Column" }
      y: { type: integer, minimum: 0, description: "Row" }
    required: [x, y]
  segment:
    type: object
    description: A segment
    properties:
      from: { shape: point, description: "Its start" }
      to: { shape: point }
    required: [from, to]
fields:
  to: { shape: point, description: "Where to go" }
  via: { type: array, items: { shape: point }, description: "Points on the way" }
  avoid: { shape: segment, description: "A wall" }
  home: { shape: point }
required: [to]
optional: [via, avoid, home]
examples: [{ to: { x: 1, y: 2 }, avoid: { from: { x: 0, y: 0 }, to: { x: 3, y: 0 } } }]
"#;

fn compile(tool: &str) -> (Vec<Diagnostic>, Option<Ir>, Sources) {
    let surface = format!("{}{}", SURFACE.trim_start(), RUNTIME_TRAITS);
    support::compile(&[
        ("roles.yaml", ROLES),
        ("surface.yaml", &surface),
        ("tools/move.yaml", tool),
    ])
}

fn ir(tool: &str) -> Ir {
    let surface = format!("{}{}", SURFACE.trim_start(), RUNTIME_TRAITS);
    support::ir(&[
        ("roles.yaml", ROLES),
        ("surface.yaml", &surface),
        ("tools/move.yaml", tool),
    ])
}

/// The tool's parameters schema in `family` (optionally rendered in `dialect`).
fn parameters(ir: &Ir, family: &str, dialect: Option<Dialect>) -> Value {
    let e = emit::surface(ir, "main", family, dialect).unwrap();
    let tool: Value = serde_json::from_str(&e.tools[0].json).unwrap();
    let p = tool
        .pointer("/function/parameters")
        .or_else(|| tool.get("parameters"))
        .or_else(|| tool.get("inputSchema"))
        .unwrap();
    p.clone()
}

#[test]
fn each_shape_is_defined_once_and_referred_to_at_each_use() {
    let ir = ir(WITH_SHAPES);
    let p = parameters(&ir, "chat", None);
    let defs = p["$defs"].as_object().unwrap();
    assert_eq!(defs.keys().collect::<Vec<_>>(), ["point", "segment"]);
    assert_eq!(
        p["properties"]["to"],
        json!({"$ref": "#/$defs/point", "description": "Where to go"})
    );
    assert_eq!(
        p["properties"]["via"]["items"],
        json!({"$ref": "#/$defs/point"})
    );
    // A use without its own description says nothing beside the reference.
    assert_eq!(p["properties"]["home"], json!({"$ref": "#/$defs/point"}));
    assert_eq!(
        defs["segment"]["properties"]["to"],
        json!({"$ref": "#/$defs/point"})
    );
    assert_eq!(defs["point"]["description"], "A point");
    // Resolved, it is the Gemini rendering's structure: the same types everywhere.
    let resolved = resolve(&p, defs);
    assert_eq!(resolved["properties"]["to"]["required"], json!(["x", "y"]));
    assert_eq!(resolved["properties"]["to"]["description"], "Where to go");
}

#[test]
fn strict_refers_with_a_null_union_and_gemini_writes_each_use_out() {
    let ir = ir(WITH_SHAPES);
    let strict = parameters(&ir, "strict", None);
    assert_eq!(
        strict["properties"]["home"],
        json!({"anyOf": [{"$ref": "#/$defs/point"}, {"type": "null"}]})
    );
    assert_eq!(
        strict["properties"]["to"],
        json!({"$ref": "#/$defs/point", "description": "Where to go"})
    );
    // Inside `$defs` the strict rules hold too: every property required, objects closed.
    assert_eq!(
        strict["$defs"]["point"]["additionalProperties"],
        json!(false)
    );
    let gemini = parameters(&ir, "gemini", None);
    assert!(gemini.get("$defs").is_none(), "{gemini}");
    assert!(!gemini.to_string().contains("$ref"), "{gemini}");
    assert_eq!(gemini["properties"]["to"]["type"], "OBJECT");
    assert_eq!(gemini["properties"]["to"]["description"], "Where to go");
    assert_eq!(gemini["properties"]["home"]["description"], "A point");
    assert_eq!(
        gemini["properties"]["avoid"]["properties"]["to"]["properties"]["x"]["minimum"],
        0
    );
    // Gemini's JSON Schema parameters take references: the MCP rendering of it too.
    let mcp = parameters(&ir, "gemini", Some(Dialect::Mcp));
    assert_eq!(mcp["$defs"].as_object().unwrap().len(), 2, "{mcp}");
}

#[test]
fn every_reader_sees_the_definition_in_place() {
    let ir = ir(WITH_SHAPES);
    let plan = toolsurface_compiler::plan::lower(&ir).unwrap();
    let tool = &plan.tools[0];
    let to = &tool.actions[0].object.fields[0];
    let toolsurface_compiler::plan::TypePlan::Shape { name, ty } = &to.ty else {
        panic!("{:?}", to.ty);
    };
    assert_eq!(name, "point");
    assert!(matches!(
        **ty,
        toolsurface_compiler::plan::TypePlan::Object { .. }
    ));
    // The interpreter checks a shape's rules where it is used.
    let checker =
        toolsurface_compiler::plan::interp::CallChecker::new(&plan, "main", "chat").unwrap();
    let refused = checker
        .check("move", r#"{"to":{"x":1,"y":2},"via":[{"x":-1,"y":0}]}"#)
        .unwrap_err();
    assert_eq!(
        refused.message,
        "move: via[0]: x: expected an integer of at least 0, got -1"
    );
    let ok = checker
        .check(
            "move",
            r#"{"to":{"x":1,"y":2},"avoid":{"from":{"x":0,"y":0},"to":{"x":1,"y":1}}}"#,
        )
        .unwrap();
    assert_eq!(ok.arguments["avoid"]["to"], json!({"x": 1, "y": 1}));
}

#[test]
fn a_cycle_an_unknown_shape_and_a_verbatim_entry_of_a_shapes_name_are_refused() {
    let cyclic = WITH_SHAPES.replace(
        "      to: { shape: point }\n",
        "      to: { shape: point }\n      next: { shape: segment }\n",
    );
    let (diags, _, _) = compile(&cyclic);
    let cycle = diags.iter().find(|d| d.code == "recursive-shape").unwrap();
    assert!(
        cycle.message.contains("segment → segment"),
        "{}",
        cycle.message
    );
    let unknown = WITH_SHAPES.replace("items: { shape: point }", "items: { shape: pont }");
    let (diags, _, _) = compile(&unknown);
    let d = diags.iter().find(|d| d.code == "unknown-shape").unwrap();
    assert_eq!(d.hint.as_deref(), Some("did you mean point?"));
    let twice = WITH_SHAPES.replace(
        "description: Move the robot.\n",
        "description: Move the robot.\nparameters:\n  json_schema: {\"$defs\": {\"point\": {\"type\": \"string\"}}}\n",
    );
    let (diags, _, _) = compile(&twice);
    assert!(diags.iter().any(|d| d.code == "shape-twice"), "{diags:?}");
}
