//! The generator on the standard definitions: tokens parse as a file and render stamped.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn standard() -> (crate::Sources, crate::Compiled) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-defs");
    let sources = crate::read_dir(&root).expect("read tool-defs");
    let compiled = crate::compile(&sources);
    (sources, compiled)
}

#[test]
fn standard_surface_renders() {
    let (sources, compiled) = standard();
    let Some(ir) = compiled.ir else {
        panic!(
            "{}",
            crate::diag::render_all(&compiled.diagnostics, &sources)
        );
    };
    let tokens = generate(&ir).expect("generate");
    assert!(
        syn::parse2::<syn::File>(tokens.clone()).is_ok(),
        "tokens parse as a file"
    );
    let text = render(&tokens);
    assert!(text.starts_with(STAMP));
    assert!(text.contains("pub mod shell_session"));
    if let Ok(out) = std::env::var("TOOLSURFACE_DUMP") {
        std::fs::write(out, &text).unwrap();
    }
}

#[test]
fn render_is_deterministic() {
    let (_, compiled) = standard();
    let ir = compiled.ir.expect("valid");
    let a = render(&generate(&ir).expect("generate"));
    let b = render(&generate(&ir).expect("generate"));
    assert_eq!(a, b);
}

/// The runtime's texts name tools through `TOOL_NAMES`, built from each tool's name and its
/// `implements:` type: renaming the tool renames the entry, and so every text.
#[test]
fn tool_names_follow_a_rename() {
    let (_, compiled) = standard();
    let mut ir = compiled.ir.expect("valid");
    let table = |ir: &crate::Ir| implements::tool_names(ir).to_string().replace(' ', "");
    let before = table(&ir);
    let entry = "TypeId::of::<toolsurface_runtime::files::WriteFile>asfn()->::core::any::TypeId,\"";
    assert!(before.contains(&format!("{entry}write_file\"")), "{before}");
    let write = ir
        .tools
        .iter_mut()
        .find(|t| t.name == "write_file")
        .expect("write_file");
    write.name = "put_file".into();
    let after = table(&ir);
    assert!(after.contains(&format!("{entry}put_file\"")), "{after}");
    assert!(!after.contains("write_file"), "{after}");
}
