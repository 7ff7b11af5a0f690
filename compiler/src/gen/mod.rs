//! Host-language generators: a [`crate::plan::Plan`] in, files out (no I/O here; the CLI's
//! `toolsurface gen` writes them). Each reads the plan alone and never the IR, so a rule
//! exists once as data and once per language as a small hand-written kernel.

pub mod python;
