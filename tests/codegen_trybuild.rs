//! trybuild: the generated code of tool-defs, of the case study's pre-merge surface and of a
//! host fixture compiles through `surface!` and runs (`pass`); macro errors are pinned
//! (`compile_fail` + `.stderr`). Slow: it builds the facade in trybuild's own target dir.

#[test]
fn surface_macro() {
    // The fixtures are named as `$TOOLSURFACE_REPO/…`: trybuild compiles the cases as a crate of
    // its own, whose CARGO_MANIFEST_DIR is not this one. This is the only test of this binary,
    // so nothing reads the environment concurrently.
    unsafe { std::env::set_var("TOOLSURFACE_REPO", env!("CARGO_MANIFEST_DIR")) };
    let t = trybuild::TestCases::new();
    t.pass("tests/trybuild/pass/*.rs");
    t.compile_fail("tests/trybuild/compile_fail/*.rs");
}
