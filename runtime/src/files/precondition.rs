//! The one set of file rules, identical for local and remote files: what was read in a
//! conversation, when a write may replace a file, what an edit's match must look like, and
//! how every refusal is explained. Backends only read, compare-and-swap and stage.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

use serde_json::json;

use super::backend::{Change, Commit, Expect, FileBackend, Probe, Snapshot, Staged, sha256_hex};
use super::patch::{Chunk, PatchOp, apply_chunks};
use super::{ReadFile, WriteFile};
use crate::call::{HandlerResult, ToolError, ToolNames, ToolOutput};

/// Longest line read_file shows in full.
const MAX_LINE_CHARS: usize = 4000;
/// Most text read_file returns in one call.
const MAX_READ_TEXT: usize = 256 * 1024;
/// Longest diff shown in a result, in lines.
const MAX_DIFF_LINES: usize = 80;

fn model(msg: impl Into<String>) -> ToolError {
    ToolError::Model(msg.into())
}

/// What one conversation has read, and the confirm tokens of staged writes.
#[derive(Debug, Default)]
pub(crate) struct Memory {
    /// conversation → file key → sha256 last seen (read or written) by that conversation.
    reads: HashMap<String, HashMap<String, String>>,
    tokens: HashMap<String, Token>,
}

/// A staged local write waiting for its confirm_token.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    conversation: String,
    path: String,
    staged_path: String,
    /// The file's state when it was staged; the token applies only while it still holds.
    expect: Expect,
}

impl Memory {
    pub fn forget_conversation(&mut self, conversation: &str) {
        self.reads.remove(conversation);
        self.tokens.retain(|_, t| t.conversation != conversation);
    }
}

/// Where an operation runs, as the rules need to know it.
pub(crate) struct Scope<'a> {
    pub conversation: &'a str,
    pub memory: &'a Mutex<Memory>,
    /// `None` locally, the device name remotely.
    pub device: Option<&'a str>,
    /// Issues confirm tokens for staged writes (local only: on a device the preconditions
    /// are expected_sha256 / overwrite).
    pub tokens: bool,
    /// The surface's tool names, for texts that point at another tool.
    pub names: &'a ToolNames,
}

impl Scope<'_> {
    fn key(&self, path: &str) -> String {
        match self.device {
            Some(d) => format!("device {d}\0{path}"),
            None => format!("local\0{path}"),
        }
    }
    fn shown(&self, path: &str) -> String {
        match self.device {
            Some(d) => format!("{d}:{path}"),
            None => path.to_string(),
        }
    }
    fn lock(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.memory.lock().unwrap_or_else(|e| e.into_inner())
    }
    fn remembered(&self, path: &str) -> Option<String> {
        let key = self.key(path);
        self.lock()
            .reads
            .get(self.conversation)
            .and_then(|m| m.get(&key))
            .cloned()
    }
    fn remember(&self, path: &str, sha: &str) {
        let key = self.key(path);
        self.lock()
            .reads
            .entry(self.conversation.to_string())
            .or_default()
            .insert(key, sha.to_string());
    }
    fn forget(&self, path: &str) {
        let key = self.key(path);
        if let Some(m) = self.lock().reads.get_mut(self.conversation) {
            m.remove(&key);
        }
    }
    fn issue_token(&self, path: &str, staged_path: &str, expect: Expect) -> Option<String> {
        if !self.tokens {
            return None;
        }
        let token = format!("ct-{}", super::local::random_hex(12));
        self.lock().tokens.insert(
            token.clone(),
            Token {
                conversation: self.conversation.to_string(),
                path: path.to_string(),
                staged_path: staged_path.to_string(),
                expect,
            },
        );
        Some(token)
    }
}

/// Validates an `expected_sha256`: hex, at least 8 digits (a prefix), at most 64. The
/// definition's pattern says the same, so only a request built by hand meets these refusals
/// ([`ToolError::Argument`]); it may also carry a `sha256:` prefix or spaces.
pub(crate) fn parse_expected(
    value: Option<&str>,
    names: &ToolNames,
) -> Result<Option<String>, ToolError> {
    let reader = names.or::<ReadFile>("the read");
    let Some(raw) = value else { return Ok(None) };
    let s = raw.trim().to_ascii_lowercase();
    let s = s.strip_prefix("sha256:").unwrap_or(&s).to_string();
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(ToolError::Argument(format!(
            "expected_sha256 must be hex digits (the sha256 {reader} returned), got {raw:?}"
        )));
    }
    if s.len() < 8 {
        return Err(ToolError::Argument(format!(
            "expected_sha256 {s:?} is only {} hex digits: give at least 8 (a prefix of the \
             sha256 {reader} returned) or the whole sha256",
            s.len()
        )));
    }
    if s.len() > 64 {
        return Err(ToolError::Argument(format!(
            "expected_sha256 has {} hex digits; a sha256 has 64",
            s.len()
        )));
    }
    Ok(Some(s))
}

