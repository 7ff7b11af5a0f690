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
                  With --replay TRANSCRIPT…: each breaking finding gets the number of real calls it \
                  breaks, e.g. `toolsurface diff --from examples/consolidation/before --to tool-defs \
                  --role side_chat --replay logs/`.\n\
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
    /// Transcripts (files or folders): annotate each breaking finding with how many real calls
    /// it breaks (replayed with `replay`'s rules; --from and --to must be definitions folders).
    #[arg(long, num_args = 1.., value_name = "TRANSCRIPT")]
    pub replay: Vec<std::path::PathBuf>,
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
            let mut all: Vec<&str> = Vec::new();
            for lock in [&a.lock, &b.lock] {
                let names = if what == "role" {
                    lock.roles()
                } else {
                    lock.families()
                };
                for x in names {
                    if !all.contains(&x) {
                        all.push(x);
                    }
                }
            }
            if !all.contains(&n.as_str()) {
                eprintln!(
                    "error: {} (in {} or {})",
                    super::unknown_name(what, n, all.iter().copied()),
                    a.name,
                    b.name
                );
                return Ok(Status::Usage);
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
    let replayed = if args.replay.is_empty() {
        None
    } else {
        match replay_counts(&args, &from, &to, &d)? {
            Ok(r) => Some(r),
            Err(status) => return Ok(status),
        }
    };
    let mut text = match args.format {
        Format::Text => {
            let color = std::io::IsTerminal::is_terminal(&std::io::stdout())
                && std::env::var_os("NO_COLOR").is_none();
            render::text(&d, color)
        }
        Format::Json => render::json(&d),
        Format::Markdown => render::markdown(&d),
        Format::Github => render::github(&d),
    };
    if let Some(r) = &replayed {
        text = annotate(text, args.format, r)?;
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(drift::status_of(&d))
}

/// Real-call counts for `diff --replay`: the transcripts' calls, those the old surface accepted
/// and the new refuses, and per breaking (or unknown) finding how many of those it explains.
struct Replayed {
    calls: u64,
    broken: u64,
    per_finding: Vec<(String, u64)>,
}

fn replay_counts(
    args: &Args,
    from: &str,
    to: &str,
    d: &diff::Diff,
) -> anyhow::Result<Result<Replayed, Status>> {
    let (from_dir, to_dir) = (Path::new(from), Path::new(to));
    if !from_dir.is_dir() || !to_dir.is_dir() {
        eprintln!(
            "error: --replay needs --from and --to to be definitions folders (got {from} and {to})"
        );
        return Ok(Err(Status::Usage));
    }
    let compile = super::replay::compile_for_replay;
    let (from_ir, to_ir) = match (compile(from_dir)?, compile(to_dir)?) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(s), _) | (_, Err(s)) => return Ok(Err(s)),
    };
    let breaking = |f: &diff::Finding| f.verdict != diff::Verdict::Compatible;
    let mut roles: Vec<&str> = d
        .findings
        .iter()
        .filter(|f| breaking(f))
        .map(|f| f.role.as_str())
        .collect();
    roles.dedup();
    let mut out = Replayed {
        calls: 0,
        broken: 0,
        per_finding: Vec::new(),
    };
    for role in roles {
        let targets = super::replay::Targets::new(
            &to_ir.plan,
            Some(&from_ir.plan),
            Some(role),
            args.family.as_deref(),
            &[],
        )?;
        let r = super::replay::replay_pair(&args.replay, &targets, 0)?;
        out.calls = r.to.calls;
        out.broken += r.broken_calls;
        for f in d.findings.iter().filter(|f| breaking(f) && f.role == role) {
            let n = super::replay::breaks_explained(&r, &f.id, &from_ir.ir, &to_ir.ir);
            out.per_finding.push((f.id.clone(), n));
        }
    }
    Ok(Ok(out))
}

/// Add the real-call counts to the rendered diff.
fn annotate(text: String, format: Format, r: &Replayed) -> anyhow::Result<String> {
    let count = |id: &str| r.per_finding.iter().find(|(i, _)| i == id).map(|(_, n)| *n);
    Ok(match format {
        Format::Json => {
            let mut v: serde_json::Value = serde_json::from_str(&text)?;
            if let Some(findings) = v.get_mut("findings").and_then(|f| f.as_array_mut()) {
                for f in findings {
                    let id = f
                        .get("id")
                        .and_then(|i| i.as_str())
                        .unwrap_or("")
                        .to_owned();
                    if let (Some(n), Some(m)) = (count(&id), f.as_object_mut()) {
                        m.insert("replay_calls_broken".into(), serde_json::json!(n));
                    }
                }
            }
            if let Some(m) = v.as_object_mut() {
                m.insert(
                    "replay".into(),
                    serde_json::json!({"calls": r.calls, "broken": r.broken}),
                );
            }
            let mut s = serde_json::to_string_pretty(&v)?;
            s.push('\n');
            s
        }
        Format::Text | Format::Markdown | Format::Github => {
            let mut s = text;
            let md = format == Format::Markdown;
            let gh = format == Format::Github;
            if md {
                s.push_str(&format!("\n### Replay: {} real calls, {} broken\n\n| finding | real calls broken |\n|---|---:|\n", r.calls, r.broken));
            } else if !gh {
                s.push_str(&format!(
                    "\nreplay: {} real calls; {} that the old surface accepted are refused now\n",
                    r.calls, r.broken
                ));
            }
            for (id, n) in &r.per_finding {
                if md {
                    s.push_str(&format!("| `{id}` | {n} |\n"));
                } else if gh {
                    s.push_str(&format!(
                        "::notice title=replay::{id}: {n} real calls break\n"
                    ));
                } else {
                    s.push_str(&format!("  {n:>7} real calls  {id}\n"));
                }
            }
            s
        }
    })
}
