//! `toolsurface check`: compile the definitions, print every diagnostic, and summarize the
//! published surfaces. Never writes anything. [`compile_dir`] is the shared
//! compile-and-report step other subcommands (emit, diff, stats, lock) build on.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use toolsurface_compiler::ir::Ir;
use toolsurface_compiler::{Sources, compile_folder};

use super::Status;

#[derive(clap::Args, Debug)]
#[command(
    long_about = "Compile the definitions folder and report every error at once (file:line:col, \
                  a source excerpt and a fix hint), then print the resident tool and action \
                  counts of every role × family. Nothing is ever written.",
    after_help = "Exit codes: 0 valid and locked, 1 invalid definitions (or warnings with \
                  --deny-warnings, or a role over its token budget), 2 usage error (e.g. the \
                  folder does not exist), 3 compatible drift from surface.lock, 4 breaking \
                  drift."
)]
pub struct Args {
    /// Definitions folder (surface.yaml, roles.yaml, tools/, ...).
    #[arg(default_value = "tool-defs")]
    pub dir: PathBuf,
    /// Treat warnings (e.g. a declared field no action uses) as errors.
    #[arg(long)]
    pub deny_warnings: bool,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let (sources, ir, warnings) = match compile_dir_with_warnings(&args.dir)? {
        Ok(compiled) => compiled,
        Err(status) => return Ok(status),
    };
    if args.deny_warnings && warnings > 0 {
        eprintln!("error: {warnings} warning(s) and --deny-warnings");
        return Ok(Status::Invalid);
    }
    let mut out = std::io::stdout().lock();
    out.write_all(surface_table(&ir).as_bytes())?;
    out.flush()?;
    drop(out);
    // Token budgets and the lock (drift.rs): drift exits 3 / 4, never writes.
    super::drift::check_lock(&args.dir, &sources, &ir)
}

/// Read and compile `dir`, printing every diagnostic (errors and warnings) to stderr.
///
/// `Err(_)` from the outer result: the folder could not be read (a usage error).
/// `Ok(Err(Status::Invalid))`: the definitions have errors (already printed).
/// `Ok(Ok((sources, ir)))`: valid; warnings, if any, were printed.
pub fn compile_dir(dir: &Path) -> anyhow::Result<Result<(Sources, Ir), Status>> {
    Ok(compile_dir_with_warnings(dir)?.map(|(sources, ir, _)| (sources, ir)))
}

/// [`compile_dir`], also returning how many warnings were printed.
pub fn compile_dir_with_warnings(
    dir: &Path,
) -> anyhow::Result<Result<(Sources, Ir, usize), Status>> {
    if !dir.is_dir() {
        anyhow::bail!(
            "{} is not a definitions folder (no such directory)",
            dir.display()
        );
    }
    let folder = compile_folder(dir, &dir.display().to_string())
        .with_context(|| format!("reading definitions from {}", dir.display()))?;
    report_folder(folder, &[])
}

/// [`compile_dir`] printing no warning whose code is in `reported_later`: a command that
/// reports those itself (lint's `no-example` findings) prints each once.
pub fn compile_dir_reporting_later(
    dir: &Path,
    reported_later: &[&str],
) -> anyhow::Result<Result<(Sources, Ir), Status>> {
    if !dir.is_dir() {
        anyhow::bail!(
            "{} is not a definitions folder (no such directory)",
            dir.display()
        );
    }
    let folder = compile_folder(dir, &dir.display().to_string())
        .with_context(|| format!("reading definitions from {}", dir.display()))?;
    Ok(report_folder(folder, reported_later)?.map(|(sources, ir, _)| (sources, ir)))
}

/// The folder a command looks for when none is given.
pub const DEFAULT_DIR: &str = "tool-defs";

/// Where a command's definitions come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Defs {
    /// A definitions folder (given, or `tool-defs` found in the current directory).
    Folder(PathBuf),
    /// No folder given and no `tool-defs` here: the standard surface built into the binary,
    /// the one `serve` and `validate` use.
    Embedded,
}

impl Defs {
    /// `dir` when given; else [`DEFAULT_DIR`] when it is a folder here; else the embedded
    /// standard surface.
    pub fn resolve(dir: Option<&Path>) -> Defs {
        match dir {
            Some(d) => Defs::Folder(d.to_path_buf()),
            None if Path::new(DEFAULT_DIR).is_dir() => Defs::Folder(PathBuf::from(DEFAULT_DIR)),
            None => Defs::Embedded,
        }
    }

    /// How a command names the surface it used (on stderr: stdout stays the output).
    pub fn describe(&self) -> String {
        match self {
            Defs::Folder(d) => format!("the definitions in {}", d.display()),
            Defs::Embedded => format!(
                "the standard surface built into this binary (no folder given, no {DEFAULT_DIR}/ here)"
            ),
        }
    }

    /// The folder, for messages and for commands that need one (`(built-in)` otherwise).
    pub fn shown(&self) -> String {
        match self {
            Defs::Folder(d) => d.display().to_string(),
            Defs::Embedded => "(built-in standard surface)".to_owned(),
        }
    }
}

