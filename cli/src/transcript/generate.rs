//! Synthetic transcripts for tests and benchmarks: thousands of threads of tool calls a model
//! could have made against a definitions folder's role × family, written in every format and
//! layout [`super`] reads. Deterministic for a seed (splitmix64, no `rand`), so a test can pin
//! what it counts.
//!
//! Realism, roughly: tool popularity falls off like Zipf over the role's resident tools; most
//! calls fill their action's required fields and some optional ones with plausible values; a
//! few percent are mistakes a model makes (a field of another action, a required field left
//! out, a string where a number goes); some calls are followed by a look-alike tool with the
//! same arguments (the confusion `usage` reports); results are errors for mistakes and
//! sometimes otherwise.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use toolsurface_compiler::ir::{Ir, Tool, Type};

/// What to generate.
#[derive(Clone, Debug)]
pub struct Config {
    pub role: String,
    pub family: String,
    pub threads: usize,
    /// Mean tool calls per thread (each thread gets between half and one and a half times it).
    pub calls_per_thread: usize,
    pub seed: u64,
    /// Share of calls with a mistake, in 1/1000.
    pub mistakes_per_mille: u64,
}

impl Config {
    pub fn new(role: &str, family: &str, threads: usize, calls_per_thread: usize) -> Self {
        Config {
            role: role.to_owned(),
            family: family.to_owned(),
            threads,
            calls_per_thread,
            seed: 0x5eed,
            mistakes_per_mille: 30,
        }
    }
}

/// The layouts written, one file each (threads are dealt round-robin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `{"messages": [...]}` per line, OpenAI Chat messages.
    ChatConversations,
    /// OpenAI batch input: `{"custom_id", "method", "url", "body": {"messages": [...]}}`.
    ChatBatch,
    /// `{"input": [...]}` per line, Responses items.
    ResponsesConversations,
    /// `{"messages": [...]}` per line, Anthropic content blocks.
    AnthropicConversations,
    /// Anthropic batch: `{"custom_id", "params": {"messages": [...]}}`.
    AnthropicBatch,
    /// Codex CLI rollout lines (`session_meta`, `response_item`), sessions one after another.
    CodexRollout,
    /// An agent log: one `{"thread_id", "message": {chat message}}` per line, threads
    /// interleaved.
    ChatEventLog,
    /// `toolsurface messages import` lines.
    ToolsurfaceMessages,
}

impl Layout {
    pub const ALL: [Layout; 8] = [
        Layout::ChatConversations,
        Layout::ChatBatch,
        Layout::ResponsesConversations,
        Layout::AnthropicConversations,
        Layout::AnthropicBatch,
        Layout::CodexRollout,
        Layout::ChatEventLog,
        Layout::ToolsurfaceMessages,
    ];
    pub fn file_name(self) -> &'static str {
        match self {
            Layout::ChatConversations => "chat.jsonl",
            Layout::ChatBatch => "chat-batch.jsonl",
            Layout::ResponsesConversations => "responses.jsonl",
            Layout::AnthropicConversations => "anthropic.jsonl",
            Layout::AnthropicBatch => "anthropic-batch.jsonl",
            Layout::CodexRollout => "codex-rollout.jsonl",
            Layout::ChatEventLog => "agent-log.jsonl",
            Layout::ToolsurfaceMessages => "messages.jsonl",
        }
    }
}

/// What was written.
#[derive(Clone, Debug, Default)]
pub struct Generated {
    pub files: Vec<PathBuf>,
    pub threads: usize,
    pub calls: u64,
    pub bytes: u64,
}

/// A deterministic PRNG (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
}

/// One generated call and its result.
struct GenCall {
    id: String,
    name: String,
    arguments: Value,
    /// The raw input when the tool is published as a freeform tool on this family.
    freeform: Option<String>,
    error: bool,
}

