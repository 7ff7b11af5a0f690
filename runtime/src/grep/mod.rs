//! `grep_files`: content search with ripgrep's crates. `.gitignore` (and `.ignore`) rules
//! are respected and hidden files skipped, as ripgrep does; binary files and files over a
//! size limit are skipped and counted; matches come back as `{path, line, text}` sorted by
//! path and line.

use std::path::{Path, PathBuf};

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::call::{HandlerResult, ToolError, ToolOutput};

/// Files larger than this are skipped (and counted).
pub const DEFAULT_MAX_FILE_SIZE: u64 = 4 * 1024 * 1024;
/// A matching line longer than this many characters is cut.
pub const DEFAULT_MAX_LINE_CHARS: usize = 500;

/// A `grep_files` call.
/// `case_insensitive` and `max_results` are the definition's, default included (filled in
/// by the generated conversion).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepFilesRequest {
    /// A regular expression (Rust regex syntax, as ripgrep).
    pub pattern: String,
    /// File or folder to search; relative paths resolve against the base dir. Default: base.
    pub path: Option<String>,
    /// Only files matching this glob (e.g. `*.rs`, `src/**/*.ts`; `!` excludes).
    pub glob: Option<String>,
    pub case_insensitive: bool,
    pub max_results: usize,
}

/// Limits of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GrepOptions {
    pub max_file_size: u64,
    pub max_line_chars: usize,
}

