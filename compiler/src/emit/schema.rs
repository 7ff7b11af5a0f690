//! The flat parameters schema of one tool: every action's fields merged into one object (the
//! selector first, a required string enum), each field once with its description prefixed by
//! the actions that use it, in one of three styles (plain JSON Schema, OpenAI strict, the
//! Gemini OpenAPI subset). The per-action strictness lives in `Call::parse`, not here.

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::ir::{RenderedTool, SchemaAnnotations, Tool, Type, UnionForm};

use super::extras::{def_ref, render_named, value_json};

use super::EmitError;
use super::json::Json;

/// How a schema is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// JSON Schema 2020-12 subset: openai-chat (non-strict), openai-responses, anthropic, mcp.
    /// `additionalProperties: false` on every object.
    JsonSchema,
    /// OpenAI strict: every property required, optional ones as null unions, no
    /// `minLength`/`maxLength` (refused by strict mode; `Call::parse` still enforces them).
    Strict,
    /// Gemini's OpenAPI 3.0 subset: upper-case type names, no `additionalProperties`, no type
    /// arrays (an optional field is simply not required, so `nullable` is never needed).
    Gemini,
    /// [`Style::JsonSchema`] without `additionalProperties`: the MCP rendering of a gemini
    /// family, whose client (google-genai's MCP-to-Tool conversion) refuses the key. The
    /// objects stay closed where it matters: `Call::parse` refuses unknown fields.
    Open,
}

impl Style {
    /// Whether a use of a shape is a `$ref` into the root's `$defs` (JSON Schema 2020-12
    /// references: every style but Gemini's OpenAPI subset, which has none, so the shape is
    /// inlined there).
    fn takes_references(self) -> bool {
        self != Style::Gemini
    }
}

/// The shapes a parameters schema refers to: per shape (index in `Tool::field_shapes`) the
/// description path of its first use, where its definition's texts are rendered (a shape's
/// texts are the same at every use).
#[derive(Default)]
struct Refs {
    used: BTreeMap<usize, String>,
}

/// The rendered texts of one tool, looked up by the paths the IR uses.
pub(crate) struct Texts<'a> {
    pub(crate) tool: &'a Tool,
    pub(crate) rendered: &'a RenderedTool,
}

impl Texts<'_> {
    /// A field's (`name`) or nested property's (`field.prop`) rendered description.
    fn field(&self, path: &str) -> Result<&str, EmitError> {
        self.rendered
            .fields
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, d)| d.as_str())
            .ok_or_else(|| EmitError::MissingDescription {
                tool: self.tool.name.clone(),
                path: path.to_owned(),
            })
    }

    fn action(&self, name: &str) -> Result<&str, EmitError> {
        self.rendered
            .actions
            .iter()
            .find(|(n, _)| n.as_deref() == Some(name))
            .map(|(_, d)| d.as_str())
            .ok_or_else(|| EmitError::MissingDescription {
                tool: self.tool.name.clone(),
                path: format!("actions.{name}"),
            })
    }
}

