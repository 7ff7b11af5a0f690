//! One Update's hunks applied to a file's text, in two phases: locate every hunk (in order,
//! each after the previous one, through four ever looser comparisons; a hunk anchored at the
//! end of the file does not move the search on), then splice in file order. Only
//! the lines a hunk removes or adds change: context lines keep the file's own characters
//! and line ends, added lines take the file's usual line end, and a file that lacked a
//! final newline keeps lacking it.

use super::{Chunk, HunkLine};

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
    let file = split_lines(text);
    let contents: Vec<&str> = file.iter().map(|l| l.text).collect();
    let located = locate_chunks(&contents, chunks)?;
    Ok(splice(&file, &located))
}

/// One line of the file: its text and its line end (`"\r\n"`, `"\n"`, or `""` for a last
/// line without a newline).
struct FileLine<'a> {
    text: &'a str,
    ending: &'a str,
}

fn split_lines(text: &str) -> Vec<FileLine<'_>> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let Some(newline) = rest.find('\n') else {
            lines.push(FileLine {
                text: rest,
                ending: "",
            });
            break;
        };
        let (line, after) = rest.split_at(newline + 1);
        let end = if line.ends_with("\r\n") { 2 } else { 1 };
        let (text, ending) = line.split_at(line.len() - end);
        lines.push(FileLine { text, ending });
        rest = after;
    }
    lines
}

/// The line end most of the file's lines have (LF on a tie or an empty file).
fn usual_ending(file: &[FileLine<'_>]) -> &'static str {
    let crlf = file.iter().filter(|l| l.ending == "\r\n").count();
    let lf = file.iter().filter(|l| l.ending == "\n").count();
    if crlf > lf { "\r\n" } else { "\n" }
}

/// Where one hunk applies: the index of its first old line (or of the insertion point),
/// and the hunk lines to apply there.
struct Located<'c> {
    start: usize,
    lines: &'c [HunkLine],
}

fn old_count(lines: &[HunkLine]) -> usize {
    lines.iter().filter(|l| l.old().is_some()).count()
}

/// Whether a hunk is placed by the end of the file rather than by the search: marked
/// `*** End of File`, or a pure addition without an `@@` line (it goes at the end).
fn anchored_at_end(chunk: &Chunk) -> bool {
    chunk.end_of_file || (chunk.context.is_empty() && chunk.old_lines().is_empty())
}

/// Finds every hunk, each at or after the end of the previous one — except after a hunk
/// anchored at the end of the file ([`anchored_at_end`]), which leaves the search where it
/// was (another CLI applies "append at the end, then change an earlier line" this way). The
/// hunks come back in file order; two that change the same lines are refused (their order
/// would be a guess).
fn locate_chunks<'c>(lines: &[&str], chunks: &'c [Chunk]) -> Result<Vec<Located<'c>>, HunkError> {
    let mut cursor = 0usize;
    let mut located = Vec::with_capacity(chunks.len());
    for (n, chunk) in chunks.iter().enumerate() {
        let hunk = n + 1;
        let before = cursor;
        for context in &chunk.context {
            let Some(idx) = seek(lines, &[context.as_str()], cursor, false) else {
                return Err(HunkError {
                    hunk,
                    message: format!("the context line `@@ {context}` was not found"),
                    wanted: Some(context.clone()),
                });
            };
            cursor = idx + 1;
        }
        let Some(found) = locate_one(lines, chunk, cursor) else {
            let place = if chunk.end_of_file {
                " at the end of the file (the hunk is marked `*** End of File`)"
            } else if hunk > 1 || !chunk.context.is_empty() {
                " after the previous hunk or `@@` line"
            } else {
                ""
            };
            return Err(HunkError {
                hunk,
                message: format!("its old lines (context and '-' lines) were not found{place}"),
                wanted: Some(chunk.old_lines().join("\n")),
            });
        };
        cursor = if anchored_at_end(chunk) {
            before
        } else {
            found.start + old_count(found.lines)
        };
        located.push((hunk, found));
    }
    in_file_order(located)
}

