//! Host-language generators: each a pure function from the [`crate::plan::Plan`] to the files
//! of one language (no I/O here; `toolsurface gen` writes them).

pub mod typescript;
