//! Surgical edits of definitions files as text: a list item replaced or removed, an entry
//! appended, a field inserted, a tool reference rewritten. Everything a user wrote around
//! the edit (comments, blank lines, flow or block style, quoting) stays as it was; the YAML
//! tree is parsed only to find where things are.

use crate::diag::FileId;
use crate::load::yaml::{self, Node, Value};

/// An edit that cannot be made textually, with the reason.
pub type EditError = String;

fn entries(node: &Node) -> &[(Node, Node)] {
    match &node.value {
        Value::Map(e) => e,
        _ => &[],
    }
}

fn get<'n>(node: &'n Node, key: &str) -> Option<&'n Node> {
    entries(node)
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn parse(text: &str, what: &str) -> Result<Node, EditError> {
    let mut d = Vec::new();
    yaml::parse(FileId(0), text, &mut d).ok_or_else(|| format!("{what} is not valid YAML"))
}

/// Every `tools:` list of a roles.yaml (one per role) or of a skill file (at the root).
fn tool_lists(root: &Node) -> Vec<&Node> {
    let mut out = Vec::new();
    if let Some(t) = get(root, "tools") {
        out.push(t);
    }
    for (_, v) in entries(root) {
        if let Some(t) = get(v, "tools") {
            out.push(t);
        }
    }
    out
}

fn lines_of(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(str::to_owned).collect()
}

/// In every `tools:` list of `text` (roles.yaml or a skill) naming one of `removed`: the
/// first of them becomes `into` (or is dropped when the list already names `into`, or when
/// `into` is `None`), the others are dropped. Returns the new text and how many lists changed.
pub fn replace_in_tool_lists(
    text: &str,
    what: &str,
    removed: &[&str],
    into: Option<&str>,
) -> Result<(String, usize), EditError> {
    let root = parse(text, what)?;
    let mut lines = lines_of(text);
    // (line index, edit) applied bottom-up.
    enum Op {
        Delete,
        Replace(String),
    }
    let mut ops: Vec<(usize, Op)> = Vec::new();
    let mut changed = 0;
    for list in tool_lists(&root) {
        let Value::Seq(items) = &list.value else {
            continue;
        };
        let names: Vec<&str> = items.iter().filter_map(Node::as_str).collect();
        let Some(first) = names.iter().position(|n| removed.contains(n)) else {
            continue;
        };
        changed += 1;
        let keep_first = into.filter(|x| !names.contains(x));
        let line_of = |n: &Node| n.span.line.saturating_sub(1) as usize;
        let block = items.iter().all(|n| {
            lines
                .get(line_of(n))
                .is_some_and(|l| l.trim_start().starts_with("- "))
        });
        if block {
            for (i, item) in items.iter().enumerate() {
                let Some(name) = item.as_str() else { continue };
                if !removed.contains(&name) {
                    continue;
                }
                let l = line_of(item);
                match (i == first, keep_first) {
                    (true, Some(x)) => {
                        let line = &lines[l];
                        let new = line.replacen(name, x, 1);
                        ops.push((l, Op::Replace(new)));
                    }
                    _ => ops.push((l, Op::Delete)),
                }
            }
        } else {
            let l = items.first().map(line_of).unwrap_or(0);
            if items.iter().any(|n| line_of(n) != l) {
                return Err(format!(
                    "{what}: a flow list spanning several lines (line {}); write it one item per line first",
                    l + 1
                ));
            }
            let line = lines.get(l).cloned().unwrap_or_default();
            let (Some(open), Some(close)) = (line.find('['), line.rfind(']')) else {
                return Err(format!("{what}:{}: cannot find the list's brackets", l + 1));
            };
            let mut new_names: Vec<&str> = Vec::new();
            for (i, n) in names.iter().enumerate() {
                if !removed.contains(n) {
                    new_names.push(n);
                } else if i == first
                    && let Some(x) = keep_first
                {
                    new_names.push(x);
                }
            }
            let new = format!(
                "{}[{}]{}",
                &line[..open],
                new_names.join(", "),
                &line[close + 1..]
            );
            ops.push((l, Op::Replace(new)));
        }
    }
    ops.sort_by_key(|op| std::cmp::Reverse(op.0));
    for (l, op) in ops {
        match op {
            Op::Delete => {
                lines.remove(l);
            }
            Op::Replace(s) => lines[l] = s,
        }
    }
    Ok((lines.concat(), changed))
}

