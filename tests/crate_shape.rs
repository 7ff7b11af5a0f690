//! The crate-shape invariants of ARCHITECTURE.md, checked against cargo's own resolution
//! (`cargo tree`) rather than by reading Cargo.toml: what a host that links the facade with
//! default features off builds, and what the runtime may not depend on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::process::Command;

/// The package names `cargo tree` resolves for `package` with `args` (edge kinds, features).
fn resolved(package: &str, args: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree", "--locked", "--prefix", "none", "--format", "{p}", "-p", package,
        ])
        .args(args)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

fn present<'a>(deps: &BTreeSet<String>, names: &[&'a str]) -> Vec<&'a str> {
    names
        .iter()
        .copied()
        .filter(|n| deps.contains(*n))
        .collect()
}

/// What the `cli` feature brings and a linking host must not build.
const CLI_ONLY: &[&str] = &[
    "clap",
    "rmcp",
    "hyper",
    "hyper-util",
    "tiktoken-rs",
    "serde-saphyr",
    "toolsurface-macros",
];

#[test]
fn a_host_without_default_features_links_no_cli_mcp_or_compiler() {
    let normal = resolved("toolsurface", &["--no-default-features", "-e", "normal"]);
    assert!(normal.contains("toolsurface-runtime"), "{normal:?}");
    let mut forbidden = CLI_ONLY.to_vec();
    forbidden.extend(["toolsurface-compiler", "minijinja", "prettyplease"]);
    assert_eq!(present(&normal, &forbidden), Vec::<&str>::new());
}

#[test]
fn the_compiler_is_only_a_build_dependency_without_token_counts() {
    // build.rs needs load + check + codegen; the BPE tables, clap and the MCP stack are
    // never built for a linking host, not even as build dependencies.
    let with_build = resolved(
        "toolsurface",
        &["--no-default-features", "-e", "normal,build"],
    );
    assert!(
        with_build.contains("toolsurface-compiler"),
        "{with_build:?}"
    );
    // The YAML loader is the compiler's own (build.rs reads tool-defs/ with it).
    let not_even_to_build: Vec<&str> = CLI_ONLY
        .iter()
        .copied()
        .filter(|n| *n != "serde-saphyr")
        .collect();
    assert_eq!(present(&with_build, &not_even_to_build), Vec::<&str>::new());
}

#[test]
fn the_default_features_are_the_whole_binary() {
    let normal = resolved("toolsurface", &["-e", "normal"]);
    assert_eq!(present(&normal, CLI_ONLY), CLI_ONLY.to_vec());
}

#[test]
fn the_runtime_knows_no_yaml_no_templates_and_no_compiler() {
    let runtime = resolved("toolsurface-runtime", &["-e", "normal"]);
    let forbidden = [
        "serde-saphyr",
        "minijinja",
        "toolsurface-compiler",
        "toolsurface-macros",
        "prettyplease",
        "clap",
        "rmcp",
    ];
    assert_eq!(present(&runtime, &forbidden), Vec::<&str>::new());
}

#[test]
fn the_compiler_knows_no_runtime() {
    let compiler = resolved("toolsurface-compiler", &["-e", "normal"]);
    let forbidden = ["toolsurface-runtime", "tokio", "rusqlite", "portable-pty"];
    assert_eq!(present(&compiler, &forbidden), Vec::<&str>::new());
}