/// The selector's description: its own text, then one line per action in declaration order,
/// `- name: rendered action description` (`- name` when the action has none).
pub(crate) fn selector_description(texts: &Texts<'_>) -> Result<String, EmitError> {
    let mut out = texts.rendered.selector.clone();
    for action in &texts.tool.actions {
        let Some(name) = action.name.as_deref() else {
            continue;
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("- ");
        out.push_str(name);
        let desc = texts.action(name)?;
        if !desc.is_empty() {
            out.push_str(": ");
            out.push_str(desc);
        }
    }
    Ok(out)
}

/// The tool's published properties in order: `(name, required at the root)`. The selector is
/// not included. A field used by no action is not published (no action would accept it).
pub(crate) fn published_fields(tool: &Tool) -> Vec<(&str, bool)> {
    tool.fields
        .iter()
        .filter(|f| tool.actions.iter().any(|a| a.uses(&f.name)))
        .map(|f| {
            let every =
                !tool.actions.is_empty() && tool.actions.iter().all(|a| a.is_required(&f.name));
            (f.name.as_str(), every)
        })
        .collect()
}

/// The flat parameters object of `tool`.
pub(crate) fn parameters(texts: &Texts<'_>, style: Style) -> Result<Json, EmitError> {
    let tool = texts.tool;
    for action in &tool.actions {
        if let Some(f) = action
            .required
            .iter()
            .chain(&action.optional)
            .find(|f| tool.field(f).is_none())
        {
            return Err(EmitError::UndeclaredField {
                tool: tool.name.clone(),
                field: f.clone(),
            });
        }
    }

    let refs = RefCell::new(Refs::default());
    let refs = style.takes_references().then_some(&refs);
    let mut properties = Vec::new();
    let mut required = Vec::new();
    if let Some(selector) = &tool.selector {
        let values = tool
            .actions
            .iter()
            .filter_map(|a| a.name.as_deref())
            .map(Json::str)
            .collect();
        let schema = Json::obj()
            .with("type", type_name("string", style))
            .with("description", Json::str(selector_description(texts)?))
            .with("enum", Json::Arr(values));
        properties.push((selector.name.clone(), schema));
        required.push(Json::str(selector.name.clone()));
    }
    for (name, every) in published_fields(tool) {
        let Some(field) = tool.field(name) else {
            continue;
        };
        let mut desc = texts.field(name)?.to_owned();
        if !tool.is_plain() {
            let users = tool.actions_using(name).join("/");
            desc = if desc.is_empty() {
                users
            } else {
                format!("{users}: {desc}")
            };
        }
        let nullable = style == Style::Strict && !every;
        let ctx = Node {
            texts: Some(texts),
            path: name.to_owned(),
            style,
            refs,
        };
        if !unlisted(&field.ty) {
            // One property for every action taking it: its default only when they share one.
            let ty = tool.published_type(field);
            properties.push((name.to_owned(), ctx.schema(&ty, Some(desc), nullable)?));
        }
        if every || style == Style::Strict {
            required.push(Json::str(name));
        }
    }
    let params = &tool.parameters;
    let head = Json::obj().with("type", type_name("object", style));
    let additional = match &params.additional {
        Some(_) if params.implicit_open => Some(Json::Null),
        Some(t) => Some(
            Node {
                texts: Some(texts),
                path: "*".to_owned(),
                style,
                refs,
            }
            .schema(t, None, false)?,
        ),
        None => None,
    };
    let root = object_schema_with(head, properties, required, additional, style);
    let root = annotated(root, &params.ann, true, style);
    match refs {
        Some(refs) => with_defs(root, texts, style, refs),
        None => Ok(root),
    }
}

/// `$defs` appended to the parameters root: each shape a `$ref` named (and each shape those
/// name), in the declaration order of `shapes:`; the root unchanged when none is.
fn with_defs(
    root: Json,
    texts: &Texts<'_>,
    style: Style,
    refs: &RefCell<Refs>,
) -> Result<Json, EmitError> {
    let shapes = &texts.tool.field_shapes;
    let rendered = render_named(
        &mut (),
        |()| refs.borrow().used.keys().copied().collect(),
        |(), ix| {
            let (path, def) = (refs.borrow().used.get(&ix).cloned(), shapes.get(ix));
            // Both are there: `ix` is a key of `used`, a position in `field_shapes`.
            let (Some(path), Some((_, def))) = (path, def) else {
                return Ok(Json::Null);
            };
            let node = Node {
                texts: Some(texts),
                path,
                style,
                refs: Some(refs),
            };
            node.schema(def, None, false)
        },
    )?;
    if rendered.is_empty() {
        return Ok(root);
    }
    let mut entries: Vec<(String, Json)> = rendered
        .into_iter()
        .filter_map(|(ix, schema)| Some((shapes.get(ix)?.0.clone(), schema)))
        .collect();
    // Entries kept verbatim (`parameters: json_schema: { $defs: … }`: what an import found no
    // property using) follow the shapes in the one `$defs`.
    let mut root = root;
    if let Json::Obj(keys) = &mut root
        && let Some(at) = keys.iter().position(|(k, _)| k == "$defs")
        && let (_, Json::Obj(verbatim)) = keys.remove(at)
    {
        for (name, schema) in verbatim {
            if !entries.iter().any(|(n, _)| *n == name) {
                entries.push((name, schema));
            }
        }
    }
    Ok(root.with("$defs", Json::Obj(entries)))
}

/// A field required but not described under `properties` (`unlisted: true`).
fn unlisted(ty: &Type) -> bool {
    ty.peel().1.is_some_and(|a| a.unlisted)
}

/// `node` with the annotations appended; `with_description`: the node has no description of
/// its own (the parameters root), so the annotation's is published.
/// In strict style no `default`: OpenAI's strict mode refuses the keyword ("'default' is not
/// permitted", dotnet/extensions#6266, openai-agents#4390); the default is the conversion's
/// (the generated `From`) either way.
fn annotated(
    mut node: Json,
    ann: &SchemaAnnotations,
    with_description: bool,
    style: Style,
) -> Json {
    if ann.type_implied
        && let Json::Obj(entries) = &mut node
    {
        entries.retain(|(k, _)| k != "type");
    }
    if with_description {
        node = node.with_opt("description", ann.description.clone().map(Json::Str));
    }
    node = node
        .with_opt("title", ann.title.clone().map(Json::Str))
        .with_opt(
            "default",
            ann.default
                .as_ref()
                .filter(|_| style != Style::Strict)
                .map(value_json),
        )
        .with_opt("format", ann.format.clone().map(Json::Str))
        .with_opt(
            "examples",
            ann.examples
                .as_ref()
                .map(|x| Json::Arr(x.iter().map(value_json).collect())),
        );
    for (k, v) in &ann.extra {
        node = node.with(k, value_json(v));
    }
    node
}

/// `{"type":"object","properties":…,"required":…,"additionalProperties":false}` in the
/// documented key order after `head`; `required` omitted when empty except in strict style
/// (where the OpenAI SDK's `ensure_strict_json_schema` would add it). `additional`: the schema
/// of an open object's other keys (`true` for any); the closed default is `false`, left out in
/// the styles without the key.
fn object_schema_with(
    head: Json,
    properties: Vec<(String, Json)>,
    required: Vec<Json>,
    additional: Option<Json>,
    style: Style,
) -> Json {
    let required = if required.is_empty() && style != Style::Strict {
        None
    } else {
        Some(Json::Arr(required))
    };
    // An open object without properties says nothing with `"properties": {}`: left out.
    let properties =
        (!properties.is_empty() || additional.is_none()).then_some(Json::Obj(properties));
    let additional = match (style, additional) {
        (Style::Gemini, _) | (Style::Open, None) | (_, Some(Json::Null)) => None,
        (_, Some(Json::Obj(o))) if o.is_empty() => Some(Json::Bool(true)),
        (_, Some(schema)) => Some(schema),
        (Style::JsonSchema | Style::Strict, None) => Some(Json::Bool(false)),
    };
    head.with_opt("properties", properties)
        .with_opt("required", required)
        .with_opt("additionalProperties", additional)
}

fn type_name(name: &str, style: Style) -> Json {
    match style {
        Style::Gemini => Json::str(name.to_ascii_uppercase()),
        Style::JsonSchema | Style::Strict | Style::Open => Json::str(name),
    }
}

/// One schema node being written, with its description path. Without texts (the strict
/// union of `codegen::union`) no node carries a description.
struct Node<'t, 'a> {
    texts: Option<&'t Texts<'a>>,
    /// `field`, `field.prop`, `field.prop.sub` (array items add no segment).
    path: String,
    style: Style,
    /// Where a use of a shape is a `$ref` (`None`: every shape inlined).
    refs: Option<&'t RefCell<Refs>>,
}

impl Node<'_, '_> {
    fn child(&self, prop: &str) -> Node<'_, '_> {
        Node {
            texts: self.texts,
            path: format!("{}.{prop}", self.path),
            style: self.style,
            refs: self.refs,
        }
    }

    /// A use of the shape `name`: `{"$ref":"#/$defs/<name>"}` with the use's own description
    /// beside it (strict style, optional: `anyOf` the reference or `null`), the shape marked
    /// used with this path; `None` when this node inlines shapes, or the shape is none of
    /// the tool's.
    fn reference(&self, name: &str, description: Option<&str>, nullable: bool) -> Option<Json> {
        let refs = self.refs?;
        let ix = self
            .texts?
            .tool
            .field_shapes
            .iter()
            .position(|(n, _)| n == name)?;
        refs.borrow_mut()
            .used
            .entry(ix)
            .or_insert_with(|| self.path.clone());
        let reference = Json::obj().with("$ref", Json::str(def_ref(name)));
        let description = description.filter(|d| !d.is_empty()).map(Json::str);
        Some(if nullable {
            let null = Json::obj().with("type", Json::str("null"));
            Json::obj()
                .with_opt("description", description)
                .with("anyOf", Json::Arr(vec![reference, null]))
        } else {
            reference.with_opt("description", description)
        })
    }

    fn non_finite(&self) -> EmitError {
        EmitError::NonFiniteNumber {
            tool: self.texts.map(|t| t.tool.name.clone()).unwrap_or_default(),
            path: self.path.clone(),
        }
    }

    /// Key order: type, description, enum, minimum, maximum, minLength, maxLength, pattern,
    /// items, minItems, maxItems, properties, required, additionalProperties.
    fn schema(
        &self,
        ty: &Type,
        description: Option<String>,
        nullable: bool,
    ) -> Result<Json, EmitError> {
        let style = self.style;
        let base = match ty {
            Type::String { .. } | Type::Enum { .. } => "string",
            Type::Integer { .. } => "integer",
            Type::Number { .. } => "number",
            Type::Boolean => "boolean",
            Type::Array { .. } => "array",
            Type::Object { .. } => "object",
            Type::Null => "null",
            Type::Annotated { ty, ann } => {
                let own = description.filter(|d| !d.is_empty());
                let inner = self.schema(ty, own.or_else(|| ann.description.clone()), nullable)?;
                return Ok(annotated(inner, ann, false, style));
            }
            Type::Shape { name, ty } => {
                if let Some(reference) = self.reference(name, description.as_deref(), nullable) {
                    return Ok(reference);
                }
                return self.schema(ty, description, nullable);
            }
            Type::Any | Type::Const { .. } | Type::Union { .. } => {
                return self.typeless(ty, description, nullable);
            }
        };
        let type_value = if nullable {
            Json::Arr(vec![Json::str(base), Json::str("null")])
        } else {
            type_name(base, style)
        };
        let mut node = Json::obj().with("type", type_value).with_opt(
            "description",
            description.filter(|d| !d.is_empty()).map(Json::Str),
        );
        match ty {
            Type::String {
                min_length,
                max_length,
                pattern,
            } => {
                if style != Style::Strict {
                    node = node
                        .with_opt("minLength", min_length.map(uint))
                        .with_opt("maxLength", max_length.map(uint));
                }
                node = node.with_opt("pattern", pattern.clone().map(Json::Str));
            }
            Type::Enum { values } => {
                let mut vals: Vec<Json> = values.iter().map(|v| Json::str(v.clone())).collect();
                if nullable {
                    vals.push(Json::Null);
                }
                node = node.with("enum", Json::Arr(vals));
            }
            Type::Integer { minimum, maximum } => {
                node = node
                    .with_opt("minimum", minimum.map(Json::Int))
                    .with_opt("maximum", maximum.map(Json::Int));
            }
            Type::Number { minimum, maximum } => {
                for (key, bound) in [("minimum", minimum), ("maximum", maximum)] {
                    if let Some(b) = bound {
                        if !b.is_finite() {
                            return Err(self.non_finite());
                        }
                        node = node.with(key, Json::Num(*b));
                    }
                }
            }
            Type::Boolean => {}
            Type::Array {
                items,
                min_items,
                max_items,
            } => {
                node = node
                    .with("items", self.schema(items, None, false)?)
                    .with_opt("minItems", min_items.map(uint))
                    .with_opt("maxItems", max_items.map(uint));
            }
            Type::Any
            | Type::Null
            | Type::Const { .. }
            | Type::Union { .. }
            | Type::Annotated { .. }
            | Type::Shape { .. } => {}
            Type::Object {
                properties,
                additional,
                implicit_open,
            } => return self.object(node, properties, additional.as_deref(), *implicit_open),
        }
        Ok(node)
    }

    /// An object node's properties, `required` and other keys, after `node`'s head.
    fn object(
        &self,
        node: Json,
        properties: &[crate::ir::Property],
        additional: Option<&Type>,
        implicit_open: bool,
    ) -> Result<Json, EmitError> {
        let style = self.style;
        let additional = match additional {
            // Open by JSON Schema's default: nothing published.
            Some(_) if implicit_open => Some(Json::Null),
            Some(t) => Some(self.child("*").schema(t, None, false)?),
            None => None,
        };
        let mut props = Vec::new();
        let mut required = Vec::new();
        for p in properties {
            let child = self.child(&p.name);
            let desc = match self.texts {
                Some(texts) => Some(texts.field(&child.path)?.to_owned()),
                None => None,
            };
            let nullable = style == Style::Strict && !p.required;
            if !unlisted(&p.ty) {
                props.push((p.name.clone(), child.schema(&p.ty, desc, nullable)?));
            }
            if p.required || style == Style::Strict {
                required.push(Json::str(p.name.clone()));
            }
        }
        Ok(object_schema_with(node, props, required, additional, style))
    }

    /// The types without one JSON type name: `any` (no `type`), `const`, unions.
    fn typeless(
        &self,
        ty: &Type,
        description: Option<String>,
        nullable: bool,
    ) -> Result<Json, EmitError> {
        let description = description.filter(|d| !d.is_empty()).map(Json::Str);
        match ty {
            Type::Const { value, json_type } => {
                let head = match json_type {
                    Some(t) => Json::obj().with("type", type_name(t, self.style)),
                    None => Json::obj(),
                };
                Ok(head
                    .with_opt("description", description)
                    .with("const", value_json(value)))
            }
            Type::Union { form, branches } => {
                let mut schemas = Vec::with_capacity(branches.len() + 1);
                for (i, b) in branches.iter().enumerate() {
                    schemas.push(self.branch(i).schema(b, None, false)?);
                }
                if nullable && !branches.iter().any(|b| matches!(b.peel().0, Type::Null)) {
                    schemas.push(Json::obj().with("type", Json::str("null")));
                }
                Ok(self.union(*form, branches, schemas, description))
            }
            _ => Ok(Json::obj().with_opt("description", description)),
        }
    }

    /// A union in this style: a type list where the style has them (Gemini: one type and
    /// `nullable`, else `anyOf`), `anyOf` for `oneOf` in the styles without it (strict,
    /// Gemini).
    fn union(
        &self,
        form: UnionForm,
        branches: &[Type],
        schemas: Vec<Json>,
        description: Option<Json>,
    ) -> Json {
        let style = self.style;
        let listed = form == UnionForm::TypeList
            && (style != Style::Gemini || (branches.len() == 2 && branches.contains(&Type::Null)));
        if listed {
            let mut names = Vec::new();
            let mut keys: Vec<(String, Json)> = Vec::new();
            for s in schemas {
                if let Json::Obj(entries) = s {
                    for (k, v) in entries {
                        if k == "type" {
                            names.push(v);
                        } else if !keys.iter().any(|(x, _)| *x == k) {
                            keys.push((k, v));
                        }
                    }
                }
            }
            let head = if style == Style::Gemini {
                let one = names.into_iter().find(|n| *n != Json::str("NULL"));
                Json::obj()
                    .with_opt("type", one)
                    .with("nullable", Json::Bool(true))
            } else {
                Json::obj().with("type", Json::Arr(names))
            };
            let mut node = head.with_opt("description", description);
            for (k, v) in keys {
                node = node.with(&k, v);
            }
            return node;
        }
        let keyword = match (form, style) {
            (UnionForm::OneOf, Style::JsonSchema | Style::Open) => "oneOf",
            _ => "anyOf",
        };
        Json::obj()
            .with_opt("description", description)
            .with(keyword, Json::Arr(schemas))
    }

    fn branch(&self, i: usize) -> Node<'_, '_> {
        self.child(&format!("#{i}"))
    }
}

/// The plain JSON Schema of a type, without descriptions: the same keywords, bounds and
/// closed objects the published schemas use (the strict union is built from it).
pub(crate) fn bare_schema(ty: &Type, path: &str) -> Result<Json, EmitError> {
    let node = Node {
        texts: None,
        path: path.to_owned(),
        style: Style::JsonSchema,
        refs: None,
    };
    node.schema(ty, None, false)
}

fn uint(n: u64) -> Json {
    // Bounds beyond i64 are meaningless for lengths and counts; saturate rather than wrap.
    Json::Int(i64::try_from(n).unwrap_or(i64::MAX))
}
