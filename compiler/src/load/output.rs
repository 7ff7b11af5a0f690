//! `output:` (what a tool or an action returns) and `icon:` (MCP `icons`): the two tool keys
//! that describe a tool to its host rather than to the model's arguments. `output:` is the
//! field language of `fields:` (types, `description`, `values`, `items`, `properties`,
//! `required`) plus `nullable`, because results say "not applicable" with `null`; an
//! array may leave out `items` (any JSON values) and an object `properties` (any object).
//! The root of an `output:` may instead be `any_of: [shape, …]`, for a result whose shape
//! depends on the arguments (introspect's targets), published exactly as a tool whose
//! actions return different shapes.
//!
//! A tool file's `shapes:` names types that its outputs use as `{ shape: name }`
//! (`load/shapes.rs`, shared with the fields): each is read once, its uses are its definition
//! tagged with the name, and the published schema lists it once under `$defs`.

use crate::diag::Diagnostic;
use crate::ir::{Icon, OutputKind, OutputProperty, OutputType};
use crate::load::read::{self, Diags, Struct};
use crate::load::shapes::{MAX_INLINED_NODES, ShapeCx, output_nodes, too_large};
use crate::load::yaml::{Node, Value};

fn keys_for(ty: &str) -> &'static [&'static str] {
    match ty {
        "enum" => &["values"],
        "array" => &["items"],
        "object" => &["properties", "required"],
        _ => &[],
    }
}

/// The root of an `output:` declaration: one shape, or `any_of: [shape, …]` (at least two
/// distinct shapes, none of them itself a union; a union carries no `description` of its
/// own: each shape describes itself).
pub fn read_output_root(
    node: &Node,
    what: &str,
    cx: &mut ShapeCx<'_>,
    d: &mut Diags,
) -> Option<OutputType> {
    let root = read_output_union(node, what, cx, d)?;
    let n = output_nodes(&root);
    if n > MAX_INLINED_NODES {
        d.push(too_large(what, n, node.span));
        return None;
    }
    Some(root)
}

fn read_output_union(
    node: &Node,
    what: &str,
    cx: &mut ShapeCx<'_>,
    d: &mut Diags,
) -> Option<OutputType> {
    let is_union = matches!(&node.value, Value::Map(entries)
        if entries.iter().any(|(k, _)| k.as_str() == Some("any_of")));
    if !is_union {
        return read_output(node, what, false, cx, d);
    }
    let s = Struct::read(node, what, &["any_of"], &["any_of"], d)?;
    let list = s.get("any_of")?;
    let Value::Seq(items) = &list.value else {
        d.push(
            read::wrong_type(
                list,
                &format!("`any_of` of {what}"),
                "a list of output shapes",
            )
            .with_hint("any_of: [ { type: object, properties: { ... } }, ... ]"),
        );
        return None;
    };
    let mut shapes: Vec<OutputType> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let shape = read_output(item, &format!("shape {} of {what}", i + 1), false, cx, d)?;
        if shapes.contains(&shape) {
            d.push(
                Diagnostic::error(
                    "duplicate-value",
                    Some(item.span),
                    format!("shape {} of {what} repeats an earlier shape", i + 1),
                )
                .with_hint("list each distinct shape once"),
            );
            continue;
        }
        shapes.push(shape);
    }
    if shapes.len() < 2 {
        d.push(
            Diagnostic::error(
                "wrong-type",
                Some(list.span),
                format!("`any_of` of {what} lists fewer than two distinct shapes"),
            )
            .with_hint("a single shape is written without `any_of`"),
        );
        return None;
    }
    Some(OutputType {
        kind: OutputKind::AnyOf(shapes),
        description: String::new(),
        nullable: false,
        shape: None,
        extra: Vec::new(),
    })
}

/// A use of a shape in an output, `{ shape: name, description? }`: the definition tagged with
/// its name, described by the use where it says so.
fn read_output_use(
    node: &Node,
    what: &str,
    described: bool,
    cx: &mut ShapeCx<'_>,
    d: &mut Diags,
) -> Option<OutputType> {
    let (name, mut ty, own) = cx.use_shape::<OutputType>(node, what, d)?;
    ty.shape = Some(name.v);
    if let Some(n) = own {
        ty.description = read::string(&n, "description", d)?.v.trim().to_owned();
    }
    if described && ty.description.is_empty() {
        d.push(
            Diagnostic::error(
                "missing-key",
                Some(node.span),
                format!("{what} is missing `description` (its shape has none)"),
            )
            .with_hint("describe the shape, or the use: { shape: name, description: ... }"),
        );
    }
    Some(ty)
}

