//! `toolsurface replay`: parse every tool call of historical transcripts with a surface's exact
//! `Call::parse` rules (the compiler's plan interpreter, [`toolsurface_compiler::plan::interp`],
//! for any definitions folder) and count what became of them: parsed as they are, through an
//! alias, answered as retired, refused (grouped by the refusal text the model would get), or
//! unknown. With `--from`, the calls the old surface accepted and the new one refuses are the
//! empirical breaking gate for CI (exit 4).
//! `diff --replay` reuses [`replay_pair`] to put real-call counts on breaking findings.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolsurface_compiler::Ir;
use toolsurface_compiler::plan::Plan;

use super::{FastMap as HashMap, Status};
use crate::transcript::{self, Event, ReadSummary};
use toolsurface::{CallError, CallErrorKind};
use toolsurface_compiler::plan::interp::{CallChecker, Checked};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(clap::Args, Debug)]
#[command(
    long_about = "Parse every tool call in TRANSCRIPT… with the --to surface's exact Call::parse \
                  rules (aliases with their renames, retired names, refusals) and count: parsed \
                  as-is, via alias, retired (with the message the model gets), refused (grouped \
                  by refusal text, with thread and file:line examples), unknown tool. With --from, \
                  also parse with the old surface: a call it accepted that --to refuses is a \
                  break, and any break exits 4 (a call --to answers with a retired name's message \
                  is counted apart, not as a break: retiring is deliberate).",
    after_help = "Examples:\n  toolsurface replay logs/*.jsonl --to tool-defs --role side_chat --family chat\n  \
                  toolsurface replay logs/ --from examples/consolidation/before --to tool-defs --role side_chat\n\n\
                  Transcripts: files or folders (*.jsonl, *.json, read recursively); formats and layouts \
                  as for `toolsurface usage`.\n\
                  Exit codes: 0 nothing broke, 4 a call --from accepted is refused by --to, \
                  1 invalid definitions, 2 usage error (unreadable transcript, unknown role)."
)]
pub struct Args {
    /// Transcript files or folders.
    #[arg(required = true)]
    pub transcripts: Vec<PathBuf>,
    /// The surface to replay against.
    #[arg(long, default_value = "tool-defs")]
    pub to: PathBuf,
    /// The surface the transcripts were recorded against: breaks are counted against it.
    #[arg(long)]
    pub from: Option<PathBuf>,
    /// Role (default: the first role of --to).
    #[arg(long)]
    pub role: Option<String>,
    /// Family for every call (default: per transcript format, the first family of --to with
    /// that format's dialect: chat → openai-chat, responses and codex → openai-responses,
    /// anthropic → anthropic; the first family for the messages format).
    #[arg(long)]
    pub family: Option<String>,
    /// Skills active for every call (repeatable).
    #[arg(long = "skill")]
    pub skills: Vec<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Examples kept per refusal group.
    #[arg(long, default_value_t = 3)]
    pub examples: usize,
}

/// What became of the calls against one surface.
#[derive(Debug, Default)]
pub struct Outcome {
    pub calls: u64,
    pub as_is: u64,
    /// alias name → (target tool, calls).
    pub via_alias: BTreeMap<String, (String, u64)>,
    /// retired name → (message the model gets, calls).
    pub retired: BTreeMap<String, (String, u64)>,
    /// Refusal text → group.
    pub refused: HashMap<String, Group>,
    /// Unknown tool name → calls.
    pub unknown: BTreeMap<String, u64>,
}

/// Calls that got the same answer, with a few of them named.
#[derive(Debug, Default, Clone)]
pub struct Group {
    pub calls: u64,
    pub kind: String,
    /// `thread @ file:line`.
    pub examples: Vec<String>,
}

impl Group {
    fn add(&mut self, example: impl FnOnce() -> String, keep: usize) {
        self.calls += 1;
        if self.examples.len() < keep {
            self.examples.push(example());
        }
    }
}

