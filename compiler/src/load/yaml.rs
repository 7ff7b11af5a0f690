//! YAML -> a spanned node tree. We walk this tree ourselves (instead of deriving serde
//! structs) so that one file can report every unknown key, every duplicate key and every
//! wrongly typed value at once, each with its own line and column.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Location, Spanned};

use crate::diag::{Diagnostic, FileId, Span};

/// One YAML node with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// Integers above `i64::MAX`.
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Entries in document order; duplicate keys already reported and dropped.
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// What a YAML user would call this kind of value (for "expected X, found Y").
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::UInt(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }
}

impl Node {
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Convert to JSON (for alias `set:` values). Map keys are rendered as strings.
    pub fn to_json(&self) -> serde_json::Value {
        match &self.value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(i) => serde_json::Value::from(*i),
            Value::UInt(u) => serde_json::Value::from(*u),
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Value::Str(s) => serde_json::Value::String(s.clone()),
            Value::Seq(items) => {
                serde_json::Value::Array(items.iter().map(Node::to_json).collect())
            }
            Value::Map(entries) => serde_json::Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (key_text(k), v.to_json()))
                    .collect(),
            ),
        }
    }
}

impl Node {
    /// A JSON value as a node at `span` (the inverse of [`Node::to_json`]): so a value that did
    /// not come from YAML (an imported `default`) is checked by the same rules.
    pub fn from_json(v: &serde_json::Value, span: Span) -> Node {
        let at = |value| Node { value, span };
        at(match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Value::Int(i),
                (None, Some(u)) => Value::UInt(u),
                _ => Value::Float(n.as_f64().unwrap_or(0.0)),
            },
            serde_json::Value::String(s) => Value::Str(s.clone()),
            serde_json::Value::Array(items) => {
                Value::Seq(items.iter().map(|x| Node::from_json(x, span)).collect())
            }
            serde_json::Value::Object(m) => Value::Map(
                m.iter()
                    .map(|(k, x)| (at(Value::Str(k.clone())), Node::from_json(x, span)))
                    .collect(),
            ),
        })
    }
}

/// The text of a mapping key as written (non-string keys rendered plainly).
pub fn key_text(key: &Node) -> String {
    match &key.value {
        Value::Str(s) => s.clone(),
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Seq(_) | Value::Map(_) => "<complex key>".to_owned(),
    }
}

/// Parse one file. A syntax error yields one diagnostic and no tree; duplicate keys are
/// reported (every one of them) and the later entry dropped.
pub fn parse(file: FileId, text: &str, diags: &mut Vec<Diagnostic>) -> Option<Node> {
    let mut options = serde_saphyr::Options::default();
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::PassThrough;
    options.strict_booleans = true;
    options.with_snippet = false;
    match serde_saphyr::from_str_with_options::<Spanned<Raw>>(text, options) {
        Ok(root) => Some(convert(file, root, diags)),
        Err(err) => {
            let span = err
                .location()
                .map(|loc| location_span(file, loc, 1))
                .unwrap_or_else(|| Span::file_start(file));
            let raw = err.without_snippet().to_string();
            let mut diag = Diagnostic::error("yaml-syntax", Some(span), syntax_message(&raw));
            if raw.contains("multiple YAML documents") {
                diag = Diagnostic::error(
                    "yaml-syntax",
                    Some(span),
                    "invalid YAML: a second document (`---`) in one definitions file",
                )
                .with_hint(
                    "one file holds one document: remove the `---` separator or split the file",
                );
            } else if raw.contains("tab") {
                diag = diag.with_hint("YAML indents with spaces; replace the tab");
            }
            diags.push(diag);
            None
        }
    }
}

/// serde-saphyr appends " at line L column C" to its messages; our renderer prints the
/// position itself, so drop it.
fn syntax_message(raw: &str) -> String {
    let first = raw.lines().next().unwrap_or(raw).trim();
    let trimmed = match first.rfind(" at line ") {
        Some(i) => &first[..i],
        None => first,
    };
    format!("invalid YAML: {}", trimmed.trim_end_matches(['.', ':']))
}

fn location_span(file: FileId, loc: Location, min_len: u32) -> Span {
    if loc.line() == 0 {
        return Span::file_start(file);
    }
    let len = u32::try_from(loc.span().len()).unwrap_or(u32::MAX);
    Span {
        file,
        line: u32::try_from(loc.line()).unwrap_or(u32::MAX),
        col: u32::try_from(loc.column()).unwrap_or(u32::MAX).max(1),
        len: len.max(min_len),
    }
}

