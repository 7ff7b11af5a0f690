//! The `toolsurface` command line.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // `toolsurface __sandbox-exec …` is the shell's sandbox helper (never returns); any
    // other command line makes this binary its own helper.
    toolsurface_runtime::sandbox::serve_helper_from_main();
    toolsurface_cli::commands::main()
}