fn describe_probe(shown: &str, probe: &Probe) -> Option<String> {
    match probe {
        Probe::File(_) => None,
        Probe::Missing => Some(format!("{shown} does not exist")),
        Probe::NotAFile => Some(format!("{shown} is a folder or another non-regular file")),
        Probe::Denied => Some(format!(
            "permission denied reading {shown} (no other privileges are tried)"
        )),
        Probe::TooLarge => Some(format!(
            "{shown} is larger than the read limit; inspect it with a command (head, tail, grep)"
        )),
    }
}

fn text_of<'a>(shown: &str, snap: &'a Snapshot) -> Result<&'a str, ToolError> {
    std::str::from_utf8(&snap.bytes).map_err(|_| {
        model(format!(
            "{shown} is not UTF-8 text ({} bytes, sha256 {}); it can be replaced whole or \
             inspected with a command",
            snap.bytes.len(),
            snap.sha256
        ))
    })
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The window of the text most similar to `wanted` (same number of lines), with its first
/// line number and a similarity in 0..=1.
pub(crate) fn nearest_fragment(text: &str, wanted: &str) -> Option<(usize, String, f64)> {
    let lines: Vec<&str> = text.lines().collect();
    let want: Vec<&str> = wanted.lines().collect();
    if lines.is_empty() || want.is_empty() {
        return None;
    }
    let k = want.len().min(lines.len());
    let clip = |s: &str| -> String { s.trim().chars().take(200).collect() };
    let want_clipped: Vec<String> = want.iter().map(|l| clip(l)).collect();
    // Cheap ranking: per-line bigram similarity (linear in line length).
    let mut scored: Vec<(f64, usize)> = (0..=lines.len() - k)
        .map(|start| {
            let s: f64 = (0..k)
                .map(|j| {
                    let a = clip(lines[start + j]);
                    let b = &want_clipped[j];
                    if a == *b {
                        1.0
                    } else {
                        strsim::sorensen_dice(&a, b)
                    }
                })
                .sum();
            (s, start)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    // Precise ranking of the best few: edit distance over the whole window.
    scored
        .into_iter()
        .take(8)
        .map(|(_, start)| {
            let window = lines[start..start + k].join("\n");
            let sim = if window.len() + wanted.len() > 20_000 {
                strsim::sorensen_dice(&window, wanted)
            } else {
                strsim::normalized_levenshtein(&window, wanted)
            };
            (start + 1, window, sim)
        })
        .max_by(|a, b| a.2.total_cmp(&b.2).then(b.0.cmp(&a.0)))
}

fn nearest_hint(text: &str, wanted: &str) -> String {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut hint = String::new();
    if !wanted.trim().is_empty() && squash(text).contains(&squash(wanted)) {
        hint.push_str(" The text exists with different whitespace or indentation.");
    }
    match nearest_fragment(text, wanted) {
        Some((line, fragment, sim)) => {
            let numbered: Vec<String> = fragment
                .lines()
                .enumerate()
                .map(|(i, l)| format!("{:>6}\t{l}", line + i))
                .collect();
            hint.push_str(&format!(
                " Nearest fragment (line {line}, {:.0}% similar):\n{}",
                sim * 100.0,
                numbered.join("\n")
            ));
        }
        None => hint.push_str(" The file is empty."),
    }
    hint
}

/// A short unified diff (at most `MAX_DIFF_LINES` lines).
pub(crate) fn short_diff(shown: &str, old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let full = diff
        .unified_diff()
        .context_radius(2)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string();
    let lines: Vec<&str> = full.lines().collect();
    if lines.len() <= MAX_DIFF_LINES {
        return full;
    }
    format!(
        "{}\n… ({} more diff lines)\n",
        lines[..MAX_DIFF_LINES].join("\n"),
        lines.len() - MAX_DIFF_LINES
    )
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

// ---------------------------------------------------------------------------------------
// read_file

pub(crate) async fn read_file<B: FileBackend>(
    backend: &B,
    scope: &Scope<'_>,
    path: &str,
    offset: u64,
    limit: u64,
) -> HandlerResult {
    if offset == 0 {
        // Call::parse holds offset to the definition's minimum of 1; only a request built
        // by hand meets this.
        return Err(ToolError::Argument(
            "offset is 1-based: line 1 is the first line".into(),
        ));
    }
    let shown = scope.shown(path);
    let probe = backend.read(path).await.map_err(|e| model(e.0))?;
    let Probe::File(snap) = probe else {
        return Err(model(
            describe_probe(&shown, &probe).unwrap_or_else(|| format!("cannot read {shown}")),
        ));
    };
    scope.remember(path, &snap.sha256);
    let base = json!({
        "path": path,
        "device": scope.device,
        "sha256": snap.sha256,
        "bytes": snap.bytes.len(),
    });
    let text = match std::str::from_utf8(&snap.bytes) {
        Ok(t) if !t.contains('\0') => t,
        _ => {
            let mut structured = base;
            structured["binary"] = json!(true);
            return Ok(ToolOutput {
                text: format!(
                    "{shown}: binary file, {} bytes, sha256 {} (content not shown)",
                    snap.bytes.len(),
                    snap.sha256
                ),
                structured: Some(structured),
            });
        }
    };
    let all: Vec<&str> = text.lines().collect();
    let total = all.len() as u64;
    let start = offset;
    let first = usize::try_from(start - 1)
        .unwrap_or(usize::MAX)
        .min(all.len());
    let last = usize::try_from(start.saturating_add(limit) - 1)
        .unwrap_or(usize::MAX)
        .min(all.len());
    let mut body = String::new();
    let mut content = String::new();
    let mut shown_until = first;
    let mut truncated = last < all.len();
    for (i, line) in all[first..last].iter().enumerate() {
        if body.len() + line.len() > MAX_READ_TEXT {
            truncated = true;
            break;
        }
        let n = first + i + 1;
        if line.chars().count() > MAX_LINE_CHARS {
            let cut = toolsurface_text::cut(line, MAX_LINE_CHARS);
            body.push_str(&format!("{n:>6}\t{cut} [line truncated]\n"));
        } else {
            body.push_str(&format!("{n:>6}\t{line}\n"));
        }
        content.push_str(line);
        content.push('\n');
        shown_until = n;
    }
    let range = if total == 0 {
        "empty file".to_string()
    } else if first >= all.len() {
        format!("{total} lines; offset {start} is past the end")
    } else if first == 0 && !truncated {
        format!("{total} lines")
    } else {
        format!(
            "lines {}-{shown_until} of {total}; continue with offset {}",
            first + 1,
            shown_until + 1
        )
    };
    let mut structured = base;
    structured["total_lines"] = json!(total);
    structured["offset"] = json!(first + 1);
    structured["lines_returned"] = json!(shown_until.saturating_sub(first));
    structured["truncated"] = json!(truncated);
    structured["content"] = json!(content);
    Ok(ToolOutput {
        text: format!("{shown} (sha256 {}, {range})\n{body}", snap.sha256),
        structured: Some(structured),
    })
}

// ---------------------------------------------------------------------------------------
// write_file

/// The write_file fields the rules look at.
pub(crate) struct WriteArgs<'a> {
    pub content: &'a str,
    pub expected: Option<String>,
    pub overwrite: bool,
    pub create_only: bool,
    pub confirm_token: Option<&'a str>,
}

fn staged_output(
    scope: &Scope<'_>,
    path: &str,
    reason: String,
    staged: &[Staged],
    current: Option<&str>,
    token: Option<String>,
) -> ToolOutput {
    let shown = scope.shown(path);
    let place = |p: &str| match scope.device {
        Some(d) => format!("{d}:{p}"),
        None => p.to_string(),
    };
    let staged_paths: Vec<String> = staged.iter().map(|s| place(&s.staged_path)).collect();
    let mut text = format!(
        "Not written: {reason}. {shown} is unchanged; the content is staged at {}.",
        staged_paths.join(", ")
    );
    if let Some(t) = &token {
        let writer = scope.names.or::<WriteFile>("the write");
        text.push_str(&format!(
            " To apply it, call {writer} with path {path:?}, the same content (or \"\") and \
             confirm_token {t:?}; it applies only while {shown} is unchanged."
        ));
    } else if scope.device.is_some()
        && let Some(cur) = current
    {
        text.push_str(&format!(
            " To replace the file, write again with expected_sha256 {cur:?} (the current \
             sha256) or overwrite: true."
        ));
    }
    ToolOutput {
        text,
        structured: Some(json!({
            "status": crate::call::STAGED_STATUS,
            "path": path,
            "device": scope.device,
            "reason": reason,
            "staged_paths": staged_paths,
            "current_sha256": current,
            "confirm_token": token,
        })),
    }
}

pub(crate) async fn write_file<B: FileBackend>(
    backend: &B,
    scope: &Scope<'_>,
    path: &str,
    args: WriteArgs<'_>,
) -> HandlerResult {
    let shown = scope.shown(path);
    if let Some(token) = args.confirm_token {
        return apply_token(backend, scope, path, args.content, token).await;
    }
    let remembered = scope.remembered(path);
    let (expect, implicit) = write_precondition(&args, remembered.as_deref());
    let content = args.content.as_bytes().to_vec();
    let new_sha = sha256_hex(&content);
    let changes = [Change::Write {
        path: path.to_string(),
        content,
        expect: expect.clone(),
    }];
    let outcome = backend
        .commit(&changes, implicit)
        .await
        .map_err(|e| model(e.0))?;
    match outcome {
        Commit::Done { before } => {
            scope.remember(path, &new_sha);
            let old = before.into_iter().next().flatten();
            Ok(written_output(
                scope,
                path,
                args.content.len(),
                old,
                new_sha,
            ))
        }
        Commit::Conflict {
            current, staged, ..
        } if implicit => Ok(implicit_write_conflict_staged(
            scope,
            path,
            remembered.as_deref(),
            current,
            &staged,
        )),
        Commit::Conflict { current, .. } => {
            Err(explicit_write_conflict_error(&shown, &expect, current))
        }
        Commit::Denied { detail, staged, .. } => {
            // The token carries the write's own precondition: it never widens it.
            let token = staged
                .first()
                .and_then(|s| scope.issue_token(path, &s.staged_path, expect.clone()));
            Ok(staged_output(
                scope,
                path,
                format!("permission denied ({detail}); no other privileges were tried"),
                &staged,
                None,
                token,
            ))
        }
        Commit::NotAFile { .. } => Err(model(format!(
            "{shown} is a folder or another non-regular file"
        ))),
    }
}

/// What a write expects to find, and whether that expectation was implicit (taken from
/// what this conversation last saw rather than given by the model).
fn write_precondition(args: &WriteArgs<'_>, remembered: Option<&str>) -> (Expect, bool) {
    if args.overwrite {
        (Expect::Any, false)
    } else if let Some(e) = &args.expected {
        (Expect::Sha(e.clone()), false)
    } else if args.create_only {
        (Expect::Absent, false)
    } else if let Some(sha) = remembered {
        (Expect::Sha(sha.to_string()), true)
    } else {
        (Expect::Absent, true)
    }
}

fn written_output(
    scope: &Scope<'_>,
    path: &str,
    content_len: usize,
    old: Option<String>,
    new_sha: String,
) -> ToolOutput {
    let shown = scope.shown(path);
    let text = match &old {
        Some(old) => format!(
            "Wrote {shown} ({content_len} bytes); sha256 {} -> {new_sha}",
            short(old)
        ),
        None => format!("Created {shown} ({content_len} bytes); sha256 {new_sha}"),
    };
    ToolOutput {
        text,
        structured: Some(json!({
            "status": if old.is_some() { "written" } else { "created" },
            "path": path, "device": scope.device,
            "old_sha256": old, "new_sha256": new_sha,
        })),
    }
}

/// An implicit precondition failed: the content is staged and a confirm token offered.
fn implicit_write_conflict_staged(
    scope: &Scope<'_>,
    path: &str,
    remembered: Option<&str>,
    current: Option<String>,
    staged: &[Staged],
) -> ToolOutput {
    let shown = scope.shown(path);
    let reason = match (remembered, &current) {
        (Some(seen), Some(cur)) => format!(
            "{shown} changed since this conversation last saw it (sha256 {} then, {} now)",
            short(seen),
            short(cur)
        ),
        (Some(_), None) => {
            format!("{shown} was deleted since this conversation read it")
        }
        _ => format!(
            "{shown} already exists and was not read in this conversation (read it first \
             with {}, or pass overwrite: true)",
            scope.names.or::<ReadFile>("a read")
        ),
    };
    let token = match (staged.first(), &current) {
        (Some(s), _) => scope.issue_token(
            path,
            &s.staged_path,
            current.clone().map_or(Expect::Absent, Expect::Sha),
        ),
        _ => None,
    };
    staged_output(scope, path, reason, staged, current.as_deref(), token)
}

/// A precondition the model gave failed: nothing was written or staged.
fn explicit_write_conflict_error(
    shown: &str,
    expect: &Expect,
    current: Option<String>,
) -> ToolError {
    model(match (expect, current) {
        (Expect::Absent, Some(cur)) => {
            format!("{shown} already exists (sha256 {cur}); create_only does not replace files")
        }
        (Expect::Sha(want), Some(cur)) => format!(
            "expected_sha256 {want} does not match {shown}, whose sha256 is {cur}; \
             nothing was written"
        ),
        (Expect::Sha(want), None) => format!(
            "expected_sha256 {want} was given but {shown} does not exist; nothing was written"
        ),
        _ => format!("{shown} changed; nothing was written"),
    })
}

async fn apply_token<B: FileBackend>(
    backend: &B,
    scope: &Scope<'_>,
    path: &str,
    content: &str,
    token: &str,
) -> HandlerResult {
    let shown = scope.shown(path);
    let entry = {
        let memory = scope.lock();
        memory.tokens.get(token).cloned()
    };
    let Some(entry) = entry.filter(|t| t.conversation == scope.conversation) else {
        return Err(model(format!(
            "confirm_token {token:?} is unknown in this conversation (it may have been used already)"
        )));
    };
    if entry.path != path {
        return Err(model(format!(
            "confirm_token {token:?} belongs to {}, not {shown}",
            entry.path
        )));
    }
    let staged = std::fs::read(&entry.staged_path).map_err(|e| {
        model(format!(
            "the staged copy {} is gone ({e}); write the content again",
            entry.staged_path
        ))
    })?;
    if !content.is_empty() && content.as_bytes() != staged.as_slice() {
        return Err(model(format!(
            "confirm_token applies the staged content; pass the same content or \"\" (the \
             staged copy is {})",
            entry.staged_path
        )));
    }
    let new_sha = sha256_hex(&staged);
    let changes = [Change::Write {
        path: path.to_string(),
        content: staged,
        expect: entry.expect.clone(),
    }];
    let outcome = backend
        .commit(&changes, false)
        .await
        .map_err(|e| model(e.0))?;
    match outcome {
        Commit::Done { before } => {
            scope.lock().tokens.remove(token);
            let _ = std::fs::remove_file(&entry.staged_path);
            if let Some(dir) = std::path::Path::new(&entry.staged_path).parent() {
                let _ = std::fs::remove_dir(dir);
            }
            scope.remember(path, &new_sha);
            let old = before.into_iter().next().flatten();
            Ok(ToolOutput {
                text: format!(
                    "Applied the staged content to {shown}; sha256 {} -> {new_sha}",
                    old.as_deref().map_or("(new file)", short)
                ),
                structured: Some(json!({
                    "status": "written", "path": path, "device": scope.device,
                    "old_sha256": old, "new_sha256": new_sha,
                })),
            })
        }
        Commit::Conflict { current, .. } => {
            scope.lock().tokens.remove(token);
            Err(model(format!(
                "{shown} changed since the content was staged (sha256 now {}); the token is \
                 void and nothing was written. The staged copy stays at {}; read the file and \
                 write again",
                current.as_deref().unwrap_or("(deleted)"),
                entry.staged_path
            )))
        }
        Commit::Denied { detail, .. } => Err(model(format!(
            "permission denied ({detail}); nothing was written, no other privileges were tried; \
             the staged copy stays at {}",
            entry.staged_path
        ))),
        Commit::NotAFile { .. } => Err(model(format!(
            "{shown} is a folder or another non-regular file"
        ))),
    }
}

// ---------------------------------------------------------------------------------------
// file_edit

pub(crate) struct EditArgs<'a> {
    pub old_text: &'a str,
    pub new_text: &'a str,
    pub replace_all: bool,
    pub expected: Option<String>,
}

pub(crate) async fn file_edit<B: FileBackend>(
    backend: &B,
    scope: &Scope<'_>,
    path: &str,
    args: EditArgs<'_>,
) -> HandlerResult {
    let shown = scope.shown(path);
    check_edit_texts(&args, scope.names)?;
    let snap = read_file_to_edit(backend, scope, &shown, path, args.expected.as_deref()).await?;
    let text = text_of(&shown, &snap)?;
    let matches = edit_match_offsets(&shown, &snap, text, &args)?;
    let new = if args.replace_all {
        text.replace(args.old_text, args.new_text)
    } else {
        text.replacen(args.old_text, args.new_text, 1)
    };
    let new_sha = sha256_hex(new.as_bytes());
    let changes = [Change::Write {
        path: path.to_string(),
        content: new.clone().into_bytes(),
        expect: Expect::Sha(snap.sha256.clone()),
    }];
    let outcome = backend
        .commit(&changes, false)
        .await
        .map_err(|e| model(e.0))?;
    let diff = short_diff(path, text, &new);
    match outcome {
        Commit::Done { .. } => {
            scope.remember(path, &new_sha);
            let first_line = matches.first().map_or(1, |m| line_of(text, *m));
            Ok(ToolOutput {
                text: format!(
                    "Edited {shown}: {} replacement(s) from line {first_line}; sha256 {} -> {new_sha}\n{diff}",
                    matches.len(),
                    snap.sha256
                ),
                structured: Some(json!({
                    "status": "edited", "path": path, "device": scope.device,
                    "replacements": matches.len(),
                    "old_sha256": snap.sha256, "new_sha256": new_sha, "diff": diff,
                })),
            })
        }
        Commit::Conflict { current, .. } => Err(model(format!(
            "{shown} changed while it was being edited (sha256 {} when read, {} now); the \
             compare-and-swap aborted and nothing was written — retry the edit",
            snap.sha256,
            current.as_deref().unwrap_or("(deleted)")
        ))),
        Commit::Denied { detail, staged, .. } => {
            let token = staged.first().and_then(|s| {
                scope.issue_token(path, &s.staged_path, Expect::Sha(snap.sha256.clone()))
            });
            let mut out = staged_output(
                scope,
                path,
                format!("permission denied ({detail}); no other privileges were tried"),
                &staged,
                None,
                token,
            );
            out.text.push('\n');
            out.text.push_str(&diff);
            Ok(out)
        }
        Commit::NotAFile { .. } => Err(model(format!(
            "{shown} is a folder or another non-regular file"
        ))),
    }
}

/// The edit's own texts, before anything is read.
/// Rules about the two texts alone that the definition does not state (it says "a string"),
/// hence [`ToolError::Argument`].
fn check_edit_texts(args: &EditArgs<'_>, names: &ToolNames) -> Result<(), ToolError> {
    if args.old_text.is_empty() {
        return Err(ToolError::Argument(format!(
            "old_text is empty; to create or replace a whole file use {}",
            names.or::<WriteFile>("a whole-file write")
        )));
    }
    if args.old_text == args.new_text {
        return Err(ToolError::Argument(
            "old_text and new_text are identical; nothing to change".to_owned(),
        ));
    }
    Ok(())
}

/// Reads the file to edit; it must exist and match expected_sha256 when one was given.
async fn read_file_to_edit<B: FileBackend>(
    backend: &B,
    scope: &Scope<'_>,
    shown: &str,
    path: &str,
    expected: Option<&str>,
) -> Result<Snapshot, ToolError> {
    let probe = backend.read(path).await.map_err(|e| model(e.0))?;
    let snap = match probe {
        Probe::File(s) => s,
        Probe::Missing => {
            let create = scope
                .names
                .of::<WriteFile>()
                .map(|w| format!(" (create it with {w})"))
                .unwrap_or_default();
            return Err(model(format!(
                "{shown} does not exist; this edit changes existing files{create}"
            )));
        }
        other => {
            return Err(model(
                describe_probe(shown, &other).unwrap_or_else(|| format!("cannot read {shown}")),
            ));
        }
    };
    if let Some(want) = expected
        && !snap.sha256.starts_with(want)
    {
        return Err(model(format!(
            "expected_sha256 {want} does not match {shown}, whose sha256 is {}; nothing was \
             changed",
            snap.sha256
        )));
    }
    Ok(snap)
}

/// Byte offsets where old_text occurs; none, or several without replace_all, is an error.
fn edit_match_offsets(
    shown: &str,
    snap: &Snapshot,
    text: &str,
    args: &EditArgs<'_>,
) -> Result<Vec<usize>, ToolError> {
    let matches: Vec<usize> = text.match_indices(args.old_text).map(|(i, _)| i).collect();
    if matches.is_empty() {
        return Err(model(format!(
            "old_text was not found in {shown} (sha256 {}); nothing was changed.{}",
            snap.sha256,
            nearest_hint(text, args.old_text)
        )));
    }
    if matches.len() > 1 && !args.replace_all {
        let lines: Vec<String> = matches
            .iter()
            .map(|m| line_of(text, *m).to_string())
            .collect();
        return Err(model(format!(
            "old_text matches {} places in {shown}, at lines {}; nothing was changed. Include \
             more surrounding text to make it unique, or pass replace_all: true",
            matches.len(),
            lines.join(", ")
        )));
    }
    Ok(matches)
}

// ---------------------------------------------------------------------------------------
// apply_patch: the patch module parses it and applies hunks to text; here the phases
// around that — read every file, plan every change in memory, commit all or nothing.

/// Applies a parsed patch whose paths are already resolved. Every file is read and every
/// hunk applied in memory first; one commit then writes all of it or none.
pub(crate) async fn apply_patch<B: FileBackend>(
    backend: &B,
    scope: &Scope<'_>,
    ops: &[PatchOp],
) -> HandlerResult {
    let paths = patch_paths(scope, ops)?;
    let probes = backend.read_many(&paths).await.map_err(|e| model(e.0))?;
    let probe_of: HashMap<&str, &Probe> = paths
        .iter()
        .map(String::as_str)
        .zip(probes.iter())
        .collect();
    let plan = plan_patch(scope, ops, &probe_of)?;
    commit_patch(backend, scope, plan).await
}

/// Every path the patch reads (sources and Move to destinations), each named only once.
fn patch_paths(scope: &Scope<'_>, ops: &[PatchOp]) -> Result<Vec<String>, ToolError> {
    let mut seen = BTreeSet::new();
    let mut paths = Vec::new();
    for op in ops {
        let (path, dest) = match op {
            PatchOp::Add { path, .. } | PatchOp::Delete { path } => (path, None),
            PatchOp::Update { path, move_to, .. } => (path, move_to.as_ref()),
        };
        for p in std::iter::once(path).chain(dest) {
            if !seen.insert(p.clone()) {
                return Err(model(format!(
                    "the patch names {} more than once; nothing was changed",
                    scope.shown(p)
                )));
            }
            paths.push(p.clone());
        }
    }
    Ok(paths)
}

/// What a patch writes, and what its result reports.
#[derive(Default)]
struct PatchPlan {
    changes: Vec<Change>,
    /// `A path`, `M path`, `R from -> to`, `D path`.
    summary: Vec<String>,
    diffs: String,
}

/// The state a path was read in (absent from the reads: missing).
fn probe_for<'a>(probe_of: &HashMap<&str, &'a Probe>, path: &str) -> &'a Probe {
    probe_of.get(path).copied().unwrap_or(&Probe::Missing)
}

