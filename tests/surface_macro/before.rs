//! The pre-merge surface of the case study compiles through `surface!` as well.

mod surface {
    toolsurface::surface!("examples/consolidation/before");
}

#[test]
fn surface_macro_on_the_pre_merge_surface() {
    let role = surface::Role::ALL[0];
    let family = surface::Family::ALL[0];
    assert!(surface::published(role, family).starts_with('['));
    // Every tool of the old surface parses with no arguments or refuses with a model-facing text.
    for tool in surface::Tool::ALL {
        match surface::Call::parse(role, family, tool.as_str(), "{}") {
            Ok(call) => assert_eq!(call.tool(), tool),
            Err(e) => assert!(!e.message.is_empty()),
        }
    }
}
