//! Every integration test of this crate, as modules of one test binary: one link instead of
//! one per file (the suite's build time and disk), and one process whose threads run them all.
//! A new test file is a new `mod` line here.
//!
//! `shell_cleanup.rs` and `shell_memory.rs` stay test binaries of their own (Cargo.toml): they
//! count the process's open file descriptors and read its resident memory, which the other
//! tests' threads would move.

#![allow(clippy::unwrap_used, clippy::expect_used)]

// Support modules, declared once for every test module (`use crate::…`).
mod core_support;
#[path = "support/shell.rs"]
mod shell_support;
mod support;
// `support/shell.rs` reaches its neighbour as `super::names_support`.
use support::names_support;

mod core_interrupt;
mod core_introspect;
mod core_no_name_literals;
mod core_rehearsal;
mod core_routing;
mod core_schedule;
mod core_skills;
mod core_wake;
mod data_sql;
mod files_local;
mod files_patch;
mod files_remote;
mod grep_files;
mod memory_search;
mod messages_import;
mod messages_read;
mod sandbox_files;
mod sandbox_shell;
mod shell_basic;
mod shell_wake;
mod workdirs_set;
