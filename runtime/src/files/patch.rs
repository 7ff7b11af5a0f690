//! The `*** Begin Patch` format: parsing (including the optional `*** Device:` line) and
//! applying one file's hunks to its text. Reading and writing is the precondition
//! module's job.

/// One file operation of a patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PatchOp {
    Add {
        path: String,
        content: String,
    },
    Delete {
        path: String,
    },
    Update {
        path: String,
        move_to: Option<String>,
        chunks: Vec<Chunk>,
    },
}

/// One `@@` hunk of an Update.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The text after `@@`, if any: a line to find before the hunk.
    pub context: Option<String>,
    pub old: Vec<String>,
    pub new: Vec<String>,
    /// `*** End of File`: the hunk sits at the end of the file.
    pub end_of_file: bool,
}

/// A parsed patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Patch {
    pub device: Option<String>,
    pub ops: Vec<PatchOp>,
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const DEVICE: &str = "*** Device: ";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const EOF_MARK: &str = "*** End of File";

fn is_header(line: &str) -> bool {
    line.starts_with(ADD)
        || line.starts_with(DELETE)
        || line.starts_with(UPDATE)
        || line.trim() == END
}

/// Parses a patch; errors name the line (1-based) they are about.
pub(crate) fn parse_patch(text: &str) -> Result<Patch, String> {
    let lines: Vec<&str> = text
        .trim()
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    if lines.first().map(|l| l.trim()) != Some(BEGIN) {
        return Err(format!("the patch must start with `{BEGIN}`"));
    }
    if lines.last().map(|l| l.trim()) != Some(END) || lines.len() < 2 {
        return Err(format!("the patch must end with `{END}`"));
    }
    let body = &lines[1..lines.len() - 1];
    let mut i = 0;
    let mut device = None;
    if let Some(rest) = body.first().and_then(|l| l.strip_prefix(DEVICE)) {
        device = Some(rest.trim().to_string());
        i = 1;
    }
    let mut ops = Vec::new();
    let at = |i: usize| i + 2; // 1-based line number in the patch
    while i < body.len() {
        let line = body[i];
        if let Some(path) = line.strip_prefix(ADD) {
            let path = header_path(path, at(i))?;
            i += 1;
            let mut content = String::new();
            while i < body.len() && !is_header(body[i]) {
                let Some(added) = body[i].strip_prefix('+') else {
                    return Err(format!(
                        "line {}: in Add File {path}, every line must start with '+', got {:?}",
                        at(i),
                        body[i]
                    ));
                };
                content.push_str(added);
                content.push('\n');
                i += 1;
            }
            ops.push(PatchOp::Add { path, content });
        } else if let Some(path) = line.strip_prefix(DELETE) {
            ops.push(PatchOp::Delete {
                path: header_path(path, at(i))?,
            });
            i += 1;
        } else if let Some(path) = line.strip_prefix(UPDATE) {
            let path = header_path(path, at(i))?;
            i += 1;
            let mut move_to = None;
            if let Some(dest) = body.get(i).and_then(|l| l.strip_prefix(MOVE)) {
                move_to = Some(header_path(dest, at(i))?);
                i += 1;
            }
            let mut chunks: Vec<Chunk> = Vec::new();
            let mut current: Option<Chunk> = None;
            while i < body.len() && !is_header(body[i]) {
                let l = body[i];
                if l == "@@" || l.starts_with("@@ ") {
                    if let Some(c) = current.take() {
                        chunks.push(c);
                    }
                    let ctx = l.strip_prefix("@@").map(str::trim).unwrap_or("");
                    current = Some(Chunk {
                        context: (!ctx.is_empty()).then(|| ctx.to_string()),
                        ..Chunk::default()
                    });
                } else if l.trim() == EOF_MARK {
                    current.get_or_insert_with(Chunk::default).end_of_file = true;
                } else {
                    let chunk = current.get_or_insert_with(Chunk::default);
                    if let Some(s) = l.strip_prefix(' ') {
                        chunk.old.push(s.to_string());
                        chunk.new.push(s.to_string());
                    } else if let Some(s) = l.strip_prefix('-') {
                        chunk.old.push(s.to_string());
                    } else if let Some(s) = l.strip_prefix('+') {
                        chunk.new.push(s.to_string());
                    } else if l.is_empty() {
                        chunk.old.push(String::new());
                        chunk.new.push(String::new());
                    } else {
                        return Err(format!(
                            "line {}: in Update File {path}, expected a line starting with ' ', \
                             '+', '-' or '@@', got {l:?}",
                            at(i)
                        ));
                    }
                }
                i += 1;
            }
            if let Some(c) = current.take() {
                chunks.push(c);
            }
            if chunks.is_empty() && move_to.is_none() {
                return Err(format!("Update File {path} has no hunks"));
            }
            ops.push(PatchOp::Update {
                path,
                move_to,
                chunks,
            });
        } else if line.starts_with(DEVICE.trim_end()) {
            return Err(format!(
                "line {}: `*** Device:` must come right after `{BEGIN}`",
                at(i)
            ));
        } else if line.trim().is_empty() {
            i += 1;
        } else {
            return Err(format!(
                "line {}: expected `*** Add File:`, `*** Update File:` or `*** Delete File:`, got {line:?}",
                at(i)
            ));
        }
    }
    if ops.is_empty() {
        return Err("the patch changes no file".to_string());
    }
    Ok(Patch { device, ops })
}

