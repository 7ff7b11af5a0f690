//! The parts of the field-type language beyond one JSON type with its bounds: type lists
//! (`type: [string, "null"]`), unions (`any_of` / `one_of`), `const`, and the keywords that
//! change no verdict (`title`, `default`, `format`, `examples`, `json_schema:` kept verbatim,
//! and a `description` where the node is not a field). `model::read_type` calls these; each
//! is one reader, so the YAML spelling of a construct is declared once.

use crate::diag::Diagnostic;
use crate::ir::{SchemaAnnotations, Type, UnionForm};
use crate::load::read::{self, Diags, Struct};
use crate::load::yaml::{Node, Value};

/// Keys every field type may carry besides its own.
pub(crate) const ANNOTATION_KEYS: &[&str] = &[
    "title",
    "default",
    "format",
    "examples",
    "json_schema",
    "publish_type",
    "unlisted",
];

/// The JSON Schema keywords the language writes itself: `import` maps these (and only these)
/// onto its constructs, and a `json_schema:` key among them is refused (it would be published
/// twice) — except [`ALSO_VERBATIM`].
pub(crate) const MODELLED: &[&str] = &[
    "type",
    "description",
    "title",
    "default",
    "format",
    "examples",
    "enum",
    "const",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "additionalProperties",
    "anyOf",
    "oneOf",
];

/// Modelled keywords `json_schema:` may hold where the language has no construct for the use
/// (an enum of numbers, a union beside a `type`, a default the type does not accept, a
/// title, format, description or examples of another JSON type than the language's).
pub(crate) const ALSO_VERBATIM: &[&str] = &[
    "enum",
    "anyOf",
    "oneOf",
    "default",
    "title",
    "format",
    "description",
    "examples",
];

/// The type names a type list may hold.
pub(crate) const LISTABLE: &[&str] = &[
    "string", "integer", "number", "boolean", "null", "array", "object",
];

/// `form` of the union type names (`any_of`, `one_of`).
pub(crate) fn union_form(name: &str) -> Option<UnionForm> {
    match name {
        "any_of" => Some(UnionForm::AnyOf),
        "one_of" => Some(UnionForm::OneOf),
        _ => None,
    }
}

/// The type names of a type list, each once, each among [`LISTABLE`] (`null` may be written
/// bare: YAML reads it as null).
pub(crate) fn type_list_names(items: &[Node], what: &str, d: &mut Diags) -> Option<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let mut ok = true;
    for item in items {
        let name = match &item.value {
            Value::Null => "null".to_owned(),
            Value::Str(s) => s.clone(),
            _ => {
                d.push(read::wrong_type(
                    item,
                    &format!("a type in the list of {what}"),
                    "a type name",
                ));
                ok = false;
                continue;
            }
        };
        if !LISTABLE.contains(&name.as_str()) {
            d.push(
                Diagnostic::error(
                    "unknown-type",
                    Some(item.span),
                    format!("`{name}` cannot be in a type list ({what})"),
                )
                .with_hint(format!(
                    "a type list holds JSON types: {}",
                    LISTABLE.join(", ")
                )),
            );
            ok = false;
        } else if names.contains(&name) {
            d.push(Diagnostic::error(
                "duplicate-type",
                Some(item.span),
                format!("`{name}` is listed twice ({what})"),
            ));
            ok = false;
        } else {
            names.push(name);
        }
    }
    if names.len() < 2 && ok {
        d.push(
            Diagnostic::error(
                "short-type-list",
                items.first().map(|n| n.span),
                format!("a type list needs two types or more ({what})"),
            )
            .with_hint("write the one type as `type: NAME`"),
        );
        return None;
    }
    ok.then_some(names)
}

/// A union's `branches:` (two or more field types, each without a field description).
pub(crate) fn read_branches(
    s: &Struct<'_>,
    node: &Node,
    what: &str,
    sh: &mut super::shapes::ShapeCx<'_>,
    d: &mut Diags,
) -> Option<Vec<Type>> {
    let Some(bnode) = s.get("branches") else {
        d.push(
            Diagnostic::error(
                "missing-key",
                Some(node.span),
                format!("{what} is missing `branches`"),
            )
            .with_hint("branches: [ { type: string }, { type: \"null\" } ]"),
        );
        return None;
    };
    let Value::Seq(items) = &bnode.value else {
        d.push(read::wrong_type(bnode, "branches", "a list of types"));
        return None;
    };
    if items.len() < 2 {
        d.push(Diagnostic::error(
            "short-union",
            Some(bnode.span),
            format!("a union needs two branches or more ({what})"),
        ));
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, b) in items.iter().enumerate() {
        let (ty, _) = super::model::read_type(b, &format!("branch {i} of {what}"), false, sh, d)?;
        out.push(ty);
    }
    Some(out)
}

/// `type: const` with its `value:` (published without a type), or a scalar type's `const:`
/// (published with it).
pub(crate) fn read_const(
    s: &Struct<'_>,
    node: &Node,
    key: &str,
    json_type: Option<&str>,
    what: &str,
    d: &mut Diags,
) -> Option<Type> {
    let Some(v) = s.get(key) else {
        d.push(
            Diagnostic::error(
                "missing-key",
                Some(node.span),
                format!("{what} is missing `{key}`"),
            )
            .with_hint(format!("{key}: the one value a call may give")),
        );
        return None;
    };
    let value = v.to_json();
    if let Some(t) = json_type {
        let fits = match t {
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            _ => false,
        };
        if !fits {
            d.push(Diagnostic::error(
                "bad-const",
                Some(v.span),
                format!("`const` of {what} is {}, not a {t}", v.value.kind()),
            ));
            return None;
        }
    }
    Some(Type::Const {
        value,
        json_type: json_type.map(str::to_owned),
    })
}

