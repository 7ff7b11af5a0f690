//! `message_read`: one tool over the message store, four modes (history, turns, context,
//! payload). Long fields are previewed in history, turns and context and read whole, page by
//! page, through payload.

use serde_json::{Value, json};

use super::store::{Message, MessageStore, Role, Scope, StoreError};
use crate::call::{HandlerResult, ToolError, ToolOutput};

// Every default (`view`, `before`, `after`, `offset`, and `limit` per mode: the actions'
// `defaults:`) is the definition's, filled in by the generated conversion, and so are the
// bounds: every `limit` the definition allows is honoured (no cap of the runtime's own).

/// Characters of a field shown in history/context before it is cut (with a payload hint).
pub const PREVIEW_CHARS: usize = 400;

/// `message_read`'s `view` (history).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// `role: text` lines.
    Transcript,
    /// Every message with id, timestamp, sizes and tool calls.
    Audit,
}

/// `message_read`'s `field` (payload): which large field of a message to page through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Content,
    ToolResult,
    Reasoning,
    ToolCalls,
}

impl View {
    pub fn as_str(self) -> &'static str {
        match self {
            View::Transcript => "transcript",
            View::Audit => "audit",
        }
    }
}

impl Field {
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Content => "content",
            Field::ToolResult => "tool_result",
            Field::Reasoning => "reasoning",
            Field::ToolCalls => "tool_calls",
        }
    }

    fn of(self, m: &Message) -> Option<&str> {
        match self {
            Field::Content => Some(m.content.as_str()),
            Field::ToolResult => m.tool_result.as_deref(),
            Field::Reasoning => m.reasoning.as_deref(),
            Field::ToolCalls => m.tool_calls.as_deref(),
        }
    }
}

/// A `message_read` call, one variant per mode. It is the definition's `implements:` type
/// (tool-defs/tools/message_read.yaml): the generated code builds it from a parsed call, so
/// which fields a mode takes, which are required, `exactly_one_of: [session_id, channel]` and
/// each mode's `limit` default are the definition's rules, applied before it gets here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageRead {
    History(History),
    Turns(Turns),
    Context(Context),
    Payload(Payload),
}

/// `mode: history`: a whole session or channel, the newest `limit` messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History {
    pub session_id: Option<String>,
    pub channel: Option<String>,
    pub view: View,
    pub limit: usize,
}

/// `mode: turns`: a whole session or channel grouped by turn (the `turn` field, else a turn
/// starts at each user message), the newest `limit` turns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turns {
    pub session_id: Option<String>,
    pub channel: Option<String>,
    pub limit: usize,
}

/// `mode: context`: the messages around one, `before` / `after` of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    pub message_id: String,
    pub before: usize,
    pub after: usize,
}

/// `mode: payload`: one large field of one message, `limit` characters from `offset`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Payload {
    pub message_id: String,
    pub field: Field,
    pub offset: usize,
    pub limit: usize,
}

impl From<History> for MessageRead {
    fn from(h: History) -> Self {
        MessageRead::History(h)
    }
}

impl From<Turns> for MessageRead {
    fn from(t: Turns) -> Self {
        MessageRead::Turns(t)
    }
}

impl From<Context> for MessageRead {
    fn from(c: Context) -> Self {
        MessageRead::Context(c)
    }
}

impl From<Payload> for MessageRead {
    fn from(p: Payload) -> Self {
        MessageRead::Payload(p)
    }
}

/// Runs a `message_read` call against `store`. What depends on the store (unknown ids,
/// offsets past the end) is a [`ToolError::Model`]; so are store failures, reported as such.
pub fn message_read(store: &dyn MessageStore, req: &MessageRead) -> HandlerResult {
    match req {
        MessageRead::History(h) => history(store, h),
        MessageRead::Turns(t) => turns(store, t),
        MessageRead::Context(c) => context(store, c),
        MessageRead::Payload(p) => payload(store, p),
    }
}

fn model(msg: impl Into<String>) -> ToolError {
    ToolError::Model(msg.into())
}

fn store_err(e: StoreError) -> ToolError {
    ToolError::Model(format!("reading the message store failed: {e}"))
}

fn unknown(what: &str, needle: &str, known: &[String]) -> ToolError {
    let mut msg = format!("no {what} {needle:?} in the message store");
    let close = toolsurface_text::closest(needle, known.iter().map(String::as_str), 3);
    if !close.is_empty() {
        let list: Vec<String> = close.iter().map(|c| format!("{c:?}")).collect();
        msg.push_str(&format!("; did you mean {}?", list.join(" or ")));
    } else if known.is_empty() {
        msg.push_str(&format!(" (it holds no {what}s)"));
    } else if known.len() <= 10 {
        let list: Vec<String> = known.iter().map(|c| format!("{c:?}")).collect();
        msg.push_str(&format!("; known {what}s: {}", list.join(", ")));
    } else {
        msg.push_str(&format!(" ({} known {what}s)", known.len()));
    }
    ToolError::Model(msg)
}

