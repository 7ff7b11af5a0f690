//! toolsurface: declarative tool surfaces for LLM agent frameworks.
//!
//! This facade re-exports the compiler, the runtime and the `surface!` macro, carries the
//! standard surface compiled from `tool-defs/` by build.rs ([`standard`]), and the CLI.

extern crate self as toolsurface;

pub use toolsurface_compiler as compiler;
pub use toolsurface_macros::surface;
pub use toolsurface_runtime as runtime;

pub mod cli;
