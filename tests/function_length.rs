//! The function-length invariant of ARCHITECTURE.md: no non-test function in the library and
//! binary sources (compiler, runtime, facade, cli, kernel, text, macros) runs over 100 lines
//! unless the comment block right above it gives a reason, marked `// long: <reason>` (or
//! `/// long:`; the reason at least three words). Long functions are where the densest logic hides; a
//! written reason keeps each exception deliberate.
//!
//! The scanner is a small lexer, not a parser: it blanks comments and string/char literals
//! (so braces inside them do not count), finds each `fn NAME` with a body, and measures from
//! the `fn` line to its matching closing brace with a depth counter. Nested functions and
//! closures are inside their outer function's braces and counted with it; a nested `fn` is
//! also measured on its own. Test code is skipped: items under `#[cfg(test)]` (inline
//! modules, functions) and the files of `#[cfg(test)] mod NAME;`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The longest a function may run (in lines, `fn` line to closing brace) without a reason.
const MAX_LINES: usize = 100;

/// The source roots the invariant covers, relative to the workspace root.
const ROOTS: &[&str] = &[
    "compiler/src",
    "runtime/src",
    "src",
    "cli/src",
    "kernel/src",
    "text/src",
    "macros/src",
];

/// One function with a body: its name, the 1-based line of `fn`, its length in lines, and
/// whether the comment block above it carries a `long:` reason.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FnSpan {
    name: String,
    line: usize,
    lines: usize,
    has_long_reason: bool,
}