impl Outcome {
    /// Count one answer; a refusal joins the group of its text (`example` names the call).
    fn count(
        &mut self,
        result: &Result<Checked<'_>, CallError>,
        name: &str,
        example: impl FnOnce() -> String,
        keep: usize,
    ) {
        self.calls += 1;
        // Looked up by the borrowed name first: a key is copied once, not once per call.
        match result {
            Ok(c) => match c.alias {
                None => self.as_is += 1,
                Some(a) => match self.via_alias.get_mut(a) {
                    Some(n) => n.1 += 1,
                    None => {
                        self.via_alias.insert(a.to_owned(), (c.tool.to_owned(), 1));
                    }
                },
            },
            Err(e) if e.kind == CallErrorKind::Retired => match self.retired.get_mut(name) {
                Some(n) => n.1 += 1,
                None => {
                    self.retired.insert(name.to_owned(), (e.message.clone(), 1));
                }
            },
            Err(e) if e.kind == CallErrorKind::UnknownTool => match self.unknown.get_mut(name) {
                Some(n) => *n += 1,
                None => {
                    self.unknown.insert(name.to_owned(), 1);
                }
            },
            Err(e) => match self.refused.get_mut(&e.message) {
                Some(g) => g.add(example, keep),
                None => {
                    let mut g = Group {
                        kind: format!("{:?}", e.kind),
                        ..Group::default()
                    };
                    g.add(example, keep);
                    self.refused.insert(e.message.clone(), g);
                }
            },
        }
    }

    fn refused_total(&self) -> u64 {
        self.refused.values().map(|g| g.calls).sum()
    }
}

/// A call `--from` accepted and `--to` refused.
#[derive(Debug, Clone)]
pub struct Break {
    /// The tool and action the old surface parsed it as.
    pub from_tool: String,
    pub from_action: Option<String>,
    /// The refusal `--to` gives (retired and unknown names included).
    pub message: String,
    pub example: String,
}

/// Everything a replay found.
#[derive(Debug, Default)]
pub struct Replay {
    pub read: ReadSummary,
    pub to: Outcome,
    pub from: Option<Outcome>,
    /// Breaks grouped by refusal text: (count, first breaks).
    pub breaks: HashMap<String, (u64, Vec<Break>)>,
    pub broken_calls: u64,
    /// Calls `--from` accepted that `--to` answers with a retired name's message (counted
    /// apart: a retirement is deliberate, as `diff` rules it compatible).
    pub retired_since: u64,
    /// Every break, reduced to what `diff --replay` attributes: (from tool, from action,
    /// refusal) → calls.
    pub break_keys: HashMap<(String, Option<String>, String), u64>,
}

/// The checkers a replay uses: one role, and per transcript format the family whose dialect
/// the model was served in (or the one `--family` names for all).
pub struct Targets<'ir> {
    /// (family, to, from).
    checkers: Vec<(String, CallChecker<'ir>, Option<CallChecker<'ir>>)>,
    /// Per [`transcript::Format::ALL`] index: which checker.
    per_format: [usize; 5],
}

impl<'ir> Targets<'ir> {
    /// `family` for every call, else per format the first family of `to` with that format's
    /// dialect (the first family when none has it, or for the messages format).
    pub fn new(
        to: &'ir Plan,
        from: Option<&'ir Plan>,
        role: Option<&str>,
        family: Option<&str>,
        skills: &[String],
    ) -> anyhow::Result<Self> {
        let first = to
            .families
            .first()
            .map(|f| f.name.as_str())
            .ok_or_else(|| anyhow::anyhow!("the definitions declare no family"))?;
        let mut checkers: Vec<(String, CallChecker<'ir>, Option<CallChecker<'ir>>)> = Vec::new();
        let mut per_format = [0; 5];
        for (i, format) in transcript::Format::ALL.iter().enumerate() {
            let fam = match (family, format.dialect()) {
                (Some(f), _) => f,
                (None, Some(d)) => to
                    .families
                    .iter()
                    .find(|f| f.dialect == d.as_str() && f.like.is_none())
                    .map_or(first, |f| f.name.as_str()),
                (None, None) => first,
            };
            per_format[i] = match checkers.iter().position(|(f, _, _)| f == fam) {
                Some(ix) => ix,
                None => {
                    let t = checker_for(to, role, Some(fam), skills)?;
                    let f = match from {
                        Some(ir) => Some(
                            checker_for(ir, Some(t.role()), Some(fam), skills)
                                .map_err(|e| anyhow::anyhow!("--from: {e}"))?,
                        ),
                        None => None,
                    };
                    checkers.push((fam.to_owned(), t, f));
                    checkers.len() - 1
                }
            };
        }
        Ok(Targets {
            checkers,
            per_format,
        })
    }