/// Compile the definitions `dir` names (see [`Defs::resolve`]), saying on stderr which
/// surface is used, then as [`compile_dir`].
pub fn compile_defs(dir: Option<&Path>) -> anyhow::Result<Result<(Sources, Ir), Status>> {
    let defs = Defs::resolve(dir);
    eprintln!("toolsurface: using {}", defs.describe());
    match defs {
        Defs::Folder(d) => compile_dir(&d),
        Defs::Embedded => {
            let files = toolsurface::standard::STANDARD_SOURCES
                .iter()
                .map(|(path, text)| toolsurface_compiler::SourceFile {
                    path: (*path).to_owned(),
                    text: (*text).to_owned(),
                    not_utf8_at: None,
                })
                .collect();
            let sources = Sources {
                root: Defs::Embedded.shown(),
                files,
            };
            let compiled = toolsurface_compiler::compile(&sources);
            let folder = toolsurface_compiler::Folder { sources, compiled };
            Ok(report_folder(folder, &[])?.map(|(sources, ir, _)| (sources, ir)))
        }
    }
}

/// Add a compiled folder's `no-example` warnings, print its diagnostics (but the warnings whose code
/// is in `reported_later`), and hand back the IR when nothing is an error.
fn report_folder(
    mut folder: toolsurface_compiler::Folder,
    reported_later: &[&str],
) -> anyhow::Result<Result<(Sources, Ir, usize), Status>> {
    // The compile decoded every example already; an action without one is check's warning.
    if let Some(ir) = &folder.compiled.ir {
        let missing = toolsurface_compiler::load::examples::missing_examples(&ir.tools);
        folder.compiled.diagnostics.extend(missing);
        toolsurface_compiler::load::sort_diagnostics(&mut folder.compiled.diagnostics);
    }
    let shown: Vec<toolsurface_compiler::Diagnostic> = folder
        .compiled
        .diagnostics
        .iter()
        .filter(|d| {
            d.severity != toolsurface_compiler::Severity::Warning
                || !reported_later.contains(&d.code)
        })
        .cloned()
        .collect();
    if !shown.is_empty() {
        let mut err = std::io::stderr().lock();
        let report = toolsurface_compiler::diag::render_all(&shown, &folder.sources);
        err.write_all(report.as_bytes())?;
        err.flush()?;
    }
    match folder.into_valid() {
        Ok(valid) => Ok(Ok((valid.sources, valid.ir, valid.warnings.len()))),
        Err(_) => Ok(Err(Status::Invalid)),
    }
}

/// One row per role × family: resident tools, their actions, and the tools skills can add.
pub fn surface_table(ir: &Ir) -> String {
    let header = [
        "role",
        "family",
        "dialect",
        "tools",
        "actions",
        "skill tools",
    ];
    let mut rows: Vec<Vec<String>> = Vec::new();
    for s in &ir.surfaces {
        let actions: usize = s
            .tools
            .iter()
            .filter_map(|t| ir.tool(&t.name))
            .map(|t| t.actions.len())
            .sum();
        let skill_tools: usize = s.skills.iter().map(|k| k.tools.len()).sum();
        rows.push(vec![
            s.role.clone(),
            s.family.clone(),
            s.dialect.as_str().to_owned(),
            s.tools.len().to_string(),
            actions.to_string(),
            skill_tools.to_string(),
        ]);
    }
    // Text left-aligned, counts right-aligned.
    let style = toolsurface_text::TableStyle {
        separator: "  ",
        rule_joint: None,
        right_from: 3,
    };
    let mut out = toolsurface_text::table(&header, &rows, style);
    let _ = writeln!(
        out,
        "ok: {} tools, {} roles, {} families, {} aliases, {} retired",
        ir.tools.len(),
        ir.roles.len(),
        ir.families.len(),
        ir.aliases.len(),
        ir.retired.len()
    );
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// The repository root (this crate is its `cli/`).
    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .to_path_buf()
    }

    #[test]
    fn valid_folder_compiles_and_tabulates() {
        let (_, ir) = compile_dir(&root().join("compiler/tests/data/good"))
            .unwrap()
            .unwrap();
        let table = surface_table(&ir);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[0],
            "role       family       dialect           tools  actions  skill tools"
        );
        // side_chat × chat: shell, shell_session (4 actions), read_file, patch, activate_skill.
        assert_eq!(
            lines[1],
            "side_chat  chat         openai-chat           5        8            1"
        );
        assert_eq!(lines.len(), 1 + 8 + 1);
        assert!(lines[9].starts_with("ok: 7 tools, 2 roles, 4 families"));
    }

    #[test]
    fn invalid_folder_is_status_invalid_and_missing_folder_an_error() {
        let bad = compile_dir(&root().join("tests/data/bad/role_unknown_tool")).unwrap();
        assert!(matches!(bad, Err(Status::Invalid)));
        assert!(compile_dir(&root().join("tests/data/bad/no_such_case")).is_err());
    }
}
