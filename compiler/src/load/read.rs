//! Typed reads out of the node tree: every mismatch (wrong type, unknown key, missing key,
//! malformed name) becomes a diagnostic and reading carries on with the next value.

use crate::diag::{self, Diagnostic, Span};
use crate::ir::Template;
use crate::load::yaml::{Node, Value};

/// A value with the span it was written at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sp<T> {
    pub v: T,
    pub span: Span,
}

impl Sp<String> {
    pub fn as_str(&self) -> &str {
        &self.v
    }
}

pub type Diags = Vec<Diagnostic>;

pub fn wrong_type(node: &Node, what: &str, expected: &str) -> Diagnostic {
    // Show short scalars as written: "found an integer (-5)".
    let shown = match &node.value {
        Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Bool(_) => {
            format!(" ({})", crate::load::yaml::key_text(node))
        }
        Value::Str(s) if s.chars().count() <= 24 && !s.contains('\n') => format!(" (`{s}`)"),
        _ => String::new(),
    };
    Diagnostic::error(
        "wrong-type",
        Some(node.span),
        format!(
            "{what} must be {expected}, found {}{shown}",
            node.value.kind()
        ),
    )
}

/// `wrong_type` for a list, hinting the bracketed form when a single name was written.
pub fn list_expected(node: &Node, what: &str, expected: &str) -> Diagnostic {
    let diag = wrong_type(node, what, expected);
    match &node.value {
        Value::Str(s) if is_name(s) => diag.with_hint(format!("write a list: `[{s}]`")),
        _ => diag,
    }
}

/// A mapping whose keys are a fixed vocabulary (a struct).
pub struct Struct<'n> {
    pub span: Span,
    entries: &'n [(Node, Node)],
}

impl<'n> Struct<'n> {
    /// Read `node` as a mapping with keys among `known`; unknown keys are reported (all
    /// of them), as are `required` keys that are missing.
    pub fn read(
        node: &'n Node,
        what: &str,
        known: &[&str],
        required: &[&str],
        d: &mut Diags,
    ) -> Option<Struct<'n>> {
        let Value::Map(entries) = &node.value else {
            d.push(wrong_type(node, what, "a mapping"));
            return None;
        };
        for (k, _) in entries {
            let Some(key) = k.as_str() else {
                d.push(wrong_type(k, &format!("a key of {what}"), "a string"));
                continue;
            };
            if !known.contains(&key) {
                d.push(unknown_key(k.span, key, what, known));
            }
        }
        let missing: Vec<&str> = required
            .iter()
            .copied()
            .filter(|req| !entries.iter().any(|(k, _)| k.as_str() == Some(req)))
            .collect();
        if !missing.is_empty() {
            let list = missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>();
            let list = match list.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => list.join(""),
            };
            let add = missing
                .iter()
                .map(|m| format!("`{m}:`"))
                .collect::<Vec<_>>()
                .join(", ");
            d.push(
                Diagnostic::error(
                    "missing-key",
                    Some(node.span),
                    format!("{what} is missing {list}"),
                )
                .with_hint(format!("add {add}")),
            );
        }
        Some(Struct {
            span: node.span,
            entries,
        })
    }

    pub fn get(&self, key: &str) -> Option<&'n Node> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The span of `key` itself (for errors about the key as a whole).
    pub fn key_span(&self, key: &str) -> Option<Span> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(k, _)| k.span)
    }
}

pub fn unknown_key(span: Span, key: &str, what: &str, known: &[&str]) -> Diagnostic {
    let hint = diag::did_you_mean(key, known.iter().copied())
        .unwrap_or_else(|| format!("allowed keys: {}", known.join(", ")));
    Diagnostic::error(
        "unknown-key",
        Some(span),
        format!("unknown key `{key}` in {what}"),
    )
    .with_hint(hint)
}

