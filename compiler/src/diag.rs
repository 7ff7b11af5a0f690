//! Diagnostics: every definition error carries a span into a source file, a message, and a
//! fix hint where one exists. Rendering (excerpt + caret) lives here so every front end
//! (CLI, build.rs, the proc-macro) prints the same text.

use std::fmt::Write as _;

/// Index into [`Sources::files`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// One definitions file as handed to the compiler.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Display path, relative to the definitions root (`tools/shell.yaml`).
    pub path: String,
    pub text: String,
    /// Where the file's bytes stopped being UTF-8 (the byte offset of the first bad byte),
    /// for a file read with [`SourceFile::from_bytes`]; `text` is then the lossy decoding
    /// (identical up to that offset) and `compile` reports the file as invalid.
    pub not_utf8_at: Option<usize>,
}

impl SourceFile {
    /// A file whose text is known to be UTF-8.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        SourceFile {
            path: path.into(),
            text: text.into(),
            not_utf8_at: None,
        }
    }

    /// A file as read from disk: bytes that are not UTF-8 are kept (lossily decoded) and
    /// remembered, so `compile` reports them as an invalid definition with a position.
    pub fn from_bytes(path: impl Into<String>, bytes: Vec<u8>) -> SourceFile {
        match String::from_utf8(bytes) {
            Ok(text) => SourceFile::new(path, text),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                SourceFile {
                    path: path.into(),
                    text: String::from_utf8_lossy(e.as_bytes()).into_owned(),
                    not_utf8_at: Some(at),
                }
            }
        }
    }
}

/// The definitions the compiler is given. The compiler reads nothing else.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// Root folder as the user named it; prefixed to paths when rendering.
    pub root: String,
    /// Sorted by `path`, so iteration order never depends on the file system.
    pub files: Vec<SourceFile>,
}

impl Sources {
    pub fn file(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn find(&self, path: &str) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.path == path)
            .map(|i| FileId(i as u32))
    }

    /// `root/path` for display (`tool-defs/tools/shell.yaml`).
    pub fn display_path(&self, id: FileId) -> String {
        match self.file(id) {
            Some(f) if self.root.is_empty() => f.path.clone(),
            Some(f) => format!("{}/{}", self.root.trim_end_matches('/'), f.path),
            None => "<unknown>".to_owned(),
        }
    }
}

/// A position in a source file. `line` and `col` are 1-based; `col` counts characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
    /// Length in characters of the highlighted text (at least 1 when rendered).
    pub len: u32,
}

impl Span {
    /// The start of a file: for errors about a file as a whole.
    pub fn file_start(file: FileId) -> Span {
        Span {
            file,
            line: 1,
            col: 1,
            len: 1,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable kebab-case code (`unknown-key`, `duplicate-key`, `unknown-tool`, ...).
    pub code: &'static str,
    pub message: String,
    pub span: Option<Span>,
    /// A fix hint: `did you mean shell?`, `add it to fields:` ...
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Option<Span>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            hint: None,
        }
    }

    pub fn warning(code: &'static str, span: Option<Span>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `path:line:col: error[code]: message`, the source line, a caret line, and `hint:`.
    pub fn render(&self, sources: &Sources) -> String {
        let mut out = String::new();
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match self.span {
            Some(span) => {
                let _ = writeln!(
                    out,
                    "{}:{}:{}: {sev}[{}]: {}",
                    sources.display_path(span.file),
                    span.line,
                    span.col,
                    self.code,
                    self.message
                );
                if let Some(line) = sources
                    .file(span.file)
                    .and_then(|f| f.text.lines().nth(span.line.saturating_sub(1) as usize))
                {
                    let gutter = span.line.to_string();
                    let pad = " ".repeat(gutter.len());
                    let _ = writeln!(out, "{pad} |");
                    let _ = writeln!(out, "{gutter} | {line}");
                    let start = span.col.saturating_sub(1) as usize;
                    let width = line.chars().count().saturating_sub(start).max(1);
                    let len = (span.len.max(1) as usize).min(width);
                    let lead: String = line
                        .chars()
                        .take(start)
                        .map(|c| if c == '\t' { '\t' } else { ' ' })
                        .collect();
                    let _ = writeln!(out, "{pad} | {lead}{}", "^".repeat(len));
                }
            }
            None => {
                let _ = writeln!(out, "{sev}[{}]: {}", self.code, self.message);
            }
        }
        if let Some(hint) = &self.hint {
            let _ = writeln!(out, "  = hint: {hint}");
        }
        out
    }
}

/// Render all diagnostics in the order given ([`crate::compile`] returns them in source
/// order: file, line, column), then a summary line.
pub fn render_all(diags: &[Diagnostic], sources: &Sources) -> String {
    let mut out = String::new();
    for d in diags {
        out.push_str(&d.render(sources));
        out.push('\n');
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    if errors > 0 || warnings > 0 {
        let _ = writeln!(out, "{errors} error(s), {warnings} warning(s)");
    }
    out
}

/// `did you mean X?` for the closest of `candidates` (the one policy: [`toolsurface_text::did_you_mean`]).
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    toolsurface_text::did_you_mean(name, candidates).map(|c| format!("did you mean {c}?"))
}