/// Every change of the patch, computed in memory; or every reason it cannot apply.
fn plan_patch(
    scope: &Scope<'_>,
    ops: &[PatchOp],
    probe_of: &HashMap<&str, &Probe>,
) -> Result<PatchPlan, ToolError> {
    let mut plan = PatchPlan::default();
    let mut errors = Vec::new();
    for op in ops {
        let planned = match op {
            PatchOp::Add { path, content } => {
                plan_add(scope, path, content, probe_for(probe_of, path), &mut plan)
            }
            PatchOp::Delete { path } => {
                plan_delete(scope, path, probe_for(probe_of, path), &mut plan)
            }
            PatchOp::Update {
                path,
                move_to,
                chunks,
            } => plan_update(scope, path, move_to.as_deref(), chunks, probe_of, &mut plan),
        };
        if let Err(e) = planned {
            errors.push(e);
        }
    }
    if !errors.is_empty() {
        return Err(model(format!(
            "the patch was not applied; no file was changed:\n- {}",
            errors.join("\n- ")
        )));
    }
    Ok(plan)
}

/// Add File: only where nothing exists (an existing file is changed with Update File).
fn plan_add(
    scope: &Scope<'_>,
    path: &str,
    content: &str,
    probe: &Probe,
    plan: &mut PatchPlan,
) -> Result<(), String> {
    let shown = scope.shown(path);
    match probe {
        Probe::Missing => {
            plan.changes.push(Change::Write {
                path: path.to_string(),
                content: content.as_bytes().to_vec(),
                expect: Expect::Absent,
            });
            plan.summary.push(format!("A {shown}"));
            Ok(())
        }
        Probe::File(_) => Err(format!(
            "Add File {shown}: it already exists (use Update File)"
        )),
        other => Err(format!(
            "Add File {shown}: {}",
            describe_probe(&shown, other).unwrap_or_default()
        )),
    }
}

