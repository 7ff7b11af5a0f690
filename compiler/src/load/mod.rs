//! Loading: YAML files -> spanned node trees (`yaml`) -> the model as written (`model`,
//! via `read`) -> cross-file checks (`check`) -> the IR (`lower`) -> rendered templates
//! (`render`). Every stage reports what it finds and carries on, so one run reports every
//! error; the IR is handed out only when there is none.

//!
//! Diagnostic codes (stable; `Diagnostic::code`):
//! - YAML and shape: `yaml-syntax`, `duplicate-key`, `unknown-key`, `missing-key`,
//!   `wrong-type`, `bad-name`, `misplaced-key`, `missing-file`, `unexpected-file`,
//!   `not-utf8`.
//! - surface.yaml: `unknown-dialect`, `like-chain`, `bad-strict`, `bad-default`,
//!   `empty-enum`, `bad-limit`, `unknown-skill-strategy`, `unsupported-skill-strategy`,
//!   `bad-cache-control`; per surface `deferred-without-search`, `deferred-activation`.
//! - tools: `name-mismatch`, `name-collision`, `duplicate-tool`, `unknown-family`, `like-family`,
//!   `no-families`, `unknown-route`, `unknown-type`, `bad-pattern`, `bad-bounds`,
//!   `duplicate-value`, `unknown-property`, `undeclared-field`, `duplicate-name`,
//!   `selector-without-actions`, `actions-without-selector`, `no-actions`,
//!   `selector-is-field`, `bad-exactly-one-of`, `bad-forbidden-with`, `bad-default`,
//!   `bad-action-default`, `unknown-trait`,
//!   `bad-trait-value`, `bad-syntax`, `missing-grammar`, `freeform-family`,
//!   `example-action`, `bad-icon`, `bad-implements`;
//!   warning `unused-field`. (`toolsurface check` adds `example-refused` and the warning
//!   `no-example` from decoding every example with `Call::parse`'s rules.)
//! - roles and skills: `unknown-tool`, `retired-tool`, `alias-not-tool`, `unknown-role`,
//!   `extends-cycle`, `unknown-skill`, `resident-skill-tool`, `bad-budget`,
//!   `duplicate-skill`, `empty-skill`; warnings `unused-tool`, `unused-skill`,
//!   `skills-unreachable`, `activate-without-skills`.
//! - aliases and retired names: `alias-shadows-tool`, `alias-shadows-retired`,
//!   `alias-chain`, `alias-cycle`, `unknown-action`, `unknown-field`, `bad-alias-value`,
//!   `alias-field-refused`, `retired-is-tool`, `empty-message`.
//! - templates and limits: `template-syntax`, `template-error`, `template-unknown-tool`,
//!   `template-absent-tool`, `template-retired-tool`, `mentions-retired-tool`,
//!   `description-too-long`, `too-many-tools`; warnings `mentions-absent-tool`, `provider-limit`
//!   (over the provider's own limit, under the surface's).

use std::path::Path;

use crate::diag::{self, Diagnostic, FileId, SourceFile, Sources, Span};
use crate::{Compiled, Severity};

pub mod check;
pub mod examples;
pub mod implements;
pub mod lower;
pub mod model;
pub mod output;
pub mod read;
pub mod render;
pub mod sandbox;
pub mod shapes;
pub mod strategy;
pub mod types;
pub mod yaml;

const TOP_LEVEL: &[&str] = &["surface.yaml", "roles.yaml", "aliases.yaml", "retired.yaml"];

pub fn compile(sources: &Sources) -> Compiled {
    let mut d: Vec<Diagnostic> = Vec::new();
    let defs = read_defs(sources, &mut d);
    let idx = check::Index::new(&defs);
    check::check(&defs, &idx, sources, &mut d);
    let mut ir = lower::lower(&defs, &idx);
    strategy::check_deferral(&ir, &mut d);
    render::render(&mut ir, sources, &mut d);
    // Examples are decoded with Call::parse's rules, through the plan (a folder that fails
    // to emit is refused by the emitter's own checks in `check`, before any example).
    if !d.iter().any(Diagnostic::is_error) {
        let plan = crate::plan::lower_rules(&ir);
        d.extend(crate::plan::examples::check_examples(&ir, &plan));
    }
    sort_diagnostics(&mut d);
    let ok = !d.iter().any(Diagnostic::is_error);
    Compiled {
        ir: ok.then_some(ir),
        diagnostics: d,
    }
}

