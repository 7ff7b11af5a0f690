//! toolsurface: declarative tool surfaces for LLM agent frameworks.
//!
//! This facade is what a host links: the standard surface compiled from `tool-defs/` by
//! build.rs ([`standard`]), [`host::StandardHost`] that runs it, the runtime types a host
//! handles ([`runtime`]), and, with the `macros` feature, `surface!` for a host's own
//! definitions. The `cli` feature (on by default) adds the `toolsurface` binary's CLI and
//! MCP server; a host that turns default features off builds neither clap, anyhow, rmcp,
//! hyper nor the compiler's token counter (the compiler is only a build-dependency).

extern crate self as toolsurface;

#[cfg(feature = "macros")]
pub use toolsurface_macros::surface;

/// `Call::parse`'s rules for any definitions folder (replay, `check`), from its plan.
#[cfg(feature = "cli")]
pub use toolsurface_compiler::plan::interp as call_check;
#[cfg(feature = "cli")]
pub mod cli;
pub mod host;
#[cfg(feature = "cli")]
pub mod mcp;
/// Reading (and generating) agent transcripts for `usage` and `replay`.
#[cfg(feature = "cli")]
pub mod transcript;

/// The runtime types a host handles, by name: turns and their results, wake-ups, the
/// provider config `introspect` reports, and the store traits a host may implement. The
/// runtime crate's other modules are internal to the facade.
pub mod runtime {
    pub use toolsurface_runtime::call::{
        CallContext, CallInfo, Route, ToolError, ToolNames, ToolOutput,
    };
    pub use toolsurface_runtime::core::{
        Batch, LlmProviderConfig, Outcome, Secret, SkillStrategy, ToolResult, Turn, TurnFault,
        TurnKind, WakeKind, WakeReceiver, WakeUp, rehearsal_refusal, sha256_hex,
    };
    // The runtime's typed scope: role, family and skills as the generated enums
    // (`Scope<standard::Names>`), and the traits those enums implement.
    pub use toolsurface_runtime::core::{Scope, SurfaceName, SurfaceNames, UnknownSurfaceName};
    // Skill activation: what it did and the dialect's reply to it.
    pub use toolsurface_runtime::core::{
        Activation, ActivationReply, SkillDelivery, SkillTool, ToolResultBlock, ToolSearchOutput,
    };
    pub use toolsurface_runtime::memory::FactStore;
    pub use toolsurface_runtime::messages::{ImportReport, MessageStore, import_jsonl};
    /// The sandbox a host's roles run under (policy types for `HostConfig::sandbox`), and
    /// the helper: a host binary calls [`sandbox::serve_helper_from_main`] first thing in
    /// `main` to be its own shell sandbox helper.
    pub mod sandbox {
        pub use toolsurface_runtime::sandbox::{
            Devices, Enforcement, HELPER_ARG, KernelStatus, Policy, Profile, kernel_status,
            serve_helper_from_main,
        };
    }
}

/// The standard surface compiled from `tool-defs/` by build.rs: `Role`, `Family`, `Call`
/// (`Call::parse`, the trait tables), `Handlers`, `published()` (see the `codegen` docs of
/// the compiler). A host with its own definitions gets the same items from `surface!`.
pub mod standard {
    include!(concat!(env!("OUT_DIR"), "/standard.rs"));
}

pub use toolsurface_kernel::{Arguments, CallError, CallErrorKind};

/// Paths the generated code (build.rs output and `surface!` expansions) refers to. Not an API.
#[doc(hidden)]
pub mod __private {
    pub use regex;
    pub use serde;
    pub use serde_json;
    pub use toolsurface_kernel::*;
    pub use toolsurface_runtime::SkillStrategy;
    pub use toolsurface_runtime::call::{
        CallContext, CallInfo, HandlerResult, Route, SessionTarget, ToolError, ToolNames,
        ToolOutput,
    };
    pub use toolsurface_runtime::core::SkillDelivery;
    pub use toolsurface_runtime::core::SurfaceName;
    pub use toolsurface_runtime::core::SurfaceNames;
    pub use toolsurface_runtime::core::TurnKind;
    pub use toolsurface_runtime::sandbox;
}
