//! Patch text → [`Patch`]. Strict about structure (every hunk has lines, a chunk ends at
//! its `*** End of File`), lenient where models are known to be sloppy without being
//! ambiguous: a heredoc wrapper around the whole patch, headers padded with whitespace
//! where a header is expected, CRLF line ends, blank lines between operations and hunks.
//! Errors name the 1-based line of the patch they are about.

use super::{Chunk, HunkLine, Patch, PatchOp};

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const DEVICE: &str = "*** Device: ";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const EOF_MARK: &str = "*** End of File";
/// The only heredoc openers taken (with `EOF` alone on the last line).
const HEREDOC_OPENERS: [&str; 3] = ["<<EOF", "<<'EOF'", "<<\"EOF\""];

/// Parses a patch; errors name the line (1-based) they are about.
pub(crate) fn parse_patch(text: &str) -> Result<Patch, String> {
    let (body, first_number) = frame(text)?;
    PatchParser {
        body: &body,
        first_number,
        i: 0,
    }
    .patch()
}

/// The lines between `*** Begin Patch` and `*** End Patch` (each without its `\r`), and the
/// 1-based patch line number of the first of them. Surrounding blank lines and a heredoc
/// wrapper are taken off first.
fn frame(text: &str) -> Result<(Vec<&str>, usize), String> {
    let all: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let begin_missing = || format!("the patch must start with `{BEGIN}`");
    let (mut lo, mut hi) = non_blank_span(&all, 0, all.len()).ok_or_else(begin_missing)?;
    let opener = all[lo].trim();
    if opener.starts_with("<<") {
        if !HEREDOC_OPENERS.contains(&opener) || hi == lo || all[hi].trim() != "EOF" {
            return Err(format!(
                "line {}: a heredoc around the patch must be exactly `<<EOF`, `<<'EOF'` or \
                 `<<\"EOF\"` on the first line and `EOF` on the last (or send the patch alone, \
                 from `{BEGIN}` to `{END}`)",
                lo + 1
            ));
        }
        (lo, hi) = non_blank_span(&all, lo + 1, hi).ok_or_else(begin_missing)?;
    }
    if all[lo].trim() != BEGIN {
        return Err(begin_missing());
    }
    if hi == lo || all[hi].trim() != END {
        return Err(format!("the patch must end with `{END}`"));
    }
    Ok((all[lo + 1..hi].to_vec(), lo + 2))
}

/// The first and last non-blank line of `lines[from..to]`.
fn non_blank_span(lines: &[&str], from: usize, to: usize) -> Option<(usize, usize)> {
    let blank = |i: &usize| lines[*i].trim().is_empty();
    let lo = (from..to).find(|i| !blank(i))?;
    let hi = (from..to).rev().find(|i| !blank(i))?;
    Some((lo, hi))
}

/// A cursor over the patch body.
struct PatchParser<'a> {
    body: &'a [&'a str],
    /// The patch line number of `body[0]`.
    first_number: usize,
    i: usize,
}

