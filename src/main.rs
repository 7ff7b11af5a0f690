//! The `toolsurface` command line.

fn main() -> std::process::ExitCode {
    toolsurface::cli::main()
}
