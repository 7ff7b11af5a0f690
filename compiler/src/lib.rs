//! toolsurface's compiler: definitions (YAML, with spans) -> checked IR -> published schemas,
//! Rust tokens, the lock and the surface diff.
//!
//! Invariants: no I/O beyond reading the definitions folder it is pointed at ([`read_dir`]);
//! never panics on user input; every error is reported, not just the first; output order
//! never depends on hash iteration order.

pub mod codegen;
pub mod diag;
#[cfg(feature = "tokens")]
pub mod diff;
pub mod emit;
pub mod ir;
pub mod load;
#[cfg(feature = "tokens")]
pub mod lock;
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
