//! `toolsurface plan`: write a definitions folder's plan — the IR lowered once into plain,
//! versioned JSON (`toolsurface_compiler::plan`) — the input of every generator, ours and
//! outside ones; or, with `--schema`, the plan format's JSON schema.

use std::io::Write as _;
use std::path::PathBuf;

use toolsurface_compiler::plan;

use super::Status;

#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    toolsurface plan                      # the plan of tool-defs/ on stdout\n  \
    toolsurface plan my-defs --out plan.json\n  \
    toolsurface plan --schema --out plan.schema.json\n\n\
    The plan is canonical JSON: the same definitions give the same bytes. Its `format` is \
    the version of the format (a reader refuses one it does not know); `--schema` prints the \
    JSON schema of that format, derived from the compiler's own types.")]
pub struct Args {
    /// Definitions folder.
    #[arg(default_value = "tool-defs")]
    pub dir: PathBuf,
    /// Write here instead of stdout (replaced atomically: a failed write leaves the old file).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print the plan format's JSON schema instead of a plan (no folder is read).
    #[arg(long)]
    pub schema: bool,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let text = if args.schema {
        let mut s = serde_json::to_string_pretty(&plan::json_schema())?;
        s.push('\n');
        s
    } else {
        let ir = match super::check::compile_dir(&args.dir)? {
            Ok((_, ir)) => ir,
            Err(status) => return Ok(status),
        };
        plan::to_json(&plan::lower(&ir)?)
    };
    match &args.out {
        Some(path) => super::drift::write_atomic(path, &text)?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(Status::Clean)
}
