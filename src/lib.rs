//! toolsurface: declarative tool surfaces for LLM agent frameworks.
//!
//! This facade is what a host links: the standard surface compiled from `tool-defs/` by
//! build.rs ([`standard`]), [`host::StandardHost`] that runs it, the runtime types a host
//! handles ([`runtime`]), the call-parsing kernel's errors ([`CallError`]) and, with the
//! `macros` feature (on by default), `surface!` for a host's own definitions. The
//! `toolsurface` binary (CLI, MCP server) is its own crate, `toolsurface-cli`: linking this
//! one builds no clap, anyhow, rmcp, hyper nor the compiler's token counter, and with default
//! features off no compiler at all but as build.rs's build-dependency.

extern crate self as toolsurface;

#[cfg(feature = "macros")]
pub use toolsurface_macros::surface;

pub mod host;

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
    // `STANDARD_SOURCES`: the definitions files this surface was compiled from, which
    // `toolsurface check` (and every command) compiles where no folder is found.
    include!(concat!(env!("OUT_DIR"), "/standard_sources.rs"));
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