/// `src` with every comment and the inside of every string, byte-string, raw-string and
/// char literal replaced by spaces (newlines kept, so line numbers and byte offsets stay).
/// Lifetimes and labels (`'a`, `'outer:`) are left as they are.
fn blank_comments_and_literals(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for x in &mut out[from..to] {
            if *x != b'\n' {
                *x = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < b.len() {
        let prev_is_ident = i > 0 && ident(b[i - 1]);
        if b[i..].starts_with(b"//") {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, i);
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if !prev_is_ident && let Some(end) = raw_string_end(b, i) {
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'\'' {
            match char_literal_end(src, i) {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("only ASCII bytes were replaced, by ASCII spaces")
}

/// The end (exclusive) of a raw string `r"…"`, `r#"…"#`, `br#"…"#` starting at `i`.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    if b.get(j) == Some(&b'b') {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
    j += hashes;
    if b.get(j) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = j + 1;
    let found = b[body..].windows(close.len()).position(|w| w == close);
    Some(found.map_or(b.len(), |p| body + p + close.len()))
}

/// The end (exclusive) of a char literal starting at the quote at `i` (`'x'`, `'\n'`,
/// `'\u{1F600}'`, `'é'`), or `None` when the quote starts a lifetime or a label.
fn char_literal_end(src: &str, i: usize) -> Option<usize> {
    let rest = &src[i + 1..];
    let mut chars = rest.char_indices();
    let (_, first) = chars.next()?;
    if first == '\\' {
        // The escaped character itself may be a quote: search after it.
        let close = rest.get(2..)?.find('\'')?;
        return Some(i + 1 + 2 + close + 1);
    }
    let (at, second) = chars.next()?;
    (second == '\'').then_some(i + 1 + at + 1)
}

/// 1-based line of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].bytes().filter(|&c| c == b'\n').count() + 1
}

/// The offset just past the item that starts at `from`: past its matching closing brace, or
/// its `;` when a `;` comes first outside brackets (a declaration without a body).
fn end_of_item(code: &[u8], from: usize) -> (usize, bool) {
    let (mut braces, mut brackets) = (0i64, 0i64);
    let mut j = from;
    while j < code.len() {
        match code[j] {
            b'(' | b'[' => brackets += 1,
            b')' | b']' => brackets -= 1,
            b';' if braces == 0 && brackets == 0 => return (j + 1, false),
            b'{' => braces += 1,
            b'}' => {
                braces -= 1;
                if braces == 0 {
                    return (j + 1, true);
                }
            }
            _ => {}
        }
        j += 1;
    }
    (code.len(), braces == 0)
}

/// The byte ranges that are test-only: items right after `#[cfg(test)]` (skipping further
/// attributes), and the module names declared `#[cfg(test)] mod NAME;` (their files).
fn test_only_regions(code: &str) -> (Vec<(usize, usize)>, Vec<String>) {
    let bytes = code.as_bytes();
    let mut regions = Vec::new();
    let mut test_module_files = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("#[cfg(test)]") {
        let start = from + p;
        let mut j = start + "#[cfg(test)]".len();
        // Further attributes on the same item, each up to its matching `]`.
        loop {
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if !code[j..].starts_with("#[") {
                break;
            }
            let mut depth = 0i64;
            while j < bytes.len() {
                match bytes[j] {
                    b'[' => depth += 1,
                    b']' => depth -= 1,
                    _ => {}
                }
                j += 1;
                if depth == 0 && bytes[j - 1] == b']' {
                    break;
                }
            }
        }
        let (end, has_body) = end_of_item(bytes, j);
        let head: Vec<&str> = code[j..end].split_whitespace().take(3).collect();
        if !has_body
            && let Some(pos) = head.iter().position(|w| *w == "mod")
            && let Some(name) = head.get(pos + 1)
        {
            test_module_files.push(name.trim_end_matches(';').to_owned());
        }
        regions.push((start, end));
        from = end.max(start + 1);
    }
    (regions, test_module_files)
}

/// Whether the comment block directly above line `fn_line` (1-based; attributes and blank-free
/// comment lines, read upwards) contains a `long: <reason>` marker with a reason.
fn comment_above_gives_a_long_reason(raw_lines: &[&str], fn_line: usize) -> bool {
    let mut k = fn_line - 1;
    while k > 0 {
        let l = raw_lines[k - 1].trim();
        let comment = l
            .strip_prefix("///")
            .or_else(|| l.strip_prefix("//"))
            .map(str::trim);
        match comment {
            Some(text) => {
                if let Some(reason) = text.strip_prefix("long:")
                    && reason.split_whitespace().count() >= 3
                {
                    return true;
                }
            }
            None if l.starts_with("#[") || l.ends_with(")]") => {}
            None => return false,
        }
        k -= 1;
    }
    false
}

/// Every non-test function with a body in one file's source.
fn functions_in(src: &str) -> (Vec<FnSpan>, Vec<String>) {
    let code = blank_comments_and_literals(src);
    let bytes = code.as_bytes();
    let raw_lines: Vec<&str> = src.lines().collect();
    let (test_regions, test_module_files) = test_only_regions(&code);
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("fn") {
        let at = from + p;
        from = at + 2;
        let word_start = at == 0 || !ident(bytes[at - 1]);
        let word_end = bytes.get(at + 2).is_some_and(|c| c.is_ascii_whitespace());
        if !word_start || !word_end {
            continue;
        }
        let name: String = code[at + 2..]
            .trim_start()
            .bytes()
            .take_while(|&c| ident(c))
            .map(char::from)
            .collect();
        if name.is_empty() || test_regions.iter().any(|&(s, e)| s <= at && at < e) {
            continue;
        }
        let (end, has_body) = end_of_item(bytes, at);
        if !has_body {
            continue;
        }
        let line = line_of(&code, at);
        let lines = line_of(&code, end - 1) - line + 1;
        out.push(FnSpan {
            name,
            line,
            lines,
            has_long_reason: comment_above_gives_a_long_reason(&raw_lines, line),
        });
    }
    (out, test_module_files)
}

/// The directory holding the submodules of the module in `file` (`foo/` for `foo.rs`, the
/// file's own directory for `mod.rs`, `lib.rs` and `main.rs`).
fn submodule_dir(file: &Path) -> PathBuf {
    let dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
    match file.file_stem().and_then(|s| s.to_str()) {
        Some("mod" | "lib" | "main") => dir,
        Some(stem) => dir.join(stem),
        None => dir,
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every function over the limit without a reason, as `path:line fn name (N lines)`.
fn long_functions_in_workspace() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for r in ROOTS {
        rust_files(&root.join(r), &mut files);
    }
    let mut scanned = Vec::new();
    let mut test_files = BTreeSet::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let (fns, test_mods) = functions_in(&src);
        for m in test_mods {
            let dir = submodule_dir(f);
            test_files.insert(dir.join(format!("{m}.rs")));
            test_files.insert(dir.join(&m).join("mod.rs"));
        }
        scanned.push((f.clone(), fns));
    }
    let mut unexplained = Vec::new();
    for (f, fns) in scanned {
        if test_files.contains(&f) {
            continue;
        }
        let rel = f
            .strip_prefix(root)
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('\\', "/");
        for s in fns.into_iter().filter(|s| s.lines > MAX_LINES) {
            if !s.has_long_reason {
                unexplained.push(format!(
                    "{rel}:{} fn {} ({} lines)",
                    s.line, s.name, s.lines
                ));
            }
        }
    }
    unexplained
}

#[test]
fn no_function_runs_over_100_lines_without_a_written_reason() {
    let unexplained = long_functions_in_workspace();
    assert!(
        unexplained.is_empty(),
        "functions over {MAX_LINES} lines without a `// long: <reason>` line above them \
         (split them along their seams, or write why they must stay whole):\n  {}",
        unexplained.join("\n  ")
    );
}

/// A fixture exercising what the scanner must get right: braces inside strings, raw strings,
/// chars and comments; lifetimes; nested functions and closures; declarations without a
/// body; `fn` types; test-only items and module files; and the `long:` marker.
#[test]
fn the_scanner_measures_a_fixture_exactly() {
    let filler = |n: usize| "    let _ = 1;\n".repeat(n);
    let src = format!(
        r####"//! fixture
/// Braces in literals and comments do not count.
fn literals<'a>(x: &'a str) -> [u8; 2] {{
    let _ = "}}}} {{ \" }}";
    let _ = r#"}} "quoted" {{"#;
    let _ = br##"}}"#}}"##;
    let _ = '}}';
    let _ = '\'';
    let _ = b'{{';
    // }} }}
    /* {{ /* nested }} */ }} */
    'outer: loop {{ break 'outer; }}
    [0, 1]
}}

trait Declares {{
    fn declared(&self) -> u8;
    fn with_default(&self) -> u8 {{ 1 }}
}}

fn outer() {{
    let f = |y: u8| {{ y + 1 }};
    fn inner() -> fn(u8) -> u8 {{
        |z| z
    }}
{}}}

// long: the fixture's long function, with a reason on purpose
fn long_with_reason() {{
{}}}

#[inline]
fn long_without_reason() {{
{}}}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {{
    fn long_test_helper() {{
{}    }}
}}

#[cfg(test)]
mod more_tests;
"####,
        filler(3),
        filler(120),
        filler(99),
        filler(150),
    );
    let (fns, test_mods) = functions_in(&src);
    let got: Vec<(&str, usize, usize, bool)> = fns
        .iter()
        .map(|s| (s.name.as_str(), s.line, s.lines, s.has_long_reason))
        .collect();
    assert_eq!(
        got,
        vec![
            ("literals", 3, 12, false),
            ("with_default", 18, 1, false),
            ("outer", 21, 9, false),
            ("inner", 23, 3, false),
            ("long_with_reason", 32, 122, true),
            ("long_without_reason", 36 + 120, 101, false),
        ]
    );
    assert_eq!(test_mods, vec!["more_tests".to_owned()]);
    assert_eq!(
        submodule_dir(Path::new("compiler/src/diff.rs")),
        Path::new("compiler/src/diff")
    );
    assert_eq!(
        submodule_dir(Path::new("compiler/src/emit/mod.rs")),
        Path::new("compiler/src/emit")
    );
}
