//! trybuild `compile_fail`: `surface!`'s errors are pinned (`.stderr`), every one spanned on
//! the path literal and naming `file:line:col`. The cases live in this crate so trybuild's own
//! target builds only the macro and the compiler (no runtime, no CLI, no second build of the
//! workspace); what the macro expands to is compiled and run by the facade's
//! tests/surface_macro/ inside the suite's own build.

#[test]
fn surface_macro_refusals() {
    // The fixtures are named as `$TOOLSURFACE_REPO/…`: trybuild compiles the cases as a crate of
    // its own, whose CARGO_MANIFEST_DIR is not this one. This is the only test of this binary,
    // so nothing reads the environment concurrently.
    let repo = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    unsafe { std::env::set_var("TOOLSURFACE_REPO", repo) };
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/compile_fail/*.rs");
}