/// The located hunks sorted by position (stable: hunks at one place keep the patch's
/// order), or the error naming two hunks whose old lines overlap.
fn in_file_order(mut located: Vec<(usize, Located<'_>)>) -> Result<Vec<Located<'_>>, HunkError> {
    located.sort_by_key(|(_, found)| found.start);
    for pair in located.windows(2) {
        let ((first, a), (second, b)) = (&pair[0], &pair[1]);
        let a_end = a.start + old_count(a.lines);
        if b.start < a_end {
            let (hunk, other) = if first > second {
                (*first, *second)
            } else {
                (*second, *first)
            };
            return Err(HunkError {
                hunk,
                message: format!(
                    "it changes lines that hunk {other} changes too (lines {}-{}); which goes \
                     first is ambiguous: merge the two hunks into one",
                    b.start + 1,
                    a_end
                ),
                wanted: None,
            });
        }
    }
    Ok(located.into_iter().map(|(_, found)| found).collect())
}

/// Where one hunk applies, given the cursor after the previous hunk and its `@@` lines.
/// A hunk that only adds lines goes right below its `@@` line, or at the end of the file
/// when it has none or is marked `*** End of File`: an empty pattern never matches at an
/// arbitrary place.
fn locate_one<'c>(lines: &[&str], chunk: &'c Chunk, cursor: usize) -> Option<Located<'c>> {
    let mut hunk_lines: &[HunkLine] = &chunk.lines;
    loop {
        let old: Vec<&str> = hunk_lines.iter().filter_map(HunkLine::old).collect();
        if old.is_empty() {
            let start = if chunk.end_of_file || chunk.context.is_empty() {
                lines.len()
            } else {
                cursor
            };
            return Some(Located {
                start,
                lines: hunk_lines,
            });
        }
        if let Some(start) = seek(lines, &old, cursor, chunk.end_of_file) {
            return Some(Located {
                start,
                lines: hunk_lines,
            });
        }
        // A hunk ending in an empty ` ` context line the file does not have there (models
        // write one for the end of the file): retry without it.
        match hunk_lines.split_last() {
            Some((HunkLine::Context(last), rest)) if last.trim().is_empty() => hunk_lines = rest,
            _ => return None,
        }
    }
}

/// The ways two lines may be equal, strictest first; every candidate position is tried
/// with one before the next is used.
const MATCH_PASSES: [fn(&str, &str) -> bool; 4] = [
    |a, b| a == b,
    |a, b| a.trim_end() == b.trim_end(),
    |a, b| a.trim() == b.trim(),
    |a, b| {
        a.trim()
            .chars()
            .map(plain_typography)
            .eq(b.trim().chars().map(plain_typography))
    },
];

/// Typographic characters models and editors swap for ASCII ones, mapped to those (for
/// matching only; nothing is written through this).
fn plain_typography(c: char) -> char {
    match c {
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// Finds `pattern` in `lines` at or after `start` (at the very end only, with `at_end`).
fn seek(lines: &[&str], pattern: &[&str], start: usize, at_end: bool) -> Option<usize> {
    if pattern.is_empty() || pattern.len() > lines.len() {
        return None;
    }
    let last = lines.len() - pattern.len();
    let first = if at_end { last.max(start) } else { start };
    for eq in MATCH_PASSES {
        for s in first..=last {
            if pattern.iter().zip(&lines[s..]).all(|(p, l)| eq(l, p)) {
                return Some(s);
            }
        }
    }
    None
}

/// The file with every located hunk applied.
fn splice(file: &[FileLine<'_>], located: &[Located<'_>]) -> String {
    let ending = usual_ending(file);
    let mut out: Vec<(&str, &str)> = Vec::with_capacity(file.len());
    let mut next = 0usize;
    for found in located {
        out.extend(file[next..found.start].iter().map(|l| (l.text, l.ending)));
        let mut at = found.start;
        for line in found.lines {
            match line {
                HunkLine::Context(_) => {
                    out.push((file[at].text, file[at].ending));
                    at += 1;
                }
                HunkLine::Remove(_) => at += 1,
                HunkLine::Add(text) => out.push((text, ending)),
            }
        }
        next = at;
    }
    out.extend(file[next..].iter().map(|l| (l.text, l.ending)));
    let ended_with_newline = file.last().is_none_or(|l| !l.ending.is_empty());
    let mut result = String::with_capacity(out.iter().map(|(t, e)| t.len() + e.len()).sum());
    let count = out.len();
    for (k, (text, own_ending)) in out.into_iter().enumerate() {
        result.push_str(text);
        if k + 1 == count && !ended_with_newline {
            break;
        }
        result.push_str(if own_ending.is_empty() {
            ending
        } else {
            own_ending
        });
    }
    result
}
