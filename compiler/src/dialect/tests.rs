//! The claim of `dialect/mod.rs` — a provider is one file implementing [`DialectRules`] — made
//! true by a test dialect declared here and nowhere else: the emitter publishes a surface in
//! its envelope and schema style, the request fragment takes its shape, and the import reader
//! reads its tools back to the same definitions the OpenAI Chat rendering imports to.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;

use super::{DialectRules, PLAIN_REQUEST, RequestShape, RestrictionShape, ToolContext};
use crate::emit::json::Json;
use crate::emit::request::TurnKind;
use crate::emit::schema::{self, Style};
use crate::emit::{self as emitter, EmitError, ToolKind};
use crate::import::{self, Note, Options};
use crate::ir::{Dialect, Family, Ir, SkillStrategy};

/// A made-up provider: `{"kind":"acme_fn","name":…,"description":…,"args":…}` with an open
/// JSON Schema (no `additionalProperties`), requests `{"acme":{"tools":…},"only":[names]}`.
struct Acme;

impl DialectRules for Acme {
    fn tool(&self, cx: &ToolContext<'_>) -> Result<(Json, ToolKind), EmitError> {
        let json = Json::obj()
            .with("kind", Json::str("acme_fn"))
            .with("name", Json::str(cx.texts.tool.name.clone()))
            .with("description", Json::str(cx.description))
            .with(
                "args",
                schema::parameters(cx.texts, self.schema_style(cx.family))?,
            );
        Ok((json, ToolKind::Function))
    }

    fn schema_style(&self, _family: &Family) -> Style {
        Style::Open
    }

    fn allowed_entry(&self, name: &str, _kind: ToolKind) -> Option<Json> {
        Some(Json::str(name))
    }

    fn request_shape(&self) -> RequestShape {
        RequestShape {
            open: r#"{"acme":{"tools":"#,
            close_tools: "}",
            restriction: Some(RestrictionShape {
                open: r#","only":["#,
                close: "]",
                none: r#","only":[]"#,
            }),
            ..PLAIN_REQUEST
        }
    }

    fn default_skills(&self) -> SkillStrategy {
        SkillStrategy::AllowList
    }

    fn supported_skills(&self) -> &'static [SkillStrategy] {
        &[SkillStrategy::AllowList, SkillStrategy::Append]
    }

    fn family_name(&self) -> &'static str {
        "acme"
    }

    fn recognises(&self, first: &Value) -> bool {
        first.get("kind").and_then(Value::as_str) == Some("acme_fn")
    }

    fn recognised_by(&self) -> &'static str {
        "`kind: acme_fn` (the test dialect)"
    }

    fn absent_additional_is_open(&self, _schema_key: &str) -> bool {
        false
    }

    fn schema_key(&self, _: &str, _: &Value, _: &str, _: &mut Vec<Note>) -> &'static str {
        "args"
    }

    fn tool_keys(&self) -> &'static [&'static str] {
        &["kind", "name", "description", "args"]
    }

    fn definition_keys(&self) -> &'static [&'static str] {
        &["args"]
    }
}

/// `ROLE` × `FAMILY` in the test dialect, tagged with the family's own (the enum has no
/// variant for it) and under its default skill strategy.
fn acme_surface(ir: &Ir) -> emitter::Emitted {
    let target = emitter::Target {
        dialect: Dialect::OpenaiChat,
        rules: &Acme,
        strategy: Acme.default_skills(),
    };
    emitter::surface_in(ir, ROLE, FAMILY, target).unwrap()
}

fn standard_ir() -> Ir {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-defs");
    let sources = crate::read_dir(&root).unwrap();
    crate::compile(&sources).ir.expect("tool-defs compiles")
}

/// `v` without any `additionalProperties` member, at any depth.
fn without_additional(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| *k != "additionalProperties")
                .map(|(k, x)| (k.clone(), without_additional(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_additional).collect()),
        other => other.clone(),
    }
}

/// The role × family every test here publishes: one with skills on offer, so the request
/// restriction and the skill tools are exercised too.
const ROLE: &str = "main";
const FAMILY: &str = "chat";

