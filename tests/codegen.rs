//! The generated code for tool-defs: snapshot (insta; `INSTA_UPDATE=always` or `cargo insta
//! review` to accept), build.rs output identical to what `surface!` expands to, and
//! deterministic rendering.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use toolsurface::compiler::codegen;

fn standard_ir() -> toolsurface::compiler::Ir {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-defs");
    let mut sources = toolsurface::compiler::read_dir(&root).unwrap();
    sources.root = "tool-defs".into();
    let compiled = toolsurface::compiler::compile(&sources);
    match compiled.ir {
        Some(ir) => ir,
        None => panic!(
            "{}",
            toolsurface::compiler::diag::render_all(&compiled.diagnostics, &sources)
        ),
    }
}

/// The published arrays are pinned by tool-defs/surface.lock; here they would only make every
/// description edit churn the code snapshot, so their text is elided.
fn elide_published(code: &str) -> String {
    let re = regex::Regex::new(r#"(pub const SURFACE_\w+: &str =\s*)"(?:[^"\\]|\\.)*";"#).unwrap();
    re.replace_all(code, r#"$1"…";"#).into_owned()
}

#[test]
fn snapshot_of_generated_code() {
    let code = codegen::render(&codegen::generate(&standard_ir()).unwrap());
    assert!(code.starts_with(codegen::STAMP));
    let elided = elide_published(&code);
    assert!(
        elided.contains(r#"pub const SURFACE_SIDE_CHAT_CHAT: &str = "…";"#),
        "elision matched"
    );
    insta::assert_snapshot!("standard", elided);
}

#[test]
fn build_rs_output_is_what_the_generator_renders() {
    let built = include_str!(concat!(env!("OUT_DIR"), "/standard.rs"));
    let now = codegen::render(&codegen::generate(&standard_ir()).unwrap());
    assert!(
        built == now,
        "OUT_DIR/standard.rs is stale or differs from codegen::render"
    );
}

#[test]
fn generation_is_deterministic() {
    let ir = standard_ir();
    let a = codegen::generate(&ir).unwrap().to_string();
    let b = codegen::generate(&standard_ir()).unwrap().to_string();
    assert_eq!(a, b);
}

#[test]
fn generated_code_names_only_private_paths() {
    let code = codegen::render(&codegen::generate(&standard_ir()).unwrap());
    for line in code.lines() {
        if let Some(i) = line.find("::toolsurface::") {
            assert!(line[i..].starts_with("::toolsurface::__private"), "{line}");
        }
        assert!(!line.contains("toolsurface_runtime"), "{line}");
    }
}
