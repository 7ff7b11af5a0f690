//! The round trip's comparison: every difference between an input tool and `emit` of its
//! import, found by walking both JSON documents keyword by keyword (names, descriptions,
//! every schema keyword, annotations, the keys beside the schema), so that nothing the
//! emitted tool says differently can pass unreported. Only what a dialect documents as the
//! same meaning is equal without being the same text: [`EQUIVALENCES`] lists each.

use serde_json::{Map, Value};

use super::{Note, Shape, escape, short};
use crate::dialect::{self, MCP_HINT_DEFAULTS};

/// What is the same by definition, not a difference (each rule is one arm of [`same_by_rule`]
/// or of the walk below, named here so the list is read as one):
pub const EQUIVALENCES: &[&str] = &[
    "the order of the keys inside an object (the order of `properties` is compared)",
    "the order of the names in `required`",
    "`strict: false` published where the input has no `strict` (OpenAI's default)",
    "an MCP annotation hint published with MCP's default where the input has none",
    "MCP `destructiveHint` / `idempotentHint` published for a tool the input marks \
     `readOnlyHint: true` (MCP: meaningful only when not read-only)",
    "toolsurface's own MCP `_meta` keys (`io.toolsurface/…`) on either side: `import` drops \
     them, `emit` derives them again for the imported surface",
    "the letter case of a Gemini `type` name (`object` / `OBJECT`: one enum value)",
    "an empty `required` list or `properties` object on one side and none on the other (JSON \
     Schema: the same constraint)",
    "an MCP tool `title` published equal to the input's `annotations.title` (MCP's display \
     name reads `title`, then `annotations.title`: the same display)",
];

/// The key the walk gives the tool object itself (no JSON key is spelled so).
const TOOL: &str = "<tool>";

/// `required: []` or `properties: {}`: the same as leaving the key out.
fn empty_constraint(k: &str, v: &Value) -> bool {
    match (k, v) {
        ("required", Value::Array(a)) => a.is_empty(),
        ("properties", Value::Object(o)) => o.is_empty(),
        _ => false,
    }
}

/// Every difference between the input tool `input` (at `ptr`) and the emitted `emitted`, each
/// at its pointer in the input document.
pub fn compare(shape: Shape, ptr: &str, input: &Value, emitted: &Value) -> Vec<Note> {
    let tool = dialect::rules(shape)
        .tool_body("", emitted)
        .ok()
        .and_then(|(body, _)| body.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut w = Walk {
        shape,
        read_only: input.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true)),
        annotations_title: input.pointer("/annotations/title").cloned(),
        out: Vec::new(),
    };
    w.value(ptr, input, emitted, TOOL);
    w.out
        .into_iter()
        .map(|(pointer, message)| Note {
            tool: tool.clone(),
            pointer,
            message,
        })
        .collect()
}

struct Walk {
    shape: Shape,
    read_only: bool,
    annotations_title: Option<Value>,
    out: Vec<(String, String)>,
}

impl Walk {
    /// One node of both documents; `key` is the key it stands under in its parent.
    fn value(&mut self, ptr: &str, a: &Value, b: &Value, key: &str) {
        match (a, b) {
            (Value::Object(oa), Value::Object(ob)) => self.object(ptr, oa, ob, key),
            (Value::Array(la), Value::Array(lb)) if key == "required" => {
                let mut sa: Vec<String> = la.iter().map(Value::to_string).collect();
                let mut sb: Vec<String> = lb.iter().map(Value::to_string).collect();
                sa.sort();
                sb.sort();
                if sa != sb {
                    self.push(ptr, format!("required {} → {}", short(a), short(b)));
                }
            }
            (Value::Array(la), Value::Array(lb)) => {
                if la.len() != lb.len() {
                    self.push(
                        ptr,
                        format!(
                            "{} → {} ({} items → {})",
                            short(a),
                            short(b),
                            la.len(),
                            lb.len()
                        ),
                    );
                    return;
                }
                for (i, (x, y)) in la.iter().zip(lb).enumerate() {
                    self.value(&format!("{ptr}/{i}"), x, y, "");
                }
            }
            _ if a == b || self.same_gemini_type(a, b, key) => {}
            (Value::String(x), Value::String(y)) if x.len().max(y.len()) > 40 => {
                self.text(ptr, key, x, y);
            }
            _ => self.push(ptr, format!("`{key}` {} → {}", short(a), short(b))),
        }
    }