/// Source order: file, line, column; errors before warnings at one place. Diagnostics
/// without a span come first.
pub fn sort_diagnostics(d: &mut [Diagnostic]) {
    d.sort_by(|a, b| {
        let key = |x: &Diagnostic| {
            (
                x.span.map(|s| (s.file, s.line, s.col)),
                x.severity == Severity::Warning,
            )
        };
        key(a).cmp(&key(b))
    });
}

/// `tools/shell.yaml` -> `Some(("tools", "shell"))`.
fn split(path: &str) -> Option<(&str, &str)> {
    let (dir, file) = path.rsplit_once('/')?;
    let stem = file
        .strip_suffix(".yaml")
        .or_else(|| file.strip_suffix(".yml"))?;
    Some((dir, stem))
}

/// Is `path` a definitions file we parse as YAML?
fn is_definition(path: &str) -> bool {
    TOP_LEVEL.contains(&path) || matches!(split(path), Some(("tools" | "skills", _)))
}

/// Parse every definitions file; across threads when there are many (parsing dominates
/// a large folder). Results are per file, in file order, so the outcome is the same either
/// way.
fn parse_all(sources: &Sources) -> Vec<(Option<yaml::Node>, Vec<Diagnostic>)> {
    let parse_range =
        |range: std::ops::Range<usize>| -> Vec<(Option<yaml::Node>, Vec<Diagnostic>)> {
            range
                .map(|i| {
                    let mut d = Vec::new();
                    let file = &sources.files[i];
                    let id = FileId(i as u32);
                    if let Some(at) = file.not_utf8_at {
                        d.push(not_utf8(id, file, at));
                        return (None, d);
                    }
                    let node = is_definition(&file.path)
                        .then(|| yaml::parse(id, &file.text, &mut d))
                        .flatten();
                    (node, d)
                })
                .collect()
        };
    let n = sources.files.len();
    let threads = std::thread::available_parallelism()
        .map(|t| t.get())
        .unwrap_or(1)
        .min(8);
    if n < 128 || threads < 2 {
        return parse_range(0..n);
    }
    let chunk = n.div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .step_by(chunk)
            .map(|start| {
                let parse_range = &parse_range;
                scope.spawn(move || parse_range(start..(start + chunk).min(n)))
            })
            .collect();
        let mut out = Vec::with_capacity(n);
        for h in handles {
            match h.join() {
                Ok(part) => out.extend(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    })
}

fn read_defs(sources: &Sources, d: &mut Vec<Diagnostic>) -> model::Defs {
    let mut defs = model::Defs::default();
    let mut parsed = parse_all(sources);
    for (_, diags) in &mut parsed {
        d.append(diags);
    }
    read_top_level_files(&mut defs, sources, &parsed, d);
    for (i, file) in sources.files.iter().enumerate() {
        let id = FileId(i as u32);
        let path = file.path.as_str();
        if TOP_LEVEL.contains(&path) {
            continue;
        }
        if let Some(grammar) = path.strip_prefix("grammars/")
            && !grammar.contains('/')
        {
            defs.grammars.push((path.to_owned(), file.text.clone()));
            continue;
        }
        let node = parsed.get(i).and_then(|(n, _)| n.as_ref());
        match split(path) {
            Some(("tools", stem)) => {
                match node.and_then(|node| model::read_tool(id, stem, node, d)) {
                    Some(t) => defs.tools.push(t),
                    None => {
                        defs.broken_tools.insert(stem.to_owned());
                    }
                }
            }
            Some(("skills", stem)) => {
                match node.and_then(|node| model::read_skill(stem, node, d)) {
                    Some(s) => defs.skills.push(s),
                    None => {
                        defs.broken_skills.insert(stem.to_owned());
                    }
                }
            }
            _ => d.push(unexpected_file(id, path)),
        }
    }
    defs
}

/// surface.yaml and roles.yaml (required), aliases.yaml and retired.yaml (optional).
fn read_top_level_files(
    defs: &mut model::Defs,
    sources: &Sources,
    parsed: &[(Option<yaml::Node>, Vec<Diagnostic>)],
    d: &mut Vec<Diagnostic>,
) {
    let parse = |path: &str| -> Option<Option<&yaml::Node>> {
        let id = sources.find(path)?;
        Some(parsed.get(id.0 as usize).and_then(|(n, _)| n.as_ref()))
    };
    match parse("surface.yaml") {
        None => d.push(
            Diagnostic::error(
                "missing-file",
                None,
                format!("{}/surface.yaml is missing", root_name(sources)),
            )
            .with_hint("it declares the families, the trait vocabulary and the limits"),
        ),
        Some(Some(node)) => defs.surface = model::read_surface(node, d),
        Some(None) => {}
    }
    match parse("roles.yaml") {
        None => {
            defs.roles_broken = true;
            d.push(Diagnostic::error(
                "missing-file",
                None,
                format!("{}/roles.yaml is missing", root_name(sources)),
            ))
        }
        Some(Some(node)) => defs.roles = model::read_roles(node, d),
        Some(None) => defs.roles_broken = true,
    }
    if let Some(Some(node)) = parse("aliases.yaml") {
        defs.aliases = model::read_aliases(node, d);
    }
    if let Some(Some(node)) = parse("retired.yaml") {
        defs.retired = model::read_retired(node, d);
    }
}

/// A file that is none of the definitions (a typo of a top-level name, or one nested too
/// deep).
fn unexpected_file(id: FileId, path: &str) -> Diagnostic {
    let top: Vec<&str> = TOP_LEVEL.to_vec();
    let nested = ["tools/", "skills/", "grammars/"]
        .into_iter()
        .find(|dir| path.starts_with(dir));
    let hint = match nested {
        Some(dir) => Some(format!(
            "files go directly under {dir} (no subfolders): {dir}<name>{}",
            if dir == "grammars/" { ".lark" } else { ".yaml" }
        )),
        None => diag::did_you_mean(path, top.iter().copied()),
    };
    let hint = hint.unwrap_or_else(|| {
        "definitions are surface.yaml, roles.yaml, aliases.yaml, retired.yaml, tools/*.yaml, skills/*.yaml, grammars/*".to_owned()
    });
    Diagnostic::error(
        "unexpected-file",
        Some(Span::file_start(id)),
        format!("unexpected file `{path}` in the definitions folder"),
    )
    .with_hint(hint)
}
fn root_name(sources: &Sources) -> &str {
    if sources.root.is_empty() {
        "."
    } else {
        sources.root.trim_end_matches('/')
    }
}

/// Read every definitions file under `root`: the four top-level YAML files, `tools/` and
/// `skills/` (`*.yaml`, `*.yml`) and `grammars/`. Other files (the lock, READMEs) are not
/// definitions and are left out; a stray YAML file is kept so `compile` can name it.
/// Sorted by path.
pub fn read_dir(root: &Path) -> std::io::Result<Sources> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        // Follow symlinks: a linked definitions file is a definitions file.
        let meta = std::fs::metadata(entry.path())?;
        if meta.is_file() && is_yaml(&name) {
            files.push(read_file(&entry.path(), name)?);
        } else if meta.is_dir() && matches!(name.as_str(), "tools" | "skills" | "grammars") {
            walk(&entry.path(), &name, name == "grammars", 0, &mut files)?;
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Sources {
        root: root.display().to_string(),
        files,
    })
}

