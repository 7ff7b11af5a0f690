//! toolsurface's compiler: definitions (YAML, with spans) -> checked IR -> published schemas,
//! Rust tokens, the lock and the surface diff.
//!
//! Invariants: no I/O beyond reading the definitions folder it is pointed at ([`read_dir`]);
//! never panics on user input; every error is reported, not just the first; output order
//! never depends on hash iteration order.

pub mod codegen;
pub mod consolidate;
pub mod diag;
pub mod dialect;
#[cfg(feature = "tokens")]
pub mod diff;
pub mod emit;
pub mod r#gen;
pub mod import;
pub mod ir;
pub mod load;
#[cfg(feature = "tokens")]
pub mod lock;
pub mod plan;
#[cfg(feature = "tokens")]
pub mod tokens;

pub use diag::{Diagnostic, FileId, Severity, SourceFile, Sources, Span};
pub use ir::Ir;

/// The result of compiling a definitions folder: the IR when there were no errors, and every
/// diagnostic (errors and warnings) in source order.
#[derive(Debug)]
pub struct Compiled {
    pub ir: Option<Ir>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Compiled {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Load, check and lower `sources` into the IR.
pub fn compile(sources: &Sources) -> Compiled {
    load::compile(sources)
}

/// Read every definitions file under `root` (sorted, deterministic).
pub fn read_dir(root: &std::path::Path) -> std::io::Result<Sources> {
    load::read_dir(root)
}

/// A definitions folder, read and compiled: the one entry build.rs, `surface!` and the CLI
/// share, so all three read the same files, show paths the same way and refuse the same
/// folders.
#[derive(Debug)]
pub struct Folder {
    pub sources: Sources,
    pub compiled: Compiled,
}

/// A folder that compiled without errors.
#[derive(Debug)]
pub struct ValidFolder {
    pub sources: Sources,
    pub ir: Ir,
    /// Warnings reported (they do not stop the IR).
    pub warnings: Vec<Diagnostic>,
}

/// Read the folder at `root` and compile it; diagnostics show its files as `shown_as/…`
/// (the path the user wrote). An I/O error is the folder's, not a definition's.
pub fn compile_folder(root: &std::path::Path, shown_as: &str) -> std::io::Result<Folder> {
    let mut sources = read_dir(root)?;
    sources.root = shown_as.to_owned();
    let compiled = compile(&sources);
    Ok(Folder { sources, compiled })
}

impl Folder {
    /// Every diagnostic rendered as `check` prints it (file:line:col, excerpt, hint, summary).
    pub fn report(&self) -> String {
        diag::render_all(&self.compiled.diagnostics, &self.sources)
    }

    /// The IR when nothing is an error; otherwise the folder back, for its report.
    pub fn into_valid(self) -> Result<ValidFolder, Box<Folder>> {
        match self.compiled.ir {
            Some(ir) if !self.compiled.has_errors() => Ok(ValidFolder {
                sources: self.sources,
                ir,
                warnings: self.compiled.diagnostics,
            }),
            ir => Err(Box::new(Folder {
                sources: self.sources,
                compiled: Compiled {
                    ir,
                    diagnostics: self.compiled.diagnostics,
                },
            })),
        }
    }
}
