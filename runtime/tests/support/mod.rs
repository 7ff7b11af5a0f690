//! Shared test support for the file tools: the real sshd and the contract both the local
//! and the remote suites run.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod contract;
pub mod outputs;
pub mod sshd;
