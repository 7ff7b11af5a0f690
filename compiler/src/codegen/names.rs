//! Rust spellings of definition names: snake identifiers (raw when a keyword), PascalCase type
//! and variant names that never collide with a keyword or with each other.

use proc_macro2::{Ident, Span};

const STRICT: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// A snake_case identifier for a definition name (`type` -> `r#type`, `self` -> `self_`); a
/// provider-legal name that is no Rust identifier is spelled as one (`per-page` ->
/// `per_page`, `2fa` -> `n2fa`, `perPage` -> `per_page`).
pub fn snake(name: &str) -> Ident {
    let plain = name
        .bytes()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
    if !plain {
        return snake(&crate::load::read::rust_spelling(name));
    }
    if NOT_RAW.contains(&name) {
        Ident::new(&format!("{name}_"), Span::call_site())
    } else if STRICT.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// `shell_session` -> `ShellSession`; `llm:openai` -> `LlmOpenai`; `2d` -> `V2d`; `self` ->
/// `SelfValue`.
pub fn pascal_str(name: &str) -> String {
    let mut out = String::new();
    for part in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.is_empty() {
        out.push_str("Empty");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    if out == "Self" {
        out.push_str("Value");
    }
    out
}

pub fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// PascalCase names for `values`, made unique in order (`a-b` and `a_b` -> `AB`, `AB2`).
pub fn unique_pascal(values: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(values.len());
    for v in values {
        let base = pascal_str(v);
        let mut name = base.clone();
        let mut n = 2;
        while out.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        out.push(name);
    }
    out
}

/// `SHELL_SESSION` style constant fragment.
pub fn upper(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// Predicate name for a bool trait: `is_<trait>`, or the trait name itself when it already
/// reads as a predicate (`is_…`, `has_…`, `can_…`, …, and `result_on_interrupt`).
pub fn predicate(trait_name: &str) -> String {
    const VERBISH: &[&str] = &[
        "is_",
        "has_",
        "can_",
        "may_",
        "must_",
        "needs_",
        "allows_",
        "requires_",
        "should_",
        "keeps_",
        "returns_",
        "result_",
    ];
    if VERBISH.iter().any(|p| trait_name.starts_with(p)) {
        trait_name.to_owned()
    } else {
        format!("is_{trait_name}")
    }
}

/// `a, b and c`.
pub fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        assert_eq!(pascal_str("shell_session"), "ShellSession");
        assert_eq!(pascal_str("llm:openai"), "LlmOpenai");
        assert_eq!(pascal_str("self"), "SelfValue");
        assert_eq!(pascal_str("2d"), "V2d");
        assert_eq!(snake("type").to_string(), "r#type");
        assert_eq!(snake("self").to_string(), "self_");
        assert_eq!(snake("perPage").to_string(), "per_page");
        assert_eq!(snake("per-page").to_string(), "per_page");
        assert_eq!(snake("2fa").to_string(), "n2fa");
        assert_eq!(predicate("poll"), "is_poll");
        assert_eq!(predicate("result_on_interrupt"), "result_on_interrupt");
        assert_eq!(and_list(&["a", "b", "c"]), "a, b and c");
        assert_eq!(
            unique_pascal(&["a-b".into(), "a_b".into()]),
            vec!["AB", "AB2"]
        );
    }
}