fn header_path(raw: &str, line: usize) -> Result<String, String> {
    let p = raw.trim();
    if p.is_empty() {
        return Err(format!("line {line}: the file path is empty"));
    }
    Ok(p.to_string())
}

/// Finds `pattern` in `lines` at or after `start`: exact, then ignoring trailing
/// whitespace, then ignoring surrounding whitespace.
fn seek(lines: &[&str], pattern: &[String], start: usize, at_end: bool) -> Option<usize> {
    if pattern.is_empty() {
        return Some(start);
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let last = lines.len() - pattern.len();
    let candidates: Vec<usize> = if at_end {
        std::iter::once(last)
            .chain(start..=last)
            .filter(|s| *s >= start)
            .collect()
    } else {
        (start..=last).collect()
    };
    let comparisons: [fn(&str, &str) -> bool; 3] = [
        |a, b| a == b,
        |a, b| a.trim_end() == b.trim_end(),
        |a, b| a.trim() == b.trim(),
    ];
    for eq in comparisons {
        for &s in &candidates {
            if pattern.iter().enumerate().all(|(k, p)| eq(lines[s + k], p)) {
                return Some(s);
            }
        }
    }
    None
}

/// A hunk that did not apply.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct HunkError {
    pub hunk: usize,
    pub message: String,
    /// The lines that were looked for (for the nearest-fragment hint).
    pub wanted: Option<String>,
}

/// Applies an Update's hunks to a file's text.
pub(crate) fn apply_chunks(text: &str, chunks: &[Chunk]) -> Result<String, HunkError> {
    let had_newline = text.ends_with('\n') || text.is_empty();
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let mut cursor = 0usize;
    let mut replacements: Vec<(usize, usize, &[String])> = Vec::new();
    for (n, chunk) in chunks.iter().enumerate() {
        let hunk = n + 1;
        if let Some(ctx) = &chunk.context {
            let pattern = [ctx.clone()];
            match seek(&lines, &pattern, cursor, false) {
                Some(idx) => cursor = idx + 1,
                None => {
                    return Err(HunkError {
                        hunk,
                        message: format!("the context line `@@ {ctx}` was not found"),
                        wanted: Some(ctx.clone()),
                    });
                }
            }
        }
        if chunk.old.is_empty() {
            replacements.push((lines.len(), 0, &chunk.new));
            continue;
        }
        let mut old: &[String] = &chunk.old;
        let mut new: &[String] = &chunk.new;
        let mut found = seek(&lines, old, cursor, chunk.end_of_file);
        if found.is_none() && old.last().is_some_and(|l| l.is_empty()) {
            old = &old[..old.len() - 1];
            if new.last().is_some_and(|l| l.is_empty()) {
                new = &new[..new.len() - 1];
            }
            found = seek(&lines, old, cursor, chunk.end_of_file);
        }
        let Some(idx) = found else {
            return Err(HunkError {
                hunk,
                message: "its old lines (context and '-' lines) were not found".to_string(),
                wanted: Some(chunk.old.join("\n")),
            });
        };
        replacements.push((idx, old.len(), new));
        cursor = idx + old.len();
    }
    let mut out: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    replacements.sort_by_key(|r| r.0);
    for (idx, len, new) in replacements.into_iter().rev() {
        out.splice(idx..idx + len, new.iter().cloned());
    }
    let mut result = out.join("\n");
    if had_newline && !out.is_empty() {
        result.push('\n');
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_operations_and_the_device_line() {
        let p = parse_patch(
            "*** Begin Patch\n*** Device: nas\n*** Add File: a.txt\n+hi\n*** Update File: b.txt\n\
             *** Move to: c.txt\n@@ fn main\n-x\n+y\n*** Delete File: d.txt\n*** End Patch\n",
        );
        let p = p.as_ref().map_err(String::as_str);
        assert!(matches!(p, Ok(Patch { device: Some(d), ops }) if d == "nas" && ops.len() == 3));
    }

    #[test]
    fn applies_hunks_in_order() {
        let chunks = vec![Chunk {
            context: None,
            old: vec!["b".into()],
            new: vec!["B".into(), "b2".into()],
            end_of_file: false,
        }];
        assert_eq!(
            apply_chunks("a\nb\nc\n", &chunks),
            Ok("a\nB\nb2\nc\n".into())
        );
    }
}