/// `text` with `block` appended as new top-level entries, after one blank line.
pub fn append_entries(text: &str, block: &str) -> String {
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.trim().is_empty() {
        out.push('\n');
    }
    out.push_str(block);
    out
}

/// Top-level entries named in `names` removed from a mapping file (aliases.yaml): the key
/// line, its indented body and the comment lines directly above it.
pub fn remove_entries(text: &str, what: &str, names: &[&str]) -> Result<String, EditError> {
    let root = parse(text, what)?;
    let lines = lines_of(text);
    let mut drop = vec![false; lines.len()];
    for (k, _) in entries(&root) {
        let Some(name) = k.as_str() else { continue };
        if !names.contains(&name) {
            continue;
        }
        let start = k.span.line.saturating_sub(1) as usize;
        let mut end = start + 1;
        while end < lines.len()
            && (lines[end].starts_with([' ', '\t']) || lines[end].trim().is_empty())
        {
            if lines[end].trim().is_empty() {
                break;
            }
            end += 1;
        }
        let mut begin = start;
        while begin > 0 && lines[begin - 1].trim_start().starts_with('#') {
            begin -= 1;
        }
        for d in drop.iter_mut().take(end).skip(begin) {
            *d = true;
        }
    }
    Ok(lines
        .into_iter()
        .zip(drop)
        .filter(|(_, d)| !d)
        .map(|(l, _)| l)
        .collect())
}

/// Insert `block` (already indented lines) at the end of the top-level mapping `key:` of a
/// tool file; `key: {}` becomes a block mapping. Returns the child indentation used.
pub fn insert_under(
    text: &str,
    key: &str,
    block: &dyn Fn(usize) -> String,
) -> Result<String, EditError> {
    let mut lines = lines_of(text);
    let head = format!("{key}:");
    let Some(at) = lines.iter().position(|l| l.starts_with(&head)) else {
        // No such key: add it at the end.
        let mut out = text.to_owned();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&head);
        out.push('\n');
        out.push_str(&block(2));
        return Ok(out);
    };
    let rest = lines[at][head.len()..].trim();
    if rest == "{}" {
        lines[at] = format!("{head}\n");
        lines.insert(at + 1, block(2));
        return Ok(lines.concat());
    }
    if !rest.is_empty() && !rest.starts_with('#') {
        return Err(format!(
            "`{key}:` is written in flow style on one line; write it as a block mapping first"
        ));
    }
    let mut end = at + 1;
    let mut last_body = at;
    let mut indent = None;
    while end < lines.len() {
        let l = &lines[end];
        if l.trim().is_empty() || l.trim_start().starts_with('#') {
            end += 1;
            continue;
        }
        if !l.starts_with(' ') {
            break;
        }
        if indent.is_none() {
            indent = Some(l.len() - l.trim_start().len());
        }
        last_body = end;
        end += 1;
    }
    lines.insert(last_body + 1, block(indent.unwrap_or(2)));
    Ok(lines.concat())
}