/// Write `config.threads` threads into `dir` (created), one file per [`Layout`].
pub fn write_all(ir: &Ir, config: &Config, dir: &Path) -> std::io::Result<Generated> {
    std::fs::create_dir_all(dir)?;
    let surface = ir.surface(&config.role, &config.family).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("no surface {} × {}", config.role, config.family),
        )
    })?;
    let tools: Vec<&Tool> = surface
        .tools
        .iter()
        .filter_map(|t| ir.tool(&t.name))
        .collect();
    if tools.is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the surface has no tools",
        ));
    }
    let mut writers = Vec::new();
    let mut out = Generated::default();
    for layout in Layout::ALL {
        let path = dir.join(layout.file_name());
        writers.push((
            layout,
            std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path)?),
        ));
        out.files.push(path);
    }
    let mut rng = Rng(config.seed);
    // Event-log threads are written interleaved: keep a few open and deal their lines.
    let mut log_open: Vec<(String, Vec<String>)> = Vec::new();
    for t in 0..config.threads {
        let n = config.calls_per_thread.max(1) as u64;
        let count = (n / 2 + rng.below(n + 1)).max(1) as usize;
        let calls = thread_calls(ir, &tools, config, &mut rng, t, count);
        out.calls += calls.len() as u64;
        let (layout, w) = &mut writers[t % Layout::ALL.len()];
        let thread_id = format!("thread-{t:06}");
        match layout {
            Layout::ChatEventLog => {
                let lines = chat_messages(&calls)
                    .into_iter()
                    .map(|m| json!({"thread_id": thread_id, "message": m}).to_string())
                    .collect();
                log_open.push((thread_id, lines));
                if log_open.len() >= 8 {
                    flush_interleaved(w, &mut log_open)?;
                }
            }
            _ => write_thread(w, *layout, &thread_id, &calls)?,
        }
    }
    for (layout, w) in &mut writers {
        if *layout == Layout::ChatEventLog {
            flush_interleaved(w, &mut log_open)?;
        }
        w.flush()?;
    }
    for f in &out.files {
        out.bytes += std::fs::metadata(f)?.len();
    }
    out.threads = config.threads;
    Ok(out)
}

fn flush_interleaved(
    w: &mut impl Write,
    open: &mut Vec<(String, Vec<String>)>,
) -> std::io::Result<()> {
    let longest = open.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
    for i in 0..longest {
        for (_, lines) in open.iter() {
            if let Some(l) = lines.get(i) {
                writeln!(w, "{l}")?;
            }
        }
    }
    open.clear();
    Ok(())
}

fn thread_calls(
    ir: &Ir,
    tools: &[&Tool],
    config: &Config,
    rng: &mut Rng,
    thread: usize,
    count: usize,
) -> Vec<GenCall> {
    let mut calls: Vec<GenCall> = Vec::with_capacity(count + 2);
    while calls.len() < count {
        // Zipf-ish: tool k is picked with weight 1/(k+1).
        let weights: Vec<u64> = (0..tools.len())
            .map(|k| 1_000_000 / (k as u64 + 1))
            .collect();
        let mut pick = rng.below(weights.iter().sum());
        let mut k = 0;
        while pick >= weights[k] {
            pick -= weights[k];
            k += 1;
        }
        let tool = tools[k];
        let id = format!("call_{thread}_{}", calls.len());
        let mistake = rng.chance(config.mistakes_per_mille);
        let arguments = arguments_for(tool, rng, mistake);
        let freeform = tool
            .freeform
            .as_ref()
            .filter(|ff| ff.families.contains(&config.family))
            .map(|ff| {
                arguments
                    .get(&ff.field)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            });
        let error = mistake || rng.chance(20);
        calls.push(GenCall {
            id,
            name: tool.name.clone(),
            arguments: arguments.clone(),
            freeform,
            error,
        });
        // A look-alike follows now and then, with the same arguments.
        if calls.len() < count
            && rng.chance(15)
            && let Some(other) = look_alike(ir, tools, tool)
        {
            calls.push(GenCall {
                id: format!("call_{thread}_{}", calls.len()),
                name: other.name.clone(),
                arguments,
                freeform: None,
                error: false,
            });
        }
    }
    calls
}

/// Another resident tool on the same object, or with a name sharing a word.
fn look_alike<'t>(_ir: &Ir, tools: &[&'t Tool], tool: &Tool) -> Option<&'t Tool> {
    tools.iter().copied().find(|t| {
        t.name != tool.name
            && (t.object == tool.object
                || t.name
                    .split('_')
                    .any(|w| w.len() > 3 && tool.name.contains(w)))
    })
}