fn convert(file: FileId, raw: Spanned<Raw>, diags: &mut Vec<Diagnostic>) -> Node {
    let loc = raw.referenced;
    let mut span = location_span(file, loc, 1);
    let value = match raw.value {
        Raw::Null => Value::Null,
        Raw::Bool(b) => Value::Bool(b),
        Raw::Int(i) => Value::Int(i),
        Raw::UInt(u) => i64::try_from(u).map(Value::Int).unwrap_or(Value::UInt(u)),
        Raw::Float(f) => Value::Float(f),
        Raw::Str(s) => {
            // Keys and plain scalars: highlight the text itself.
            if loc.span().is_empty() {
                span.len = u32::try_from(s.chars().count()).unwrap_or(u32::MAX).max(1);
            }
            Value::Str(s)
        }
        Raw::Seq(items) => Value::Seq(items.into_iter().map(|n| convert(file, n, diags)).collect()),
        Raw::Map(entries) => {
            let mut out: Vec<(Node, Node)> = Vec::with_capacity(entries.len());
            // String keys -> first line, so large mappings stay linear.
            let mut lines: std::collections::BTreeMap<String, u32> = Default::default();
            for (k, v) in entries {
                let key = convert(file, k, diags);
                let mut value = convert(file, v, diags);
                // A block collection under a key: point at the key (its first entry
                // would be a confusing place for "missing `name`").
                if matches!(value.value, Value::Map(_) | Value::Seq(_))
                    && value.span.line > key.span.line
                {
                    value.span = key.span;
                }
                let first_line = match &key.value {
                    Value::Str(s) => lines.get(s).copied(),
                    other => out
                        .iter()
                        .find(|(prev, _)| prev.value == *other)
                        .map(|(prev, _)| prev.span.line),
                };
                if let Some(first_line) = first_line {
                    diags.push(
                        Diagnostic::error(
                            "duplicate-key",
                            Some(key.span),
                            format!("duplicate key `{}`", key_text(&key)),
                        )
                        .with_hint(format!(
                            "`{}` is already set on line {}; keep one of them",
                            key_text(&key),
                            first_line
                        )),
                    );
                    continue;
                }
                if let Value::Str(s) = &key.value {
                    lines.insert(s.clone(), key.span.line);
                }
                out.push((key, value));
            }
            Value::Map(out)
        }
    };
    Node { value, span }
}

/// What serde-saphyr hands us: a value whose children carry their own locations.
enum Raw {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Spanned<Raw>>),
    Map(Vec<(Spanned<Raw>, Spanned<Raw>)>),
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        Raw::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Raw, E> {
        Ok(Raw::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw::UInt(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Raw, E> {
        Ok(Raw::Str(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Raw>>()? {
            items.push(item);
        }
        Ok(Raw::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Raw>>()? {
            let value = map.next_value::<Spanned<Raw>>()?;
            entries.push((key, value));
        }
        Ok(Raw::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn p(text: &str) -> (Option<Node>, Vec<Diagnostic>) {
        let mut d = Vec::new();
        let n = parse(FileId(0), text, &mut d);
        (n, d)
    }

    #[test]
    fn spans_on_keys_and_values() {
        let (n, d) = p("a: 1\nbb:\n  - x\n  - \"y z\"\nc: |\n  text\n");
        assert!(d.is_empty(), "{d:?}");
        let Value::Map(m) = n.unwrap().value else {
            panic!()
        };
        assert_eq!(m[0].0.span.line, 1);
        assert_eq!(m[0].1.value, Value::Int(1));
        assert_eq!(
            (m[1].0.span.line, m[1].0.span.col, m[1].0.span.len),
            (2, 1, 2)
        );
        let Value::Seq(items) = &m[1].1.value else {
            panic!()
        };
        assert_eq!((items[1].span.line, items[1].span.col), (4, 5));
        assert_eq!(m[2].1.as_str(), Some("text\n"));
        // Block scalars point at their first content line.
        assert_eq!((m[2].1.span.line, m[2].1.span.col), (6, 3));
    }

    #[test]
    fn duplicate_keys_reported_all() {
        let (n, d) = p("a: 1\nb: 2\na: 3\nb: 4\n");
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].code, "duplicate-key");
        assert_eq!(d[0].span.unwrap().line, 3);
        let Value::Map(m) = n.unwrap().value else {
            panic!()
        };
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn syntax_error_has_position() {
        let (n, d) = p("a: [1, 2\nb: 3\n");
        assert!(n.is_none());
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, "yaml-syntax");
        eprintln!("{:?}", d[0]);
    }

    #[test]
    fn strict_booleans() {
        let (n, _) = p("a: yes\nb: true\n");
        let Value::Map(m) = n.unwrap().value else {
            panic!()
        };
        assert_eq!(m[0].1.as_str(), Some("yes"));
        assert_eq!(m[1].1.value, Value::Bool(true));
    }
}