    fn for_format(&self, f: transcript::Format) -> (&CallChecker<'ir>, Option<&CallChecker<'ir>>) {
        let ix = transcript::Format::ALL
            .iter()
            .position(|x| *x == f)
            .map_or(0, |i| self.per_format[i]);
        let (_, to, from) = &self.checkers[ix];
        (to, from.as_ref())
    }

    pub fn role(&self) -> &str {
        self.checkers.first().map_or("", |(_, c, _)| c.role())
    }

    /// The families used, in first-use order.
    pub fn families(&self) -> Vec<&str> {
        self.checkers.iter().map(|(f, _, _)| f.as_str()).collect()
    }

    fn has_from(&self) -> bool {
        self.checkers.iter().any(|(_, _, f)| f.is_some())
    }
}

/// `file:line`, and the thread when it is not that line itself.
fn place(call: &transcript::CallEvent<'_>) -> String {
    let at = format!("{}:{}", call.file, call.line);
    if call.thread == at {
        at
    } else {
        format!("{at} (thread {})", call.thread)
    }
}

/// Replay `paths` against the targets. Streaming: one call at a time per file; files are
/// spread over the machine's cores (a call's answer depends on nothing but the call), and the
/// results are merged in file order, so counts and examples do not depend on scheduling.
pub fn replay_pair(
    paths: &[PathBuf],
    targets: &Targets<'_>,
    examples: usize,
) -> anyhow::Result<Replay> {
    let files = transcript_files(paths)?;
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len())
        .max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Finished files wait here until every earlier one is merged, so at most a few per-file
    // results are held at once and the merge order is the file order.
    let merged = std::sync::Mutex::new(Merge {
        total: Replay {
            from: targets.has_from().then(Outcome::default),
            ..Replay::default()
        },
        waiting: std::collections::BTreeMap::new(),
        next: 0,
        error: None,
    });
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    let r = replay_file(file, targets, examples);
                    let Ok(mut guard) = merged.lock() else { break };
                    let m = &mut *guard;
                    m.waiting.insert(i, r);
                    while let Some(r) = m.waiting.remove(&m.next) {
                        m.next += 1;
                        match r {
                            Ok(r) => m.total.absorb(r, examples),
                            Err(e) => {
                                if m.error.is_none() {
                                    m.error = Some(e);
                                }
                            }
                        }
                    }
                }
            });
        }
    });
    let m = merged
        .into_inner()
        .map_err(|_| anyhow::anyhow!("a replay worker panicked"))?;
    match m.error {
        Some(e) => Err(e),
        None => Ok(m.total),
    }
}

/// The replay so far and the files finished out of order.
struct Merge {
    total: Replay,
    waiting: std::collections::BTreeMap<usize, anyhow::Result<Replay>>,
    next: usize,
    error: Option<anyhow::Error>,
}

