//! The canonical JSON writer behind the published bytes: an ordered value tree, compact
//! output, one spelling per number and per string. Deliberately independent of serde_json's
//! feature flags (map ordering, float formatting) so the bytes cannot change under us.

use std::fmt::Write as _;

/// A JSON value whose objects keep the order their keys were pushed in.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Int(i64),
    /// Finite; written through [`write_number`].
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub(crate) fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// An object builder: `Json::obj().with("a", x).with("b", y)`.
    pub(crate) fn obj() -> Json {
        Json::Obj(Vec::new())
    }

    /// Append a key to an object (no-op on other values; callers only build objects).
    pub(crate) fn with(mut self, key: &str, value: Json) -> Json {
        if let Json::Obj(entries) = &mut self {
            entries.push((key.to_owned(), value));
        }
        self
    }

    /// Append a key when `value` is `Some`.
    pub(crate) fn with_opt(self, key: &str, value: Option<Json>) -> Json {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    /// Write the canonical compact form.
    pub(crate) fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Json::Num(n) => write_number(*n, out),
            Json::Str(s) => write_string(s, out),
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Obj(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    pub(crate) fn to_canonical(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }
}

/// Numbers are printed one way: a finite value with no fractional part and magnitude below
/// 2^53 is printed as an integer (`300.0` -> `300`, `-0.0` -> `0`); anything else with Rust's
/// shortest round-trip decimal form (never an exponent). Non-finite values never reach here
/// (the emitter refuses them), but print as `null` rather than invalid JSON.
pub(crate) fn write_number(n: f64, out: &mut String) {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if !n.is_finite() {
        out.push_str("null");
    } else if n.fract() == 0.0 && n.abs() < EXACT {
        let _ = write!(out, "{}", n as i64);
    } else {
        let _ = write!(out, "{n}");
    }
}

/// RFC 8259 string escaping, the minimal form: `"` and `\` escaped, the short escapes for
/// `\b \f \n \r \t`, other control characters as `\u00XX` (lowercase hex); everything else,
/// `/` and non-ASCII included, written as UTF-8. (The same spelling serde_json uses.)
pub(crate) fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Re-indent canonical compact JSON for reading (two spaces, `": "`), key order and every
/// token unchanged. Only ever fed our own canonical output; it does not validate.
pub fn pretty(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    // Empty container stays on one line.
                    if let Some(cl) = chars.next() {
                        out.push(cl);
                    }
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(n: f64) -> String {
        let mut s = String::new();
        write_number(n, &mut s);
        s
    }

    #[test]
    fn numbers_have_one_spelling() {
        assert_eq!(num(300.0), "300");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(-2.25), "-2.25");
        assert_eq!(num(1e-7), "0.0000001");
        assert_eq!(num(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(num(f64::NAN), "null");
        // Beyond 2^53 integers are not exact: the float form is used.
        assert_eq!(num(1e20), "100000000000000000000");
    }

    #[test]
    fn strings_escape_minimally_like_serde_json() {
        let s = "a\"b\\c\n\t\u{1}é/😀\u{7f}";
        let mut ours = String::new();
        write_string(s, &mut ours);
        let theirs = serde_json::to_string(s).unwrap_or_default();
        assert_eq!(ours, theirs);
        assert_eq!(ours, "\"a\\\"b\\\\c\\n\\t\\u0001é/😀\u{7f}\"");
    }

    #[test]
    fn every_ascii_and_sample_unicode_char_escapes_like_serde_json() {
        let samples = (0u32..0x80)
            .chain([0xa0, 0x2028, 0x2029, 0xfeff, 0xfffd, 0x1f600, 0x10ffff])
            .filter_map(char::from_u32);
        for c in samples {
            let s = format!("a{c}b");
            let mut ours = String::new();
            write_string(&s, &mut ours);
            assert_eq!(
                ours,
                serde_json::to_string(&s).unwrap_or_default(),
                "U+{:04X}",
                c as u32
            );
            let back: String = serde_json::from_str(&ours).unwrap_or_default();
            assert_eq!(back, s);
        }
    }

    #[test]
    fn numbers_round_trip_to_the_same_value() {
        for n in [
            0.1,
            1.5,
            -3.75,
            1e-300,
            123456.789,
            2f64.powi(53),
            2f64.powi(60),
            -1e15,
        ] {
            let text = num(n);
            assert!(!text.contains('e') && !text.contains("inf"), "{text}");
            let back: f64 = text.parse().unwrap_or(f64::NAN);
            assert_eq!(back, n, "{text}");
        }
    }

    #[test]
    fn objects_keep_push_order_and_are_compact() {
        let j = Json::obj()
            .with("z", Json::Int(1))
            .with("a", Json::Arr(vec![Json::Bool(true), Json::Null]))
            .with_opt("skip", None)
            .with("m", Json::obj());
        assert_eq!(j.to_canonical(), r#"{"z":1,"a":[true,null],"m":{}}"#);
    }

    #[test]
    fn pretty_reindents_without_touching_strings() {
        let compact = r#"[{"a":"x,{y}:\"z\"","b":[],"c":{"d":1}}]"#;
        let p = pretty(compact);
        assert_eq!(
            p,
            "[\n  {\n    \"a\": \"x,{y}:\\\"z\\\"\",\n    \"b\": [],\n    \"c\": {\n      \"d\": 1\n    }\n  }\n]\n"
        );
        // Same value.
        let a: serde_json::Value = serde_json::from_str(compact).unwrap_or_default();
        let b: serde_json::Value = serde_json::from_str(&p).unwrap_or_default();
        assert_eq!(a, b);
    }
}