fn arguments_for(tool: &Tool, rng: &mut Rng, mistake: bool) -> Value {
    let action = &tool.actions[rng.below(tool.actions.len() as u64) as usize];
    let mut m = Map::new();
    if let (Some(sel), Some(name)) = (&tool.selector, &action.name) {
        m.insert(sel.name.clone(), json!(name));
    }
    let mut skipped_required = false;
    for f in &tool.fields {
        if !action.uses(&f.name) {
            continue;
        }
        if action.is_required(&f.name) {
            if mistake && !skipped_required && rng.chance(300) {
                skipped_required = true;
                continue;
            }
        } else if !rng.chance(350) {
            continue;
        }
        m.insert(f.name.clone(), value_for(&f.name, &f.ty, rng));
    }
    if mistake && !skipped_required {
        // A field another action takes, or a string where a number goes.
        let other = tool.fields.iter().find(|f| !action.uses(&f.name));
        match other {
            Some(f) if rng.chance(600) => {
                m.insert(f.name.clone(), value_for(&f.name, &f.ty, rng));
            }
            _ => {
                m.insert("timeout".to_owned(), json!("30s"));
            }
        }
    }
    Value::Object(m)
}

fn value_for(name: &str, ty: &Type, rng: &mut Rng) -> Value {
    let n = rng.below(1000);
    match ty {
        Type::String {
            pattern: Some(_), ..
        } => json!(format!("box{}", n % 7)),
        Type::String { max_length, .. } => {
            let s = match name {
                "path" => format!("src/module_{n}.rs"),
                "command" | "cmd" => format!("cargo test -p crate_{n} -- --nocapture"),
                "pattern" | "query" => format!("fn handler_{n}"),
                "content" | "new_text" => format!("pub fn f{n}() -> u32 {{\n    {n}\n}}\n"),
                "old_text" => format!("fn f{n}()"),
                "patch" => format!(
                    "*** Begin Patch\n*** Update File: src/m{n}.rs\n@@\n-let a = {n};\n+let a = {};\n*** End Patch\n",
                    n + 1
                ),
                _ => format!("{name} {n}"),
            };
            match max_length {
                Some(m) if s.chars().count() as u64 > *m => {
                    json!(s.chars().take(*m as usize).collect::<String>())
                }
                _ => json!(s),
            }
        }
        Type::Integer { minimum, maximum } => {
            let lo = minimum.unwrap_or(0);
            let hi = maximum.unwrap_or(lo + 5000).max(lo);
            json!(lo + (n as i64) % (hi - lo + 1))
        }
        Type::Number { minimum, maximum } => {
            let lo = minimum.unwrap_or(0.0);
            let hi = maximum.unwrap_or(lo + 60.0).max(lo);
            json!(lo + (hi - lo) * (n as f64 / 1000.0))
        }
        Type::Boolean => json!(n.is_multiple_of(2)),
        Type::Enum { values } => json!(values[n as usize % values.len().max(1)]),
        Type::Array {
            items,
            min_items,
            max_items,
        } => {
            let lo = min_items.unwrap_or(1);
            let hi = max_items.unwrap_or(3).max(lo).min(lo + 2);
            let len = lo + rng.below(hi - lo + 1);
            Value::Array((0..len).map(|_| value_for(name, items, rng)).collect())
        }
        Type::Object { properties, .. } => {
            let mut m = Map::new();
            for p in properties {
                if p.required || rng.chance(500) {
                    m.insert(p.name.clone(), value_for(&p.name, &p.ty, rng));
                }
            }
            Value::Object(m)
        }
        Type::Any => json!(n),
        Type::Null => Value::Null,
        Type::Const { value, .. } => value.clone(),
        Type::Union { branches, .. } => match branches.first() {
            Some(b) => value_for(name, b, rng),
            None => Value::Null,
        },
        Type::Annotated { ty, .. } | Type::Shape { ty, .. } => value_for(name, ty, rng),
    }
}

fn result_text(c: &GenCall) -> String {
    if c.error {
        format!("error: {} refused the call", c.name)
    } else {
        format!("ok ({} bytes of output)", c.id.len() * 37)
    }
}

/// The user turn opening each thread, and the assistant message per call (chat shape).
fn chat_messages(calls: &[GenCall]) -> Vec<Value> {
    let mut out = vec![json!({"role": "user", "content": "Fix the failing test, please."})];
    for c in calls {
        out.push(json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [{
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments.to_string()},
            }],
        }));
        out.push(json!({"role": "tool", "tool_call_id": c.id, "content": result_text(c)}));
    }
    out
}

