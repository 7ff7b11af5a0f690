//! A tool's `implements:` key: the Rust type the tool's typed call becomes (typify's
//! `replace` idea). Codegen builds that type from the parsed call (see
//! `codegen::implements`), so the definition and the runtime type are one declaration and a
//! mismatch is a compile error of the generated code. Here: the key read and checked as an
//! absolute Rust path.

use super::read::{self, Diags, Sp};
use super::yaml::Node;
use crate::diag::Diagnostic;

/// Rust keywords a path segment may not be (other than `crate`, which may lead).
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while", "yield",
];

/// `implements: some_crate::module::Type`: read, and refused (`bad-implements`) unless it is
/// a path of at least two identifier segments starting at a crate name or `crate` (the
/// generated code is nested in modules, so a relative path would mean something else there).
pub fn read_implements(n: &Node, d: &mut Diags) -> Option<Sp<String>> {
    let path = read::string(n, "implements", d)?;
    match path_problem(&path.v) {
        None => Some(path),
        Some(problem) => {
            d.push(
                Diagnostic::error(
                    "bad-implements",
                    Some(path.span),
                    format!("implements `{}` is not a Rust type path: {problem}", path.v),
                )
                .with_hint(
                    "implements: a_crate::module::Type (an absolute path, segments joined by ::)",
                ),
            );
            None
        }
    }
}

fn path_problem(path: &str) -> Option<String> {
    let segments: Vec<&str> = path.split("::").collect();
    if segments.len() < 2 {
        return Some("name the crate and the type, at least `a_crate::Type`".to_owned());
    }
    for (i, s) in segments.iter().enumerate() {
        let ident = s
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && *s != "_";
        if !ident {
            return Some(format!("segment `{s}` is not an identifier"));
        }
        if *s == "crate" && i == 0 {
            continue;
        }
        if KEYWORDS.contains(s) || *s == "crate" {
            return Some(format!("segment `{s}` is a keyword"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::path_problem;

    #[test]
    fn test_paths_are_absolute_identifier_paths() {
        assert_eq!(
            path_problem("toolsurface_runtime::messages::MessageRead"),
            None
        );
        assert_eq!(path_problem("crate::host::Request"), None);
        for bad in [
            "Request",
            "a::",
            "::a::B",
            "a::b c",
            "self::X",
            "a::crate::X",
            "a::3x",
            "a::_",
        ] {
            assert!(path_problem(bad).is_some(), "{bad}");
        }
    }
}