#[test]
fn the_emitter_publishes_a_surface_in_the_test_dialect() {
    let ir = standard_ir();
    let acme = acme_surface(&ir);
    let chat = emitter::surface(&ir, ROLE, FAMILY, None).unwrap();
    assert_eq!(chat.dialect, Dialect::OpenaiChat);
    let acme_tools: Vec<Value> = serde_json::from_str(&acme.bytes).unwrap();
    let chat_tools: Vec<Value> = serde_json::from_str(&chat.bytes).unwrap();
    assert!(!acme_tools.is_empty());
    assert_eq!(acme_tools.len(), chat_tools.len());
    assert!(!acme.bytes.contains("additionalProperties"));
    assert_eq!(acme.sha256, emitter::sha256_hex(acme.bytes.as_bytes()));
    for (a, c) in acme_tools.iter().zip(&chat_tools) {
        let keys: Vec<&str> = a.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["kind", "name", "description", "args"], "{a}");
        assert_eq!(a["kind"], "acme_fn");
        assert_eq!(a["name"], c["function"]["name"]);
        assert_eq!(a["description"], c["function"]["description"]);
        // The same flat schema, spelled in the test dialect's style.
        assert_eq!(
            a["args"],
            without_additional(&c["function"]["parameters"]),
            "{a}"
        );
    }
    assert_eq!(acme.skill_strategy, SkillStrategy::AllowList);
}

#[test]
fn the_request_fragment_takes_the_test_dialects_shape() {
    let ir = standard_ir();
    let acme = acme_surface(&ir);
    let parts = acme.request_parts_in(&Acme, TurnKind::Rehearsal);
    let fragment = parts.assemble(&acme.bytes, &[]);
    let read_only: Vec<String> = acme
        .tools
        .iter()
        .filter(|t| t.read_only)
        .map(|t| format!("\"{}\"", t.name))
        .collect();
    assert!(!read_only.is_empty());
    assert!(read_only.len() < acme.tools.len());
    let expected = format!(
        r#"{{"acme":{{"tools":{}}},"only":[{}]}}"#,
        acme.bytes,
        read_only.join(",")
    );
    assert_eq!(fragment, expected);
    let parsed: Value = serde_json::from_str(&fragment).unwrap();
    assert!(parsed["acme"]["tools"].is_array());
}

#[test]
fn the_import_reader_reads_the_test_dialect_back_to_the_same_definitions() {
    let ir = standard_ir();
    let acme = acme_surface(&ir);
    let chat = emitter::surface(&ir, ROLE, FAMILY, None).unwrap();
    let acme_doc: Value = serde_json::from_str(&acme.bytes).unwrap();
    let acme_tools: Vec<(String, &Value)> = acme_doc
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("/{i}"), t))
        .collect();
    assert!(Acme.recognises(acme_tools[0].1));
    let opts = Options {
        role: ROLE.to_owned(),
        shape: None,
        source: "the test".to_owned(),
    };
    let from_acme = import::import_tools((Dialect::OpenaiChat, &Acme), &acme_tools, &opts).unwrap();
    let chat_doc: Value = serde_json::from_str(&chat.bytes).unwrap();
    let from_chat = import::import(&chat_doc, &opts).unwrap();
    assert_eq!(from_chat.shape, Dialect::OpenaiChat);
    // Every key of the test dialect's tools is read: nothing is noted as dropped.
    assert!(
        from_acme
            .notes
            .iter()
            .all(|n| !n.message.contains("no equivalent")),
        "{:?}",
        from_acme.notes
    );
    assert!(from_acme.dropped.is_empty());
    assert_eq!(from_acme.tools, from_chat.tools);
    let paths =
        |i: &import::Imported| -> Vec<String> { i.files.iter().map(|f| f.path.clone()).collect() };
    assert_eq!(paths(&from_acme), paths(&from_chat));
    for (a, c) in from_acme.files.iter().zip(&from_chat.files) {
        // The same definitions; only the family the import names differs (`acme`, `chat`).
        assert_eq!(a.text.replace("acme", "chat"), c.text, "{}", a.path);
    }
}
