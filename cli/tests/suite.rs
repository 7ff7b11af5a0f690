//! Every integration test of this crate, as modules of one test binary: one link instead of
//! one per file (the suite's build time and disk), and one process whose threads run them all.
//! A new test file is a new `mod` line here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

// Support modules, declared once for every test module (`use crate::…`).
mod cli_support;

mod adopt_corpus;
mod adopt_import;
mod adopt_transcripts;
mod cli_messages;
mod cli_plan;
mod cli_surface;
mod consolidate_cli;
mod consolidate_proof;
mod diff_cli;
mod emit_stable;
mod fuzz_smoke;
mod lint_examples;
mod lock_check;
