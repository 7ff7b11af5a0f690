//! `toolsurface gen <language> [DIR] --out OUT`: a host-language package generated from the
//! definitions' plan (`toolsurface_compiler::gen`), written to OUT. Each language's arm is
//! its own function; the generators themselves do no I/O.

use std::path::{Path, PathBuf};

use toolsurface_compiler::plan;

use super::Status;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    toolsurface gen python --out hosts/python/toolsurface_standard\n  \
    toolsurface gen python my-defs --out gen/my_surface\n\n\
    The output is byte-stable (no timestamps): regenerate and `git diff --exit-code` to \
    catch drift. Files the generator does not write are left alone; the ones it writes are \
    replaced atomically.")]
pub struct Args {
    /// The language: `python`.
    #[arg(value_parser = ["python"])]
    pub language: String,
    /// Definitions folder.
    #[arg(default_value = "tool-defs")]
    pub dir: PathBuf,
    /// The package directory to write (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let ir = match super::check::compile_dir(&args.dir)? {
        Ok((_, ir)) => ir,
        Err(status) => return Ok(status),
    };
    let plan = plan::lower(&ir)?;
    match args.language.as_str() {
        "python" => python(&plan, &args.out),
        other => anyhow::bail!("unknown language `{other}` (expected python)"),
    }
}

/// The python arm: the package `toolsurface_compiler::gen::python` generates.
fn python(plan: &plan::Plan, out: &Path) -> anyhow::Result<Status> {
    let files = match toolsurface_compiler::r#gen::python::generate(plan) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Status::Invalid);
        }
    };
    std::fs::create_dir_all(out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    for f in &files {
        super::drift::write_atomic(&out.join(&f.path), &f.contents)?;
    }
    eprintln!("wrote {} files to {}", files.len(), out.display());
    Ok(Status::Clean)
}
