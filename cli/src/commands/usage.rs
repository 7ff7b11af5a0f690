//! `toolsurface usage`: how models really use a tool surface, from transcripts — per tool and
//! per action: calls, threads using it, calls per using thread, share of all threads, median
//! position of the first call in a thread and how often it precedes the thread's first file
//! write, error results; and confusion signals (a call followed by a look-alike tool with
//! overlapping arguments; an error result followed by a different tool). The data behind
//! "keep set_workdirs: 384 calls in 378 threads". JSON output is the input of `lint --usage`.
//!
//! Streaming: per thread only a small state is kept (counters, the previous call's name and
//! argument keys) and a conversation-per-line thread is folded into the totals at its end.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use serde_json::{Value, json};
use toolsurface_compiler::Ir;

use super::{FastMap as HashMap, Status};
use crate::transcript::{self, CallEvent, Event};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(clap::Args, Debug)]
#[command(
    long_about = "Per tool and per action: calls, threads using it, calls per using thread, share \
                  of all threads, median position of the first call in a thread (1 = the thread's \
                  first tool call) and the share of writing threads where it came before the first \
                  file write, error results. Confusion signals: a call followed in the same thread \
                  by a look-alike tool (similar name or same object) with overlapping argument \
                  keys, and an error result followed by a call to a different tool.",
    after_help = "Examples:\n  toolsurface usage logs/                       # every *.jsonl / *.json below logs/\n  \
                  toolsurface usage a.jsonl b.json --defs tool-defs --format markdown\n\n\
                  Formats, detected per line: OpenAI Chat, OpenAI Responses, Anthropic Messages, \
                  Codex CLI rollouts, toolsurface messages; layouts: one conversation per line \
                  (messages / input, batch body / params), one message or event per line with a \
                  thread id, a whole .json conversation. Malformed lines are reported (file:line) \
                  and skipped.\n\
                  With --defs, aliases count toward their target tool, actions are named by the \
                  tool's selector, and a file write is an action on a file object that is not \
                  read_only; without, a tool whose name has write, edit or patch in it.\n\
                  Exit codes: 0 ok, 1 invalid definitions, 2 usage error (unreadable input)."
)]
pub struct Args {
    /// Transcript files or folders.
    #[arg(required = true)]
    pub transcripts: Vec<PathBuf>,
    /// Definitions folder to resolve aliases and name actions with.
    #[arg(long)]
    pub defs: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// One tool, or one action of a tool.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub calls: u64,
    pub threads: u64,
    /// First-call positions, one per using thread (for the median).
    pub first_positions: Vec<u32>,
    /// Using threads that write files, and of those, where this came first.
    pub writing_threads: u64,
    pub before_first_write: u64,
    pub errors: u64,
}

impl Stats {
    fn median_first(&self) -> Option<f64> {
        let mut v = self.first_positions.clone();
        if v.is_empty() {
            return None;
        }
        v.sort_unstable();
        let n = v.len();
        Some(if n % 2 == 1 {
            f64::from(v[n / 2])
        } else {
            (f64::from(v[n / 2 - 1]) + f64::from(v[n / 2])) / 2.0
        })
    }
}

/// How a raw tool name is counted: the tool (alias targets resolved), the key that names its
/// action, and whether a call writes files.
#[derive(Clone, Copy)]
struct NameInfo {
    tool: u32,
    /// The selector field, or the alias's fixed action.
    action: ActionOf,
    writes: WriteRule,
}

#[derive(Clone, Copy)]
enum ActionOf {
    None,
    Fixed(u32),
    /// The selector field's name, in [`Usage::selectors`].
    Selector(u32),
}

#[derive(Clone, Copy)]
enum WriteRule {
    Never,
    Always,
    /// Writes unless the action (by name) is read-only: the read-only actions, in
    /// [`Usage::read_only`].
    UnlessReadOnly(u32),
}

/// A call waiting for its result.
struct Pending {
    /// Its id, in [`ThreadState::pending_ids`].
    call_id: Option<std::ops::Range<usize>>,
    tool: u32,
    action: Option<u32>,
}

#[derive(Default)]
struct ThreadState {
    position: u32,
    first_write: Option<u32>,
    /// (tool, action) → first position, in first-use order.
    firsts: Vec<((u32, Option<u32>), u32)>,
    pending: VecDeque<Pending>,
    /// The pending calls' ids, one after the other (emptied whenever nothing is pending).
    pending_ids: String,
    /// The previous call: raw name id and its argument keys.
    last: Option<(u32, Vec<u64>)>,
    /// Whether the previous call's result was an error.
    last_error: bool,
}

