//! The tool keys beside the parameters schema, mapped back onto the definition language:
//! examples (Anthropic `input_examples` → `examples:`), declared outputs (MCP `outputSchema`,
//! Responses `output_schema`, Gemini `responseJsonSchema` → `output:`) and MCP `icons` →
//! `icon:`. MCP `_meta` keys under toolsurface's own namespace (the lock hash and the traits
//! `emit` writes) are recognized and dropped: they are derived again from the imported
//! definitions. A keyword `output:` does not model (`$schema`, `title`, `format`, bounds) is
//! kept verbatim at its node (`json_schema:`) and named by its JSON pointer, so the output
//! stays typed; what it cannot say at all (open objects with declared properties, unions
//! below the root, `$ref`, names the language cannot spell) is reported by its pointer, and
//! the output is then kept verbatim whole (`output_schema:`) rather than published
//! differently.

use std::fmt::Write as _;

use serde_json::Value;

use super::{Note, escape, quoted};
use crate::dialect::DialectRules;
use crate::ir::Icon;

/// One node of a declared output, as `output:` writes it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct OutNode {
    kind: OutKind,
    description: String,
    nullable: bool,
    /// Keywords `output:` does not model, kept verbatim (`json_schema:`).
    extra: Vec<(String, Value)>,
}

/// What reading an output schema found beside the nodes: `blockers`, what `output:` cannot
/// say (the output is then kept verbatim whole), and `kept`, keywords kept verbatim at
/// their node (`json_schema:`), each with its pointer.
#[derive(Default)]
struct Found {
    blockers: Vec<(String, String)>,
    kept: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq)]
enum OutKind {
    String,
    Integer,
    Number,
    Boolean,
    Enum(Vec<String>),
    Array(Option<Box<OutNode>>),
    /// Properties with whether each is required; empty: any object.
    Object(Vec<(String, OutNode, bool)>),
    /// Only at the root.
    AnyOf(Vec<OutNode>),
}

/// What one input tool carries besides its parameters.
#[derive(Clone, Debug, Default)]
pub(super) struct Extras {
    /// Each example with its pointer (argument objects as written).
    pub examples: Vec<(String, Value)>,
    pub output: Option<OutNode>,
    /// An output schema `output:` cannot say, kept verbatim (`output_schema:`).
    pub output_schema: Option<Value>,
    pub icons: Vec<Icon>,
    /// MCP `_meta` keys outside toolsurface's namespace.
    pub meta: Vec<(String, Value)>,
}

/// Read the extras of one tool object `body` (at `ptr`).
pub(super) fn read(
    rules: &dyn DialectRules,
    tool: &str,
    body: &Value,
    ptr: &str,
    notes: &mut Vec<Note>,
) -> Extras {
    let mut note = |pointer: String, message: String| {
        notes.push(Note {
            tool: tool.to_owned(),
            pointer,
            message,
        })
    };
    let mut extras = Extras::default();
    if let Some(list) = body.get("input_examples") {
        match list.as_array() {
            Some(items) => {
                for (i, ex) in items.iter().enumerate() {
                    let p = format!("{ptr}/input_examples/{i}");
                    if ex.is_object() {
                        extras.examples.push((p, ex.clone()));
                    } else {
                        note(
                            p,
                            "an example that is not an argument object: dropped".into(),
                        );
                    }
                }
            }
            None => note(
                format!("{ptr}/input_examples"),
                "`input_examples` is not a list: dropped".into(),
            ),
        }
    }
    if let Some(key) = rules.output_key()
        && let Some(schema) = body.get(key)
    {
        let p = format!("{ptr}/{key}");
        let mut found = Found::default();
        let node = root(schema, &p, &mut found);
        let local = found.blockers;
        if local.is_empty() {
            extras.output = node;
            for (at, what) in found.kept {
                note(at, what);
            }
        } else {
            note(
                p,
                format!(
                    "`{key}` kept verbatim (`output_schema:`), so no typed result is generated: {}",
                    local.first().map_or_else(String::new, |(at, what)| {
                        let more = match local.len() - 1 {
                            0 => String::new(),
                            n => format!(" (and {n} more)"),
                        };
                        format!("{what} at {at}{more}")
                    })
                ),
            );
            extras.output_schema = Some(schema.clone());
        }
    }
    if let Some(Value::Array(icons)) = body.get("icons") {
        extras.icons = icons
            .iter()
            .enumerate()
            .filter_map(|(i, x)| icon(x, &format!("{ptr}/icons/{i}"), &mut note))
            .collect();
    }
    if let Some(meta) = body.get("_meta").and_then(Value::as_object) {
        extras.meta = meta
            .iter()
            .filter(|(k, _)| !k.starts_with(crate::emit::META_PREFIX))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
    }
    extras
}

