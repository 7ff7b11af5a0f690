//! Every integration test of this crate, as modules of one test binary: one link instead of
//! one per file (the suite's build time and disk), and one process whose threads run them all.
//! A new test file is a new `mod` line here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod action_defaults;
mod bad_defs;
mod consolidate;
mod emit_snapshots;
mod emit_yaml;
mod field_shapes;
mod output_shapes;
mod support;