/// A confusion signal between two tools.
#[derive(Debug, Default, Clone)]
pub struct Signal {
    pub count: u64,
    pub example: String,
}

/// The whole analysis, built while reading.
#[derive(Default)]
pub struct Usage {
    names: Vec<String>,
    name_ids: HashMap<String, u32>,
    /// Per name id, how a call of that name counts (from its first call on).
    infos: Vec<Option<NameInfo>>,
    /// [`ActionOf::Selector`]'s field names and [`WriteRule::UnlessReadOnly`]'s action lists.
    selectors: Vec<String>,
    read_only: Vec<Vec<String>>,
    actions: Vec<String>,
    action_ids: HashMap<String, u32>,
    pub tools: BTreeMap<u32, Stats>,
    pub by_action: BTreeMap<(u32, u32), Stats>,
    threads: HashMap<String, ThreadState>,
    pub thread_count: u64,
    /// (kind, from, to) → signal.
    pub signals: BTreeMap<(&'static str, u32, u32), Signal>,
    look_alike: HashMap<(u32, u32), bool>,
    objects: HashMap<u32, String>,
    /// A key list to read the next call's keys into (the one a thread's previous call
    /// gave back).
    spare_keys: Vec<u64>,
}

impl Usage {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(id) = self.name_ids.get(name) {
            return *id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.name_ids.insert(name.to_owned(), id);
        id
    }

    fn intern_action(&mut self, name: &str) -> u32 {
        if let Some(id) = self.action_ids.get(name) {
            return *id;
        }
        let id = self.actions.len() as u32;
        self.actions.push(name.to_owned());
        self.action_ids.insert(name.to_owned(), id);
        id
    }

    /// The name's id, and how a call of it counts (from the definitions when given).
    fn info(&mut self, name: &str, ir: Option<&Ir>) -> (u32, NameInfo) {
        let id = self.intern(name);
        if let Some(Some(i)) = self.infos.get(id as usize) {
            return (id, *i);
        }
        let heuristic = || {
            if ["write", "edit", "patch"].iter().any(|w| name.contains(w)) {
                WriteRule::Always
            } else {
                WriteRule::Never
            }
        };
        let info = match ir {
            None => NameInfo {
                tool: id,
                action: ActionOf::None,
                writes: heuristic(),
            },
            Some(ir) => {
                let (tool_name, fixed) = match ir.alias(name) {
                    Some(a) => {
                        let sel = ir
                            .tool(&a.tool)
                            .and_then(|t| t.selector.as_ref())
                            .and_then(|s| a.set.get(&s.name))
                            .and_then(Value::as_str)
                            .map(str::to_owned);
                        (a.tool.clone(), sel)
                    }
                    None => (name.to_owned(), None),
                };
                let tool_id = self.intern(&tool_name);
                match ir.tool(&tool_name) {
                    Some(t) => {
                        self.objects.insert(tool_id, t.object.clone());
                        let action = match (fixed, &t.selector) {
                            (Some(a), _) => ActionOf::Fixed(self.intern_action(&a)),
                            (None, Some(s)) => {
                                self.selectors.push(s.name.clone());
                                ActionOf::Selector(self.selectors.len() as u32 - 1)
                            }
                            (None, None) => ActionOf::None,
                        };
                        let on_files = t.object.contains("file") || t.freeform.is_some();
                        let writes = if !on_files {
                            WriteRule::Never
                        } else {
                            let read_only: Vec<String> = t
                                .actions
                                .iter()
                                .filter(|a| a.bool_trait("read_only"))
                                .map(|a| a.name.clone().unwrap_or_default())
                                .collect();
                            if read_only.len() == t.actions.len() {
                                WriteRule::Never
                            } else {
                                self.read_only.push(read_only);
                                WriteRule::UnlessReadOnly(self.read_only.len() as u32 - 1)
                            }
                        };
                        NameInfo {
                            tool: tool_id,
                            action,
                            writes,
                        }
                    }
                    None => NameInfo {
                        tool: tool_id,
                        action: ActionOf::None,
                        writes: heuristic(),
                    },
                }
            }
        };
        if self.infos.len() <= id as usize {
            self.infos.resize(id as usize + 1, None);
        }
        self.infos[id as usize] = Some(info);
        (id, info)
    }