/// Add `values` to the field `field` of a tool file that works like a selector: an enum
/// (`values: [a, b]` gains the new values) or a string whose pattern is an alternation of
/// words (`'^(?:a|b)$'` gains `|c`).
pub fn extend_choice_field(text: &str, field: &str, values: &[&str]) -> Result<String, EditError> {
    let root = parse(text, "the tool file")?;
    let def = get(&root, "fields")
        .and_then(|f| get(f, field))
        .ok_or_else(|| format!("no field `{field}`"))?;
    let mut lines = lines_of(text);
    // A node's line index and the byte offset of its column (1-based, in characters).
    let at = |n: &Node| -> Option<(usize, usize)> {
        let l = n.span.line.checked_sub(1)? as usize;
        let line = lines.get(l)?;
        let col = n.span.col.saturating_sub(1) as usize;
        let byte = line.char_indices().nth(col).map_or(line.len(), |(b, _)| b);
        Some((l, byte))
    };
    if let Some(list) = get(def, "values") {
        let items = match &list.value {
            Value::Seq(items) => items.as_slice(),
            _ => &[],
        };
        let one_line = items.iter().all(|n| n.span.line == list.span.line);
        // A block list (`- a` per line): new items after the last, indented alike.
        if let Some(last) = items.last().filter(|_| !one_line)
            && let Some((l, _)) = at(last)
            && let Some(dash) = lines[l]
                .trim_start()
                .starts_with("- ")
                .then(|| lines[l].len() - lines[l].trim_start().len())
        {
            let pad = &lines[l][..dash];
            let added: String = values
                .iter()
                .map(|v| format!("{pad}- {}\n", super::render::scalar(v)))
                .collect();
            if !lines[l].ends_with('\n') {
                lines[l].push('\n');
            }
            lines.insert(l + 1, added);
            return Ok(lines.concat());
        }
        let place = at(list).filter(|_| one_line).and_then(|(l, from)| {
            let open = from + lines[l][from..].find('[')?;
            let close = flow_close(&lines[l], open)?;
            Some((l, open, close))
        });
        let Some((l, open, close)) = place else {
            return Err(format!(
                "the values of `{field}` are not a one-line flow list (`values: [a, b]`)"
            ));
        };
        let line = &lines[l];
        let inner = line[open + 1..close].trim_end();
        let sep = if inner.trim().is_empty() { "" } else { ", " };
        let added: Vec<String> = values.iter().map(|v| super::render::scalar(v)).collect();
        lines[l] = format!(
            "{}{inner}{sep}{}{}",
            &line[..open + 1],
            added.join(", "),
            &line[close..]
        );
        return Ok(lines.concat());
    }
    if let Some(pattern) = get(def, "pattern") {
        let raw = pattern.as_str().unwrap_or_default();
        let place = at(pattern)
            .filter(|_| raw.starts_with("^(?:") && raw.ends_with(")$"))
            .and_then(|(l, from)| Some((l, from + lines[l][from..].find(")$")?)));
        let Some((l, close_at)) = place else {
            return Err(format!(
                "the pattern of `{field}` is not a one-line alternation `^(?:a|b)$`: {raw}"
            ));
        };
        let added: String = values.iter().map(|v| format!("|{v}")).collect();
        let line = &lines[l];
        lines[l] = format!("{}{added}{}", &line[..close_at], &line[close_at..]);
        return Ok(lines.concat());
    }
    Err(format!(
        "field `{field}` is neither an enum nor a string with an alternation pattern"
    ))
}

/// The `]` closing the flow list opened at byte `open` of `line` (quotes and nesting
/// respected).
fn flow_close(line: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line[open..].char_indices() {
        match quote {
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(open + i);
                    }
                }
                _ => {}
            },
        }
    }
    None
}

/// Every `tool("from")` (either quote style) in `text` pointed at `to`, then repeated
/// references to `to` in one list collapsed (`{{ tool("to") }}, {{ tool("to") }} or …` →
/// one). Returns the new text and the 1-based lines changed.
pub fn rewrite_tool_refs(text: &str, from: &str, to: &str) -> (String, Vec<usize>) {
    rewrite_tool_refs_to_call(text, from, &format!("tool(\"{to}\")"))
}

/// [`rewrite_tool_refs`] with any template call as the replacement (`shell_tool()`).
pub fn rewrite_tool_refs_to_call(text: &str, from: &str, call: &str) -> (String, Vec<usize>) {
    let Ok(re) = regex::Regex::new(&format!(
        r#"tool\(\s*(?:"{f}"|'{f}')\s*\)"#,
        f = regex::escape(from)
    )) else {
        return (text.to_owned(), Vec::new());
    };
    let mut changed = Vec::new();
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if re.is_match(line) {
            changed.push(i + 1);
            let new = re.replace_all(line, regex::NoExpand(call));
            out.push_str(&collapse_repeats(&new, call));
        } else {
            out.push_str(line);
        }
    }
    (out, changed)
}

fn collapse_repeats(line: &str, call: &str) -> String {
    let tag = format!(r"\{{\{{\s*{}\s*\}}\}}", regex::escape(call));
    let Ok(re) = regex::Regex::new(&format!(
        r"({tag})(?:(?:,\s*|,?\s+or\s+|,?\s+and\s+){tag})+"
    )) else {
        return line.to_owned();
    };
    re.replace_all(line, "$1").into_owned()
}

