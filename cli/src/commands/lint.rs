//! `toolsurface lint`: the consolidation rules (merge, confusable, delete, keep, prose
//! mentions, copy drift, token budgets) over a definitions folder, optionally with real
//! usage (`usage --format json` output, or transcripts read on the spot). The rules live
//! in `compiler::consolidate::lint`; this file reads the inputs and prints the findings.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::json;
use toolsurface_compiler::consolidate::lint::{self, Finding, Level, Thresholds};
use toolsurface_compiler::consolidate::usage::UsageData;
use toolsurface_compiler::{Sources, Span};

use super::Status;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    /// GitHub Actions annotations (`::warning file=…,line=…,col=…::`).
    Github,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DenyLevel {
    Error,
    Warning,
    Note,
}

#[derive(clap::Args, Debug)]
#[command(
    long_about = "The case study's three rules as findings. merge: resident tools on the same \
                  object with a shared name stem (or a prefixed twin of an existing tool, or a \
                  tool with a choice field), with the merged name, selector, actions and the \
                  command. confusable: look-alike names or descriptions, and with usage data \
                  the observed A-then-B confusion. delete: a tool declaring replaceable_by:, or \
                  rarely used. keep: steady use is never a delete candidate. Also: prose naming \
                  a tool without tool(), a field described identically in several tools, a role \
                  over its token budget. Each finding: a stable id, file:line:col, a verdict, \
                  evidence, and the merge/retire command that applies it.",
    after_help = "Examples:\n  toolsurface lint examples/consolidation/before --role side_chat\n  \
                  toolsurface usage logs/ --defs tool-defs --format json > usage.json\n  \
                  toolsurface lint tool-defs --usage usage.json --format github --deny warning\n  \
                  toolsurface lint tool-defs --transcripts logs/a.jsonl logs/b.jsonl\n\n\
                  Exit codes: 0 (findings are advice) unless --deny LEVEL is given and a finding \
                  at that level or worse exists: then 1; 2 usage error."
)]
pub struct Args {
    /// Definitions folder.
    #[arg(default_value = "tool-defs")]
    pub dir: PathBuf,
    /// Only the resident tools of this role (default: every role's).
    #[arg(long)]
    pub role: Option<String>,
    /// A `toolsurface usage --format json` report.
    #[arg(long, conflicts_with = "transcripts")]
    pub usage: Option<PathBuf>,
    /// Transcripts to measure usage from (as `toolsurface usage` reads them).
    #[arg(long, num_args = 1..)]
    pub transcripts: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Exit 1 when a finding at this level or worse exists.
    #[arg(long, value_enum)]
    pub deny: Option<DenyLevel>,
    /// Keep: used in at least this many threads …
    #[arg(long, default_value_t = Thresholds::default().keep_threads)]
    pub keep_threads: u64,
    /// … or in at least this share of threads (0..1).
    #[arg(long, default_value_t = Thresholds::default().keep_share)]
    pub keep_share: f64,
    /// Rare: used in at most this share of threads (0..1) …
    #[arg(long, default_value_t = Thresholds::default().rare_share)]
    pub rare_share: f64,
    /// … and at most this many calls.
    #[arg(long, default_value_t = Thresholds::default().rare_calls)]
    pub rare_calls: u64,
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    // Lint reports `no-example` itself (as findings): the compile step leaves it out.
    let own = &[toolsurface_compiler::load::examples::NO_EXAMPLE];
    let (sources, ir) = match super::check::compile_dir_reporting_later(&args.dir, own)? {
        Ok(c) => c,
        Err(s) => return Ok(s),
    };
    if let Some(r) = &args.role
        && ir.role(r).is_none()
    {
        let known = ir.roles.iter().map(|r| r.name.as_str());
        eprintln!(
            "error: {} (in {}/roles.yaml)",
            super::unknown_name("role", r, known),
            args.dir.display()
        );
        return Ok(Status::Usage);
    }
    let usage = read_usage(&args, &ir)?;
    let th = Thresholds {
        keep_threads: args.keep_threads,
        keep_share: args.keep_share,
        rare_share: args.rare_share,
        rare_calls: args.rare_calls,
        ..Thresholds::default()
    };
    let mut findings = lint::lint(&ir, &sources, args.role.as_deref(), usage.as_ref(), &th);
    let lock = super::drift::lock_of(&ir, None)?;
    for (role, text) in ir
        .roles
        .iter()
        .filter(|r| args.role.as_ref().is_none_or(|x| *x == r.name))
        .filter_map(|r| {
            super::drift::over_budget(&ir, &lock)
                .into_iter()
                .find(|t| t.starts_with(&format!("role {}:", r.name)))
                .map(|t| (r, t))
        })
    {
        findings.push(Finding {
            id: format!("budget/{}", role.name),
            rule: "budget",
            level: Level::Error,
            span: Some(role.span),
            verdict: format!("role {} is over its token budget", role.name),
            evidence: vec![text],
            command: None,
        });
    }
    let text = match args.format {
        Format::Text => render_text(&findings, &sources),
        Format::Json => {
            let v: Vec<_> = findings.iter().map(|f| finding_json(f, &sources)).collect();
            let mut s = serde_json::to_string_pretty(&json!({ "findings": v }))?;
            s.push('\n');
            s
        }
        Format::Github => render_github(&findings, &sources),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    let worst = findings.iter().map(|f| f.level).min();
    let denied = match (args.deny, worst) {
        (Some(d), Some(w)) => {
            let d = match d {
                DenyLevel::Error => Level::Error,
                DenyLevel::Warning => Level::Warning,
                DenyLevel::Note => Level::Note,
            };
            w <= d
        }
        _ => false,
    };
    Ok(if denied {
        Status::Invalid
    } else {
        Status::Clean
    })
}

fn read_usage(args: &Args, ir: &toolsurface_compiler::Ir) -> anyhow::Result<Option<UsageData>> {
    if let Some(path) = &args.usage {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let v: serde_json::Value = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not JSON (expected `toolsurface usage --format json` output)",
                path.display()
            )
        })?;
        let u = UsageData::from_json(&v).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        return Ok(Some(u));
    }
    if args.transcripts.is_empty() {
        return Ok(None);
    }
    let (u, summary) = super::usage::analyse(&args.transcripts, Some(ir))?;
    let v = super::usage::report_json(&u, &summary);
    for m in &summary.malformed {
        eprintln!("warning: {}:{}: skipped: {}", m.file, m.line, m.reason);
    }
    Ok(Some(
        UsageData::from_json(&v).map_err(|e| anyhow::anyhow!(e))?,
    ))
}