    /// Whether tools `a` and `b` look alike: a close name (as did-you-mean picks), a shared
    /// word of four letters or more, or (with definitions) the same object.
    fn looks_alike(&mut self, a: u32, b: u32) -> bool {
        if a == b {
            return false;
        }
        if let Some(v) = self.look_alike.get(&(a, b)) {
            return *v;
        }
        let (na, nb) = (&self.names[a as usize], &self.names[b as usize]);
        let close = toolsurface_kernel::did_you_mean(na, [nb.as_str()]).is_some();
        let shared = na
            .split('_')
            .filter(|w| w.len() >= 4)
            .any(|w| nb.split('_').any(|x| x == w));
        let same_object =
            matches!((self.objects.get(&a), self.objects.get(&b)), (Some(x), Some(y)) if x == y);
        let v = close || shared || same_object;
        self.look_alike.insert((a, b), v);
        v
    }

    fn on_call(&mut self, call: &CallEvent<'_>, ir: Option<&Ir>) {
        let (raw_id, info) = self.info(call.name, ir);
        let text = call.arguments.text();
        let selector = match info.action {
            ActionOf::Selector(s) => self.selectors.get(s as usize).map(String::as_str),
            _ => None,
        };
        let mut keys = std::mem::take(&mut self.spare_keys);
        let selected = read_members(text, selector, &mut keys);
        let action = match info.action {
            ActionOf::None => None,
            ActionOf::Fixed(a) => Some(a),
            ActionOf::Selector(_) => selected.map(|a| self.intern_action(&a)),
        };
        let writes = match info.writes {
            WriteRule::Never => false,
            WriteRule::Always => true,
            WriteRule::UnlessReadOnly(ro) => {
                let a = action
                    .map(|a| self.actions[a as usize].as_str())
                    .unwrap_or("");
                !self.read_only[ro as usize].iter().any(|r| r == a)
            }
        };
        let tool = info.tool;
        let place = || format!("{}:{}", call.file, call.line);
        // Thread state, then the signals against the previous call.
        let t = match self.threads.get_mut(call.thread) {
            Some(t) => t,
            None => {
                self.thread_count += 1;
                self.threads.entry(call.thread.to_owned()).or_default()
            }
        };
        t.position += 1;
        let p = t.position;
        if writes && t.first_write.is_none() {
            t.first_write = Some(p);
        }
        for key in [(tool, None), (tool, action)] {
            if !t.firsts.iter().any(|(k, _)| *k == key) {
                t.firsts.push((key, p));
            }
        }
        let call_id = call.call_id.map(|id| {
            let start = t.pending_ids.len();
            t.pending_ids.push_str(id);
            start..t.pending_ids.len()
        });
        t.pending.push_back(Pending {
            call_id,
            tool,
            action,
        });
        // The previous call, and whether its keys and this call's overlap; its key list is
        // kept for the next call to read into.
        let previous = t.last.take().map(|(prev, mut prev_keys)| {
            let overlap = prev_keys.iter().any(|k| keys.contains(k));
            prev_keys.clear();
            self.spare_keys = prev_keys;
            (prev, overlap)
        });
        let last_error = std::mem::take(&mut t.last_error);
        t.last = Some((raw_id, keys));
        if let Some((prev, overlap)) = previous
            && prev != raw_id
        {
            let kinds = [
                ("error-then-other-tool", last_error),
                (
                    "look-alike-follow-up",
                    overlap && self.looks_alike(prev, raw_id),
                ),
            ];
            for (kind, seen) in kinds {
                if seen {
                    let s = self.signals.entry((kind, prev, raw_id)).or_default();
                    s.count += 1;
                    if s.example.is_empty() {
                        s.example = place();
                    }
                }
            }
        }
        self.tools.entry(tool).or_default().calls += 1;
        if let Some(a) = action {
            self.by_action.entry((tool, a)).or_default().calls += 1;
        }
    }

