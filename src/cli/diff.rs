//! `toolsurface diff`: what changed between two surfaces — each a definitions folder, a lock
//! file or `git:<rev>[:<path>]` — with a compatibility and a cache verdict per finding, and
//! the consolidation ledger of each role whose tool list changed.

use std::io::Write as _;
use std::path::Path;

use toolsurface_compiler::diff::{self, render};

use super::Status;
use super::drift::{self, LOCK_FILE};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Human-readable (coloured on a terminal).
    Text,
    /// Stable JSON.
    Json,
    /// A pull-request summary.
    Markdown,
    /// GitHub Actions annotations (`::error file=…,line=…::`).
    Github,
}

#[derive(clap::Args, Debug)]
#[command(
    long_about = "Compare two tool surfaces. Each finding has a stable id (rule + logical path, \
                  e.g. field-removed/side_chat/shell_session/wait/timeout_s), a compatibility \
                  verdict (breaking: an old transcript's call no longer parses; compatible; \
                  unknown: cannot be decided, treated as breaking) and a cache effect (which role \
                  × family arrays change, where they first diverge, tokens before → after). \
                  Roles whose tool list changed get a ledger: retired names, merges, net tools.",
    after_help = "Sources: a definitions folder, a lock file, or git:<rev>[:<path>] (read with \
                  git show / git ls-tree, no checkout). Default: --from <to>/surface.lock \
                  --to tool-defs.\n\
                  Exit codes: 0 no drift, 2 usage error, 1 invalid definitions, 3 compatible drift, \
                  4 breaking (or unknown) drift."
)]
pub struct Args {
    /// Old surface (default: the lock of the --to folder, else tool-defs/surface.lock).
    #[arg(long)]
    pub from: Option<String>,
    /// New surface (default: tool-defs).
    #[arg(long)]
    pub to: Option<String>,
    /// Only this role.
    #[arg(long)]
    pub role: Option<String>,
    /// Only this family.
    #[arg(long)]
    pub family: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let to = args.to.clone().unwrap_or_else(|| "tool-defs".to_owned());
    let defs_dir = if Path::new(&to).is_dir() {
        Path::new(&to).to_path_buf()
    } else {
        Path::new("tool-defs").to_path_buf()
    };
    let from = args
        .from
        .clone()
        .unwrap_or_else(|| defs_dir.join(LOCK_FILE).display().to_string());
    let a = match drift::load(&from, &defs_dir)? {
        Ok(x) => x,
        Err(status) => return Ok(status),
    };
    let b = match drift::load(&to, &defs_dir)? {
        Ok(x) => x,
        Err(status) => return Ok(status),
    };
    for (what, name) in [("role", &args.role), ("family", &args.family)] {
        if let Some(n) = name {
            let known = |l: &toolsurface_compiler::lock::Lock| {
                if what == "role" {
                    l.roles().contains(&n.as_str())
                } else {
                    l.families().contains(&n.as_str())
                }
            };
            if !known(&a.lock) && !known(&b.lock) {
                anyhow::bail!("no {what} `{n}` in {} or {}", a.name, b.name);
            }
        }
    }
    let opts = diff::Options {
        role: args.role.clone(),
        family: args.family.clone(),
    };
    let d = diff::diff(
        &a.lock,
        &b.lock,
        b.locator.as_ref(),
        &opts,
        &a.name,
        &b.name,
    );
    let text = match args.format {
        Format::Text => {
            let color = std::io::IsTerminal::is_terminal(&std::io::stdout())
                && std::env::var_os("NO_COLOR").is_none();
            render::text(&d, color)
        }
        Format::Json => render::json(&d),
        Format::Markdown => render::markdown(&d),
        Format::Github => render::github(&d),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(drift::status_of(&d))
}