/// One file's replay.
fn replay_file(file: &Path, targets: &Targets<'_>, examples: usize) -> anyhow::Result<Replay> {
    let files = [file];
    let mut r = Replay {
        from: targets.has_from().then(Outcome::default),
        ..Replay::default()
    };
    let mut break_keys: HashMap<(&str, Option<&str>), HashMap<String, u64>> = HashMap::default();
    let mut sink = |event: Event<'_>| {
        let Event::Call(call) = event else { return };
        let (to, from) = targets.for_format(call.format);
        let text = call.arguments.text();
        // The arguments' members are read once, by whichever checker first needs them.
        let args = toolsurface::Arguments::from(text);
        let read = std::cell::OnceCell::new();
        let members = || {
            read.get_or_init(|| {
                args.object(call.name)
                    .and_then(toolsurface_kernel::Obj::into_pairs)
            })
        };
        let got = to.verdict_shared(call.name, text, &members);
        let example = || place(&call);
        r.to.count(&got, call.name, example, examples);
        let (Some(from), Some(fo)) = (from, r.from.as_mut()) else {
            return;
        };
        let old = from.verdict_shared(call.name, text, &members);
        fo.count(&old, call.name, example, examples);
        if let (Ok(_), Err(new)) = (&old, &got)
            && new.kind == CallErrorKind::Retired
        {
            // Deliberate, and answered with guidance: not a break (as `diff` rules).
            r.retired_since += 1;
            return;
        }
        if let (Ok(old), Err(new)) = (&old, &got) {
            r.broken_calls += 1;
            if !r.breaks.contains_key(&new.message) {
                r.breaks.insert(new.message.clone(), Default::default());
            }
            let Some(b) = r.breaks.get_mut(&new.message) else {
                return;
            };
            b.0 += 1;
            if b.1.len() < examples {
                b.1.push(Break {
                    from_tool: old.tool.to_owned(),
                    from_action: old.action.map(str::to_owned),
                    message: new.message.clone(),
                    example: example(),
                });
            }
            // Counted under borrowed keys while the file is read (the plan's names and the
            // refusal's text), made owned once per key below.
            let by_message = break_keys.entry((old.tool, old.action)).or_default();
            match by_message.get_mut(&new.message) {
                Some(n) => *n += 1,
                None => {
                    by_message.insert(new.message.clone(), 1);
                }
            }
        }
    };
    r.read = transcript::read_files(&files, &mut sink)?;
    for ((tool, action), by_message) in break_keys {
        for (message, n) in by_message {
            *r.break_keys
                .entry((tool.to_owned(), action.map(str::to_owned), message))
                .or_default() += n;
        }
    }
    Ok(r)
}

impl Outcome {
    /// Add a later file's outcome (groups keep their first examples).
    fn absorb(&mut self, o: Outcome, keep: usize) {
        self.calls += o.calls;
        self.as_is += o.as_is;
        for (k, (t, n)) in o.via_alias {
            self.via_alias.entry(k).or_insert_with(|| (t, 0)).1 += n;
        }
        for (k, (m, n)) in o.retired {
            self.retired.entry(k).or_insert_with(|| (m, 0)).1 += n;
        }
        for (k, n) in o.unknown {
            *self.unknown.entry(k).or_default() += n;
        }
        for (k, g) in o.refused {
            let mine = self.refused.entry(k).or_insert_with(|| Group {
                kind: g.kind.clone(),
                ..Group::default()
            });
            mine.calls += g.calls;
            let room = keep.saturating_sub(mine.examples.len());
            mine.examples.extend(g.examples.into_iter().take(room));
        }
    }
}

impl Replay {
    /// Add a later file's replay.
    fn absorb(&mut self, r: Replay, keep: usize) {
        self.read.absorb(r.read);
        self.to.absorb(r.to, keep);
        if let (Some(mine), Some(theirs)) = (self.from.as_mut(), r.from) {
            mine.absorb(theirs, keep);
        }
        for (k, (n, b)) in r.breaks {
            let mine = self.breaks.entry(k).or_default();
            mine.0 += n;
            let room = keep.saturating_sub(mine.1.len());
            mine.1.extend(b.into_iter().take(room));
        }
        self.broken_calls += r.broken_calls;
        self.retired_since += r.retired_since;
        for (k, n) in r.break_keys {
            *self.break_keys.entry(k).or_default() += n;
        }
    }
}

