//! `surface!` expanded and run inside the suite's own build: on tool-defs (the same surface
//! build.rs compiles into `toolsurface::standard`), on the case study's pre-merge surface and
//! on a host fixture. The macro's refusals are pinned by tests/codegen_trybuild.rs
//! (trybuild `compile_fail`, which only needs `cargo check` in its own target).
//!
//! Paths given to `surface!` are relative to CARGO_MANIFEST_DIR (the repository root here).

// The surfaces are expanded into private modules; most of their items are not used here.
// The host fixture spells `impl Future + Send` out, as its `Handlers` trait declares it.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::manual_async_fn
)]

mod before;
mod host;
mod standard;