/// A mapping whose keys are user-chosen names (fields, actions, families, ...), in order.
pub fn entries<'n>(node: &'n Node, what: &str, d: &mut Diags) -> Vec<(Sp<String>, &'n Node)> {
    match &node.value {
        Value::Map(entries) => entries
            .iter()
            .filter_map(|(k, v)| match k.as_str() {
                Some(s) => Some((
                    Sp {
                        v: s.to_owned(),
                        span: k.span,
                    },
                    v,
                )),
                None => {
                    d.push(wrong_type(k, &format!("a key of {what}"), "a string"));
                    None
                }
            })
            .collect(),
        Value::Null => Vec::new(),
        _ => {
            d.push(wrong_type(node, what, "a mapping"));
            Vec::new()
        }
    }
}

pub fn string(node: &Node, what: &str, d: &mut Diags) -> Option<Sp<String>> {
    match &node.value {
        Value::Str(s) => Some(Sp {
            v: s.clone(),
            span: node.span,
        }),
        _ => {
            d.push(wrong_type(node, what, "a string"));
            None
        }
    }
}

pub fn template(node: &Node, what: &str, d: &mut Diags) -> Option<Template> {
    string(node, what, d).map(|s| Template {
        source: s.v,
        span: s.span,
    })
}

pub fn boolean(node: &Node, what: &str, d: &mut Diags) -> Option<bool> {
    match node.value {
        Value::Bool(b) => Some(b),
        _ => {
            d.push(wrong_type(node, what, "true or false"));
            None
        }
    }
}

pub fn uint(node: &Node, what: &str, d: &mut Diags) -> Option<u64> {
    match node.value {
        Value::Int(i) if i >= 0 => Some(i as u64),
        Value::UInt(u) => Some(u),
        _ => {
            d.push(wrong_type(node, what, "a non-negative integer"));
            None
        }
    }
}

pub fn int(node: &Node, what: &str, d: &mut Diags) -> Option<i64> {
    match node.value {
        Value::Int(i) => Some(i),
        Value::UInt(u) => {
            d.push(Diagnostic::error(
                "wrong-type",
                Some(node.span),
                format!("{what} ({u}) is out of range (at most {})", i64::MAX),
            ));
            None
        }
        _ => {
            d.push(wrong_type(node, what, "an integer"));
            None
        }
    }
}

pub fn number(node: &Node, what: &str, d: &mut Diags) -> Option<f64> {
    match node.value {
        Value::Int(i) => Some(i as f64),
        Value::UInt(u) => Some(u as f64),
        Value::Float(f) if f.is_finite() => Some(f),
        _ => {
            d.push(wrong_type(node, what, "a finite number"));
            None
        }
    }
}

/// A list of strings (`[a, b]`). Non-string items are reported and skipped.
pub fn string_list(node: &Node, what: &str, d: &mut Diags) -> Vec<Sp<String>> {
    match &node.value {
        Value::Seq(items) => items
            .iter()
            .filter_map(|item| string(item, &format!("an item of {what}"), d))
            .collect(),
        Value::Null => Vec::new(),
        _ => {
            d.push(list_expected(node, what, "a list of names"));
            Vec::new()
        }
    }
}

/// `^[a-z][a-z0-9_]{0,63}$`.
pub fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

/// A tool name every provider accepts: `^[a-zA-Z0-9_-]{1,64}$` (OpenAI's rule, the
/// narrowest; Anthropic, Gemini and MCP take it too). `lint` may suggest snake_case; the
/// language does not require it, so an adopted surface keeps its names.
pub fn is_tool_name(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

/// A field or property name every provider accepts as a JSON-Schema property name:
/// `^[a-zA-Z0-9_.-]{1,64}$` (Anthropic's rule for property keys, the narrowest).
pub fn is_field_name(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// The Rust identifier generated code spells a field as: `perPage` / `per-page` / `per.page`
/// -> `per_page`, a leading digit gets `n`; a snake_case name is itself.
pub fn rust_spelling(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            prev_lower = true;
        } else {
            out.push('_');
            prev_lower = false;
        }
    }
    if !out.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') {
        out.insert(0, 'n');
    }
    out
}

