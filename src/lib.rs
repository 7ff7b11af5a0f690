//! toolsurface: declarative tool surfaces for LLM agent frameworks.
//!
//! This facade re-exports the compiler, the runtime and the `surface!` macro, carries the
//! standard surface compiled from `tool-defs/` by build.rs ([`standard`]), and the CLI.

extern crate self as toolsurface;

pub use toolsurface_compiler as compiler;
pub use toolsurface_macros::surface;
pub use toolsurface_runtime as runtime;

pub mod call_check;
pub mod cli;
pub mod host;
pub mod mcp;
pub mod transcript;

/// The standard surface compiled from `tool-defs/` by build.rs: `Role`, `Family`, `Call`
/// (`Call::parse`, the trait tables), `Handlers`, `published()` (see the `codegen` docs of
/// the compiler). A host with its own definitions gets the same items from `surface!`.
pub mod standard {
    include!(concat!(env!("OUT_DIR"), "/standard.rs"));
}

mod private;

pub use private::{Arguments, CallError, CallErrorKind};

/// Paths the generated code (build.rs output and `surface!` expansions) refers to. Not an API.
#[doc(hidden)]
pub mod __private {
    pub use crate::private::*;
    pub use regex;
    pub use serde;
    pub use serde_json;
    pub use toolsurface_runtime::call::{
        CallContext, CallInfo, HandlerResult, Route, SessionTarget, ToolError, ToolOutput,
    };
}