/// How many of `r`'s breaks a diff finding explains. `id` is `rule/role/tool[/action]/field…`
/// (the tool and field as the old surface names them); a break counts when the old surface
/// parsed it as that tool (and action), and, for a finding about a field, the new refusal
/// names that field (or the name the new surface's alias renames it to).
pub fn breaks_explained(r: &Replay, id: &str, from: &Ir, to: &Ir) -> u64 {
    let segs: Vec<&str> = id.split('/').collect();
    let Some(tool) = segs.get(2).copied() else {
        return 0;
    };
    let from_tool = from.tool(tool);
    let (action, rest) = match (segs.get(3), from_tool) {
        (Some(a), Some(t)) if t.action(a).is_some() => (Some(*a), &segs[4.min(segs.len())..]),
        _ => (None, &segs[3.min(segs.len())..]),
    };
    let field = rest
        .first()
        .map(|f| f.trim_end_matches("[]"))
        .filter(|f| from_tool.is_some_and(|t| t.field(f).is_some()));
    let renamed = field.and_then(|f| {
        to.alias(tool)
            .and_then(|a| a.rename.get(f))
            .map(String::as_str)
    });
    let names = |m: &str, f: &str| {
        m.contains(&format!("{f}:"))
            || m.contains(&format!("{f}["))
            || m.contains(&format!("field {f}"))
    };
    r.break_keys
        .iter()
        .filter(|((t, a, m), _)| {
            t == tool
                && action.is_none_or(|x| a.as_deref() == Some(x))
                && field.is_none_or(|f| names(m, f) || renamed.is_some_and(|g| names(m, g)))
        })
        .map(|(_, n)| n)
        .sum()
}

/// Files named, and the `*.jsonl` / `*.json` files under folders named (sorted), in order.
pub fn transcript_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out)?;
            } else if p.extension().is_some_and(|e| e == "jsonl" || e == "json") {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            anyhow::bail!("{}: no such transcript file or folder", p.display());
        }
    }
    Ok(out)
}

/// A definitions folder compiled for replay: its IR and its plan (what the checkers run).
pub struct Defs {
    pub ir: Ir,
    pub plan: Plan,
}

/// Compile a definitions folder for replay (diagnostics printed).
pub fn compile_for_replay(dir: &Path) -> anyhow::Result<Result<Defs, Status>> {
    Ok(match super::check::compile_dir(dir)? {
        Ok((_, ir)) => {
            let plan = toolsurface_compiler::plan::lower_rules(&ir);
            Ok(Defs { ir, plan })
        }
        Err(s) => Err(s),
    })
}

/// The checker for `role` × `family` (defaults: the IR's first role / family).
pub fn checker_for<'ir>(
    plan: &'ir Plan,
    role: Option<&str>,
    family: Option<&str>,
    skills: &[String],
) -> anyhow::Result<CallChecker<'ir>> {
    let role = role
        .or_else(|| plan.roles.first().map(|r| r.name.as_str()))
        .ok_or_else(|| anyhow::anyhow!("the definitions declare no role"))?;
    let family = family
        .or_else(|| plan.families.first().map(|f| f.name.as_str()))
        .ok_or_else(|| anyhow::anyhow!("the definitions declare no family"))?;
    if !plan.roles.iter().any(|r| r.name == role) {
        let known = plan.roles.iter().map(|r| r.name.as_str());
        anyhow::bail!("{}", super::unknown_name("role", role, known));
    }
    if !plan.families.iter().any(|f| f.name == family) {
        let known = plan.families.iter().map(|f| f.name.as_str());
        anyhow::bail!("{}", super::unknown_name("family", family, known));
    }
    let skills: Vec<&str> = skills.iter().map(String::as_str).collect();
    Ok(CallChecker::new(plan, role, family)?.with_skills(&skills)?)
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let to_ir = match compile_for_replay(&args.to)? {
        Ok(ir) => ir,
        Err(s) => return Ok(s),
    };
    let from_ir = match &args.from {
        Some(dir) => match compile_for_replay(dir)? {
            Ok(ir) => Some(ir),
            Err(s) => return Ok(s),
        },
        None => None,
    };
    let targets = match Targets::new(
        &to_ir.plan,
        from_ir.as_ref().map(|d| &d.plan),
        args.role.as_deref(),
        args.family.as_deref(),
        &args.skills,
    ) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Status::Usage);
        }
    };
    let r = replay_pair(&args.transcripts, &targets, args.examples)?;
    let families = targets.families().join(", ");
    let title = format!(
        "{} × {} of {}{}",
        targets.role(),
        families,
        args.to.display(),
        args.from
            .as_ref()
            .map(|f| format!(" (from {})", f.display()))
            .unwrap_or_default()
    );
    let text = match args.format {
        Format::Text => render_text(&r, &title),
        Format::Markdown => render_markdown(&r, &title),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&render_json(
                &r,
                targets.role(),
                &targets.families(),
            ))?;
            s.push('\n');
            s
        }
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    for m in &r.read.malformed {
        eprintln!("warning: {}:{}: skipped: {}", m.file, m.line, m.reason);
    }
    Ok(if r.broken_calls > 0 {
        Status::BreakingDrift
    } else {
        Status::Clean
    })
}