fn unknown_message(store: &dyn MessageStore, id: &str) -> ToolError {
    match store.message_ids(20_000) {
        Ok(ids) => unknown("message", id, &ids),
        Err(e) => store_err(e),
    }
}

fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// The first `max` characters of `s`, and whether it was cut.
fn preview(s: &str, max: usize) -> (&str, bool) {
    match s.char_indices().nth(max) {
        Some((i, _)) => (&s[..i], true),
        None => (s, false),
    }
}

/// `s` cut to the preview size, with a pointer to payload mode when cut.
fn previewed(m: &Message, field: Field, s: &str) -> String {
    let (head, cut) = preview(s, PREVIEW_CHARS);
    if cut {
        format!(
            "{head}… [{} chars; mode=payload message_id={} field={}]",
            char_len(s),
            m.id,
            field.as_str()
        )
    } else {
        head.to_string()
    }
}

fn indent_continuation(s: &str, indent: &str) -> String {
    s.replace('\n', &format!("\n{indent}"))
}

/// The names of a message's tool calls (from its JSON text).
fn tool_call_names(m: &Message) -> Vec<String> {
    let Some(text) = &m.tool_calls else {
        return Vec::new();
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(calls)) => calls
            .iter()
            .map(|c| {
                c.get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string()
            })
            .collect(),
        _ => vec!["?".into()],
    }
}

/// One `role: text` line (continuation lines indented).
fn transcript_line(m: &Message) -> String {
    let mut parts = Vec::new();
    if !m.content.is_empty() {
        parts.push(previewed(m, Field::Content, &m.content));
    }
    if let Some(r) = &m.tool_result {
        parts.push(previewed(m, Field::ToolResult, r));
    }
    let names = tool_call_names(m);
    if !names.is_empty() {
        parts.push(format!("[calls {}]", names.join(", ")));
    }
    let text = parts.join(" ");
    format!("{}: {}", m.role.as_str(), indent_continuation(&text, "  "))
}

fn audit_block(m: &Message, marker: &str) -> String {
    let mut s = format!(
        "{marker}[{}] {} {} session={}",
        m.id,
        m.at,
        m.role.as_str(),
        m.session_id
    );
    if let Some(ch) = &m.channel {
        s.push_str(&format!(" channel={ch}"));
    }
    if let Some(t) = m.turn {
        s.push_str(&format!(" turn={t}"));
    }
    let field = |s: &mut String, name: &str, f: Field, v: &str| {
        s.push_str(&format!(
            "\n  {name} ({} chars): {}",
            char_len(v),
            indent_continuation(&previewed(m, f, v), "    ")
        ));
    };
    if !m.content.is_empty() || (m.tool_result.is_none() && m.tool_calls.is_none()) {
        field(&mut s, "content", Field::Content, &m.content);
    }
    if let Some(v) = &m.reasoning {
        field(&mut s, "reasoning", Field::Reasoning, v);
    }
    if let Some(v) = &m.tool_calls {
        field(&mut s, "tool_calls", Field::ToolCalls, v);
    }
    if let Some(v) = &m.tool_result {
        field(&mut s, "tool_result", Field::ToolResult, v);
    }
    s
}

fn message_json(m: &Message) -> Value {
    let (content, content_cut) = preview(&m.content, PREVIEW_CHARS);
    let mut v = json!({
        "id": m.id,
        "session_id": m.session_id,
        "channel": m.channel,
        "role": m.role.as_str(),
        "at": m.at,
        "turn": m.turn,
        "content": content,
        "content_truncated": content_cut,
        "chars": {
            "content": char_len(&m.content),
            "tool_result": m.tool_result.as_deref().map(char_len),
            "reasoning": m.reasoning.as_deref().map(char_len),
            "tool_calls": m.tool_calls.as_deref().map(char_len),
        },
    });
    let names = tool_call_names(m);
    if !names.is_empty()
        && let Some(obj) = v.as_object_mut()
    {
        obj.insert("tool_call_names".into(), json!(names));
    }
    v
}

struct Turn<'a> {
    number: i64,
    messages: Vec<&'a Message>,
}