/// An `output:` declaration (or a property / items node inside one, or a shape's definition).
/// `described`: the node must carry a `description` (object properties); the root, array
/// items and shapes may omit it.
pub(crate) fn read_output(
    node: &Node,
    what: &str,
    described: bool,
    cx: &mut ShapeCx<'_>,
    d: &mut Diags,
) -> Option<OutputType> {
    let Value::Map(entries) = &node.value else {
        d.push(
            read::wrong_type(node, what, "a mapping with `type:`")
                .with_hint("output: { type: object, properties: { ... } }"),
        );
        return None;
    };
    if crate::load::shapes::is_use(node) {
        return read_output_use(node, what, described, cx, d);
    }
    let ty = crate::load::model::read_type_name(
        node,
        entries,
        what,
        "output",
        crate::load::model::TYPES,
        d,
    )?;
    let mut known = vec!["type", "description", "nullable", "json_schema"];
    known.extend_from_slice(keys_for(&ty.v));
    let s = Struct::read(node, what, &known, &[], d)?;
    let description = match s.get("description") {
        Some(n) => read::string(n, "description", d)
            .map(|s| s.v.trim().to_owned())
            .unwrap_or_default(),
        None => {
            if described {
                d.push(
                    Diagnostic::error(
                        "missing-key",
                        Some(node.span),
                        format!("{what} is missing `description`"),
                    )
                    .with_hint("every output property is described; the schema is published"),
                );
            }
            String::new()
        }
    };
    let nullable = s
        .get("nullable")
        .and_then(|n| read::boolean(n, "nullable", d))
        .unwrap_or(false);
    let kind = match ty.v.as_str() {
        "string" => OutputKind::String,
        "integer" => OutputKind::Integer,
        "number" => OutputKind::Number,
        "boolean" => OutputKind::Boolean,
        "enum" => {
            let values = crate::load::model::read_enum_values(node, &s, what, d)?;
            OutputKind::Enum(values.into_iter().map(|v| v.v).collect())
        }
        "array" => {
            // Without `items`, the items may be any JSON value.
            let items = match s.get("items") {
                Some(inode) => Some(Box::new(read_output(
                    inode,
                    &format!("the items of {what}"),
                    false,
                    cx,
                    d,
                )?)),
                None => None,
            };
            OutputKind::Array(items)
        }
        "object" => OutputKind::Object(read_properties(&s, what, cx, d)),
        _ => return None,
    };
    let extra = s
        .get("json_schema")
        .map(|n| crate::load::types::output_verbatim(n, d))
        .unwrap_or_default();
    Some(OutputType {
        kind,
        description,
        nullable,
        shape: None,
        extra,
    })
}

fn read_properties(
    s: &Struct<'_>,
    what: &str,
    cx: &mut ShapeCx<'_>,
    d: &mut Diags,
) -> Vec<OutputProperty> {
    let mut properties: Vec<OutputProperty> = Vec::new();
    if let Some(pnode) = s.get("properties") {
        for (pname, p) in read::entries(pnode, "properties", d) {
            read::check_field_name(&pname, "property", d);
            let pwhat = format!("output property `{}` of {what}", pname.v);
            if let Some(ty) = read_output(p, &pwhat, true, cx, d) {
                properties.push(OutputProperty {
                    name: pname.v,
                    ty,
                    required: false,
                });
            }
        }
    }
    if let Some(rnode) = s.get("required") {
        for r in read::string_list(rnode, "required", d) {
            match properties.iter_mut().find(|p| p.name == r.v) {
                Some(p) => p.required = true,
                None => d.push(
                    Diagnostic::error(
                        "unknown-property",
                        Some(r.span),
                        format!("`{}` is not a property of {what}", r.v),
                    )
                    .with_hint(
                        crate::diag::did_you_mean(&r.v, properties.iter().map(|p| p.name.as_str()))
                            .unwrap_or_else(|| "list it under `properties:`".into()),
                    ),
                ),
            }
        }
    }
    properties
}

/// `icon:` — a URI (`icon: https://…/shell.svg`, or a `data:` URI) or a mapping
/// `{ src, mime_type, sizes, theme }` (`theme`: light | dark).
pub fn read_icon(node: &Node, d: &mut Diags) -> Option<Icon> {
    if let Some(src) = node.as_str() {
        return check_src(node, src, d).then(|| Icon {
            src: src.to_owned(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        });
    }
    let s = Struct::read(
        node,
        "icon",
        &["src", "mime_type", "sizes", "theme"],
        &["src"],
        d,
    )?;
    let src_node = s.get("src")?;
    let src = read::string(src_node, "icon src", d)?;
    let ok = check_src(src_node, &src.v, d);
    let mime_type = s
        .get("mime_type")
        .and_then(|n| read::string(n, "mime_type", d))
        .map(|m| m.v);
    let sizes = s
        .get("sizes")
        .map(|n| read::string_list(n, "sizes", d))
        .unwrap_or_default()
        .into_iter()
        .map(|s| s.v)
        .collect();
    let theme = s.get("theme").and_then(|n| read::string(n, "theme", d));
    if let Some(t) = &theme
        && t.v != "light"
        && t.v != "dark"
    {
        d.push(
            Diagnostic::error(
                "bad-icon",
                Some(t.span),
                format!("unknown icon theme `{}`", t.v),
            )
            .with_hint("theme: light | dark"),
        );
    }
    ok.then(|| Icon {
        src: src.v,
        mime_type,
        sizes,
        theme: theme.map(|t| t.v),
    })
}

/// An icon source is a URI with a scheme (`https:`, `data:`, `file:`…).
fn check_src(node: &Node, src: &str, d: &mut Diags) -> bool {
    let scheme_ok = src.split_once(':').is_some_and(|(scheme, rest)| {
        !rest.is_empty()
            && scheme
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if !scheme_ok {
        d.push(
            Diagnostic::error(
                "bad-icon",
                Some(node.span),
                format!("icon `{src}` is not a URI"),
            )
            .with_hint("icon: https://example.com/tool.svg (or a data: URI)"),
        );
    }
    scheme_ok
}