fn sorted_groups(groups: &HashMap<String, Group>) -> Vec<(&String, &Group)> {
    let mut v: Vec<_> = groups.iter().collect();
    v.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then(a.0.cmp(b.0)));
    v
}

fn sorted_breaks(r: &Replay) -> Vec<(&String, &(u64, Vec<Break>))> {
    let mut v: Vec<_> = r.breaks.iter().collect();
    v.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
    v
}

/// Groups shown by name (the rest are summed).
const GROUPS_SHOWN: usize = 20;

fn render_text(r: &Replay, title: &str) -> String {
    let o = &r.to;
    let mut s = String::new();
    let _ = writeln!(s, "replay against {title}");
    let _ = writeln!(
        s,
        "{} calls in {} files ({} lines; {} malformed, skipped)",
        o.calls, r.read.files, r.read.lines, r.read.malformed_count
    );
    let pct = |n: u64| {
        if o.calls == 0 {
            0.0
        } else {
            n as f64 * 100.0 / o.calls as f64
        }
    };
    let alias: u64 = o.via_alias.values().map(|v| v.1).sum();
    let retired: u64 = o.retired.values().map(|v| v.1).sum();
    let unknown: u64 = o.unknown.values().sum();
    let refused = o.refused_total();
    for (label, n) in [
        ("parsed as-is", o.as_is),
        ("via alias", alias),
        ("retired", retired),
        ("refused", refused),
        ("unknown tool", unknown),
    ] {
        let _ = writeln!(s, "  {label:<13} {n:>9}  {:>5.1}%", pct(n));
    }
    if !o.via_alias.is_empty() {
        let _ = writeln!(s, "\nvia alias:");
        for (a, (t, n)) in &o.via_alias {
            let _ = writeln!(s, "  {n:>9}  {a} → {t}");
        }
    }
    if !o.retired.is_empty() {
        let _ = writeln!(s, "\nretired (the model is told):");
        for (name, (msg, n)) in &o.retired {
            let _ = writeln!(s, "  {n:>9}  {name}: {msg}");
        }
    }
    if !o.refused.is_empty() {
        let groups = sorted_groups(&o.refused);
        let _ = writeln!(s, "\nrefused ({} distinct answers):", groups.len());
        for (msg, g) in groups.iter().take(GROUPS_SHOWN) {
            let _ = writeln!(s, "  {:>9}  {msg}", g.calls);
            for e in &g.examples {
                let _ = writeln!(s, "             e.g. {e}");
            }
        }
        if groups.len() > GROUPS_SHOWN {
            let rest: u64 = groups[GROUPS_SHOWN..].iter().map(|g| g.1.calls).sum();
            let _ = writeln!(
                s,
                "  {rest:>9}  … {} more answers",
                groups.len() - GROUPS_SHOWN
            );
        }
    }
    if !o.unknown.is_empty() {
        let _ = writeln!(s, "\nunknown tools:");
        for (name, n) in &o.unknown {
            let _ = writeln!(s, "  {n:>9}  {name}");
        }
    }
    if let Some(from) = &r.from {
        let accepted = from.as_is + from.via_alias.values().map(|v| v.1).sum::<u64>();
        let _ = writeln!(
            s,
            "\nbreaking: {} of the {} calls --from accepted are refused by --to",
            r.broken_calls, accepted
        );
        for (msg, (n, breaks)) in sorted_breaks(r).iter().take(GROUPS_SHOWN) {
            let _ = writeln!(s, "  {n:>9}  {msg}");
            for b in breaks {
                let was = match &b.from_action {
                    Some(a) => format!("{} {a}", b.from_tool),
                    None => b.from_tool.clone(),
                };
                let _ = writeln!(s, "             e.g. {} (was {was})", b.example);
            }
        }
    }
    s
}

