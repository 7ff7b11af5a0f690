//! Every integration test of this crate, as modules of one test binary: one link instead of
//! one per file (the suite's build time and disk), and one process whose threads run them all.
//! A new test file is a new `mod` line here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

// Support modules, declared once for every test module (`use crate::…`).
mod host_support;
mod parse_support;

mod adopt_call_check;
mod codegen;
mod conformance;
mod crate_shape;
mod emit_skills;
mod emit_skills_mixed;
mod function_length;
mod gen_typescript;
mod host_conversations;
mod host_outputs;
mod host_sandbox;
mod host_shell;
mod host_skills;
mod host_surface;
mod host_tools;
mod implements_agree;
mod introspect_targets_agree;
mod parse;
mod parse_props;