impl Default for GrepOptions {
    fn default() -> Self {
        GrepOptions {
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            max_line_chars: DEFAULT_MAX_LINE_CHARS,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrepMatch {
    /// Relative to the base dir when inside it, else absolute.
    pub path: String,
    /// 1-based.
    pub line: u64,
    pub text: String,
}

/// A search's outcome. The counts cover the files visited; a truncated search stops
/// walking once `max_results` is exceeded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrepResult {
    pub matches: Vec<GrepMatch>,
    pub truncated: bool,
    pub files_searched: usize,
    pub files_matched: usize,
    pub skipped_binary: usize,
    pub skipped_too_large: usize,
    pub skipped_unreadable: usize,
}

impl GrepResult {
    /// `path:line:text` lines and a summary line.
    pub fn render(&self, max_file_size: u64) -> String {
        let mut s = String::new();
        for m in &self.matches {
            s.push_str(&format!("{}:{}:{}\n", m.path, m.line, m.text));
        }
        s.push_str(&format!(
            "{} match{} in {} file{} ({} searched",
            self.matches.len(),
            if self.matches.len() == 1 { "" } else { "es" },
            self.files_matched,
            if self.files_matched == 1 { "" } else { "s" },
            self.files_searched
        ));
        let mut skipped = Vec::new();
        if self.skipped_binary > 0 {
            skipped.push(format!("{} binary", self.skipped_binary));
        }
        if self.skipped_too_large > 0 {
            skipped.push(format!(
                "{} over {}",
                self.skipped_too_large,
                human_size(max_file_size)
            ));
        }
        if self.skipped_unreadable > 0 {
            skipped.push(format!("{} unreadable", self.skipped_unreadable));
        }
        if !skipped.is_empty() {
            s.push_str(&format!("; skipped {}", skipped.join(", ")));
        }
        s.push(')');
        if self.truncated {
            s.push_str(&format!(
                "\ntruncated at max_results={}; narrow the search with path or glob",
                self.matches.len()
            ));
        }
        s
    }
}

fn human_size(bytes: u64) -> String {
    if bytes >= 1024 * 1024 && bytes.is_multiple_of(1024 * 1024) {
        format!("{} MiB", bytes / (1024 * 1024))
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

/// Runs a `grep_files` call with the default limits; relative paths resolve against `base`.
pub fn grep_files(base: &Path, req: &GrepFilesRequest) -> HandlerResult {
    grep_files_with(base, req, &GrepOptions::default())
}

pub fn grep_files_with(base: &Path, req: &GrepFilesRequest, opts: &GrepOptions) -> HandlerResult {
    let result = search(base, req, opts)?;
    let text = result.render(opts.max_file_size);
    let structured = serde_json::to_value(&result).unwrap_or_else(|_| json!({}));
    Ok(ToolOutput {
        text,
        structured: Some(structured),
    })
}

struct Collect {
    matches: Vec<(u64, String)>,
    binary: bool,
    remaining: usize,
    max_line_chars: usize,
}

impl Sink for Collect {
    type Error = std::io::Error;

    fn matched(&mut self, _s: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let raw = String::from_utf8_lossy(mat.bytes());
        let line = raw.trim_end_matches(['\n', '\r']);
        let text = toolsurface_text::cut(line, self.max_line_chars).into_owned();
        self.matches.push((mat.line_number().unwrap_or(0), text));
        Ok(self.matches.len() < self.remaining)
    }

    fn binary_data(&mut self, _s: &Searcher, _offset: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }
}

fn display_path(base: &Path, p: &Path) -> String {
    match p.strip_prefix(base) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => p.display().to_string(),
    }
}

/// The search itself, for callers that want the typed result.
pub fn search(
    base: &Path,
    req: &GrepFilesRequest,
    opts: &GrepOptions,
) -> Result<GrepResult, ToolError> {
    let model = |m: String| ToolError::Model(m);
    if req.pattern.is_empty() {
        return Err(ToolError::Argument("pattern is empty".into()));
    }
    let max_results = req.max_results;
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(req.case_insensitive)
        .line_terminator(Some(b'\n'))
        .build(&req.pattern)
        .map_err(|e| ToolError::Argument(format!("invalid pattern: {e}")))?;
    let root: PathBuf = match &req.path {
        Some(p) if Path::new(p).is_absolute() => PathBuf::from(p),
        Some(p) => base.join(p),
        None => base.to_path_buf(),
    };
    if !root.exists() {
        return Err(model(format!(
            "{} does not exist",
            req.path
                .as_deref()
                .map_or_else(|| root.display().to_string(), str::to_string)
        )));
    }
    let walk = files_to_search(&root, req.glob.as_deref())?;
    let mut result = search_walked_files(base, walk, &matcher, max_results, opts);
    result.matches.sort_by(|a, b| {
        Path::new(&a.path)
            .cmp(Path::new(&b.path))
            .then(a.line.cmp(&b.line))
    });
    Ok(result)
}

/// The walk over `root` in file-name order, limited to `glob` when one is given.
fn files_to_search(root: &Path, glob: Option<&str>) -> Result<WalkBuilder, ToolError> {
    let mut walk = WalkBuilder::new(root);
    walk.require_git(false).sort_by_file_name(|a, b| a.cmp(b));
    if let Some(glob) = glob {
        let over_root = if root.is_dir() {
            root.to_path_buf()
        } else {
            root.parent()
                .map_or_else(|| root.to_path_buf(), Path::to_path_buf)
        };
        let mut ob = OverrideBuilder::new(&over_root);
        ob.add(glob)
            .map_err(|e| ToolError::Argument(format!("invalid glob {glob:?}: {e}")))?;
        let over = ob
            .build()
            .map_err(|e| ToolError::Argument(format!("invalid glob {glob:?}: {e}")))?;
        walk.overrides(over);
    }
    Ok(walk)
}

/// Searches each walked file in turn, counting what was skipped and why, until
/// `max_results` matches are collected (then `truncated` is set). Matches are in walk order.
fn search_walked_files(
    base: &Path,
    walk: WalkBuilder,
    matcher: &grep_regex::RegexMatcher,
    max_results: usize,
    opts: &GrepOptions,
) -> GrepResult {
    let mut searcher = SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .build();
    let mut result = GrepResult::default();
    let mut collected: Vec<GrepMatch> = Vec::new();
    for entry in walk.build() {
        let entry = match entry {
            Ok(e) => e,
            Err(_) => {
                result.skipped_unreadable += 1;
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        match entry.metadata() {
            Ok(md) if md.len() > opts.max_file_size => {
                result.skipped_too_large += 1;
                continue;
            }
            Ok(_) => {}
            Err(_) => {
                result.skipped_unreadable += 1;
                continue;
            }
        }
        let mut sink = Collect {
            matches: Vec::new(),
            binary: false,
            remaining: max_results.saturating_add(1) - collected.len(),
            max_line_chars: opts.max_line_chars,
        };
        if searcher.search_path(matcher, path, &mut sink).is_err() {
            result.skipped_unreadable += 1;
            continue;
        }
        if sink.binary {
            result.skipped_binary += 1;
            continue;
        }
        result.files_searched += 1;
        if sink.matches.is_empty() {
            continue;
        }
        result.files_matched += 1;
        let shown = display_path(base, path);
        collected.extend(sink.matches.into_iter().map(|(line, text)| GrepMatch {
            path: shown.clone(),
            line,
            text,
        }));
        if collected.len() > max_results {
            collected.truncate(max_results);
            result.truncated = true;
            break;
        }
    }
    result.matches = collected;
    result
}
