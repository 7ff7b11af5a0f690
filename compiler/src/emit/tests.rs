//! Dialect rules, checked on a hand-built IR (independent of the YAML loader).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::diag::{FileId, Span};
use crate::ir::*;

fn span() -> Span {
    Span::file_start(FileId(0))
}

fn tpl(s: &str) -> Template {
    Template {
        source: s.to_owned(),
        span: span(),
    }
}

fn field(name: &str, ty: Type) -> Field {
    Field {
        name: name.to_owned(),
        ty,
        description: tpl(""),
        span: span(),
    }
}

fn string() -> Type {
    Type::String {
        min_length: None,
        max_length: None,
        pattern: None,
    }
}

fn integer(minimum: Option<i64>, maximum: Option<i64>) -> Type {
    Type::Integer { minimum, maximum }
}

fn traits(pairs: &[(&str, TraitValue)]) -> BTreeMap<String, TraitValue> {
    let mut m: BTreeMap<String, TraitValue> = [
        ("parallel_safe", TraitValue::Bool(false)),
        ("read_only", TraitValue::Bool(false)),
        ("cost", TraitValue::Enum("work".into())),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    for (k, v) in pairs {
        m.insert((*k).to_owned(), v.clone());
    }
    m
}

fn action(
    name: Option<&str>,
    required: &[&str],
    optional: &[&str],
    t: &[(&str, TraitValue)],
) -> Action {
    Action {
        name: name.map(str::to_owned),
        description: tpl(""),
        required: required.iter().map(|s| (*s).to_owned()).collect(),
        optional: optional.iter().map(|s| (*s).to_owned()).collect(),
        exactly_one_of: Vec::new(),
        forbidden_with: Vec::new(),
        traits: traits(t),
        defaults: BTreeMap::new(),
        examples: Vec::new(),
        output: None,
        span: span(),
    }
}

const RO: (&str, TraitValue) = ("read_only", TraitValue::Bool(true));

/// shell_session-like (selector), a plain file tool with nested object + array + number
/// bounds, a freeform patch tool, a local read-only tool.
fn tools() -> Vec<Tool> {
    let session = Tool {
        name: "shell_session".into(),
        object: "shell session".into(),
        description: tpl(""),
        families: vec![],
        route: Route::SessionHost,
        session: Some(SessionKey {
            id: "session_id".into(),
            host: Some("host_id".into()),
        }),
        fields: vec![
            field("session_id", integer(Some(1), None)),
            field("host_id", string()),
            field(
                "timeout_s",
                Type::Number {
                    minimum: Some(0.0),
                    maximum: Some(300.0),
                },
            ),
            field(
                "view",
                Type::Enum {
                    values: vec!["transcript".into(), "turns".into()],
                },
            ),
            field("cols", integer(Some(1), Some(1000))),
            field("unused", string()),
        ],
        selector: Some(Selector {
            name: "action".into(),
            description: tpl(""),
        }),
        actions: vec![
            action(
                Some("poll"),
                &["session_id"],
                &["host_id", "view"],
                &[("cost", TraitValue::Enum("follow".into()))],
            ),
            action(
                Some("wait"),
                &["session_id"],
                &["host_id", "timeout_s"],
                &[],
            ),
            action(Some("list"), &[], &[], &[RO]),
            action(Some("resize"), &["session_id", "cols"], &["host_id"], &[]),
        ],
        freeform: None,
        icons: Vec::new(),
        meta: Vec::new(),
        title: None,
        parameters: Default::default(),
        hosted: None,
        title_at: (true, true),
        output_schema: None,
        output_shapes: Vec::new(),
        field_shapes: Vec::new(),
        implements: None,
        span: span(),
    };
    let write = Tool {
        name: "write_file".into(),
        object: "file".into(),
        description: tpl(""),
        families: vec![],
        route: Route::ThreadHost,
        session: None,
        fields: vec![
            field(
                "path",
                Type::String {
                    min_length: Some(1),
                    max_length: Some(4096),
                    pattern: Some("^[^\\n]+$".into()),
                },
            ),
            field(
                "mode",
                Type::Enum {
                    values: vec!["set".into(), "add".into()],
                },
            ),
            field(
                "opts",
                Type::Object {
                    properties: vec![
                        Property {
                            name: "a".into(),
                            ty: Type::Boolean,
                            description: tpl(""),
                            required: true,
                        },
                        Property {
                            name: "b".into(),
                            ty: Type::Number {
                                minimum: Some(0.5),
                                maximum: None,
                            },
                            description: tpl(""),
                            required: false,
                        },
                    ],
                    additional: None,
                    implicit_open: false,
                },
            ),
            field(
                "dirs",
                Type::Array {
                    items: Box::new(string()),
                    min_items: Some(1),
                    max_items: Some(16),
                },
            ),
        ],
        selector: None,
        actions: vec![action(None, &["path"], &["mode", "opts", "dirs"], &[])],
        freeform: None,
        icons: Vec::new(),
        meta: Vec::new(),
        title: None,
        parameters: Default::default(),
        hosted: None,
        title_at: (true, true),
        output_schema: None,
        output_shapes: Vec::new(),
        field_shapes: Vec::new(),
        implements: None,
        span: span(),
    };
    let patch = Tool {
        name: "apply_patch".into(),
        object: "file".into(),
        description: tpl(""),
        families: vec![],
        route: Route::ThreadHost,
        session: None,
        fields: vec![field("patch", string()), field("device", string())],
        selector: None,
        actions: vec![action(None, &["patch"], &["device"], &[])],
        freeform: Some(Freeform {
            families: vec!["responses".into()],
            field: "patch".into(),
            syntax: "lark".into(),
            grammar: "start: \"*** Begin Patch\"\n".into(),
            span: span(),
        }),
        icons: Vec::new(),
        meta: Vec::new(),
        title: None,
        parameters: Default::default(),
        hosted: None,
        title_at: (true, true),
        output_schema: None,
        output_shapes: Vec::new(),
        field_shapes: Vec::new(),
        implements: None,
        span: span(),
    };
    let introspect = Tool {
        name: "introspect".into(),
        object: "runtime".into(),
        description: tpl(""),
        families: vec![],
        route: Route::Local,
        session: None,
        fields: vec![],
        selector: None,
        actions: vec![action(None, &[], &[], &[RO])],
        freeform: None,
        icons: Vec::new(),
        meta: Vec::new(),
        title: None,
        parameters: Default::default(),
        hosted: None,
        title_at: (true, true),
        output_schema: None,
        output_shapes: Vec::new(),
        field_shapes: Vec::new(),
        implements: None,
        span: span(),
    };
    let mut v = vec![session, write, patch, introspect];
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

fn rendered(tool: &Tool, family: &str) -> RenderedTool {
    let mut fields = Vec::new();
    for f in &tool.fields {
        fields.push((f.name.clone(), format!("The {}.", f.name)));
        if let Type::Object { properties, .. } = &f.ty {
            for p in properties {
                fields.push((
                    format!("{}.{}", f.name, p.name),
                    format!("Prop {}.", p.name),
                ));
            }
        }
    }
    RenderedTool {
        name: tool.name.clone(),
        description: format!("{} on {family}.", tool.name),
        selector: if tool.selector.is_some() {
            "What to do.".into()
        } else {
            String::new()
        },
        actions: tool
            .actions
            .iter()
            .map(|a| {
                let d = match a.name.as_deref() {
                    Some("list") => String::new(),
                    Some(n) => format!("Do {n}."),
                    None => String::new(),
                };
                (a.name.clone(), d)
            })
            .collect(),
        fields,
    }
}

fn family(name: &str, dialect: Dialect, strict: bool, like: Option<&str>) -> Family {
    Family {
        name: name.into(),
        dialect,
        strict,
        like: like.map(str::to_owned),
        publish: crate::ir::Publish::default_for(dialect),
        skills: crate::dialect::default_skills(dialect),
        cache_control: None,
        span: span(),
    }
}

fn ir() -> Ir {
    let families = vec![
        family("chat", Dialect::OpenaiChat, false, None),
        family("chat_strict", Dialect::OpenaiChat, true, Some("chat")),
        family("responses", Dialect::OpenaiResponses, false, None),
        family("anthropic", Dialect::Anthropic, false, None),
        family("gemini", Dialect::Gemini, false, None),
    ];
    let tools = tools();
    let order = ["shell_session", "write_file", "apply_patch", "introspect"];
    let role = Role {
        name: "side_chat".into(),
        description: String::new(),
        extends: None,
        tools: order.iter().map(|s| (*s).to_owned()).collect(),
        skills: vec![],
        token_budget: None,
        sandbox: Default::default(),
        span: span(),
    };
    let surfaces = families
        .iter()
        .map(|f| SurfaceInstance {
            role: "side_chat".into(),
            family: f.name.clone(),
            dialect: f.dialect,
            tools: order
                .iter()
                .map(|n| rendered(tools.iter().find(|t| t.name == *n).unwrap(), &f.name))
                .collect(),
            skills: vec![],
        })
        .collect();
    Ir {
        limits: Limits::default(),
        families,
        traits: vec![],
        tools,
        roles: vec![role],
        skills: vec![],
        aliases: vec![],
        retired: vec![],
        surfaces,
    }
}

fn emit(family: &str, dialect: Option<Dialect>) -> Emitted {
    surface(&ir(), "side_chat", family, dialect).unwrap()
}

fn tool_json(e: &Emitted, name: &str) -> Value {
    serde_json::from_str(&e.tool(name).unwrap().json).unwrap()
}

/// The parameters object of a tool in any dialect.
fn params(e: &Emitted, name: &str) -> Value {
    let t = tool_json(e, name);
    match e.dialect {
        Dialect::OpenaiChat => t["function"]["parameters"].clone(),
        Dialect::OpenaiResponses | Dialect::Gemini => t["parameters"].clone(),
        Dialect::Anthropic => t["input_schema"].clone(),
        Dialect::Mcp => t["inputSchema"].clone(),
    }
}

#[test]
fn flat_root_with_required_selector_enum_in_declaration_order() {
    for fam in ["chat", "responses", "anthropic"] {
        let p = params(&emit(fam, None), "shell_session");
        let root = p.as_object().unwrap();
        assert_eq!(p["type"], "object");
        for banned in [
            "oneOf", "anyOf", "allOf", "enum", "not", "$ref", "const", "default",
        ] {
            assert!(!root.contains_key(banned), "{fam}: {banned} at the root");
        }
        assert_eq!(
            p["properties"]["action"]["enum"],
            json!(["poll", "wait", "list", "resize"])
        );
        assert_eq!(p["properties"]["action"]["type"], "string");
        // Selector + fields required by every action (none here: list uses nothing).
        assert_eq!(p["required"], json!(["action"]));
        assert_eq!(p["additionalProperties"], false);
        let keys: Vec<&String> = p["properties"].as_object().unwrap().keys().collect();
        // Declaration order, selector first, the unused field left out.
        assert_eq!(
            keys,
            [
                "action",
                "session_id",
                "host_id",
                "timeout_s",
                "view",
                "cols"
            ]
        );
    }
}

#[test]
fn selector_description_lists_actions_with_their_descriptions() {
    let p = params(&emit("chat", None), "shell_session");
    assert_eq!(
        p["properties"]["action"]["description"],
        "What to do.\n- poll: Do poll.\n- wait: Do wait.\n- list\n- resize: Do resize."
    );
}

#[test]
fn field_descriptions_are_prefixed_with_their_actions() {
    let p = params(&emit("anthropic", None), "shell_session");
    assert_eq!(
        p["properties"]["session_id"]["description"],
        "poll/wait/resize: The session_id."
    );
    assert_eq!(
        p["properties"]["timeout_s"]["description"],
        "wait: The timeout_s."
    );
    assert_eq!(
        p["properties"]["host_id"]["description"],
        "poll/wait/resize: The host_id."
    );
    // Plain tools: no prefix.
    let w = params(&emit("anthropic", None), "write_file");
    assert_eq!(w["properties"]["path"]["description"], "The path.");
}

#[test]
fn constraints_are_published_as_declared_and_numbers_print_one_way() {
    let e = emit("chat", None);
    let json = &e.tool("shell_session").unwrap().json;
    assert!(json.contains(r#""minimum":0,"maximum":300}"#), "{json}");
    let w = params(&e, "write_file");
    assert_eq!(w["properties"]["path"]["minLength"], 1);
    assert_eq!(w["properties"]["path"]["maxLength"], 4096);
    assert_eq!(w["properties"]["path"]["pattern"], "^[^\\n]+$");
    assert_eq!(w["properties"]["dirs"]["minItems"], 1);
    assert_eq!(w["properties"]["dirs"]["maxItems"], 16);
    assert_eq!(w["properties"]["dirs"]["items"], json!({"type": "string"}));
    assert_eq!(w["properties"]["opts"]["properties"]["b"]["minimum"], 0.5);
    assert_eq!(w["required"], json!(["path"]));
    // Nested objects are strict too.
    assert_eq!(w["properties"]["opts"]["additionalProperties"], false);
    assert_eq!(w["properties"]["opts"]["required"], json!(["a"]));
    assert_eq!(
        w["properties"]["opts"]["properties"]["a"]["description"],
        "Prop a."
    );
}

#[test]
fn openai_chat_wrapper_and_strict_variant() {
    let t = tool_json(&emit("chat", None), "write_file");
    assert_eq!(t["type"], "function");
    assert_eq!(t["function"]["strict"], false);
    assert_eq!(t["function"]["name"], "write_file");
    assert_eq!(t["function"]["description"], "write_file on chat.");

    let e = emit("chat_strict", None);
    let t = tool_json(&e, "write_file");
    assert_eq!(t["function"]["strict"], true);
    let p = &t["function"]["parameters"];
    assert_eq!(p["required"], json!(["path", "mode", "opts", "dirs"]));
    assert_eq!(p["properties"]["path"]["type"], "string");
    // No minLength/maxLength in strict mode; pattern stays.
    assert!(p["properties"]["path"].get("maxLength").is_none());
    assert_eq!(p["properties"]["path"]["pattern"], "^[^\\n]+$");
    assert_eq!(p["properties"]["mode"]["type"], json!(["string", "null"]));
    assert_eq!(p["properties"]["mode"]["enum"], json!(["set", "add", null]));
    assert_eq!(p["properties"]["opts"]["type"], json!(["object", "null"]));
    assert_eq!(p["properties"]["opts"]["required"], json!(["a", "b"]));
    assert_eq!(
        p["properties"]["opts"]["properties"]["b"]["type"],
        json!(["number", "null"])
    );
    assert_eq!(
        p["properties"]["opts"]["properties"]["a"]["type"],
        "boolean"
    );
    assert_eq!(p["properties"]["dirs"]["type"], json!(["array", "null"]));
    assert_eq!(p["properties"]["dirs"]["items"], json!({"type": "string"}));

    let s = params(&e, "shell_session");
    assert_eq!(
        s["required"],
        json!([
            "action",
            "session_id",
            "host_id",
            "timeout_s",
            "view",
            "cols"
        ])
    );
    assert_eq!(s["properties"]["action"]["type"], "string");
    assert_eq!(
        s["properties"]["session_id"]["type"],
        json!(["integer", "null"])
    );

    // A tool without fields still carries `required: []` (ensure_strict_json_schema adds it).
    let i = params(&e, "introspect");
    assert_eq!(
        i,
        json!({"type":"object","properties":{},"required":[],"additionalProperties":false})
    );
}

/// A Rust port of openai-agents' `ensure_strict_json_schema` (the parts that touch our
/// schemas): a strict emission must come out unchanged. The Python suite runs the real one.
fn ensure_strict(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        let ty = o.get("type").cloned();
        let is_object = ty == Some(json!("object"))
            || ty
                .as_ref()
                .and_then(Value::as_array)
                .is_some_and(|a| a.contains(&json!("object")));
        if is_object && !o.contains_key("additionalProperties") {
            o.insert("additionalProperties".into(), json!(false));
        }
        if let Some(props) = o.get("properties").and_then(Value::as_object).cloned() {
            o.insert(
                "required".into(),
                Value::Array(props.keys().map(|k| json!(k)).collect()),
            );
            let fixed = props
                .iter()
                .map(|(k, p)| (k.clone(), ensure_strict(p)))
                .collect();
            o.insert("properties".into(), Value::Object(fixed));
        }
        if let Some(items) = o.get("items").cloned() {
            o.insert("items".into(), ensure_strict(&items));
        }
    }
    v
}

#[test]
fn strict_variant_is_a_fixed_point_of_ensure_strict() {
    let e = emit("chat_strict", None);
    for t in &e.tools {
        let p = params(&e, &t.name);
        assert_eq!(ensure_strict(&p), p, "{}", t.name);
        // Byte-level too: key order survives.
        assert_eq!(
            serde_json::to_string(&ensure_strict(&p)).unwrap(),
            serde_json::to_string(&p).unwrap()
        );
    }
}

#[test]
fn responses_flat_function_with_explicit_strict_false_and_custom_grammar_tool() {
    let e = emit("responses", None);
    let t = tool_json(&e, "write_file");
    let keys: Vec<&String> = t.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["type", "name", "description", "parameters", "strict"]
    );
    assert_eq!(t["strict"], false);

    let p = tool_json(&e, "apply_patch");
    assert_eq!(
        p,
        json!({"type":"custom","name":"apply_patch","description":"apply_patch on responses.",
               "format":{"type":"grammar","syntax":"lark","definition":"start: \"*** Begin Patch\"\n"}})
    );
    // Elsewhere apply_patch is a function with its fields.
    let c = tool_json(&emit("chat", None), "apply_patch");
    assert_eq!(c["type"], "function");
    assert_eq!(c["function"]["parameters"]["required"], json!(["patch"]));
    // In mcp dialect over the responses family there is no custom tool either.
    let m = tool_json(&emit("responses", Some(Dialect::Mcp)), "apply_patch");
    assert_eq!(m["inputSchema"]["properties"]["patch"]["type"], "string");
}

#[test]
fn freeform_follows_like_families() {
    let mut ir = ir();
    ir.families.push(family(
        "responses2",
        Dialect::OpenaiResponses,
        false,
        Some("responses"),
    ));
    let mut s = ir.surfaces[2].clone();
    s.family = "responses2".into();
    ir.surfaces.push(s);
    let e = surface(&ir, "side_chat", "responses2", None).unwrap();
    assert!(
        e.tool("apply_patch")
            .unwrap()
            .json
            .starts_with(r#"{"type":"custom""#)
    );
}

#[test]
fn anthropic_shape() {
    let t = tool_json(&emit("anthropic", None), "write_file");
    let keys: Vec<&String> = t.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "description", "input_schema"]);
}

#[test]
fn gemini_openapi_subset() {
    let e = emit("gemini", None);
    fn walk(v: &Value, path: &str) {
        match v {
            Value::Object(o) => {
                for banned in [
                    "additionalProperties",
                    "const",
                    "$ref",
                    "default",
                    "oneOf",
                    "anyOf",
                    "allOf",
                ] {
                    assert!(!o.contains_key(banned), "{banned} at {path}");
                }
                if let Some(t) = o.get("type") {
                    assert!(t.is_string(), "type array at {path}");
                    let t = t.as_str().unwrap();
                    assert_eq!(t, t.to_ascii_uppercase(), "lower-case type at {path}");
                }
                if let Some(en) = o.get("enum") {
                    assert!(en.as_array().unwrap().iter().all(Value::is_string));
                    assert_eq!(o["type"], "STRING");
                }
                for (k, c) in o {
                    walk(c, &format!("{path}.{k}"));
                }
            }
            Value::Array(a) => a.iter().for_each(|c| walk(c, path)),
            _ => {}
        }
    }
    for t in &e.tools {
        let v: Value = serde_json::from_str(&t.json).unwrap();
        walk(&v["parameters"], &t.name);
    }
    let w = params(&e, "write_file");
    assert_eq!(w["type"], "OBJECT");
    assert_eq!(w["required"], json!(["path"]));
    assert_eq!(w["properties"]["opts"]["required"], json!(["a"]));
    // No parameters at all for a tool without fields (Gemini refuses an empty OBJECT).
    let i = tool_json(&e, "introspect");
    assert!(i.get("parameters").is_none());
    assert_eq!(i["name"], "introspect");
}

#[test]
fn mcp_renders_for_any_family_with_trait_derived_annotations() {
    let ir = ir();
    for f in &ir.families {
        let e = surface(&ir, "side_chat", &f.name, Some(Dialect::Mcp)).unwrap();
        assert_eq!(e.dialect, Dialect::Mcp);
        let t = tool_json(&e, "shell_session");
        let keys: Vec<&String> = t.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "name",
                "title",
                "description",
                "inputSchema",
                "annotations",
                "_meta"
            ]
        );
        assert_eq!(t["title"], "Shell session");
        // The input schema is shaped for the family's client: a strict family's strict-safe
        // schema (optional fields nullable, all required), a gemini family's without
        // `additionalProperties`, otherwise plain types.
        let schema = &t["inputSchema"];
        let optional = &schema["properties"]["host_id"]["type"];
        let closed = schema.get("additionalProperties");
        if f.strict {
            assert_eq!(*optional, json!(["string", "null"]), "{}", f.name);
            let required = schema["required"].as_array().unwrap().len();
            assert_eq!(required, schema["properties"].as_object().unwrap().len());
            assert_eq!(closed, Some(&json!(false)));
        } else if f.dialect == Dialect::Gemini {
            assert_eq!(*optional, "string");
            assert_eq!(closed, None, "{}", f.name);
        } else {
            assert_eq!(*optional, "string");
            assert_eq!(closed, Some(&json!(false)), "{}", f.name);
        }
        // Not every action read-only; no destructive trait declared -> conservative.
        assert_eq!(
            t["annotations"],
            json!({"title":"Shell session","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true})
        );
        let i = tool_json(&e, "introspect");
        assert_eq!(
            i["annotations"],
            json!({"title":"Introspect","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false})
        );
        // _meta: the hash of the tool in the family's own dialect (what the lock pins) and
        // every action's traits.
        let own = surface(&ir, "side_chat", &f.name, None).unwrap();
        let own_sha = &own.tool("shell_session").unwrap().sha256;
        assert_eq!(t["_meta"]["io.toolsurface/sha256"], json!(own_sha));
        assert_eq!(
            t["_meta"]["io.toolsurface/traits"]["list"]["read_only"],
            json!(true)
        );
        assert_eq!(
            i["_meta"]["io.toolsurface/traits"]["read_only"],
            json!(true),
            "a plain tool's traits object is not keyed by action"
        );
    }
}

/// An example per action, outputs (one per action for shell_session, one tool-level for
/// write_file) and an icon, then every switch on and off.
fn ir_with_extras(publish: crate::ir::Publish) -> Ir {
    use crate::ir::{Example, Icon, OutputKind, OutputProperty, OutputType};
    let mut ir = ir();
    for f in &mut ir.families {
        f.publish = publish;
    }
    let out = |props: &[(&str, OutputKind, bool)]| OutputType {
        kind: OutputKind::Object(
            props
                .iter()
                .map(|(n, k, nullable)| OutputProperty {
                    name: (*n).to_owned(),
                    ty: OutputType {
                        kind: k.clone(),
                        description: format!("the {n}"),
                        nullable: *nullable,
                        shape: None,
                        extra: Vec::new(),
                    },
                    required: true,
                })
                .collect(),
        ),
        description: String::new(),
        nullable: false,
        shape: None,
        extra: Vec::new(),
    };
    let idx = ir
        .tools
        .iter()
        .position(|t| t.name == "shell_session")
        .unwrap();
    let t = &mut ir.tools[idx];
    t.icons = vec![Icon {
        src: "https://example.com/s.svg".into(),
        mime_type: Some("image/svg+xml".into()),
        sizes: vec!["any".into()],
        theme: None,
    }];
    for a in &mut t.actions {
        let name = a.name.clone().unwrap();
        a.examples = vec![Example {
            arguments: json!({"action": name, "session_id": 3}),
            span: span(),
        }];
        a.output = Some(if name == "list" {
            out(&[("sessions", OutputKind::Array(None), false)])
        } else {
            out(&[
                ("session_id", OutputKind::Integer, false),
                ("exit_code", OutputKind::Integer, true),
            ])
        });
    }
    ir
}

#[test]
fn examples_and_outputs_follow_the_family_switches() {
    let on = crate::ir::Publish {
        input_examples: true,
        examples_in_description: true,
        output_schema: true,
        parameters_json_schema: false,
    };
    let ir = ir_with_extras(on);
    let anthropic = surface(&ir, "side_chat", "anthropic", None).unwrap();
    let t = tool_json(&anthropic, "shell_session");
    assert_eq!(
        t["input_examples"][0],
        json!({"action":"poll","session_id":3})
    );
    assert_eq!(t["input_examples"].as_array().unwrap().len(), 4);
    let desc = t["description"].as_str().unwrap();
    assert!(
        desc.ends_with("\n\nExamples:\n{\"action\":\"poll\",\"session_id\":3}\n{\"action\":\"wait\",\"session_id\":3}\n{\"action\":\"list\",\"session_id\":3}\n{\"action\":\"resize\",\"session_id\":3}"),
        "{desc}"
    );
    let responses = surface(&ir, "side_chat", "responses", None).unwrap();
    let r = tool_json(&responses, "shell_session");
    let schema = &r["output_schema"];
    assert_eq!(schema["type"], "object");
    let any_of = schema["anyOf"].as_array().unwrap();
    assert_eq!(any_of.len(), 2, "two distinct shapes, each once");
    assert_eq!(
        any_of[0]["properties"]["exit_code"]["type"],
        json!(["integer", "null"])
    );
    assert_eq!(any_of[0]["additionalProperties"], false);
    assert!(any_of[1]["properties"]["sessions"].get("items").is_none());
    let gemini = surface(&ir, "side_chat", "gemini", None).unwrap();
    assert_eq!(
        tool_json(&gemini, "shell_session")["responseJsonSchema"],
        *schema
    );
    let mcp = surface(&ir, "side_chat", "chat", Some(Dialect::Mcp)).unwrap();
    let m = tool_json(&mcp, "shell_session");
    assert_eq!(m["outputSchema"], *schema);
    assert_eq!(
        m["icons"],
        json!([{"src":"https://example.com/s.svg","mimeType":"image/svg+xml","sizes":["any"]}])
    );
    let keys: Vec<&String> = m.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "name",
            "title",
            "description",
            "icons",
            "inputSchema",
            "outputSchema",
            "annotations",
            "_meta"
        ]
    );
    // A tool without a declared output has no output keys anywhere.
    assert!(tool_json(&mcp, "write_file").get("outputSchema").is_none());

    let off = surface(
        &ir_with_extras(crate::ir::Publish::default()),
        "side_chat",
        "anthropic",
        None,
    )
    .unwrap();
    let t = tool_json(&off, "shell_session");
    assert!(t.get("input_examples").is_none());
    assert!(!t["description"].as_str().unwrap().contains("Examples:"));
    let off = surface(
        &ir_with_extras(crate::ir::Publish::default()),
        "side_chat",
        "responses",
        None,
    )
    .unwrap();
    assert!(
        tool_json(&off, "shell_session")
            .get("output_schema")
            .is_none()
    );
}

#[test]
fn annotation_traits_override_when_declared() {
    let mut tools = tools();
    let t = tools
        .iter_mut()
        .find(|t| t.name == "shell_session")
        .unwrap();
    for a in &mut t.actions {
        let ro = a.bool_trait("read_only");
        a.traits.insert(
            "destructive".into(),
            TraitValue::Bool(a.name.as_deref() == Some("resize")),
        );
        a.traits.insert("idempotent".into(), TraitValue::Bool(true));
        a.traits
            .insert("open_world".into(), TraitValue::Bool(false));
        assert!(!ro || a.name.as_deref() == Some("list"));
    }
    assert_eq!(
        annotations(t),
        Annotations {
            read_only: false,
            destructive: true,
            idempotent: true,
            open_world: false
        }
    );
    for a in &mut t.actions {
        a.traits
            .insert("destructive".into(), TraitValue::Bool(false));
    }
    assert!(!annotations(t).destructive);
}

#[test]
fn array_is_the_tools_joined_and_hashes_match() {
    let e = emit("chat", None);
    let joined = format!(
        "[{}]",
        e.tools
            .iter()
            .map(|t| t.json.as_str())
            .collect::<Vec<_>>()
            .join(",")
    );
    assert_eq!(e.bytes, joined);
    assert_eq!(e.resident_bytes(), joined);
    assert_eq!(e.sha256, sha256_hex(e.bytes.as_bytes()));
    assert_eq!(e.sha256.len(), 64);
    for t in &e.tools {
        assert_eq!(t.sha256, sha256_hex(t.json.as_bytes()));
    }
    let names: Vec<&str> = e.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["shell_session", "write_file", "apply_patch", "introspect"]
    );
    // sha256 of the empty string, as a fixed reference point.
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn canonical_bytes_are_a_serde_json_round_trip_fixed_point() {
    for f in ["chat", "chat_strict", "responses", "anthropic", "gemini"] {
        for d in [None, Some(Dialect::Mcp)] {
            let e = emit(f, d);
            let v: Value = serde_json::from_str(&e.bytes).unwrap();
            assert_eq!(serde_json::to_string(&v).unwrap(), e.bytes, "{f} {d:?}");
            assert!(!e.bytes.contains('\n') || e.bytes.contains("\\n"));
        }
    }
}

/// Emit publishes the rendered text as it is: trimming the source is the renderer's rule
/// (`load::render`), and whitespace a template outputs is kept.
#[test]
fn descriptions_are_published_as_rendered() {
    let t = tool_json(&emit("anthropic", None), "introspect");
    assert_eq!(t["description"], "introspect on anthropic.");
    let mut ir = ir();
    ir.surfaces[0].tools[1].description = "ends in a line break\n".into();
    let e = surface(&ir, "side_chat", "chat", None).unwrap();
    assert!(
        e.bytes.contains(r#""ends in a line break\n""#),
        "{}",
        e.bytes
    );
}

#[test]
fn limits_are_asserted() {
    let mut ir = ir();
    ir.surfaces[0].tools[1].description = "x".repeat(1025);
    assert!(matches!(
        surface(&ir, "side_chat", "chat", None),
        Err(EmitError::DescriptionTooLong {
            chars: 1025,
            max: 1024,
            ..
        })
    ));
    ir.limits.max_description_chars = 10;
    ir.surfaces[0].tools[1].description = "x".repeat(11);
    assert!(matches!(
        surface(&ir, "side_chat", "chat", None),
        Err(EmitError::DescriptionTooLong { max: 10, .. })
    ));

    let mut ir2 = self::ir();
    let t = ir2.surfaces[0].tools[0].clone();
    ir2.surfaces[0].tools = vec![t; 129];
    assert!(matches!(
        surface(&ir2, "side_chat", "chat", None),
        Err(EmitError::TooManyTools {
            count: 129,
            max: 128,
            ..
        })
    ));
    // A surface that declares more than the providers' limit publishes it (check warns).
    ir2.limits.max_tools = 500;
    assert_eq!(
        surface(&ir2, "side_chat", "chat", None)
            .unwrap()
            .tools
            .len(),
        129
    );
}

#[test]
fn errors_for_unknown_names_and_missing_texts() {
    let ir = ir();
    assert_eq!(
        surface(&ir, "nobody", "chat", None),
        Err(EmitError::UnknownRole("nobody".into()))
    );
    assert_eq!(
        surface(&ir, "side_chat", "nope", None),
        Err(EmitError::UnknownFamily("nope".into()))
    );
    let mut ir2 = ir.clone();
    ir2.surfaces[0].tools[0]
        .fields
        .retain(|(p, _)| p != "timeout_s");
    assert_eq!(
        surface(&ir2, "side_chat", "chat", None),
        Err(EmitError::MissingDescription {
            tool: "shell_session".into(),
            path: "timeout_s".into()
        })
    );
    let mut ir3 = ir.clone();
    if let Some(t) = ir3.tools.iter_mut().find(|t| t.name == "write_file") {
        t.fields[0].ty = Type::Number {
            minimum: Some(f64::NAN),
            maximum: None,
        };
    }
    assert!(matches!(
        surface(&ir3, "side_chat", "chat", None),
        Err(EmitError::NonFiniteNumber { .. })
    ));
}

#[test]
fn skills_append_after_the_resident_prefix() {
    let mut ir = ir();
    let extra = ir.surfaces[0].tools[3].clone();
    ir.surfaces[0].skills.push(SkillInstance {
        skill: "data".into(),
        tools: vec![extra],
    });
    let e = surface(&ir, "side_chat", "chat", None).unwrap();
    let with = e.with_skills(&["data"]).unwrap();
    let prefix = &e.bytes[..e.bytes.len() - 1];
    assert!(with.starts_with(prefix));
    assert!(with.ends_with(&format!(",{}]", e.skills[0].tools[0].json)));
    assert!(matches!(
        e.with_skills(&["nope"]),
        Err(EmitError::UnknownSkill { .. })
    ));
}

#[test]
fn emission_is_deterministic_within_a_process() {
    let a = surfaces(&ir()).unwrap();
    let b = surfaces(&ir()).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.len(), 5);
}

#[test]
fn mcp_title_from_name() {
    assert_eq!(dialect::title("shell_session"), "Shell session");
    assert_eq!(dialect::title("read_file"), "Read file");
    assert_eq!(dialect::title("x"), "X");
}