fn plan_delete(
    scope: &Scope<'_>,
    path: &str,
    probe: &Probe,
    plan: &mut PatchPlan,
) -> Result<(), String> {
    let shown = scope.shown(path);
    match probe {
        Probe::File(s) => {
            plan.changes.push(Change::Delete {
                path: path.to_string(),
                expect: Expect::Sha(s.sha256.clone()),
            });
            plan.summary.push(format!("D {shown}"));
            Ok(())
        }
        other => Err(format!(
            "Delete File {shown}: {}",
            describe_probe(&shown, other).unwrap_or_default()
        )),
    }
}

/// Update File: locate and apply its hunks to the text read; with Move to, write the
/// result to a destination that must not exist yet and delete the source.
fn plan_update(
    scope: &Scope<'_>,
    path: &str,
    move_to: Option<&str>,
    chunks: &[Chunk],
    probe_of: &HashMap<&str, &Probe>,
    plan: &mut PatchPlan,
) -> Result<(), String> {
    let shown = scope.shown(path);
    let snap = match probe_for(probe_of, path) {
        Probe::File(s) => s,
        other => {
            return Err(format!(
                "Update File {shown}: {}",
                describe_probe(&shown, other).unwrap_or_default()
            ));
        }
    };
    let text = text_of(&shown, snap).map_err(|e| format!("Update File {shown}: {e}"))?;
    let new = apply_chunks(text, chunks).map_err(|e| {
        let hint = e
            .wanted
            .as_deref()
            .map(|w| nearest_hint(text, w))
            .unwrap_or_default();
        format!("Update File {shown}, hunk {}: {}.{hint}", e.hunk, e.message)
    })?;
    let Some(dest) = move_to else {
        plan.changes.push(Change::Write {
            path: path.to_string(),
            content: new.clone().into_bytes(),
            expect: Expect::Sha(snap.sha256.clone()),
        });
        plan.summary.push(format!("M {shown}"));
        plan.diffs.push_str(&short_diff(path, text, &new));
        return Ok(());
    };
    let dest_shown = scope.shown(dest);
    match probe_for(probe_of, dest) {
        Probe::Missing => {}
        Probe::File(_) => {
            return Err(format!(
                "Update File {shown}: Move to {dest_shown}: it already exists (a move never \
                 replaces a file)"
            ));
        }
        other => {
            return Err(format!(
                "Update File {shown}: Move to {dest_shown}: {}",
                describe_probe(&dest_shown, other).unwrap_or_default()
            ));
        }
    }
    plan.diffs.push_str(&short_diff(dest, text, &new));
    plan.changes.push(Change::Write {
        path: dest.to_string(),
        content: new.into_bytes(),
        expect: Expect::Absent,
    });
    plan.changes.push(Change::Delete {
        path: path.to_string(),
        expect: Expect::Sha(snap.sha256.clone()),
    });
    plan.summary.push(format!("R {shown} -> {dest_shown}"));
    Ok(())
}