/// One arm per layout, each the few lines that layout is made of: kept together so the formats
/// can be compared side by side (and with the reader's module doc); the Codex rollout, the
/// longest, is its own function.
fn write_thread(
    w: &mut impl Write,
    layout: Layout,
    thread_id: &str,
    calls: &[GenCall],
) -> std::io::Result<()> {
    match layout {
        Layout::ChatConversations => {
            writeln!(w, "{}", json!({"messages": chat_messages(calls)}))
        }
        Layout::ChatBatch => writeln!(
            w,
            "{}",
            json!({"custom_id": thread_id, "method": "POST", "url": "/v1/chat/completions",
                   "body": {"model": "gpt-4.1", "messages": chat_messages(calls)}})
        ),
        Layout::ResponsesConversations => {
            let mut items = vec![json!({"role": "user", "content": "Fix the failing test."})];
            for c in calls {
                match &c.freeform {
                    Some(input) => {
                        items.push(json!({"type": "custom_tool_call", "call_id": c.id, "name": c.name, "input": input}));
                        items.push(json!({"type": "custom_tool_call_output", "call_id": c.id, "output": result_text(c)}));
                    }
                    None => {
                        items.push(json!({"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments.to_string()}));
                        items.push(json!({"type": "function_call_output", "call_id": c.id, "output": result_text(c)}));
                    }
                }
            }
            writeln!(w, "{}", json!({"input": items}))
        }
        Layout::AnthropicConversations | Layout::AnthropicBatch => {
            let mut messages = vec![json!({"role": "user", "content": "Fix the failing test."})];
            for c in calls {
                messages.push(json!({"role": "assistant", "content": [
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments},
                ]}));
                messages.push(json!({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": c.id, "content": result_text(c), "is_error": c.error},
                ]}));
            }
            if layout == Layout::AnthropicBatch {
                writeln!(
                    w,
                    "{}",
                    json!({"custom_id": thread_id, "params": {"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": messages}})
                )
            } else {
                writeln!(w, "{}", json!({"messages": messages}))
            }
        }
        Layout::CodexRollout => write_codex_rollout(w, thread_id, calls),
        Layout::ToolsurfaceMessages => {
            for (i, c) in calls.iter().enumerate() {
                let at = "2026-11-13T22:30:00+08:00";
                writeln!(
                    w,
                    "{}",
                    json!({"id": format!("{thread_id}-a{i}"), "session_id": thread_id, "role": "assistant", "at": at, "content": "",
                           "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments}]})
                )?;
                writeln!(
                    w,
                    "{}",
                    json!({"id": format!("{thread_id}-t{i}"), "session_id": thread_id, "role": "tool", "at": at, "content": "", "tool_result": result_text(c)})
                )?;
            }
            Ok(())
        }
        Layout::ChatEventLog => Ok(()),
    }
}

/// A Codex CLI rollout: the session header line, then one `response_item` line per call and
/// one per its output.
fn write_codex_rollout(
    w: &mut impl Write,
    thread_id: &str,
    calls: &[GenCall],
) -> std::io::Result<()> {
    let at = "2026-11-20T10:00:00.000Z";
    writeln!(
        w,
        "{}",
        json!({"timestamp": at, "type": "session_meta", "payload": {"id": thread_id, "timestamp": at, "cwd": "/work/app", "originator": "codex_cli_rs", "cli_version": "0.63.0"}})
    )?;
    for c in calls {
        let item = match &c.freeform {
            Some(input) => {
                json!({"type": "custom_tool_call", "call_id": c.id, "name": c.name, "input": input, "status": "completed"})
            }
            None => {
                json!({"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments.to_string()})
            }
        };
        writeln!(
            w,
            "{}",
            json!({"timestamp": at, "type": "response_item", "payload": item})
        )?;
        let exit = if c.error { 1 } else { 0 };
        let output = json!({"output": result_text(c), "metadata": {"exit_code": exit, "duration_seconds": 0.2}}).to_string();
        let kind = if c.freeform.is_some() {
            "custom_tool_call_output"
        } else {
            "function_call_output"
        };
        writeln!(
            w,
            "{}",
            json!({"timestamp": at, "type": "response_item", "payload": {"type": kind, "call_id": c.id, "output": output}})
        )?;
    }
    Ok(())
}
