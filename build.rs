//! Compiles the standard surface (`tool-defs/`) into `$OUT_DIR/standard.rs`, which the facade
//! `include!`s as `toolsurface::standard`. Invalid definitions fail the build with every
//! diagnostic printed as `cargo:warning=` lines. The file is rewritten only when its content
//! changed, so an untouched surface never recompiles the facade.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.join("tool-defs");
    let Some(out_dir) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        println!("cargo:warning=OUT_DIR is not set");
        return ExitCode::FAILURE;
    };
    rerun_for_folders(&root);
    let folder = match toolsurface_compiler::compile_folder(&root, "tool-defs") {
        Ok(f) => f,
        Err(e) => {
            println!("cargo:warning=cannot read {}: {e}", root.display());
            return ExitCode::FAILURE;
        }
    };
    for f in &folder.sources.files {
        println!("cargo:rerun-if-changed={}", root.join(&f.path).display());
    }
    if let Err(e) = write_if_changed(
        &out_dir.join("standard_sources.rs"),
        &sources_table(&root, &folder.sources),
    ) {
        println!("cargo:warning={e}");
        return ExitCode::FAILURE;
    }
    let ir = match folder.into_valid() {
        Ok(valid) => valid.ir,
        Err(folder) => {
            for line in folder.report().lines() {
                println!("cargo:warning={line}");
            }
            println!("cargo:warning=tool-defs/ is invalid; run `cargo run -- check tool-defs`");
            return ExitCode::FAILURE;
        }
    };
    let tokens = match toolsurface_compiler::codegen::generate(&ir) {
        Ok(t) => t,
        Err(e) => {
            println!("cargo:warning={e}");
            return ExitCode::FAILURE;
        }
    };
    let code = toolsurface_compiler::codegen::render(&tokens);
    let out = out_dir.join("standard.rs");
    let unchanged = std::fs::read_to_string(&out).is_ok_and(|old| old == code);
    if !unchanged && let Err(e) = std::fs::write(&out, code) {
        println!("cargo:warning=cannot write {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// `STANDARD_SOURCES`: every definitions file of `tool-defs/` as (path, text), embedded with
/// `include_str!`, so the CLI can compile the standard surface where no folder is found.
fn sources_table(root: &Path, sources: &toolsurface_compiler::Sources) -> String {
    let mut out = String::from(
        "/// The standard surface's definitions files (path under tool-defs/, text).\n\
         pub const STANDARD_SOURCES: &[(&str, &str)] = &[\n",
    );
    for f in &sources.files {
        let full = root.join(&f.path);
        out.push_str(&format!(
            "    ({:?}, include_str!({:?})),\n",
            f.path,
            full.display().to_string()
        ));
    }
    out.push_str("];\n");
    out
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Rerun when a file is added to or removed from any definitions folder.
fn rerun_for_folders(root: &Path) {
    println!("cargo:rerun-if-changed={}", root.display());
    for sub in ["tools", "skills", "grammars"] {
        let p = root.join(sub);
        if p.is_dir() {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
}