fn icon(first: &Value, ptr: &str, note: &mut impl FnMut(String, String)) -> Option<Icon> {
    let Some(src) = first.get("src").and_then(Value::as_str) else {
        note(ptr.to_owned(), "an icon without `src`: dropped".into());
        return None;
    };
    if let Some(o) = first.as_object() {
        for k in o
            .keys()
            .filter(|k| !["src", "mimeType", "sizes", "theme"].contains(&k.as_str()))
        {
            note(
                format!("{ptr}/{}", escape(k)),
                format!("icon `{k}` has no equivalent in the definition language: dropped"),
            );
        }
    }
    let text = |k: &str| first.get(k).and_then(Value::as_str).map(str::to_owned);
    let sizes = first
        .get("sizes")
        .and_then(Value::as_array)
        .map(|s| {
            s.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    Some(Icon {
        src: src.to_owned(),
        mime_type: text("mimeType"),
        sizes,
        theme: text("theme"),
    })
}

/// The root of an output schema: a union of shapes (`anyOf`, with `type: object` beside it
/// when every shape is a non-nullable object, as `emit` writes it) or one shape.
fn root(schema: &Value, ptr: &str, found: &mut Found) -> Option<OutNode> {
    let Some(branches) = schema.get("anyOf").and_then(Value::as_array) else {
        return node(schema, ptr, found);
    };
    if let Some(o) = schema.as_object() {
        for k in o
            .keys()
            .filter(|k| !["anyOf", "type"].contains(&k.as_str()))
        {
            found.blockers.push((
                format!("{ptr}/{}", escape(k)),
                format!("`{k}` beside a root `anyOf` has no equivalent in `output:`"),
            ));
        }
    }
    let shapes: Vec<OutNode> = branches
        .iter()
        .enumerate()
        .filter_map(|(i, b)| node(b, &format!("{ptr}/anyOf/{i}"), found))
        .collect();
    let all_objects = shapes
        .iter()
        .all(|s| matches!(s.kind, OutKind::Object(_)) && !s.nullable);
    let typed = schema.get("type") == Some(&Value::from("object"));
    if shapes.len() < 2 || typed != all_objects {
        found.blockers.push((
            ptr.to_owned(),
            "a root `anyOf` that `output: any_of` would publish differently".into(),
        ));
    }
    Some(OutNode {
        kind: OutKind::AnyOf(shapes),
        description: String::new(),
        nullable: false,
        extra: Vec::new(),
    })
}

/// Keys without which a node cannot be typed: references (`shapes:` has them, but an input's
/// `$defs` may be placed or named otherwise) and a union below the root.
const OUTPUT_BLOCKERS: [&str; 4] = ["$ref", "$defs", "anyOf", "oneOf"];

/// One output schema node (not a union).
fn node(v: &Value, ptr: &str, found: &mut Found) -> Option<OutNode> {
    let notes = &mut found.blockers;
    let Some(o) = v.as_object() else {
        notes.push((ptr.to_owned(), "a schema that is not an object".into()));
        return None;
    };
    let mut extra = Vec::new();
    for (k, val) in o {
        let at = format!("{ptr}/{}", escape(k));
        if OUTPUT_BLOCKERS.contains(&k.as_str()) {
            notes.push((at, format!("`{k}` has no equivalent in `output:`")));
        } else if !crate::load::types::OUTPUT_MODELLED.contains(&k.as_str()) {
            found.kept.push((
                at,
                format!("`{k}` kept verbatim (`json_schema:`): published as written, read by no typed result"),
            ));
            extra.push((k.clone(), val.clone()));
        }
    }
    let (base, nullable) = match o.get("type") {
        Some(Value::String(t)) => (t.as_str(), false),
        Some(Value::Array(list)) => match list.as_slice() {
            [Value::String(t), null] if null == "null" && t != "null" => (t.as_str(), true),
            _ => {
                notes.push((
                    format!("{ptr}/type"),
                    format!(
                        "type {}: `output:` writes one type, or one type and null",
                        Value::Array(list.clone())
                    ),
                ));
                return None;
            }
        },
        _ => {
            notes.push((ptr.to_owned(), "no `type`".into()));
            return None;
        }
    };
    let description = match o.get("description") {
        Some(Value::String(d)) => d.clone(),
        Some(_) => {
            notes.push((
                format!("{ptr}/description"),
                "a description that is not a string".into(),
            ));
            return None;
        }
        None => String::new(),
    };
    let kind = match base {
        "string" => match o.get("enum") {
            Some(values) => OutKind::Enum(enum_values(
                values,
                nullable,
                &format!("{ptr}/enum"),
                notes,
            )?),
            None => OutKind::String,
        },
        "integer" => OutKind::Integer,
        "number" => OutKind::Number,
        "boolean" => OutKind::Boolean,
        "array" => OutKind::Array(match o.get("items") {
            Some(items) => Some(Box::new(node(items, &format!("{ptr}/items"), found)?)),
            None => None,
        }),
        "object" => OutKind::Object(properties(o, ptr, found)?),
        other => {
            found.blockers.push((
                format!("{ptr}/type"),
                format!("type `{other}` has no equivalent in `output:`"),
            ));
            return None;
        }
    };
    if o.contains_key("enum") && !matches!(kind, OutKind::Enum(_)) {
        found.blockers.push((
            format!("{ptr}/enum"),
            "an enum of a type other than string".into(),
        ));
    }
    Some(OutNode {
        kind,
        description,
        nullable,
        extra,
    })
}

fn enum_values(
    values: &Value,
    nullable: bool,
    ptr: &str,
    notes: &mut Vec<(String, String)>,
) -> Option<Vec<String>> {
    let list = values.as_array()?;
    let mut out = Vec::new();
    for (i, v) in list.iter().enumerate() {
        match v {
            Value::String(s) => out.push(s.clone()),
            // `emit` writes null last, for a nullable enum.
            Value::Null if nullable && i + 1 == list.len() => {}
            other => {
                notes.push((format!("{ptr}/{i}"), format!("enum value {other}: the language's enums are strings (null last when nullable)")));
                return None;
            }
        }
    }
    if nullable && list.last() != Some(&Value::Null) {
        notes.push((
            ptr.to_owned(),
            "a nullable enum without null among its values".into(),
        ));
    }
    Some(out)
}

fn properties(
    o: &serde_json::Map<String, Value>,
    ptr: &str,
    found: &mut Found,
) -> Option<Vec<(String, OutNode, bool)>> {
    let notes = &mut found.blockers;
    let declared = o.get("properties").and_then(Value::as_object);
    let closed = o.get("additionalProperties") == Some(&Value::Bool(false));
    let has_props = declared.is_some_and(|p| !p.is_empty());
    if has_props != closed {
        notes.push((
            format!("{ptr}/additionalProperties"),
            if has_props {
                "an object with properties that allows others: `output:` objects with properties are closed".into()
            } else {
                "a closed object without properties: `output:` reads it as any object".into()
            },
        ));
    }
    let required: Vec<&str> = o
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (name, p) in declared.into_iter().flatten() {
        let pptr = format!("{ptr}/properties/{}", escape(name));
        if !crate::load::read::is_field_name(name) {
            found.blockers.push((pptr, format!("property name `{name}` is outside ^[a-zA-Z0-9_.-]{{1,64}}$ (a result cannot be renamed)")));
            continue;
        }
        out.push((
            name.clone(),
            node(p, &pptr, found)?,
            required.contains(&name.as_str()),
        ));
    }
    let notes = &mut found.blockers;
    for r in required
        .iter()
        .filter(|r| !out.iter().any(|(n, _, _)| n == *r))
    {
        notes.push((
            format!("{ptr}/required"),
            format!("required `{r}` is not a property"),
        ));
    }
    Some(out)
}

/// `output:` (and its nodes) as YAML at `depth`.
pub(super) fn write_output(s: &mut String, out: &OutNode) {
    let _ = writeln!(s, "output:");
    match &out.kind {
        OutKind::AnyOf(shapes) => {
            let _ = writeln!(s, "  any_of:");
            for shape in shapes {
                let mut branch = String::new();
                write_node(&mut branch, shape, 3);
                // The first line of each shape carries the list dash.
                s.push_str("    - ");
                s.push_str(branch.trim_start_matches(' '));
            }
        }
        _ => write_node(s, out, 1),
    }
}

fn write_node(s: &mut String, n: &OutNode, depth: usize) {
    let pad = "  ".repeat(depth);
    let ty = match &n.kind {
        OutKind::String => "string",
        OutKind::Integer => "integer",
        OutKind::Number => "number",
        OutKind::Boolean => "boolean",
        OutKind::Enum(_) => "enum",
        OutKind::Array(_) => "array",
        OutKind::Object(_) | OutKind::AnyOf(_) => "object",
    };
    let _ = writeln!(s, "{pad}type: {ty}");
    if !n.description.is_empty() {
        let _ = writeln!(s, "{pad}description: {}", quoted(&n.description));
    }
    if n.nullable {
        let _ = writeln!(s, "{pad}nullable: true");
    }
    match &n.kind {
        OutKind::Enum(values) => {
            let v: Vec<String> = values.iter().map(|v| quoted(v)).collect();
            let _ = writeln!(s, "{pad}values: [{}]", v.join(", "));
        }
        OutKind::Array(Some(items)) => {
            let _ = writeln!(s, "{pad}items:");
            write_node(s, items, depth + 1);
        }
        OutKind::Object(props) if !props.is_empty() => {
            let _ = writeln!(s, "{pad}properties:");
            for (name, p, _) in props {
                let _ = writeln!(s, "{pad}  {name}:");
                write_node(s, p, depth + 2);
                if p.description.is_empty() {
                    // Every property is described; an undescribed one publishes none.
                    let _ = writeln!(s, "{pad}    description: \"\"");
                }
            }
            let req: Vec<&str> = props
                .iter()
                .filter(|(_, _, r)| *r)
                .map(|(n, _, _)| n.as_str())
                .collect();
            if !req.is_empty() {
                let _ = writeln!(s, "{pad}required: [{}]", req.join(", "));
            }
        }
        _ => {}
    }
    if !n.extra.is_empty() {
        let map: serde_json::Map<String, Value> = n.extra.iter().cloned().collect();
        let _ = writeln!(s, "{pad}json_schema: {}", Value::Object(map));
    }
}

/// `examples:` at `depth` (each argument object as one JSON line: JSON is YAML flow).
pub(super) fn write_examples(s: &mut String, examples: &[&Value], depth: usize) {
    if examples.is_empty() {
        return;
    }
    let pad = "  ".repeat(depth);
    let _ = writeln!(s, "{pad}examples:");
    for ex in examples {
        let _ = writeln!(s, "{pad}  - {ex}");
    }
}

/// `icon:`: one icon as a mapping, several as a list of them.
pub(super) fn write_icons(s: &mut String, icons: &[Icon]) {
    let (lead, pad) = match icons {
        [] => return,
        [_] => ("  ", "  "),
        _ => ("  - ", "    "),
    };
    let _ = writeln!(s, "icon:");
    for icon in icons {
        let Icon {
            src,
            mime_type: mime,
            sizes,
            theme,
        } = icon;
        let _ = writeln!(s, "{lead}src: {}", quoted(src));
        if let Some(m) = mime {
            let _ = writeln!(s, "{pad}mime_type: {}", quoted(m));
        }
        if !sizes.is_empty() {
            let v: Vec<String> = sizes.iter().map(|x| quoted(x)).collect();
            let _ = writeln!(s, "{pad}sizes: [{}]", v.join(", "));
        }
        if let Some(t) = theme {
            let _ = writeln!(s, "{pad}theme: {}", quoted(t));
        }
    }
}

/// `meta:` (MCP `_meta` keys of the tool's own), each value as JSON.
pub(super) fn write_meta(s: &mut String, meta: &[(String, Value)]) {
    if meta.is_empty() {
        return;
    }
    let _ = writeln!(s, "meta:");
    for (k, v) in meta {
        let _ = writeln!(s, "  {}: {v}", quoted(k));
    }
}
