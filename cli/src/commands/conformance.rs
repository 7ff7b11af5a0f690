//! `toolsurface conformance`: write (or check) the conformance corpus of a definitions folder
//! — calls derived from its plan with the Rust parser's verdict and exact refusal text
//! (`toolsurface_compiler::plan::conformance`), one JSON-lines file per tool. The generated
//! TypeScript and Python parsers are tested against it; the standard surface's corpus is
//! checked in under tests/conformance/.

use std::path::PathBuf;

use toolsurface_compiler::plan;

use super::Status;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    toolsurface conformance --out tests/conformance\n  \
    toolsurface conformance my-defs --out conformance --check   # exit 1 on drift\n\n\
    Each line is one case: {role, family, skills, name, raw, verdict, call | kind+message}. \
    `raw` is the arguments text exactly as a model sent it; `verdict` is accept or refuse; \
    `message` is the refusal text byte for byte. --check writes nothing: it names every file \
    that is missing, extra or different, and exits 1 if any is.")]
pub struct Args {
    /// Definitions folder.
    #[arg(default_value = "tool-defs")]
    pub dir: PathBuf,
    /// The corpus folder (one `<tool>.jsonl` per tool, `_names.jsonl`).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Compare with the corpus in --out instead of writing it.
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let ir = match super::check::compile_dir(&args.dir)? {
        Ok((_, ir)) => ir,
        Err(status) => return Ok(status),
    };
    let files = plan::conformance::corpus(&plan::lower(&ir)?);
    let cases: usize = files.iter().map(|(_, t)| t.lines().count()).sum();
    if !args.check {
        std::fs::create_dir_all(&args.out)?;
        for (name, text) in &files {
            super::drift::write_atomic(&args.out.join(name), text)?;
        }
        for stale in jsonl_files(&args.out)? {
            if !files.iter().any(|(n, _)| *n == stale) {
                std::fs::remove_file(args.out.join(&stale))?;
                eprintln!("removed {stale} (no such tool any more)");
            }
        }
        eprintln!(
            "wrote {cases} cases in {} files to {}",
            files.len(),
            args.out.display()
        );
        return Ok(Status::Clean);
    }
    let mut drift = Vec::new();
    for (name, text) in &files {
        match std::fs::read_to_string(args.out.join(name)) {
            Ok(old) if old == *text => {}
            Ok(_) => drift.push(format!("{name}: differs")),
            Err(_) => drift.push(format!("{name}: missing")),
        }
    }
    for present in jsonl_files(&args.out)? {
        if !files.iter().any(|(n, _)| *n == present) {
            drift.push(format!("{present}: no such tool any more"));
        }
    }
    if drift.is_empty() {
        eprintln!("{cases} cases in {} files: up to date", files.len());
        return Ok(Status::Clean);
    }
    for d in &drift {
        eprintln!("{}/{d}", args.out.display());
    }
    eprintln!(
        "the corpus drifted; regenerate with `toolsurface conformance {} --out {}`",
        args.dir.display(),
        args.out.display()
    );
    Ok(Status::Invalid)
}

/// The `.jsonl` files in `dir` (none when it does not exist).
fn jsonl_files(dir: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let mut out = Vec::new();
    for e in entries {
        let name = e?.file_name().to_string_lossy().into_owned();
        if name.ends_with(".jsonl") {
            out.push(name);
        }
    }
    out.sort();
    Ok(out)
}
