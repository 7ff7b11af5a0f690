//! `toolsurface gen <language> [DIR] --out OUT`: the host code of a definitions folder for
//! another language, generated from its plan (`toolsurface_compiler::gen`), written to OUT.
//! One function per language arm; the generators are pure, this file does the writing.

use std::path::{Path, PathBuf};

use toolsurface_compiler::r#gen::{File, python, typescript};
use toolsurface_compiler::plan;

use super::Status;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// ESM TypeScript, no dependencies (`OUT/index.ts`: `parseCall`, types, traits, bytes).
    Typescript,
    /// A stdlib Python package (`OUT/__init__.py`: `parse_call`, dataclasses, traits, bytes).
    Python,
}

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    toolsurface gen typescript --out src/tools/generated\n  \
    toolsurface gen python --out hosts/python/toolsurface_standard\n  \
    toolsurface gen python my-defs --out gen/my_surface\n\n\
    The output is byte-stable (no timestamp): check it in, and in CI regenerate and run \
    `git diff --exit-code` on the folder. Files the generator does not write are left alone; \
    the ones it writes are replaced atomically.")]
pub struct Args {
    /// The host language.
    #[arg(value_enum)]
    pub language: Language,
    /// Definitions folder.
    #[arg(default_value = "tool-defs")]
    pub dir: PathBuf,
    /// The folder to write (created if missing; the generated files in it are replaced).
    #[arg(long, value_name = "OUT")]
    pub out: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let ir = match super::check::compile_dir(&args.dir)? {
        Ok((_, ir)) => ir,
        Err(status) => return Ok(status),
    };
    let plan = plan::lower(&ir)?;
    let files = match args.language {
        Language::Typescript => typescript_files(&plan),
        Language::Python => python_files(&plan),
    };
    match files {
        Ok(files) => write(&files, &args.out),
        Err(message) => {
            eprintln!("error: {message}");
            Ok(Status::Invalid)
        }
    }
}

/// The TypeScript arm: `runtime.ts`, `plan.ts`, `published.ts`, `index.ts`, `zod.ts`.
fn typescript_files(plan: &plan::Plan) -> Result<Vec<File>, String> {
    typescript::generate(plan).map_err(|e| e.to_string())
}

/// The Python arm: `__init__.py`, `_kernel.py`, `_plan.json`, `pydantic_models.py`, `py.typed`.
fn python_files(plan: &plan::Plan) -> Result<Vec<File>, String> {
    python::generate(plan).map_err(|e| e.to_string())
}

fn write(files: &[File], out: &Path) -> anyhow::Result<Status> {
    std::fs::create_dir_all(out)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    for f in files {
        super::drift::write_atomic(&out.join(&f.path), &f.contents)?;
    }
    eprintln!("wrote {} files to {}", files.len(), out.display());
    Ok(Status::Clean)
}
