//! The crate-shape invariants of ARCHITECTURE.md, checked against cargo's own resolution
//! (`cargo tree`, `cargo metadata`) rather than by reading Cargo.toml: what a host that links
//! the facade builds (with default features and without), that the binary is its own crate
//! and the one `cargo run` runs at the root, and what the runtime may not depend on.

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

/// What only the binary's crate (`toolsurface-cli`, cli/) brings, and a linking host must not
/// build: the CLI, the MCP server and the token counter. (anyhow is not here: the runtime's
/// portable-pty brings it; the library itself never names it, see below.)
const CLI_ONLY: &[&str] = &[
    "toolsurface-cli",
    "clap",
    "rmcp",
    "hyper",
    "hyper-util",
    "http-body-util",
    "tiktoken-rs",
];

#[test]
fn a_host_with_default_features_links_no_cli_mcp_or_token_counter() {
    // The default feature is `macros` (`surface!`): its proc-macro runs the compiler, but
    // without token counts, and nothing of the binary comes with it.
    let normal = resolved("toolsurface", &["-e", "normal"]);
    assert!(normal.contains("toolsurface-runtime"), "{normal:?}");
    assert!(normal.contains("toolsurface-macros"), "{normal:?}");
    assert_eq!(present(&normal, CLI_ONLY), Vec::<&str>::new());
    // Its errors are concrete types: anyhow is the binary's, never a dependency of its own.
    let direct = resolved("toolsurface", &["-e", "normal", "--depth", "1"]);
    assert!(direct.contains("toolsurface-runtime"), "{direct:?}");
    assert_eq!(present(&direct, &["anyhow"]), Vec::<&str>::new());
}

#[test]
fn a_host_without_default_features_links_no_cli_mcp_or_compiler() {
    let normal = resolved("toolsurface", &["--no-default-features", "-e", "normal"]);
    assert!(normal.contains("toolsurface-runtime"), "{normal:?}");
    let mut forbidden = CLI_ONLY.to_vec();
    forbidden.extend([
        "toolsurface-compiler",
        "toolsurface-macros",
        "serde-saphyr",
        "minijinja",
        "prettyplease",
    ]);
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
    assert_eq!(present(&with_build, CLI_ONLY), Vec::<&str>::new());
}

/// `cargo metadata --no-deps` of the workspace.
fn metadata() -> serde_json::Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["metadata", "--locked", "--no-deps", "--format-version", "1"])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// With `autotests = false` a file under `tests/` that is neither a `[[test]]` target nor a
/// `mod` of the crate's `tests/suite.rs` would never be compiled, and its tests never run:
/// every one must be one of the two.
#[test]
fn every_integration_test_file_is_compiled_into_a_test_target() {
    let meta = metadata();
    let mut orphans = Vec::new();
    let mut seen = 0;
    for package in meta["packages"].as_array().unwrap() {
        let manifest = std::path::Path::new(package["manifest_path"].as_str().unwrap());
        let tests = manifest.parent().unwrap().join("tests");
        let Ok(entries) = std::fs::read_dir(&tests) else {
            continue;
        };
        let targets: BTreeSet<std::path::PathBuf> = package["targets"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "test"))
            .map(|t| std::path::PathBuf::from(t["src_path"].as_str().unwrap()))
            .collect();
        let suite = std::fs::read_to_string(tests.join("suite.rs")).unwrap_or_default();
        let mods: BTreeSet<&str> = suite
            .lines()
            .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
            .collect();
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            seen += 1;
            let stem = path.file_stem().unwrap().to_str().unwrap();
            if !targets.contains(&path) && !mods.contains(stem) {
                orphans.push(path.display().to_string());
            }
        }
    }
    assert!(seen > 50, "found only {seen} test files: wrong place?");
    assert_eq!(
        orphans,
        Vec::<String>::new(),
        "add a `mod` line to tests/suite.rs"
    );
}

#[test]
fn the_binary_is_its_own_crate_and_the_one_cargo_runs_at_the_root() {
    let cli = resolved("toolsurface-cli", &["-e", "normal"]);
    let mut stack: Vec<&str> = CLI_ONLY
        .iter()
        .copied()
        .filter(|n| *n != "toolsurface-cli")
        .collect();
    stack.push("anyhow");
    assert_eq!(present(&cli, &stack), stack);
    assert!(cli.contains("toolsurface"), "{cli:?}");
    // `cargo run` / `cargo build` at the root act on the default members: the binaries among
    // them must be exactly `toolsurface`, owned by toolsurface-cli.
    let meta = metadata();
    let defaults: Vec<&str> = meta["workspace_default_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();
    let mut bins = Vec::new();
    for package in meta["packages"].as_array().unwrap() {
        if !defaults.contains(&package["id"].as_str().unwrap()) {
            continue;
        }
        for target in package["targets"].as_array().unwrap() {
            if target["kind"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k == "bin")
            {
                let (bin, owner) = (target["name"].as_str(), package["name"].as_str());
                bins.push(format!("{} in {}", bin.unwrap(), owner.unwrap()));
            }
        }
    }
    assert_eq!(bins, ["toolsurface in toolsurface-cli"]);
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
