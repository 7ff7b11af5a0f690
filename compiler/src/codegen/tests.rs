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

/// A field's `default:` is filled in by the `implements:` conversion, typed as the generated
/// field (so the runtime field holds the plain value and a type that cannot hold it does not
/// compile); without one the field stays an `Option`. A default the conversion cannot
/// build yet (an object or JSON value) is a `compile_error!`, not a silent `None`.
#[test]
fn the_conversion_fills_a_fields_default() {
    let (_, compiled) = standard();
    let mut ir = compiled.ir.expect("valid");
    let text = |ir: &crate::Ir| generate(ir).expect("generate").to_string().replace(' ', "");
    let filled = |n: &str| {
        format!(
            "limit:::toolsurface::__private::FromNonNegative::from_non_negative(c.limit.unwrap_or({n}i64))"
        )
    };
    let unfilled =
        "limit:c.limit.map(::toolsurface::__private::FromNonNegative::from_non_negative)";
    let before = text(&ir);
    assert!(before.contains(&filled("100")), "sql_query's limit");
    let optional = before.matches(unfilled).count();
    fn default(ir: &mut crate::Ir) -> &mut Option<serde_json::Value> {
        let tool = ir.tools.iter_mut().find(|t| t.name == "sql_query").unwrap();
        let field = tool.fields.iter_mut().find(|f| f.name == "limit").unwrap();
        let crate::ir::Type::Annotated { ann, .. } = &mut field.ty else {
            panic!("limit carries its default as an annotation");
        };
        &mut ann.default
    }
    *default(&mut ir) = Some(serde_json::json!(7));
    assert!(text(&ir).contains(&filled("7")));
    *default(&mut ir) = None;
    let after = text(&ir);
    assert!(!after.contains(&filled("100")));
    assert_eq!(after.matches(unfilled).count(), optional + 1);
    *default(&mut ir) = Some(serde_json::json!({"rows": 1}));
    assert!(text(&ir).contains("compile_error!"));
}

/// A shape is one Rust type, named after it, however many fields, items, properties and
/// branches use it (the plan inlines each use; codegen defines the type once).
#[test]
fn a_shape_is_one_type_named_after_it() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/kinds");
    let sources = crate::read_dir(&root).expect("read the conformance fixture");
    let compiled = crate::compile(&sources);
    let Some(ir) = compiled.ir else {
        panic!(
            "{}",
            crate::diag::render_all(&compiled.diagnostics, &sources)
        );
    };
    let text = render(&generate(&ir).expect("generate"));
    let module = text
        .split("pub mod route {")
        .nth(1)
        .and_then(|m| m.split("\npub mod ").next())
        .expect("the route module");
    for def in ["pub struct Point {", "pub struct Leg {", "pub enum Mode {"] {
        assert_eq!(module.matches(def).count(), 1, "{def} once in:\n{module}");
    }
    // `point` is used by a field, by `leg.to` and by a union branch: one type, no copies.
    assert!(!module.contains("pub struct Point2"), "{module}");
    assert!(module.contains("pub start: Point,"), "{module}");
    assert!(module.contains("pub to: Point,"), "{module}");
    assert!(
        module.contains("pub legs: ::std::vec::Vec<Leg>,"),
        "{module}"
    );
    assert!(
        module.contains("pub via: ::core::option::Option<Mode>,"),
        "{module}"
    );
}

/// An action's own default (`defaults:`) is what the conversion fills in that action's arm:
/// message_read's `limit` is 50 messages in `History`, 10 turns in `Turns`, 4000 characters
/// in `Payload`; changing one action's changes that arm alone.
#[test]
fn the_conversion_fills_each_actions_own_default() {
    let (_, compiled) = standard();
    let mut ir = compiled.ir.expect("valid");
    let limits = |ir: &crate::Ir| -> Vec<String> {
        let text = generate(ir).expect("generate").to_string().replace(' ', "");
        ["History", "Turns", "Payload"]
            .iter()
            .map(|variant| {
                let head = format!("toolsurface_runtime::messages::MessageRead::{variant}(");
                let at = text
                    .find(&head)
                    .unwrap_or_else(|| panic!("no {variant} arm"));
                let arm = &text[at..];
                let arm = &arm[..arm.find("})").unwrap_or(arm.len())];
                let fill = arm
                    .split("c.limit.unwrap_or(")
                    .nth(1)
                    .unwrap_or_else(|| panic!("{variant}: limit not filled: {arm}"));
                fill[..fill.find(')').unwrap_or(fill.len())].to_owned()
            })
            .collect()
    };
    assert_eq!(limits(&ir), ["50i64", "10i64", "4000i64"]);
    let read = ir
        .tools
        .iter_mut()
        .find(|t| t.name == "message_read")
        .unwrap();
    let turns = read
        .actions
        .iter_mut()
        .find(|a| a.name.as_deref() == Some("turns"))
        .unwrap();
    turns.defaults.insert("limit".into(), serde_json::json!(7));
    assert_eq!(limits(&ir), ["50i64", "7i64", "4000i64"]);
}
