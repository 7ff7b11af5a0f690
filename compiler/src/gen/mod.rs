//! Host-language generators: a [`crate::plan::Plan`] in, files out (no I/O here; the CLI's
//! `toolsurface gen` writes them). Each reads the plan alone and never the IR, so a rule
//! exists once as data and once per language as a small hand-written kernel and walk, which
//! the generator writes out verbatim beside the plan's data.

pub mod python;
pub mod typescript;

/// One generated file: its path relative to the output folder and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    pub path: String,
    pub contents: String,
}
