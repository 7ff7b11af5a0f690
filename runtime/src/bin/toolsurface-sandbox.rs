//! The sandbox re-exec helper as its own small program, for hosts that are not the
//! `toolsurface` CLI (which serves as helper itself): `toolsurface-sandbox __sandbox-exec
//! PROGRAM [ARG…]`, policy in `TOOLSURFACE_SANDBOX_POLICY`. See `toolsurface_runtime::sandbox`.

fn main() {
    toolsurface_runtime::sandbox::serve_helper_from_main();
    eprintln!(
        "toolsurface-sandbox: usage: toolsurface-sandbox {} PROGRAM [ARG…] (policy in {})",
        toolsurface_runtime::sandbox::HELPER_ARG,
        toolsurface_runtime::sandbox::POLICY_ENV
    );
    std::process::exit(2);
}
