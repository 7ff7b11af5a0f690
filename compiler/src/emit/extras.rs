//! The optional tool keys beside the parameters schema: examples (Anthropic `input_examples`,
//! or `Examples:` lines in a description), output schemas (MCP `outputSchema`, Responses
//! `output_schema`, Gemini `responseJsonSchema`) and the MCP extras (`icons`, `_meta`). Which
//! of them a family publishes is its `Publish` switches; the rules are in
//! `docs/published-bytes.md` ("Examples and output schemas").

use crate::ir::{Icon, OutputKind, OutputType, Tool, TraitValue};

use super::json::Json;

/// The namespace of toolsurface's MCP `_meta` keys.
pub const META_PREFIX: &str = "io.toolsurface/";

/// A serde_json value (an example as written) as canonical JSON, key order kept.
pub(crate) fn value_json(v: &serde_json::Value) -> Json {
    match v {
        serde_json::Value::Null => Json::Null,
        serde_json::Value::Bool(b) => Json::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Json::Int(i),
            None => Json::Num(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(s) => Json::str(s.clone()),
        serde_json::Value::Array(items) => Json::Arr(items.iter().map(value_json).collect()),
        serde_json::Value::Object(m) => {
            Json::Obj(m.iter().map(|(k, v)| (k.clone(), value_json(v))).collect())
        }
    }
}

/// Every example of the tool, actions in declaration order; `None` when there is none.
pub(crate) fn examples(tool: &Tool) -> Option<Json> {
    let all: Vec<Json> = tool
        .actions
        .iter()
        .flat_map(|a| a.examples.iter().map(|e| value_json(&e.arguments)))
        .collect();
    (!all.is_empty()).then_some(Json::Arr(all))
}

/// The description with its examples appended: a blank line, `Examples:`, then one compact
/// JSON object per line. Unchanged when the tool has no example.
pub(crate) fn description_with_examples(description: &str, tool: &Tool) -> String {
    let Some(Json::Arr(all)) = examples(tool) else {
        return description.to_owned();
    };
    let mut out = description.to_owned();
    out.push_str("\n\nExamples:");
    for ex in all {
        out.push('\n');
        out.push_str(&ex.to_canonical());
    }
    out
}

/// The JSON Schema (2020-12 subset, lower-case types) of an output type, its shapes inlined
/// (the lock's per-action records; what hosts validate a result against).
pub(crate) fn output_type_schema(ty: &OutputType) -> Json {
    type_schema(ty, &mut None)
}

/// The `$ref` of the shape `name` under the root's `$defs`: a URI fragment holding a JSON
/// Pointer (RFC 6901's `~0`/`~1`, then percent-encoding what a fragment may not hold raw, as
/// `#/$defs/Page%20Ref`).
pub(crate) fn def_ref(name: &str) -> String {
    let mut out = String::from("#/$defs/");
    let escaped = name.replace('~', "~0").replace('/', "~1");
    for b in escaped.bytes() {
        let raw = b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?".contains(&b);
        if raw {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The `$defs` of a schema: each shape a `$ref` named, and each one those name, rendered by
/// `render`, by declaration index. `marked` lists the shapes named so far; rendering one may
/// name more, so it renders until every one named is.
pub(crate) fn render_named<S, E>(
    state: &mut S,
    marked: impl Fn(&S) -> Vec<usize>,
    mut render: impl FnMut(&mut S, usize) -> Result<Json, E>,
) -> Result<std::collections::BTreeMap<usize, Json>, E> {
    let mut rendered = std::collections::BTreeMap::new();
    while let Some(ix) = marked(state)
        .into_iter()
        .find(|ix| !rendered.contains_key(ix))
    {
        let schema = render(state, ix)?;
        rendered.insert(ix, schema);
    }
    Ok(rendered)
}

/// The shapes a published output schema refers to: the tool's `shapes:` and which of them
/// (by declaration index) a `$ref` has named so far.
struct Refs<'t> {
    defs: &'t [(String, OutputType)],
    used: std::collections::BTreeSet<usize>,
}

impl Refs<'_> {
    /// `{"$ref":"#/$defs/<name>"}` for a use of a declared shape (with the use's own
    /// description beside it when it differs from the shape's), marking the shape used.
    fn reference(&mut self, ty: &OutputType) -> Option<Json> {
        let name = ty.shape.as_deref()?;
        let ix = self.defs.iter().position(|(n, _)| n == name)?;
        self.used.insert(ix);
        let own = &self.defs[ix].1.description;
        Some(Json::obj().with("$ref", Json::str(def_ref(name))).with_opt(
            "description",
            (ty.description != *own).then(|| Json::str(ty.description.clone())),
        ))
    }

    /// `$defs` appended to a root: each shape used (and each shape those use), declaration
    /// order; the root unchanged when none is.
    fn append_defs(refs: &mut Option<Refs<'_>>, root: Json) -> Json {
        let Some(defs) = refs.as_ref().map(|r| r.defs) else {
            return root;
        };
        let Ok(rendered) = render_named(
            refs,
            |r| {
                r.as_ref()
                    .map_or(Vec::new(), |r| r.used.iter().copied().collect())
            },
            |r, ix| Ok::<_, std::convert::Infallible>(inner_schema(&defs[ix].1, r)),
        );
        if rendered.is_empty() {
            return root;
        }
        let entries = rendered
            .into_iter()
            .map(|(ix, schema)| (defs[ix].0.clone(), schema))
            .collect();
        root.with("$defs", Json::Obj(entries))
    }
}

/// A node's schema: a `$ref` where it is a use of a shape and `refs` collects them.
fn type_schema(ty: &OutputType, refs: &mut Option<Refs<'_>>) -> Json {
    if let Some(r) = refs.as_mut()
        && let Some(reference) = r.reference(ty)
    {
        return reference;
    }
    inner_schema(ty, refs)
}

/// A node's own schema (a shape's definition when it is one), children through
/// [`type_schema`].
fn inner_schema(ty: &OutputType, refs: &mut Option<Refs<'_>>) -> Json {
    let base = match &ty.kind {
        OutputKind::String | OutputKind::Enum(_) => "string",
        OutputKind::Integer => "integer",
        OutputKind::Number => "number",
        OutputKind::Boolean => "boolean",
        OutputKind::Array(_) => "array",
        OutputKind::Object(_) => "object",
        OutputKind::AnyOf(shapes) => {
            return any_of_schema(&shapes.iter().collect::<Vec<_>>(), refs);
        }
    };
    let type_value = if ty.nullable {
        Json::Arr(vec![Json::str(base), Json::str("null")])
    } else {
        Json::str(base)
    };
    let mut node = Json::obj().with("type", type_value).with_opt(
        "description",
        (!ty.description.is_empty()).then(|| Json::str(ty.description.clone())),
    );
    match &ty.kind {
        OutputKind::Enum(values) => {
            let mut vals: Vec<Json> = values.iter().map(|v| Json::str(v.clone())).collect();
            if ty.nullable {
                vals.push(Json::Null);
            }
            node = node.with("enum", Json::Arr(vals));
        }
        OutputKind::Array(items) => {
            node = node.with_opt("items", items.as_deref().map(|t| type_schema(t, refs)));
        }
        OutputKind::Object(props) if !props.is_empty() => {
            let properties = props
                .iter()
                .map(|p| (p.name.clone(), type_schema(&p.ty, refs)))
                .collect();
            let required: Vec<Json> = props
                .iter()
                .filter(|p| p.required)
                .map(|p| Json::str(p.name.clone()))
                .collect();
            node = node
                .with("properties", Json::Obj(properties))
                .with_opt(
                    "required",
                    (!required.is_empty()).then_some(Json::Arr(required)),
                )
                .with("additionalProperties", Json::Bool(false));
        }
        _ => {}
    }
    for (k, v) in &ty.extra {
        node = node.with(k, value_json(v));
    }
    node
}

/// Several distinct shapes: `{"type":"object","anyOf":[…]}` (without the outer `type` when a
/// shape is not a non-nullable object). One shape: that shape.
fn any_of_schema(shapes: &[&OutputType], refs: &mut Option<Refs<'_>>) -> Json {
    if let [one] = shapes {
        return inner_schema(one, refs);
    }
    let all_objects = shapes
        .iter()
        .all(|t| matches!(t.kind, OutputKind::Object(_)) && !t.nullable);
    let any_of = Json::Arr(shapes.iter().map(|t| type_schema(t, refs)).collect());
    if all_objects {
        Json::obj()
            .with("type", Json::str("object"))
            .with("anyOf", any_of)
    } else {
        Json::obj().with("anyOf", any_of)
    }
}

/// The tool's output schema: `None` unless every action declares (or inherits) an output.
/// Each distinct shape once, in action order (an action's `any_of` contributes its shapes):
/// one shape is published as itself, several as an `anyOf` whose root stays `type: object`
/// when every shape is an object, as MCP's 2025-11-25 schema requires of `outputSchema`. A
/// plain tool declaring `any_of` and a tool whose actions return those shapes publish the
/// same bytes. A use of one of the tool's `shapes:` is a `$ref` into `$defs` at the root
/// (every dialect that publishes outputs takes JSON Schema 2020-12 references); the root
/// itself is always written out, as MCP requires `type: object` there.
pub(crate) fn output_schema(tool: &Tool) -> Option<Json> {
    output_schema_with(tool, true)
}

/// The tool's output schema with its shapes inlined: what it would publish without
/// `shapes:` (`stats` shows what they save).
pub(crate) fn inlined_output_schema(tool: &Tool) -> Option<Json> {
    output_schema_with(tool, false)
}

fn output_schema_with(tool: &Tool, references: bool) -> Option<Json> {
    if let Some(verbatim) = &tool.output_schema {
        return Some(value_json(verbatim));
    }
    let mut distinct: Vec<&OutputType> = Vec::new();
    for a in &tool.actions {
        let out = a.output.as_ref()?;
        let shapes = match &out.kind {
            OutputKind::AnyOf(shapes) => shapes.iter().collect(),
            _ => vec![out],
        };
        for shape in shapes {
            if !distinct.contains(&shape) {
                distinct.push(shape);
            }
        }
    }
    if distinct.is_empty() {
        return None;
    }
    let mut refs = (references && !tool.output_shapes.is_empty()).then(|| Refs {
        defs: &tool.output_shapes,
        used: std::collections::BTreeSet::new(),
    });
    let root = any_of_schema(&distinct, &mut refs);
    Some(Refs::append_defs(&mut refs, root))
}

/// MCP's `outputSchema` must be an object schema (2025-11-25): the output schema when its
/// root is `type: object`.
pub(crate) fn mcp_output_schema(tool: &Tool) -> Option<Json> {
    let schema = output_schema(tool)?;
    let is_object = matches!(&schema, Json::Obj(entries)
        if entries.iter().any(|(k, v)| k == "type" && *v == Json::str("object")));
    is_object.then_some(schema)
}

/// `icons: [{src, mimeType?, sizes?, theme?}]`.
pub(crate) fn icons(icons: &[Icon]) -> Json {
    let one = |icon: &Icon| {
        let sizes = (!icon.sizes.is_empty())
            .then(|| Json::Arr(icon.sizes.iter().map(|s| Json::str(s.clone())).collect()));
        Json::obj()
            .with("src", Json::str(icon.src.clone()))
            .with_opt("mimeType", icon.mime_type.clone().map(Json::Str))
            .with_opt("sizes", sizes)
            .with_opt("theme", icon.theme.clone().map(Json::Str))
    };
    Json::Arr(icons.iter().map(one).collect())
}

/// MCP `_meta`: `io.toolsurface/sha256`, the sha256 of the tool's JSON in its family's own
/// dialect (the hash `surface.lock` pins for that role × family), and
/// `io.toolsurface/traits`, every trait of every action (a plain tool: its traits object;
/// a tool with actions: one object per action name, declaration order).
pub(crate) fn mcp_meta(tool: &Tool, family_sha256: Option<&str>) -> Option<Json> {
    let traits_of = |a: &crate::ir::Action| {
        Json::Obj(
            a.traits
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        TraitValue::Bool(b) => Json::Bool(*b),
                        TraitValue::Enum(s) => Json::str(s.clone()),
                    };
                    (k.clone(), v)
                })
                .collect(),
        )
    };
    let traits = if tool.is_plain() {
        tool.actions
            .first()
            .map(traits_of)
            .unwrap_or_else(Json::obj)
    } else {
        Json::Obj(
            tool.actions
                .iter()
                .filter_map(|a| Some((a.name.clone()?, traits_of(a))))
                .collect(),
        )
    };
    let mut meta = Json::obj();
    for (k, v) in &tool.meta {
        meta = meta.with(k, value_json(v));
    }
    let Some(sha) = family_sha256 else {
        return (!tool.meta.is_empty()).then_some(meta);
    };
    Some(
        meta.with(&format!("{META_PREFIX}sha256"), Json::str(sha))
            .with(&format!("{META_PREFIX}traits"), traits),
    )
}
