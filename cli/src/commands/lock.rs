//! `toolsurface lock`: accept the current surface into `DIR/surface.lock` (atomically).
//! Breaking (or undecidable) changes are accepted only with `--accept-breaking --reason`,
//! and the reason is recorded in the lock.

use std::io::Write as _;
use std::path::PathBuf;

use toolsurface_compiler::diff::{self, Verdict, render};
use toolsurface_compiler::lock::Accepted;

use super::Status;
use super::drift::{self, LOCK_FILE};

#[derive(clap::Args, Debug)]
#[command(
    long_about = "Compile the definitions and write DIR/surface.lock: per role × family the \
                  sha256, bytes and o200k tokens of the published array and each tool's \
                  canonical JSON, plus each tool's structure, the aliases and retired names. \
                  Compatible drift is accepted as is; breaking drift only with \
                  --accept-breaking and a --reason, recorded in the lock.",
    after_help = "Exit codes: 0 written (or already up to date), 1 invalid definitions or a \
                  role over its token budget, 2 usage error, 4 breaking drift refused."
)]
pub struct Args {
    /// Definitions folder.
    #[arg(default_value = "tool-defs")]
    pub dir: PathBuf,
    /// Accept breaking (or undecidable) changes; needs --reason.
    #[arg(long, requires = "reason")]
    pub accept_breaking: bool,
    /// Why the breaking change is acceptable (recorded in the lock with the date).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let (sources, ir) = match super::check::compile_dir(&args.dir)? {
        Ok(x) => x,
        Err(status) => return Ok(status),
    };
    let path = args.dir.join(LOCK_FILE);
    let prior = drift::read_lock(&path)?;
    let mut current = drift::lock_of(&ir, prior.as_ref())?;
    let budget = drift::over_budget(&ir, &current);
    if !budget.is_empty() {
        for b in &budget {
            eprintln!("error[token-budget]: {b}");
        }
        return Ok(Status::Invalid);
    }
    let mut out = std::io::stdout().lock();
    if let Some(prior) = &prior {
        let locator = diff::Locator::new(&ir, &sources);
        let d = diff::diff(
            prior,
            &current,
            Some(&locator),
            &diff::Options::default(),
            &path.display().to_string(),
            &args.dir.display().to_string(),
        );
        if d.is_breaking() {
            if !args.accept_breaking {
                let color = std::io::IsTerminal::is_terminal(&std::io::stdout())
                    && std::env::var_os("NO_COLOR").is_none();
                out.write_all(render::text(&d, color).as_bytes())?;
                writeln!(
                    out,
                    "\nrefused: {} breaking and {} unknown finding(s); old transcripts would no longer parse. \
                     Add aliases or retired entries, or accept with --accept-breaking --reason TEXT.",
                    d.count(Verdict::Breaking),
                    d.count(Verdict::Unknown)
                )?;
                return Ok(Status::BreakingDrift);
            }
            let reason = args.reason.clone().unwrap_or_default();
            if reason.trim().is_empty() {
                anyhow::bail!("--accept-breaking needs a non-empty --reason");
            }
            current.accepted.push(Accepted {
                date: drift::today(),
                reason: reason.trim().to_owned(),
                findings: d
                    .findings
                    .iter()
                    .filter(|f| f.verdict != Verdict::Compatible)
                    .map(|f| f.id.clone())
                    .collect(),
            });
            writeln!(
                out,
                "accepted {} breaking/unknown finding(s): {}",
                d.count(Verdict::Breaking) + d.count(Verdict::Unknown),
                reason.trim()
            )?;
        } else if args.accept_breaking {
            writeln!(
                out,
                "note: nothing breaking to accept; --reason not recorded"
            )?;
        }
        if !d.findings.is_empty() {
            writeln!(
                out,
                "{} finding(s): {} compatible",
                d.findings.len(),
                d.count(Verdict::Compatible)
            )?;
        }
    }
    let text = current.render();
    if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
        writeln!(out, "{} is up to date", path.display())?;
        return Ok(Status::Clean);
    }
    drift::write_atomic(&path, &text)?;
    writeln!(
        out,
        "wrote {} ({} surfaces, {} tools)",
        path.display(),
        current.surfaces.len(),
        current.shapes.len()
    )?;
    Ok(Status::Clean)
}