impl PatchParser<'_> {
    fn number(&self, i: usize) -> usize {
        self.first_number + i
    }

    fn skip_blank_lines(&mut self) {
        while self.body.get(self.i).is_some_and(|l| l.trim().is_empty()) {
            self.i += 1;
        }
    }

    fn patch(mut self) -> Result<Patch, String> {
        self.skip_blank_lines();
        let mut device = None;
        let device_line = self.body.get(self.i).map(|l| l.trim());
        if let Some(rest) = device_line.and_then(|l| l.strip_prefix(DEVICE.trim_end())) {
            if rest.trim().is_empty() {
                return Err(format!(
                    "line {}: the `*** Device:` line names no device",
                    self.number(self.i)
                ));
            }
            device = Some(rest.trim().to_string());
            self.i += 1;
        }
        let mut ops = Vec::new();
        while let Some(&line) = self.body.get(self.i) {
            // A header is expected here, so padding around it is not meaningful.
            let header = line.trim();
            let at = self.number(self.i);
            if header.is_empty() {
                self.i += 1;
            } else if let Some(path) = header.strip_prefix(ADD) {
                ops.push(self.add_file(path)?);
            } else if let Some(path) = header.strip_prefix(DELETE) {
                ops.push(PatchOp::Delete {
                    path: header_path(path, at)?,
                });
                self.i += 1;
            } else if let Some(path) = header.strip_prefix(UPDATE) {
                ops.push(self.update_file(path)?);
            } else if header.starts_with(DEVICE.trim_end()) {
                return Err(format!(
                    "line {at}: `*** Device:` must come right after `{BEGIN}`"
                ));
            } else if header.starts_with(MOVE.trim_end()) {
                return Err(format!(
                    "line {at}: `*** Move to:` must come right after its `*** Update File:` line"
                ));
            } else if header == END {
                return Err(format!(
                    "line {at}: `{END}` must be the last line (send one patch per call)"
                ));
            } else {
                return Err(format!(
                    "line {at}: expected `*** Add File:`, `*** Update File:` or `*** Delete File:`, got {line:?}"
                ));
            }
        }
        if ops.is_empty() {
            return Err("the patch changes no file".to_string());
        }
        Ok(Patch { device, ops })
    }

    /// `*** Add File:` and its `+` lines; blank lines after them separate, they are not
    /// part of the file.
    fn add_file(&mut self, raw_path: &str) -> Result<PatchOp, String> {
        let path = header_path(raw_path, self.number(self.i))?;
        self.i += 1;
        let mut content = String::new();
        while let Some(&line) = self.body.get(self.i) {
            if let Some(added) = line.strip_prefix('+') {
                content.push_str(added);
                content.push('\n');
                self.i += 1;
                continue;
            }
            if line.trim().is_empty() {
                let next = self.body[self.i..].iter().find(|l| !l.trim().is_empty());
                if next.is_none_or(|l| l.trim_start().starts_with("***")) {
                    break;
                }
                return Err(format!(
                    "line {}: in Add File {path}, an empty line is written as a lone '+' \
                     (every line of a new file starts with '+')",
                    self.number(self.i)
                ));
            }
            if line.trim_start().starts_with("***") {
                break;
            }
            return Err(format!(
                "line {}: in Add File {path}, every line must start with '+', got {line:?}",
                self.number(self.i)
            ));
        }
        Ok(PatchOp::Add { path, content })
    }

    /// `*** Update File:`, its optional `*** Move to:` and its hunks.
    fn update_file(&mut self, raw_path: &str) -> Result<PatchOp, String> {
        let header_number = self.number(self.i);
        let path = header_path(raw_path, header_number)?;
        self.i += 1;
        let mut move_to = None;
        if let Some(dest) = self
            .body
            .get(self.i)
            .and_then(|l| l.trim().strip_prefix(MOVE))
        {
            move_to = Some(header_path(dest, self.number(self.i))?);
            self.i += 1;
        }
        let chunks = self.chunks(&path)?;
        if chunks.is_empty() && move_to.is_none() {
            return Err(format!(
                "line {header_number}: Update File {path} has no hunks"
            ));
        }
        Ok(PatchOp::Update {
            path,
            move_to,
            chunks,
        })
    }

    /// The hunks of one Update, up to the next header. Inside a hunk a leading space makes
    /// a context line, so only an unpadded `***` line ends it (or one that cannot be a hunk
    /// line at all).
    fn chunks(&mut self, path: &str) -> Result<Vec<Chunk>, String> {
        let mut chunks = Vec::new();
        let mut open: Option<OpenChunk> = None;
        // The previous hunk ended at `*** End of File`: the next one needs its `@@`.
        let mut after_end_of_file = false;
        while let Some(&line) = self.body.get(self.i) {
            let at = self.number(self.i);
            if line.starts_with("***") {
                if line.trim_end() != EOF_MARK {
                    break;
                }
                let Some(chunk) = open.take() else {
                    return Err(format!(
                        "line {at}: in Update File {path}, `{EOF_MARK}` ends a hunk, but no \
                         hunk precedes it"
                    ));
                };
                let mut chunk = chunk.finish(path)?;
                chunk.end_of_file = true;
                chunks.push(chunk);
                after_end_of_file = true;
            } else if line == "@@" || line.starts_with("@@ ") {
                let context = line[2..].trim();
                let chunk = match open.take() {
                    // `@@ class A` then `@@ fn f`: one hunk, found below both.
                    Some(mut c) if c.chunk.lines.is_empty() => {
                        c.pending_blank_lines = 0;
                        open.insert(c)
                    }
                    previous => {
                        if let Some(c) = previous {
                            chunks.push(c.finish(path)?);
                        }
                        open.insert(OpenChunk::new(at))
                    }
                };
                if !context.is_empty() {
                    chunk.chunk.context.push(context.to_string());
                }
                after_end_of_file = false;
            } else if line.trim().is_empty() && !line.starts_with(' ') {
                if let Some(c) = &mut open {
                    c.pending_blank_lines += 1;
                }
            } else {
                let hunk_line = if let Some(s) = line.strip_prefix(' ') {
                    HunkLine::Context(s.to_string())
                } else if let Some(s) = line.strip_prefix('-') {
                    HunkLine::Remove(s.to_string())
                } else if let Some(s) = line.strip_prefix('+') {
                    HunkLine::Add(s.to_string())
                } else if line.trim_start().starts_with("***") {
                    break; // a padded header: no hunk line starts like this
                } else {
                    return Err(format!(
                        "line {at}: in Update File {path}, expected a line starting with ' ', \
                         '+', '-' or '@@', got {line:?}"
                    ));
                };
                if open.is_none() && after_end_of_file {
                    return Err(format!(
                        "line {at}: in Update File {path}, a hunk after `{EOF_MARK}` starts \
                         with its own `@@` line"
                    ));
                }
                open.get_or_insert_with(|| OpenChunk::new(at))
                    .push(hunk_line);
            }
            self.i += 1;
        }
        if let Some(c) = open {
            chunks.push(c.finish(path)?);
        }
        Ok(chunks)
    }
}