/// The annotation keys of a type node, wrapped around `ty` (unchanged when it has none).
/// `description` is one of them where the node is not a field (items, branches, additional
/// properties); a field's description is its template, read by the caller.
pub(crate) fn annotate(ty: Type, s: &Struct<'_>, field: bool, d: &mut Diags) -> Type {
    let text = |key: &str, d: &mut Diags| {
        s.get(key)
            .and_then(|n| read::string(n, key, d))
            .map(|x| x.v)
    };
    let mut ann = SchemaAnnotations {
        description: if field { None } else { text("description", d) },
        title: text("title", d),
        format: text("format", d),
        ..SchemaAnnotations::default()
    };
    if let Some(n) = s.get("default") {
        match super::check::value_problem(&ty, n) {
            Some(problem) => d.push(
                Diagnostic::error(
                    "bad-default",
                    Some(n.span),
                    format!("`default` is a value {problem}"),
                )
                .with_hint("the default is a value a call could send for this field"),
            ),
            None => ann.default = Some(n.to_json()),
        }
    }
    if let Some(n) = s.get("examples") {
        match &n.value {
            Value::Seq(items) => ann.examples = Some(items.iter().map(Node::to_json).collect()),
            _ => d.push(read::wrong_type(n, "examples", "a list of values")),
        }
    }
    if let Some(n) = s.get("json_schema") {
        ann.extra = verbatim(n, d);
    }
    ann.type_implied = publish_type_false(s, d);
    ann.unlisted = field
        && s.get("unlisted")
            .and_then(|n| read::boolean(n, "unlisted", d))
            .unwrap_or(false);
    if ann.is_empty() {
        ty
    } else {
        Type::Annotated {
            ty: Box::new(ty),
            ann: Box::new(ann),
        }
    }
}

/// `publish_type: false` (`true` is the default and says nothing).
fn publish_type_false(s: &Struct<'_>, d: &mut Diags) -> bool {
    s.get("publish_type")
        .and_then(|n| read::boolean(n, "publish_type", d))
        .is_some_and(|b| !b)
}

/// `json_schema:` (root or type): keywords published verbatim, none of them one the language
/// writes itself.
pub(crate) fn verbatim(n: &Node, d: &mut Diags) -> Vec<(String, serde_json::Value)> {
    verbatim_except(
        n,
        |key| MODELLED.contains(&key) && !ALSO_VERBATIM.contains(&key),
        "use the field language's key for it (see docs/definition-language.md, Field types)",
        d,
    )
}

/// The keywords an output node writes itself (`output:`'s field language, and `shapes:`'s
/// `$ref` / `$defs`): its `json_schema:` may hold any other.
pub(crate) const OUTPUT_MODELLED: &[&str] = &[
    "type",
    "description",
    "enum",
    "items",
    "properties",
    "required",
    "additionalProperties",
    "$ref",
    "$defs",
];

/// An output node's `json_schema:` (see [`OUTPUT_MODELLED`]).
pub(crate) fn output_verbatim(n: &Node, d: &mut Diags) -> Vec<(String, serde_json::Value)> {
    verbatim_except(
        n,
        |key| OUTPUT_MODELLED.contains(&key),
        "use the output language's key for it, or `shapes:` for `$ref` / `$defs` (see docs/definition-language.md, Output)",
        d,
    )
}

fn verbatim_except(
    n: &Node,
    refused: impl Fn(&str) -> bool,
    hint: &str,
    d: &mut Diags,
) -> Vec<(String, serde_json::Value)> {
    let Value::Map(entries) = &n.value else {
        d.push(read::wrong_type(
            n,
            "json_schema",
            "a mapping of JSON Schema keywords",
        ));
        return Vec::new();
    };
    let mut out = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let key = crate::load::yaml::key_text(k);
        if refused(&key) {
            d.push(
                Diagnostic::error(
                    "modelled-keyword",
                    Some(k.span),
                    format!("`{key}` is written by the language itself, not under `json_schema:`"),
                )
                .with_hint(hint),
            );
            continue;
        }
        out.push((key, v.to_json()));
    }
    out
}

/// A tool's `parameters:` (every key optional): `additional_properties` (as on an object
/// field), and the root's `title`, `description` (of the schema, not the tool) and
/// `json_schema` (verbatim keywords such as `$schema`).
pub(crate) fn read_parameters(
    n: &Node,
    sh: &mut super::shapes::ShapeCx<'_>,
    d: &mut Diags,
) -> crate::ir::Parameters {
    let known = [
        "additional_properties",
        "title",
        "description",
        "json_schema",
        "publish_type",
    ];
    let Some(s) = Struct::read(n, "parameters", &known, &[], d) else {
        return crate::ir::Parameters::default();
    };
    let text = |key: &str, d: &mut Diags| {
        s.get(key)
            .and_then(|n| read::string(n, key, d))
            .map(|x| x.v)
    };
    let (additional, implicit_open) = match s.get("additional_properties") {
        Some(a) => super::model::read_additional(a, "the parameters' other keys", sh, d),
        None => (None, false),
    };
    crate::ir::Parameters {
        additional,
        implicit_open,
        ann: SchemaAnnotations {
            title: text("title", d),
            description: text("description", d),
            extra: s
                .get("json_schema")
                .map(|j| verbatim(j, d))
                .unwrap_or_default(),
            type_implied: publish_type_false(&s, d),
            ..SchemaAnnotations::default()
        },
    }
}
