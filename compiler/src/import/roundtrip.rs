//! The round trip's comparison: every difference between an input tool and `emit` of its
//! import, found by walking both JSON documents keyword by keyword (names, descriptions,
//! every schema keyword, annotations, the keys beside the schema), so that nothing the
//! emitted tool says differently can pass unreported. Only what JSON Schema ([`EQUIVALENCES`])
//! or the input's dialect (`DialectRules::equivalences`) documents as the same meaning is
//! equal without being the same text: [`equivalences`] lists each.

use serde_json::{Map, Value};

use super::{Note, Shape, escape, short};
use crate::dialect::{self, DialectRules, TOOL_OBJECT};

/// What is the same by definition in every dialect, not a difference (each rule is an arm of
/// [`Walk::same_by_rule`] or of the walk below, named here so the list is read as one); the
/// dialects' own are their `DialectRules::equivalences`.
pub const EQUIVALENCES: &[&str] = &[
    "the order of the keys inside an object (the order of `properties` is compared)",
    "the order of the names in `required`",
    "an empty `required` list or `properties` object on one side and none on the other (JSON \
     Schema: the same constraint)",
];

/// Every equivalence the comparison of an input of `shape` applies: JSON Schema's, then the
/// dialect's.
pub fn equivalences(shape: Shape) -> Vec<&'static str> {
    let own = dialect::rules(shape).equivalences();
    EQUIVALENCES.iter().chain(own).copied().collect()
}

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
    let rules = dialect::rules(shape);
    let tool = rules
        .tool_body("", emitted)
        .ok()
        .and_then(|(body, _)| body.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut w = Walk {
        rules,
        input,
        out: Vec::new(),
    };
    w.value(ptr, input, emitted, TOOL_OBJECT);
    w.out
        .into_iter()
        .map(|(pointer, message)| Note {
            tool: tool.clone(),
            pointer,
            message,
        })
        .collect()
}

struct Walk<'a> {
    rules: &'a dyn DialectRules,
    /// The input tool: what the dialect's rules read (MCP: its annotations).
    input: &'a Value,
    out: Vec<(String, String)>,
}

impl Walk<'_> {
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
            _ if a == b || self.rules.same_value(key, a, b) => {}
            (Value::String(x), Value::String(y)) if x.len().max(y.len()) > 40 => {
                self.text(ptr, key, x, y);
            }
            _ => self.push(ptr, format!("`{key}` {} → {}", short(a), short(b))),
        }
    }

    fn object(&mut self, ptr: &str, a: &Map<String, Value>, b: &Map<String, Value>, key: &str) {
        let own = |k: &String| self.rules.own_key(key, k);
        if a.keys().chain(b.keys()).any(own) {
            let others = |m: &Map<String, Value>| -> Map<String, Value> {
                m.iter()
                    .filter(|(k, _)| !own(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            };
            let (a, b) = (others(a), others(b));
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
                // Annotations the input leaves out: only the hints that do not mean what their
                // absence means (MCP: its defaults) are additions.
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
        (parent != "properties" && empty_constraint(k, v))
            || self.rules.same_as_absent(self.input, parent, k, v)
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
    fn each_dialect_lists_its_own_equivalences_after_json_schemas() {
        for shape in Shape::ALL {
            let listed = equivalences(shape);
            assert_eq!(&listed[..EQUIVALENCES.len()], EQUIVALENCES, "{shape:?}");
        }
        let openai = |shape| {
            equivalences(shape)
                .iter()
                .any(|e| e.contains("strict: false"))
        };
        assert!(openai(Shape::OpenaiChat) && openai(Shape::OpenaiResponses));
        assert!(!openai(Shape::Mcp));
        assert_eq!(equivalences(Shape::Mcp).len(), EQUIVALENCES.len() + 4);
        assert_eq!(equivalences(Shape::Anthropic), EQUIVALENCES);
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