/// Report a name a model calls (a tool's, an alias's, a retired one's: `kind`) outside
/// [`is_tool_name`]; returns whether it was well-formed.
pub fn check_tool_name(name: &Sp<String>, kind: &str, d: &mut Diags) -> bool {
    check_with(name, kind, is_tool_name, "^[a-zA-Z0-9_-]{1,64}$", d)
}

/// Report a field or property name outside [`is_field_name`].
pub fn check_field_name(name: &Sp<String>, kind: &str, d: &mut Diags) -> bool {
    check_with(name, kind, is_field_name, "^[a-zA-Z0-9_.-]{1,64}$", d)
}

fn check_with(
    name: &Sp<String>,
    kind: &str,
    valid: fn(&str) -> bool,
    rule: &str,
    d: &mut Diags,
) -> bool {
    if valid(&name.v) {
        return true;
    }
    d.push(
        Diagnostic::error(
            "bad-name",
            Some(name.span),
            format!("{kind} name `{}` is not a valid name", name.v),
        )
        .with_hint(format!(
            "{kind} names match {rule} (what every provider accepts)"
        )),
    );
    false
}

/// A shape's name: any text of 1 to 128 characters without control characters (a `$defs` key
/// of JSON Schema is any string; its `$ref` escapes it, so an imported `Page Ref` keeps its
/// name).
pub fn is_shape_name(n: &str) -> bool {
    (1..=128).contains(&n.chars().count()) && !n.chars().any(char::is_control)
}

/// Report a shape name outside [`is_shape_name`]; returns whether it was well-formed.
pub fn check_shape_name(name: &Sp<String>, d: &mut Diags) -> bool {
    let n = &name.v;
    if is_shape_name(n) {
        return true;
    }
    d.push(
        Diagnostic::error(
            "bad-name",
            Some(name.span),
            format!("shape name {n:?} is not a valid name"),
        )
        .with_hint("a shape name is 1 to 128 characters without control characters"),
    );
    false
}

/// Report a malformed name; returns whether it was well-formed.
pub fn check_name(name: &Sp<String>, kind: &str, d: &mut Diags) -> bool {
    if is_name(&name.v) {
        return true;
    }
    let suggestion: String = name
        .v
        .trim()
        .chars()
        .map(|c| match c {
            'A'..='Z' => c.to_ascii_lowercase(),
            'a'..='z' | '0'..='9' | '_' => c,
            _ => '_',
        })
        .collect();
    let mut diag = Diagnostic::error(
        "bad-name",
        Some(name.span),
        format!("{kind} name `{}` is not a valid name", name.v),
    );
    diag = if is_name(&suggestion) {
        diag.with_hint(format!(
            "names match ^[a-z][a-z0-9_]{{0,63}}$; try `{suggestion}`"
        ))
    } else {
        diag.with_hint("names match ^[a-z][a-z0-9_]{0,63}$")
    };
    d.push(diag);
    false
}

#[cfg(test)]
mod tests {
    use super::is_name;

    #[test]
    fn names() {
        assert!(is_name("shell_session"));
        assert!(is_name("a1"));
        assert!(!is_name("1a"));
        assert!(!is_name("Shell"));
        assert!(!is_name("shell-session"));
        assert!(!is_name(""));
        assert!(is_name(&"a".repeat(64)));
        assert!(!is_name(&"a".repeat(65)));
        assert!(super::is_tool_name("get-me") && super::is_tool_name("getMe"));
        assert!(!super::is_tool_name("get me") && !super::is_tool_name(""));
        assert!(super::is_field_name("perPage") && super::is_field_name("a.b"));
        assert!(!super::is_field_name("a b") && !super::is_field_name(&"a".repeat(65)));
    }
}