/// Groups messages into turns: by `turn` where given, else a new turn at each user message.
fn group_turns(messages: &[Message]) -> Vec<Turn<'_>> {
    let mut turns: Vec<Turn<'_>> = Vec::new();
    let mut key: Option<i64> = None;
    let mut ordinal = 0i64;
    for m in messages {
        let starts = match (m.turn, turns.last()) {
            (_, None) => true,
            (Some(t), Some(_)) => key != Some(t),
            (None, Some(_)) => m.role == Role::User,
        };
        if starts {
            ordinal += 1;
            key = m.turn;
            turns.push(Turn {
                number: m.turn.unwrap_or(ordinal),
                messages: Vec::new(),
            });
        }
        if let Some(t) = turns.last_mut() {
            t.messages.push(m);
        }
    }
    turns
}

fn history(store: &dyn MessageStore, req: &History) -> HandlerResult {
    let scoped = scoped(store, "history", &req.session_id, &req.channel)?;
    let (text, structured) = history_by_message(store, req, &scoped)?;
    Ok(listing(&text, structured))
}

fn turns(store: &dyn MessageStore, req: &Turns) -> HandlerResult {
    let scoped = scoped(store, "turns", &req.session_id, &req.channel)?;
    let (text, structured) = history_by_turn(store, req, &scoped)?;
    Ok(listing(&text, structured))
}

/// A read built line by line: its text without the last line break, and its structured form.
fn listing(text: &str, structured: serde_json::Value) -> ToolOutput {
    ToolOutput {
        text: text.trim_end().to_string(),
        structured: Some(structured),
    }
}

/// The session or channel a history or turns read names, with its label and message count.
struct Scoped<'a> {
    scope: Scope<'a>,
    label: String,
    total: usize,
}

/// The one scope of a history or turns read (`mode` names it in the refusal), known to the
/// store.
fn scoped<'a>(
    store: &dyn MessageStore,
    mode: &str,
    session_id: &'a Option<String>,
    channel: &'a Option<String>,
) -> Result<Scoped<'a>, ToolError> {
    // Call::parse gave exactly one of the two (the definition's exactly_one_of); a host
    // building the request by hand gets the same rule.
    let (scope, label) = match (session_id, channel) {
        (Some(s), None) => (Scope::Session(s), format!("session {s}")),
        (None, Some(c)) => (Scope::Channel(c), format!("channel {c}")),
        _ => {
            return Err(ToolError::Argument(format!(
                "mode={mode}: give exactly one of session_id or channel"
            )));
        }
    };
    let total = store.count(scope).map_err(store_err)?;
    if total == 0 {
        return Err(unknown_history_scope(store, scope));
    }
    Ok(Scoped {
        scope,
        label,
        total,
    })
}

/// A session or channel with no messages does not exist: name the ones that do.
fn unknown_history_scope(store: &dyn MessageStore, scope: Scope<'_>) -> ToolError {
    match scope {
        Scope::Session(s) => match store.session_ids() {
            Ok(known) => unknown("session", s, &known),
            Err(e) => store_err(e),
        },
        Scope::Channel(c) => match store.channels() {
            Ok(known) => unknown("channel", c, &known),
            Err(e) => store_err(e),
        },
    }
}

/// History (transcript and audit views): the newest messages, one by one.
fn history_by_message(
    store: &dyn MessageStore,
    req: &History,
    scoped: &Scoped<'_>,
) -> Result<(String, Value), ToolError> {
    let (scope, label, total) = (scoped.scope, &scoped.label, scoped.total);
    let view = req.view;
    let is_channel = matches!(scope, Scope::Channel(_));
    let mut text = String::new();
    let msgs = store.history(scope, Some(req.limit)).map_err(store_err)?;
    let older = total.saturating_sub(msgs.len());
    text.push_str(&format!(
        "{label}: {} of {total} messages{}\n",
        msgs.len(),
        if older > 0 {
            format!(" (newest; {older} older not shown)")
        } else {
            String::new()
        }
    ));
    let mut last_session: Option<&str> = None;
    for m in &msgs {
        if view == View::Transcript {
            if is_channel && last_session != Some(m.session_id.as_str()) {
                text.push_str(&format!("[session {}]\n", m.session_id));
                last_session = Some(m.session_id.as_str());
            }
            text.push_str(&transcript_line(m));
        } else {
            text.push_str(&audit_block(m, ""));
        }
        text.push('\n');
    }
    let structured = json!({
        "mode": "history",
        "view": view.as_str(),
        "session_id": req.session_id,
        "channel": req.channel,
        "total": total,
        "returned": msgs.len(),
        "truncated": older > 0,
        "messages": msgs.iter().map(message_json).collect::<Vec<_>>(),
    });
    Ok((text, structured))
}