/// A hunk being read: empty lines are held back until a hunk line follows them, so that
/// blank lines ending a hunk separate it from what comes next instead of becoming context
/// that could match any blank line of the file.
struct OpenChunk {
    chunk: Chunk,
    /// The patch line where the hunk starts (its first `@@`, or its first line).
    first_number: usize,
    pending_blank_lines: usize,
}

impl OpenChunk {
    fn new(first_number: usize) -> OpenChunk {
        OpenChunk {
            chunk: Chunk::default(),
            first_number,
            pending_blank_lines: 0,
        }
    }

    fn push(&mut self, line: HunkLine) {
        for _ in 0..std::mem::take(&mut self.pending_blank_lines) {
            self.chunk.lines.push(HunkLine::Context(String::new()));
        }
        self.chunk.lines.push(line);
    }

    /// The hunk, or an error if it has no lines (it would change nothing, or match
    /// anywhere).
    fn finish(self, path: &str) -> Result<Chunk, String> {
        if self.chunk.lines.is_empty() {
            return Err(format!(
                "line {}: in Update File {path}, the hunk has no lines (give the ' ' context, \
                 '-' and '+' lines it changes)",
                self.first_number
            ));
        }
        Ok(self.chunk)
    }
}

fn header_path(raw: &str, line: usize) -> Result<String, String> {
    let p = raw.trim();
    if p.is_empty() {
        return Err(format!("line {line}: the file path is empty"));
    }
    Ok(p.to_string())
}
