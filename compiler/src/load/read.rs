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
    }
}