fn render_markdown(r: &Replay, title: &str) -> String {
    let o = &r.to;
    let mut s = String::new();
    let _ = writeln!(s, "### Replay against {title}\n");
    let _ = writeln!(
        s,
        "{} calls from {} files ({} malformed lines skipped).\n",
        o.calls, r.read.files, r.read.malformed_count
    );
    let _ = writeln!(s, "| outcome | calls |\n|---|---:|");
    let _ = writeln!(s, "| parsed as-is | {} |", o.as_is);
    let _ = writeln!(
        s,
        "| via alias | {} |",
        o.via_alias.values().map(|v| v.1).sum::<u64>()
    );
    let _ = writeln!(
        s,
        "| retired | {} |",
        o.retired.values().map(|v| v.1).sum::<u64>()
    );
    let _ = writeln!(s, "| refused | {} |", o.refused_total());
    let _ = writeln!(s, "| unknown tool | {} |", o.unknown.values().sum::<u64>());
    if !o.refused.is_empty() {
        let _ = writeln!(s, "\n| refusal | calls | example |\n|---|---:|---|");
        for (msg, g) in sorted_groups(&o.refused).iter().take(GROUPS_SHOWN) {
            let _ = writeln!(
                s,
                "| `{}` | {} | {} |",
                msg.replace('|', "\\|").replace('`', "'"),
                g.calls,
                g.examples.first().map(String::as_str).unwrap_or("")
            );
        }
    }
    if r.from.is_some() {
        let _ = writeln!(
            s,
            "\n**Breaking:** {} calls the old surface accepted are refused.",
            r.broken_calls
        );
    }
    s
}

fn render_json(r: &Replay, role: &str, families: &[&str]) -> Value {
    let outcome = |o: &Outcome| {
        json!({
            "calls": o.calls,
            "as_is": o.as_is,
            "via_alias": o.via_alias.iter().map(|(a, (t, n))| json!({"alias": a, "tool": t, "calls": n})).collect::<Vec<_>>(),
            "retired": o.retired.iter().map(|(a, (m, n))| json!({"name": a, "message": m, "calls": n})).collect::<Vec<_>>(),
            "refused": sorted_groups(&o.refused).iter().map(|(m, g)| json!({"message": m, "kind": g.kind, "calls": g.calls, "examples": g.examples})).collect::<Vec<_>>(),
            "unknown": o.unknown.iter().map(|(a, n)| json!({"name": a, "calls": n})).collect::<Vec<_>>(),
        })
    };
    let mut v = json!({
        "role": role,
        "families": families,
        "files": r.read.files,
        "lines": r.read.lines,
        "formats": r.read.formats,
        "malformed": {
            "count": r.read.malformed_count,
            "lines": r.read.malformed.iter().map(|m| json!({"file": m.file, "line": m.line, "reason": m.reason})).collect::<Vec<_>>(),
        },
        "to": outcome(&r.to),
    });
    if let (Some(from), Some(map)) = (&r.from, v.as_object_mut()) {
        map.insert("from".to_owned(), outcome(from));
        map.insert(
            "breaking".to_owned(),
            json!({
                "calls": r.broken_calls,
                "retired_since": r.retired_since,
                "groups": sorted_breaks(r).iter().map(|(m, (n, b))| json!({
                    "message": m,
                    "calls": n,
                    "examples": b.iter().map(|b| json!({"at": b.example, "from_tool": b.from_tool, "from_action": b.from_action})).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            }),
        );
    }
    v
}