fn place(span: Option<Span>, sources: &Sources) -> (String, u32, u32) {
    match span {
        Some(s) => (sources.display_path(s.file), s.line, s.col),
        None => (sources.root.clone(), 1, 1),
    }
}

fn display_root(sources: &Sources) -> &Path {
    Path::new(&sources.root)
}

pub fn render_text(findings: &[Finding], sources: &Sources) -> String {
    let mut out = String::new();
    for f in findings {
        let (file, line, col) = place(f.span, sources);
        out.push_str(&format!(
            "{file}:{line}:{col}: {}[{}]: {}\n",
            f.level.as_str(),
            f.id,
            f.verdict
        ));
        for e in &f.evidence {
            out.push_str(&format!("    {e}\n"));
        }
        if let Some(c) = &f.command {
            out.push_str(&format!("    run: {c}\n"));
        }
    }
    let count = |l: Level| findings.iter().filter(|f| f.level == l).count();
    let _ = display_root(sources);
    out.push_str(&format!(
        "{} findings: {} error, {} warning, {} note\n",
        findings.len(),
        count(Level::Error),
        count(Level::Warning),
        count(Level::Note)
    ));
    out
}

fn finding_json(f: &Finding, sources: &Sources) -> serde_json::Value {
    let (file, line, col) = place(f.span, sources);
    json!({
        "id": f.id,
        "rule": f.rule,
        "level": f.level.as_str(),
        "file": file,
        "line": line,
        "col": col,
        "verdict": f.verdict,
        "evidence": f.evidence,
        "command": f.command,
    })
}

fn render_github(findings: &[Finding], sources: &Sources) -> String {
    let esc = |s: &str| {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let mut out = String::new();
    for f in findings {
        let (file, line, col) = place(f.span, sources);
        let mut msg = f.verdict.clone();
        for e in &f.evidence {
            msg.push('\n');
            msg.push_str(e);
        }
        if let Some(c) = &f.command {
            msg.push_str("\nrun: ");
            msg.push_str(c);
        }
        out.push_str(&format!(
            "::{} file={file},line={line},col={col},title={}::{}\n",
            f.level.as_str(),
            esc(&f.id).replace(',', "%2C").replace(':', "%3A"),
            esc(&msg)
        ));
    }
    out
}
