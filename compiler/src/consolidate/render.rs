//! Writing definitions back as YAML text, for the parts `merge` creates (a new tool file, a
//! field added to an existing one, alias and retired entries). Existing text is never
//! re-serialized: see [`super::edit`].

use std::fmt::Write as _;

use crate::ir::{Field, Type};

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

/// The keys of a type (without `description`), one `key: value` line each, at `indent`.
fn type_lines(ty: &Type, indent: usize, out: &mut String) {
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
            line("type", "string".into());
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
            line("type", "integer".into());
            if let Some(v) = minimum {
                line("minimum", v.to_string());
            }
            if let Some(v) = maximum {
                line("maximum", v.to_string());
            }
        }
        Type::Number { minimum, maximum } => {
            line("type", "number".into());
            if let Some(v) = minimum {
                line("minimum", number(*v));
            }
            if let Some(v) = maximum {
                line("maximum", number(*v));
            }
        }
        Type::Boolean => line("type", "boolean".into()),
        Type::Enum { values } => {
            line("type", "enum".into());
            line("values", flow_list(values));
        }
        Type::Array {
            items,
            min_items,
            max_items,
        } => {
            line("type", "array".into());
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
        Type::Object { properties } => {
            line("type", "object".into());
            let _ = writeln!(out, "{pad}properties:");
            for p in properties {
                let _ = writeln!(out, "{pad}  {}:", p.name);
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
        }
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