    fn on_result(&mut self, thread: &str, call_id: Option<&str>, is_error: bool) {
        let Some(t) = self.threads.get_mut(thread) else {
            return;
        };
        let ix = match call_id {
            Some(id) => t
                .pending
                .iter()
                .position(|p| {
                    p.call_id
                        .as_ref()
                        .and_then(|r| t.pending_ids.get(r.clone()))
                        == Some(id)
                })
                .or(if t.pending.is_empty() { None } else { Some(0) }),
            None => (!t.pending.is_empty()).then_some(0),
        };
        let Some(p) = ix.and_then(|i| t.pending.remove(i)) else {
            return;
        };
        if t.pending.is_empty() {
            t.pending_ids.clear();
        }
        if is_error {
            t.last_error = true;
            self.tools.entry(p.tool).or_default().errors += 1;
            if let Some(a) = p.action {
                self.by_action.entry((p.tool, a)).or_default().errors += 1;
            }
        }
    }

    /// Fold a finished thread into the totals.
    fn end_thread(&mut self, thread: &str) {
        let Some(t) = self.threads.remove(thread) else {
            return;
        };
        for ((tool, action), p) in t.firsts {
            let s = match action {
                None => self.tools.entry(tool).or_default(),
                Some(a) => self.by_action.entry((tool, a)).or_default(),
            };
            s.threads += 1;
            s.first_positions.push(p);
            if let Some(w) = t.first_write {
                s.writing_threads += 1;
                if p < w {
                    s.before_first_write += 1;
                }
            }
        }
    }

    fn finish(&mut self) {
        let open: Vec<String> = self.threads.keys().cloned().collect();
        for t in open {
            self.end_thread(&t);
        }
    }
}

/// What `usage` reads of an arguments text in one pass: its top-level keys (as FNV-1a hashes,
/// for the overlap test) and the string value of the selector field, if asked for.
struct Members<'s> {
    selector: Option<&'s str>,
}

/// The serde reading of [`Members`]: the keys and the selector's value.
#[derive(Default)]
struct Read {
    keys: Vec<u64>,
    selector: Option<String>,
}

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl<'de> serde::de::DeserializeSeed<'de> for Members<'_> {
    type Value = Read;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Read, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Members<'_> {
    type Value = Read;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an arguments object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Read, A::Error> {
        let mut out = Read::default();
        while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            out.keys.push(fnv1a(&k));
            if self.selector == Some(&*k) {
                let v: serde_json::Value = map.next_value()?;
                out.selector = v.as_str().map(str::to_owned);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(out)
    }
}

/// Keys (into `keys`, emptied first) and the selector's value of an arguments text (nothing
/// when it is not a JSON object). Read in one pass where it is sure to read what serde_json
/// reads (keys without escapes, the selector a string without escapes), else by serde_json.
fn read_members<'t>(
    text: &'t str,
    selector: Option<&str>,
    keys: &mut Vec<u64>,
) -> Option<std::borrow::Cow<'t, str>> {
    use serde::de::DeserializeSeed as _;
    keys.clear();
    let mut selected = None;
    let mut sure = true;
    let read = crate::transcript::object_members(text, |key, value| {
        keys.push(fnv1a(key));
        if selector == Some(key) {
            // A string without escapes is its contents; anything else serde_json reads as a
            // Value first (which can refuse what the one-pass reader skips).
            match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                Some(s) if !s.contains('\\') => selected = Some(s),
                _ => sure = false,
            }
        }
    });
    if read.is_some() && sure {
        return selected.map(std::borrow::Cow::Borrowed);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let read = Members { selector }
        .deserialize(&mut de)
        .unwrap_or_default();
    keys.clear();
    keys.extend(read.keys);
    read.selector.map(std::borrow::Cow::Owned)
}

/// Read the transcripts and compute the usage.
pub fn analyse(
    paths: &[PathBuf],
    ir: Option<&Ir>,
) -> anyhow::Result<(Usage, transcript::ReadSummary)> {
    let files = super::replay::transcript_files(paths)?;
    let mut u = Usage::default();
    let summary = transcript::read_files(&files, &mut |e| match e {
        Event::Call(c) => u.on_call(&c, ir),
        Event::Result(r) => u.on_result(r.thread, r.call_id, r.is_error()),
        Event::ThreadEnd(t) => u.end_thread(t),
    })?;
    u.finish();
    Ok((u, summary))
}

pub fn run(args: Args) -> anyhow::Result<Status> {
    let ir = match &args.defs {
        Some(dir) => match super::replay::compile_for_replay(dir)? {
            Ok(defs) => Some(defs.ir),
            Err(s) => return Ok(s),
        },
        None => None,
    };
    let (u, summary) = analyse(&args.transcripts, ir.as_ref())?;
    let report = report_json(&u, &summary);
    let text = match args.format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&report)?;
            s.push('\n');
            s
        }
        Format::Text => render_text(&report),
        Format::Markdown => render_markdown(&report),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    for m in &summary.malformed {
        eprintln!("warning: {}:{}: skipped: {}", m.file, m.line, m.reason);
    }
    Ok(Status::Clean)
}