/// Turns: the newest turns, each with its messages.
fn history_by_turn(
    store: &dyn MessageStore,
    req: &Turns,
    scoped: &Scoped<'_>,
) -> Result<(String, Value), ToolError> {
    let (scope, label, total) = (scoped.scope, &scoped.label, scoped.total);
    let is_channel = matches!(scope, Scope::Channel(_));
    let mut text = String::new();
    let msgs = store.history(scope, None).map_err(store_err)?;
    let turns = group_turns(&msgs);
    let skip = turns.len().saturating_sub(req.limit);
    let shown = &turns[skip..];
    text.push_str(&format!(
        "{label}: {} of {} turns ({total} messages){}\n",
        shown.len(),
        turns.len(),
        if skip > 0 {
            format!(" (newest; {skip} older not shown)")
        } else {
            String::new()
        }
    ));
    for t in shown {
        let first = t.messages.first();
        text.push_str(&format!(
            "── turn {} · {}{} · {} message{}\n",
            t.number,
            first.map_or("", |m| m.at.as_str()),
            match first {
                Some(m) if is_channel => format!(" · session {}", m.session_id),
                _ => String::new(),
            },
            t.messages.len(),
            if t.messages.len() == 1 { "" } else { "s" }
        ));
        for m in &t.messages {
            text.push_str("  ");
            text.push_str(&indent_continuation(&transcript_line(m), "  "));
            text.push('\n');
        }
    }
    let structured = json!({
        "mode": "turns",
        "session_id": req.session_id,
        "channel": req.channel,
        "total": total,
        "total_turns": turns.len(),
        "returned_turns": shown.len(),
        "truncated": skip > 0,
        "turns": shown.iter().map(|t| json!({
            "turn": t.number,
            "messages": t.messages.iter().map(|m| message_json(m)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    Ok((text, structured))
}

fn context(store: &dyn MessageStore, req: &Context) -> HandlerResult {
    let id = &req.message_id;
    let Some(around) = store.around(id, req.before, req.after).map_err(store_err)? else {
        return Err(unknown_message(store, id));
    };
    let m = &around.message;
    let mut text = format!(
        "context of message {} (session {}): {} before, {} after\n",
        m.id,
        m.session_id,
        around.before.len(),
        around.after.len()
    );
    for b in &around.before {
        text.push_str(&audit_block(b, "  "));
        text.push('\n');
    }
    text.push_str(&audit_block(m, "▶ "));
    text.push('\n');
    for a in &around.after {
        text.push_str(&audit_block(a, "  "));
        text.push('\n');
    }
    let structured = json!({
        "mode": "context",
        "message_id": m.id,
        "session_id": m.session_id,
        "before": around.before.iter().map(message_json).collect::<Vec<_>>(),
        "message": message_json(m),
        "after": around.after.iter().map(message_json).collect::<Vec<_>>(),
    });
    Ok(listing(&text, structured))
}

fn payload(store: &dyn MessageStore, req: &Payload) -> HandlerResult {
    let (id, field) = (&req.message_id, req.field);
    let Some(m) = store.get(id).map_err(store_err)? else {
        return Err(unknown_message(store, id));
    };
    let Some(value) = field.of(&m) else {
        let present: Vec<&str> = [
            Field::Content,
            Field::ToolResult,
            Field::Reasoning,
            Field::ToolCalls,
        ]
        .into_iter()
        .filter(|f| f.of(&m).is_some())
        .map(Field::as_str)
        .collect();
        return Err(model(format!(
            "message {id:?} has no {}; its fields: {}",
            field.as_str(),
            present.join(", ")
        )));
    };
    let total = char_len(value);
    let offset = req.offset;
    if offset > total {
        return Err(model(format!(
            "offset {offset} is past the end of message {id:?} {} ({total} characters)",
            field.as_str()
        )));
    }
    let chunk: String = value.chars().skip(offset).take(req.limit).collect();
    let end = offset + char_len(&chunk);
    let next_offset = (end < total).then_some(end);
    let header = format!(
        "message {id} {}: characters {offset}..{end} of {total}{}",
        field.as_str(),
        match next_offset {
            Some(n) => format!(" (next offset {n})"),
            None => " (end)".into(),
        }
    );
    let structured = json!({
        "mode": "payload",
        "message_id": id,
        "field": field.as_str(),
        "offset": offset,
        "returned_chars": end - offset,
        "total_chars": total,
        "next_offset": next_offset,
        "text": chunk,
    });
    Ok(ToolOutput {
        text: format!("{header}\n{chunk}"),
        structured: Some(structured),
    })
}
