//! Writing definitions back as YAML text, for the parts `merge` creates (a new tool file, a
//! field added to an existing one, alias and retired entries). Existing text is never
//! re-serialized: see [`super::edit`].

use std::fmt::Write as _;

use crate::ir::{Field, Property, SchemaAnnotations, Type, UnionForm};

/// A YAML scalar: plain when that reads back as the same string, else double-quoted (a JSON
/// string is a valid YAML double-quoted scalar).
pub fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`~ ".contains(c))
        && !s.ends_with([' ', ':'])
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.contains('\n')
        && !s.contains('\t')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
        )
        && s.parse::<f64>().is_err();
    if plain {
        s.to_owned()
    } else {
        serde_json::Value::String(s.to_owned()).to_string()
    }
}

/// `[a, b, c]`.
pub fn flow_list<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<String> = items.iter().map(|s| scalar(s.as_ref())).collect();
    format!("[{}]", items.join(", "))
}

fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// A JSON value as YAML (JSON text is a YAML flow node).
pub fn json(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => scalar(s),
        other => other.to_string(),
    }
}

/// The name `type:` takes for a type (its JSON type name where it has one).
fn type_name(ty: &Type) -> &'static str {
    match ty {
        Type::String { .. } => "string",
        Type::Integer { .. } => "integer",
        Type::Number { .. } => "number",
        Type::Boolean => "boolean",
        Type::Enum { .. } => "enum",
        Type::Array { .. } => "array",
        Type::Object { .. } => "object",
        Type::Any => "any",
        Type::Null => "null",
        Type::Const { .. } => "const",
        Type::Union {
            form: UnionForm::OneOf,
            ..
        } => "one_of",
        Type::Union { .. } => "any_of",
        Type::Annotated { ty, .. } | Type::Shape { ty, .. } => type_name(ty),
    }
}

/// The keys of a type (without a field's `description`), one `key: value` line each (nested
/// nodes below), at `indent`: the one YAML spelling of the field language, which `merge` and
/// `import` write through.
pub fn type_lines(ty: &Type, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match ty {
        Type::Annotated { ty, ann } => {
            type_lines(ty, indent, out);
            annotation_lines(ann, indent, out);
        }
        Type::Shape { name, .. } => {
            let _ = writeln!(out, "{pad}shape: {}", scalar(name));
        }
        Type::Union {
            form: UnionForm::TypeList,
            branches,
        } => {
            let names: Vec<&str> = branches.iter().map(type_name).collect();
            let _ = writeln!(out, "{pad}type: {}", flow_list(&names));
            for b in branches {
                keyword_lines(b, indent, out);
            }
        }
        Type::Const {
            value,
            json_type: Some(t),
        } => {
            let _ = writeln!(out, "{pad}type: {t}");
            let _ = writeln!(out, "{pad}const: {}", json(value));
        }
        other => {
            let name = type_name(other);
            let _ = writeln!(out, "{pad}type: {}", scalar(name));
            keyword_lines(other, indent, out);
        }
    }
}

/// The keys of a type other than `type:`.
fn keyword_lines(ty: &Type, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let mut line = |k: &str, v: String| {
        let _ = writeln!(out, "{pad}{k}: {v}");
    };
    match ty {
        Type::String {
            min_length,
            max_length,
            pattern,
        } => {
            if let Some(v) = min_length {
                line("min_length", v.to_string());
            }
            if let Some(v) = max_length {
                line("max_length", v.to_string());
            }
            if let Some(p) = pattern {
                line("pattern", scalar(p));
            }
        }
        Type::Integer { minimum, maximum } => {
            if let Some(v) = minimum {
                line("minimum", v.to_string());
            }
            if let Some(v) = maximum {
                line("maximum", v.to_string());
            }
        }
        Type::Number { minimum, maximum } => {
            if let Some(v) = minimum {
                line("minimum", number(*v));
            }
            if let Some(v) = maximum {
                line("maximum", number(*v));
            }
        }
        Type::Boolean | Type::Any | Type::Null | Type::Annotated { .. } | Type::Shape { .. } => {}
        Type::Enum { values } => line("values", flow_list(values)),
        Type::Const { value, .. } => line("value", json(value)),
        Type::Array {
            items,
            min_items,
            max_items,
        } => {
            let _ = writeln!(out, "{pad}items:");
            type_lines(items, indent + 2, out);
            let mut line = |k: &str, v: String| {
                let _ = writeln!(out, "{pad}{k}: {v}");
            };
            if let Some(v) = min_items {
                line("min_items", v.to_string());
            }
            if let Some(v) = max_items {
                line("max_items", v.to_string());
            }
        }
        Type::Object {
            properties,
            additional,
            implicit_open,
        } => object_lines(
            properties,
            additional.as_deref(),
            *implicit_open,
            indent,
            out,
        ),
        Type::Union { branches, .. } => {
            let _ = writeln!(out, "{pad}branches:");
            for b in branches {
                let mut item = String::new();
                type_lines(b, indent + 4, &mut item);
                let _ = write!(out, "{pad}  - {}", item.get(indent + 4..).unwrap_or(""));
            }
        }
    }
}

fn object_lines(
    properties: &[Property],
    additional: Option<&Type>,
    implicit_open: bool,
    indent: usize,
    out: &mut String,
) {
    let pad = " ".repeat(indent);
    if !properties.is_empty() {
        let _ = writeln!(out, "{pad}properties:");
    }
    for p in properties {
        let _ = writeln!(out, "{pad}  {}:", scalar(&p.name));
        type_lines(&p.ty, indent + 4, out);
        let _ = writeln!(
            out,
            "{pad}    description: {}",
            scalar(p.description.source.trim_end())
        );
    }
    let required: Vec<&str> = properties
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name.as_str())
        .collect();
    if !required.is_empty() {
        let _ = writeln!(out, "{pad}required: {}", flow_list(&required));
    }
    additional_lines(additional, implicit_open, indent, out);
}

/// `additional_properties:` (nothing for a strict object).
pub fn additional_lines(
    additional: Option<&Type>,
    implicit_open: bool,
    indent: usize,
    out: &mut String,
) {
    let pad = " ".repeat(indent);
    match additional {
        None => {}
        Some(_) if implicit_open => {
            let _ = writeln!(out, "{pad}additional_properties: implicit");
        }
        Some(Type::Any) => {
            let _ = writeln!(out, "{pad}additional_properties: true");
        }
        Some(t) => {
            let _ = writeln!(out, "{pad}additional_properties:");
            type_lines(t, indent + 2, out);
        }
    }
}

/// The annotation keys, in the language's order.
pub fn annotation_lines(ann: &SchemaAnnotations, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let mut line = |k: &str, v: String| {
        let _ = writeln!(out, "{pad}{k}: {v}");
    };
    if let Some(d) = &ann.description {
        line("description", scalar(d));
    }
    if let Some(t) = &ann.title {
        line("title", scalar(t));
    }
    if let Some(v) = &ann.default {
        line("default", json(v));
    }
    if let Some(f) = &ann.format {
        line("format", scalar(f));
    }
    if let Some(x) = &ann.examples {
        line("examples", serde_json::Value::Array(x.clone()).to_string());
    }
    if !ann.extra.is_empty() {
        let map: serde_json::Map<String, serde_json::Value> = ann.extra.iter().cloned().collect();
        line("json_schema", serde_json::Value::Object(map).to_string());
    }
    if ann.type_implied {
        line("publish_type", "false".into());
    }
    if ann.unlisted {
        line("unlisted", "true".into());
    }
}

/// One entry of a `fields:` mapping, the key at `indent` (named `name`, which may differ from
/// `field.name` after a rename).
pub fn field(name: &str, field: &Field, indent: usize) -> String {
    let mut out = format!("{}{name}:\n", " ".repeat(indent));
    type_lines(&field.ty, indent + 2, &mut out);
    let _ = writeln!(
        out,
        "{}description: {}",
        " ".repeat(indent + 2),
        scalar(field.description.source.trim_end())
    );
    out
}

/// Whether two fields are declared alike: same type, bounds and descriptions (nested ones
/// included), wherever they were written. Compares the YAML each renders to, since the IR's
/// templates carry their spans.
pub fn same_definition(a: &Field, b: &Field) -> bool {
    field("f", a, 0) == field("f", b, 0)
}

/// How the definitions of one field by several merged tools compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// Declared alike: one field serves them all.
    Same,
    /// Alike but for their `default:`: one field without a default, each action its own
    /// (`defaults:`), where the merged tool has actions.
    DefaultsDiffer,
    /// Declared differently: a `--prefer` chooses.
    Differ,
}

/// Compare the definitions of one field (at least one).
pub fn agreement(defs: &[&Field]) -> Agreement {
    let Some((first, rest)) = defs.split_first() else {
        return Agreement::Same;
    };
    if rest.iter().all(|f| same_definition(first, f)) {
        return Agreement::Same;
    }
    let bare = without_default(first);
    if rest
        .iter()
        .all(|f| same_definition(&bare, &without_default(f)))
    {
        Agreement::DefaultsDiffer
    } else {
        Agreement::Differ
    }
}

/// The field with no `default:`.
pub fn without_default(f: &Field) -> Field {
    Field {
        ty: f.ty.with_default(None).into_owned(),
        ..f.clone()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn scalars_read_back_as_written() {
        assert_eq!(scalar("Session id."), "Session id.");
        assert_eq!(scalar("a: b"), "\"a: b\"");
        assert_eq!(scalar("{{ tool(\"x\") }} y"), "\"{{ tool(\\\"x\\\") }} y\"");
        assert_eq!(scalar("true"), "\"true\"");
        assert_eq!(scalar("12"), "\"12\"");
        assert_eq!(scalar("^(?:a|b)$"), "^(?:a|b)$");
        assert_eq!(scalar("'q'"), "\"'q'\"");
    }
}