fn stats_json(s: &Stats, total_threads: u64) -> Value {
    let share = if total_threads == 0 {
        0.0
    } else {
        s.threads as f64 / total_threads as f64
    };
    json!({
        "calls": s.calls,
        "threads": s.threads,
        "calls_per_thread": if s.threads == 0 { 0.0 } else { round3(s.calls as f64 / s.threads as f64) },
        "thread_share": round3(share),
        "median_first_position": s.median_first(),
        "first_before_write": {"threads": s.before_first_write, "of_writing_threads": s.writing_threads},
        "errors": s.errors,
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The stable JSON report (the other formats render it).
pub fn report_json(u: &Usage, summary: &transcript::ReadSummary) -> Value {
    let mut tools: Vec<(&u32, &Stats)> = u.tools.iter().collect();
    tools.sort_by(|a, b| {
        b.1.calls
            .cmp(&a.1.calls)
            .then(u.names[*a.0 as usize].cmp(&u.names[*b.0 as usize]))
    });
    let tools: Vec<Value> = tools
        .into_iter()
        .map(|(id, s)| {
            let mut v = stats_json(s, u.thread_count);
            let actions: Vec<Value> = u
                .by_action
                .iter()
                .filter(|((t, _), _)| t == id)
                .map(|((_, a), s)| {
                    let mut v = stats_json(s, u.thread_count);
                    if let Some(m) = v.as_object_mut() {
                        m.insert("action".into(), json!(u.actions[*a as usize]));
                    }
                    v
                })
                .collect();
            if let Some(m) = v.as_object_mut() {
                let mut out = serde_json::Map::new();
                out.insert("tool".into(), json!(u.names[*id as usize]));
                out.extend(std::mem::take(m));
                out.insert("actions".into(), Value::Array(actions));
                *m = out;
            }
            v
        })
        .collect();
    let mut signals: Vec<(&(&str, u32, u32), &Signal)> = u.signals.iter().collect();
    signals.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
    json!({
        "files": summary.files,
        "lines": summary.lines,
        "formats": summary.formats,
        "threads": u.thread_count,
        "calls": summary.calls,
        "results": summary.results,
        "malformed": {
            "count": summary.malformed_count,
            "lines": summary.malformed.iter().map(|m| json!({"file": m.file, "line": m.line, "reason": m.reason})).collect::<Vec<_>>(),
        },
        "tools": tools,
        "confusion": signals.iter().map(|((kind, a, b), s)| json!({
            "kind": kind,
            "from": u.names[*a as usize],
            "to": u.names[*b as usize],
            "count": s.count,
            "example": s.example,
        })).collect::<Vec<_>>(),
    })
}

/// One row of the text and markdown tables.
fn row(name: &str, s: &Value) -> [String; 7] {
    let num = |k: &str| s.get(k).cloned().unwrap_or(Value::Null);
    let fbw = s.get("first_before_write");
    let before = fbw
        .and_then(|v| v.get("threads"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let of = fbw
        .and_then(|v| v.get("of_writing_threads"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let share = num("thread_share").as_f64().unwrap_or(0.0) * 100.0;
    [
        name.to_owned(),
        num("calls").to_string(),
        num("threads").to_string(),
        format!("{:.2}", num("calls_per_thread").as_f64().unwrap_or(0.0)),
        format!("{share:.1}%"),
        match num("median_first_position").as_f64() {
            Some(m) => format!("{m} ({before}/{of} before write)"),
            None => "-".to_owned(),
        },
        num("errors").to_string(),
    ]
}

const HEADER: [&str; 7] = [
    "tool / action",
    "calls",
    "threads",
    "per thread",
    "of threads",
    "first call at (median)",
    "errors",
];

fn rows(report: &Value) -> Vec<[String; 7]> {
    let mut out = Vec::new();
    for t in report["tools"].as_array().into_iter().flatten() {
        out.push(row(t["tool"].as_str().unwrap_or(""), t));
        for a in t["actions"].as_array().into_iter().flatten() {
            out.push(row(&format!("  {}", a["action"].as_str().unwrap_or("")), a));
        }
    }
    out
}

fn render_text(report: &Value) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} calls in {} threads, {} files ({} lines; {} malformed, skipped)",
        report["calls"],
        report["threads"],
        report["files"],
        report["lines"],
        report["malformed"]["count"]
    );
    let body = rows(report);
    let mut widths = HEADER.map(str::len);
    for r in &body {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut line = |cells: &[String]| {
        let mut l = String::new();
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            if i == 0 || i == 5 {
                let _ = write!(l, "{c:<w$}  ");
            } else {
                let _ = write!(l, "{c:>w$}  ");
            }
        }
        let _ = writeln!(s, "{}", l.trim_end());
    };
    line(&HEADER.map(str::to_owned));
    for r in &body {
        line(r);
    }
    let signals = report["confusion"].as_array().cloned().unwrap_or_default();
    if !signals.is_empty() {
        let _ = writeln!(s, "\nconfusion signals:");
        for c in &signals {
            let _ = writeln!(
                s,
                "  {:>7}  {} → {}  [{}]  e.g. {}",
                c["count"],
                c["from"].as_str().unwrap_or(""),
                c["to"].as_str().unwrap_or(""),
                c["kind"].as_str().unwrap_or(""),
                c["example"].as_str().unwrap_or("")
            );
        }
    }
    s
}

fn render_markdown(report: &Value) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "### Tool usage\n\n{} calls in {} threads ({} malformed lines skipped).\n",
        report["calls"], report["threads"], report["malformed"]["count"]
    );
    let _ = writeln!(s, "| {} |", HEADER.join(" | "));
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---|---:|");
    for r in rows(report) {
        let _ = writeln!(s, "| {} |", r.join(" | ").replace("  ", "&nbsp;&nbsp;"));
    }
    let signals = report["confusion"].as_array().cloned().unwrap_or_default();
    if !signals.is_empty() {
        let _ = writeln!(
            s,
            "\n| signal | from | to | count | example |\n|---|---|---|---:|---|"
        );
        for c in &signals {
            let _ = writeln!(
                s,
                "| {} | `{}` | `{}` | {} | {} |",
                c["kind"].as_str().unwrap_or(""),
                c["from"].as_str().unwrap_or(""),
                c["to"].as_str().unwrap_or(""),
                c["count"],
                c["example"].as_str().unwrap_or("")
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// What serde_json alone reads of an arguments text (the definition `read_members` keeps).
    fn serde_read(text: &str, selector: Option<&str>) -> (Vec<u64>, Option<String>) {
        use serde::de::DeserializeSeed as _;
        let mut de = serde_json::Deserializer::from_str(text);
        let r = Members { selector }
            .deserialize(&mut de)
            .unwrap_or_default();
        (r.keys, r.selector)
    }

    /// `read_members` reads what serde_json reads: keys and selector, for objects, escapes,
    /// duplicates, a selector of every type, numbers serde_json's Value refuses, invalid JSON,
    /// what follows the object, and texts that are no object.
    #[test]
    fn members_are_read_as_serde_json_reads_them() {
        let texts = [
            r#"{"action":"run","path":"a"}"#,
            r#"  {"action" : "run" , "n" : [1, {"x": null}] }  trailing"#,
            r#"{"action":"r\u0075n"}"#,
            r#"{"act\u0069on":"run"}"#,
            r#"{"action":"a","action":"b"}"#,
            r#"{"action":"a","action":5}"#,
            r#"{"action":5,"action":"a"}"#,
            r#"{"action":null}"#,
            r#"{"action":1e999}"#,
            r#"{"x":1e999,"action":"run"}"#,
            r#"{"action":{"deep":[1,2,{"a":"\ud83d\ude00"}]}}"#,
            r#"{"p":"\udead","action":"run"}"#,
            r#"{"action":"run","p":}"#,
            r#"{"action":"run""#,
            r#"{"action":"run"} {"#,
            r#"{}"#,
            r#"[]"#,
            r#"[{"action":"run"}]"#,
            r#""text""#,
            "",
            "not json",
            r#"{"é":"ü","action":"ü"}"#,
            r#"{"a":-0.5e+3,"b":true,"c":false,"d":"tab	raw"}"#,
        ];
        let mut keys = vec![7];
        for text in texts {
            for selector in [None, Some("action")] {
                let got = read_members(text, selector, &mut keys).map(|s| s.into_owned());
                assert_eq!((keys.clone(), got), serde_read(text, selector), "{text}");
            }
        }
    }
}