/// Whether `text` still names `name` as a tool reference.
pub fn mentions_tool(text: &str, name: &str) -> bool {
    text.contains(&format!("tool(\"{name}\")")) || text.contains(&format!("tool('{name}')"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn block_list_keeps_comments_and_position() {
        let text = "# top\nside:\n  tools:\n    - shell\n    - shell_poll   # poll\n    - read_file\n    - shell_wait\n  token_budget: 5\nother:\n  tools: [a, shell_wait, b]\n";
        let (out, n) = replace_in_tool_lists(
            text,
            "roles.yaml",
            &["shell_poll", "shell_wait"],
            Some("shell_session"),
        )
        .unwrap();
        assert_eq!(n, 2);
        assert_eq!(
            out,
            "# top\nside:\n  tools:\n    - shell\n    - shell_session   # poll\n    - read_file\n  token_budget: 5\nother:\n  tools: [a, shell_session, b]\n"
        );
    }

    #[test]
    fn list_already_naming_the_target_just_loses_the_old_names() {
        let text = "r:\n  tools: [read_file, ssh_read_file]\n";
        let (out, _) =
            replace_in_tool_lists(text, "roles.yaml", &["ssh_read_file"], Some("read_file"))
                .unwrap();
        assert_eq!(out, "r:\n  tools: [read_file]\n");
    }

    #[test]
    fn references_are_rewritten_and_collapsed() {
        let text =
            "d: |\n  follow it with {{ tool(\"a\") }}, {{ tool(\"b\") }} or {{ tool('c') }}.\n";
        let (t, _) = rewrite_tool_refs(text, "a", "x");
        let (t, _) = rewrite_tool_refs(&t, "b", "x");
        let (t, lines) = rewrite_tool_refs(&t, "c", "x");
        assert_eq!(t, "d: |\n  follow it with {{ tool(\"x\") }}.\n");
        assert_eq!(lines, [2]);
    }

    #[test]
    fn choice_fields_grow() {
        let text = "fields:\n  target:\n    type: string\n    pattern: '^(?:tools|hosts)$'\n    description: x\n";
        let out = extend_choice_field(text, "target", &["llm", "models"]).unwrap();
        assert!(
            out.contains("pattern: '^(?:tools|hosts|llm|models)$'"),
            "{out}"
        );
        let text = "fields:\n  mode:\n    type: enum\n    values: [a, b]  # c\n";
        let out = extend_choice_field(text, "mode", &["c"]).unwrap();
        assert_eq!(
            out,
            "fields:\n  mode:\n    type: enum\n    values: [a, b, c]  # c\n"
        );
        // On one line in a flow mapping, quotes and nesting respected.
        let text = "fields:\n  view: { type: enum, values: [open, \"a]b\", 'it''s'], description: \"Which [x]\" }\n";
        let out = extend_choice_field(text, "view", &["all"]).unwrap();
        assert_eq!(
            out,
            "fields:\n  view: { type: enum, values: [open, \"a]b\", 'it''s', all], description: \"Which [x]\" }\n"
        );
        let text = "fields:\n  t: { type: string, pattern: '^(?:a|b)$', description: \"x)$\" }\n";
        let out = extend_choice_field(text, "t", &["c"]).unwrap();
        assert_eq!(
            out,
            "fields:\n  t: { type: string, pattern: '^(?:a|b|c)$', description: \"x)$\" }\n"
        );
        let text = "fields:\n  mode:\n    type: enum\n    values:\n      - a   # first\n      - \"b c\"\n    description: x\n";
        let out = extend_choice_field(text, "mode", &["c", "on"]).unwrap();
        assert_eq!(
            out,
            "fields:\n  mode:\n    type: enum\n    values:\n      - a   # first\n      - \"b c\"\n      - c\n      - \"on\"\n    description: x\n"
        );
    }

    #[test]
    fn insert_under_a_block_and_an_empty_mapping() {
        let text = "name: t\nfields:\n  a:\n    type: boolean\n    description: x\nrequired: [a]\n";
        let out = insert_under(text, "fields", &|i| format!("{}b: 1\n", " ".repeat(i))).unwrap();
        assert_eq!(
            out,
            "name: t\nfields:\n  a:\n    type: boolean\n    description: x\n  b: 1\nrequired: [a]\n"
        );
        let out = insert_under("fields: {}\nx: 1\n", "fields", &|i| {
            format!("{}b: 1\n", " ".repeat(i))
        })
        .unwrap();
        assert_eq!(out, "fields:\n  b: 1\nx: 1\n");
    }

    #[test]
    fn entries_are_removed_with_their_comment() {
        let text =
            "# keep\nls:\n  tool: list_dir\n# glob\nglob:\n  tool: glob_files\nx:\n  tool: y\n";
        let out = remove_entries(text, "aliases.yaml", &["glob"]).unwrap();
        assert_eq!(out, "# keep\nls:\n  tool: list_dir\nx:\n  tool: y\n");
    }
}
