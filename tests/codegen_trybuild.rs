//! trybuild `compile_fail`: the `surface!` macro's errors are pinned (`.stderr`), spanned on
//! the path literal. Only `compile_fail` cases live here, so trybuild runs `cargo check` in
//! its own target (no full second build of the workspace); what the macro expands to is
//! compiled and run by tests/surface_macro/ in the suite's own build.

#[test]
fn surface_macro_refusals() {
    // The fixtures are named as `$TOOLSURFACE_REPO/…`: trybuild compiles the cases as a crate of
    // its own, whose CARGO_MANIFEST_DIR is not this one. This is the only test of this binary,
    // so nothing reads the environment concurrently.
    unsafe { std::env::set_var("TOOLSURFACE_REPO", env!("CARGO_MANIFEST_DIR")) };
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/trybuild/compile_fail/*.rs");
}