/// Writes the plan in one compare-and-swap commit and reports it.
async fn commit_patch<B: FileBackend>(
    backend: &B,
    scope: &Scope<'_>,
    plan: PatchPlan,
) -> HandlerResult {
    let PatchPlan {
        changes,
        summary,
        diffs,
    } = plan;
    let outcome = backend
        .commit(&changes, false)
        .await
        .map_err(|e| model(e.0))?;
    let shown_at = |index: usize| {
        changes
            .get(index)
            .map(|c| scope.shown(c.path()))
            .unwrap_or_default()
    };
    match outcome {
        Commit::Done { before } => {
            let mut files = Vec::new();
            for (change, old) in changes.iter().zip(before) {
                match change {
                    Change::Write { path, content, .. } => {
                        let sha = sha256_hex(content);
                        scope.remember(path, &sha);
                        files.push(json!({"path": path, "old_sha256": old, "new_sha256": sha}));
                    }
                    Change::Delete { path, .. } => {
                        scope.forget(path);
                        files.push(json!({"path": path, "old_sha256": old, "deleted": true}));
                    }
                }
            }
            Ok(ToolOutput {
                text: format!(
                    "Applied the patch{}:\n{}\n{diffs}",
                    scope.device.map(|d| format!(" on {d}")).unwrap_or_default(),
                    summary.join("\n")
                ),
                structured: Some(json!({
                    "status": "applied", "device": scope.device, "files": files,
                })),
            })
        }
        Commit::Conflict { index, current, .. } => Err(model(format!(
            "{} changed while the patch was being applied (sha256 now {}); the \
             compare-and-swap aborted and no file was changed — retry",
            shown_at(index),
            current.as_deref().unwrap_or("(absent)")
        ))),
        Commit::Denied {
            index,
            detail,
            staged,
        } => {
            let p = changes
                .get(index)
                .map(|c| c.path().to_string())
                .unwrap_or_default();
            Ok(staged_output(
                scope,
                &p,
                format!(
                    "permission denied ({detail}); the patch was not applied, no file was \
                     changed and no other privileges were tried"
                ),
                &staged,
                None,
                None,
            ))
        }
        Commit::NotAFile { index } => Err(model(format!(
            "{} is a folder or another non-regular file; no file was changed",
            shown_at(index)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_sha_needs_at_least_eight_hex_digits() {
        assert_eq!(
            parse_expected(Some("ABCDEF12"), &ToolNames::NONE)
                .ok()
                .flatten()
                .as_deref(),
            Some("abcdef12")
        );
        assert!(
            matches!(parse_expected(Some("abcdef1"), &ToolNames::NONE), Err(ToolError::Argument(m)) if m.contains("at least 8"))
        );
        assert!(parse_expected(Some("xyz12345"), &ToolNames::NONE).is_err());
        assert!(parse_expected(Some(&"a".repeat(65)), &ToolNames::NONE).is_err());
        assert_eq!(parse_expected(None, &ToolNames::NONE).ok(), Some(None));
    }

    #[test]
    fn nearest_fragment_finds_the_most_similar_window() {
        let text = "one\ntwo\nlet total = items.len();\nreturn total;\nend\n";
        let found = nearest_fragment(text, "let totals = item.len();\nreturn totals;");
        assert!(matches!(found, Some((3, ref f, _)) if f.starts_with("let total = items")));
    }

    #[test]
    fn prefix_expectations_match_like_the_remote_script() {
        let sha = sha256_hex(b"x");
        assert!(Expect::Sha(sha[..8].to_string()).matches(Some(&sha)));
        assert!(!Expect::Sha("00000000".into()).matches(Some(&sha)));
        assert!(!Expect::Absent.matches(Some(&sha)));
        assert!(Expect::Absent.matches(None));
        assert!(Expect::Any.matches(None));
    }
}