fn is_yaml(name: &str) -> bool {
    name.ends_with(".yaml") || name.ends_with(".yml")
}

/// Collect the files under `dir` (shown as `display/...`). Nested YAML files are kept so
/// `compile` can report them as misplaced instead of silently ignoring them.
fn walk(
    dir: &Path,
    display: &str,
    any_file: bool,
    depth: usize,
    files: &mut Vec<SourceFile>,
) -> std::io::Result<()> {
    if depth > 4 {
        return Ok(());
    }
    for sub in std::fs::read_dir(dir)? {
        let sub = sub?;
        let name = sub.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let meta = std::fs::metadata(sub.path())?;
        let shown = format!("{display}/{name}");
        if meta.is_dir() {
            walk(&sub.path(), &shown, any_file, depth + 1, files)?;
        } else if meta.is_file() && (any_file || is_yaml(&name)) {
            files.push(read_file(&sub.path(), shown)?);
        }
    }
    Ok(())
}

/// Read one file's bytes; text that is not UTF-8 is not an I/O error but an invalid
/// definition, which `compile` reports at the first bad byte.
fn read_file(path: &Path, display: String) -> std::io::Result<SourceFile> {
    let bytes = std::fs::read(path)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    Ok(SourceFile::from_bytes(display, bytes))
}

/// `not-utf8`: the file's first byte that is not UTF-8, at its line and column (the lossy
/// text is identical to the file up to that byte, so the position is exact).
fn not_utf8(id: FileId, file: &SourceFile, at: usize) -> Diagnostic {
    let before = file.text.get(..at).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let span = Span {
        file: id,
        line: before.matches('\n').count() as u32 + 1,
        col: before[line_start..].chars().count() as u32 + 1,
        len: 1,
    };
    Diagnostic::error(
        "not-utf8",
        Some(span),
        format!("the file is not UTF-8 text (byte {at} is the first invalid one)"),
    )
    .with_hint("definitions are UTF-8; re-save the file as UTF-8")
}
