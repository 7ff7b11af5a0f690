//! `toolsurface gen <language> [DIR] --out OUT`: write the host code of a definitions folder
//! for another language, generated from its plan (`toolsurface_compiler::gen`). One function
//! per language arm; the generators are pure, this file does the writing.

use std::path::{Path, PathBuf};

use toolsurface_compiler::r#gen::typescript;
use toolsurface_compiler::plan;

use super::Status;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// ESM TypeScript, no dependencies (`OUT/index.ts`: `parseCall`, types, traits, bytes).
    Typescript,
}

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    toolsurface gen typescript --out src/tools/generated\n  \
    toolsurface gen typescript my-defs --out gen/\n\n\
    The output is byte-stable (no timestamp): check it in, and in CI regenerate and run \
    `git diff --exit-code` on the folder.")]
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
    match args.language {
        Language::Typescript => run_typescript(&plan, &args.out),
    }
}

/// The TypeScript arm: `runtime.ts`, `plan.ts`, `published.ts`, `index.ts`, `zod.ts` under `out`.
fn run_typescript(plan: &plan::Plan, out: &Path) -> anyhow::Result<Status> {
    let files = match typescript::generate(plan) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Status::Invalid);
        }
    };
    std::fs::create_dir_all(out).map_err(|e| anyhow::anyhow!("creating {}: {e}", out.display()))?;
    for f in &files {
        super::drift::write_atomic(&out.join(&f.path), &f.contents)?;
    }
    eprintln!("wrote {} files to {}", files.len(), out.display());
    Ok(Status::Clean)
}