    fn object(&mut self, ptr: &str, a: &Map<String, Value>, b: &Map<String, Value>, key: &str) {
        if key == "_meta" && self.shape == Shape::Mcp {
            let own = |m: &Map<String, Value>| -> Map<String, Value> {
                m.iter()
                    .filter(|(k, _)| !k.starts_with(crate::emit::META_PREFIX))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            };
            let (a, b) = (own(a), own(b));
            return self.object(ptr, &a, &b, "");
        }
        for (k, va) in a {
            let p = format!("{ptr}/{}", escape(k));
            match b.get(k) {
                Some(vb) => self.value(&p, va, vb, k),
                None if key != "properties" && empty_constraint(k, va) => {}
                None => self.push(&p, format!("`{k}` is not published ({})", short(va))),
            }
        }
        for (k, vb) in b {
            if a.contains_key(k) || self.same_by_rule(k, vb, key) {
                continue;
            }
            let p = format!("{ptr}/{}", escape(k));
            if k == "annotations"
                && let Value::Object(hints) = vb
            {
                // Annotations the input leaves out: only the hints that differ from MCP's
                // defaults (and the title) are additions.
                for (h, v) in hints {
                    if !self.same_by_rule(h, v, "annotations") {
                        self.push(
                            &format!("{p}/{}", escape(h)),
                            format!("`{h}: {}` is published but not in the input", short(v)),
                        );
                    }
                }
                continue;
            }
            self.push(
                &p,
                format!("`{k}: {}` is published but not in the input", short(vb)),
            );
        }
        if key == "properties" {
            let common_a: Vec<&String> = a.keys().filter(|k| b.contains_key(*k)).collect();
            let common_b: Vec<&String> = b.keys().filter(|k| a.contains_key(*k)).collect();
            if common_a != common_b {
                self.push(ptr, "the order of the properties differs".into());
            }
        }
    }

    /// A key published where the input has none that means what its absence means.
    fn same_by_rule(&self, k: &str, v: &Value, parent: &str) -> bool {
        if parent != "properties" && empty_constraint(k, v) {
            return true;
        }
        match (k, v) {
            ("strict", Value::Bool(false)) => {
                matches!(self.shape, Shape::OpenaiChat | Shape::OpenaiResponses)
            }
            ("_meta", Value::Object(m)) => {
                self.shape == Shape::Mcp
                    && m.keys().all(|x| x.starts_with(crate::emit::META_PREFIX))
            }
            ("title", v) if parent == TOOL && self.shape == Shape::Mcp => {
                self.annotations_title.as_ref() == Some(v)
            }
            (h, Value::Bool(x)) if parent == "annotations" && self.shape == Shape::Mcp => {
                (self.read_only && matches!(h, "destructiveHint" | "idempotentHint"))
                    || MCP_HINT_DEFAULTS.contains(&(h, *x))
            }
            _ => false,
        }
    }

    fn same_gemini_type(&self, a: &Value, b: &Value, key: &str) -> bool {
        self.shape == Shape::Gemini
            && key == "type"
            && matches!((a, b), (Value::String(x), Value::String(y)) if x.eq_ignore_ascii_case(y))
    }

    /// Two texts: where they start to differ, so a change past the first 40 characters (a
    /// trailing space, one word) is visible in the note.
    fn text(&mut self, ptr: &str, key: &str, a: &str, b: &str) {
        let at = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
        let around = |s: &str| short(&Value::from(s.chars().skip(at).collect::<String>()));
        self.push(
            ptr,
            format!(
                "`{key}` differs from character {at} ({} chars → {}): {} → {}",
                a.chars().count(),
                b.chars().count(),
                around(a),
                around(b)
            ),
        );
    }

    fn push(&mut self, ptr: &str, message: String) {
        self.out.push((ptr.to_owned(), message));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    fn pointers(shape: Shape, a: Value, b: Value) -> Vec<String> {
        compare(shape, "/0", &a, &b)
            .into_iter()
            .map(|n| format!("{} {}", n.pointer, n.message))
            .collect()
    }

    #[test]
    fn every_keyword_is_compared() {
        let a = json!({"name": "t", "parametersJsonSchema": {"type": "object"},
            "parameters": {"type": "object", "additionalProperties": true, "title": "T",
              "properties": {"a": {"type": "string", "default": "x"}, "b": {"type": "integer"}},
              "required": ["a", "b"]}});
        let b = json!({"name": "t",
            "parameters": {"type": "OBJECT",
              "properties": {"b": {"type": "INTEGER"}, "a": {"type": "STRING"}},
              "required": ["b", "a"]}});
        let got = pointers(Shape::Gemini, a, b);
        assert_eq!(
            got,
            vec![
                "/0/parametersJsonSchema `parametersJsonSchema` is not published ({\"type\":\"object\"})",
                "/0/parameters/additionalProperties `additionalProperties` is not published (true)",
                "/0/parameters/title `title` is not published (\"T\")",
                "/0/parameters/properties/a/default `default` is not published (\"x\")",
                "/0/parameters/properties the order of the properties differs",
            ]
        );
    }

    #[test]
    fn documented_defaults_are_no_difference() {
        let a = json!({"name": "t", "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true}});
        let b = json!({"name": "t", "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true, "destructiveHint": false,
              "idempotentHint": false, "openWorldHint": true, "title": "T"},
            "_meta": {"io.toolsurface/sha256": "x"}});
        assert_eq!(
            pointers(Shape::Mcp, a, b),
            vec!["/0/annotations/title `title: \"T\"` is published but not in the input"]
        );
        // The tool title published from the input's annotations.title is the same display.
        let a = json!({"name": "t", "annotations": {"title": "T"}});
        let b = json!({"name": "t", "title": "T", "annotations": {"title": "T"}});
        assert!(pointers(Shape::Mcp, a, b).is_empty());
        let chat = json!({"type": "function", "function": {"name": "t"}});
        let out = json!({"type": "function", "function": {"name": "t", "strict": false}});
        assert!(pointers(Shape::OpenaiChat, chat, out).is_empty());
    }
}
