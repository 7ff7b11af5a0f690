//! `message_read`: one tool over the message store, three modes (history, context,
//! payload). Long fields are previewed in history and context and read whole, page by page,
//! through payload.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::store::{Message, MessageStore, Role, Scope, StoreError};
use crate::call::{HandlerResult, ToolError, ToolOutput};

/// History: default and maximum number of messages (transcript, audit views).
pub const HISTORY_DEFAULT_MESSAGES: usize = 50;
pub const HISTORY_MAX_MESSAGES: usize = 500;
/// History, turns view: default and maximum number of turns.
pub const HISTORY_DEFAULT_TURNS: usize = 10;
pub const HISTORY_MAX_TURNS: usize = 100;
/// Context: default and maximum neighbours on each side.
pub const CONTEXT_DEFAULT: usize = 3;
pub const CONTEXT_MAX: usize = 50;
/// Payload: default and maximum page size, in characters.
pub const PAYLOAD_DEFAULT_CHARS: usize = 4000;
pub const PAYLOAD_MAX_CHARS: usize = 50_000;
/// Characters of a field shown in history/context before it is cut (with a payload hint).
pub const PREVIEW_CHARS: usize = 400;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageReadMode {
    #[default]
    History,
    Context,
    Payload,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HistoryView {
    /// `role: text` lines.
    #[default]
    Transcript,
    /// Grouped per turn (the `turn` field, else a turn starts at each user message).
    Turns,
    /// Every message with id, timestamp, sizes and tool calls.
    Audit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PayloadField {
    Content,
    ToolResult,
    Reasoning,
    ToolCalls,
}

impl PayloadField {
    pub fn as_str(self) -> &'static str {
        match self {
            PayloadField::Content => "content",
            PayloadField::ToolResult => "tool_result",
            PayloadField::Reasoning => "reasoning",
            PayloadField::ToolCalls => "tool_calls",
        }
    }

    fn of(self, m: &Message) -> Option<&str> {
        match self {
            PayloadField::Content => Some(m.content.as_str()),
            PayloadField::ToolResult => m.tool_result.as_deref(),
            PayloadField::Reasoning => m.reasoning.as_deref(),
            PayloadField::ToolCalls => m.tool_calls.as_deref(),
        }
    }
}

/// A `message_read` call. Which fields a mode takes:
/// - history: exactly one of `session_id` / `channel`; `view?`, `limit?` (newest N messages;
///   for the turns view newest N turns);
/// - context: `message_id`; `before?`, `after?` (neighbours in the same session, default 3);
/// - payload: `message_id`, `field`; `offset?`, `limit?` (characters; default 4000).
///
/// Fields of another mode are refused (`mode=history: …`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageReadRequest {
    pub mode: MessageReadMode,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub channel: Option<String>,
    #[serde(default)]
    pub view: Option<HistoryView>,
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(default)]
    pub message_id: Option<String>,
    #[serde(default)]
    pub before: Option<u64>,
    #[serde(default)]
    pub after: Option<u64>,
    #[serde(default)]
    pub field: Option<PayloadField>,
    #[serde(default)]
    pub offset: Option<u64>,
}

/// Runs a `message_read` call against `store`. Mistakes the model can fix (unknown ids,
/// fields of another mode, offsets past the end) are [`ToolError::Model`]; so are store
/// failures, reported as such.
pub fn message_read(store: &dyn MessageStore, req: &MessageReadRequest) -> HandlerResult {
    check_fields(req)?;
    match req.mode {
        MessageReadMode::History => history(store, req),
        MessageReadMode::Context => context(store, req),
        MessageReadMode::Payload => payload(store, req),
    }
}

fn model(msg: impl Into<String>) -> ToolError {
    ToolError::Model(msg.into())
}

fn store_err(e: StoreError) -> ToolError {
    ToolError::Model(format!("message_read failed: {e}"))
}

fn clamp(v: Option<u64>, default: usize, max: usize) -> usize {
    v.map_or(default, |v| {
        usize::try_from(v).unwrap_or(usize::MAX).min(max)
    })
}

fn check_fields(req: &MessageReadRequest) -> Result<(), ToolError> {
    let mode = match req.mode {
        MessageReadMode::History => "history",
        MessageReadMode::Context => "context",
        MessageReadMode::Payload => "payload",
    };
    let present: [(&str, bool, &[MessageReadMode]); 9] = {
        use MessageReadMode::*;
        [
            ("session_id", req.session_id.is_some(), &[History]),
            ("channel", req.channel.is_some(), &[History]),
            ("view", req.view.is_some(), &[History]),
            ("limit", req.limit.is_some(), &[History, Payload]),
            ("message_id", req.message_id.is_some(), &[Context, Payload]),
            ("before", req.before.is_some(), &[Context]),
            ("after", req.after.is_some(), &[Context]),
            ("field", req.field.is_some(), &[Payload]),
            ("offset", req.offset.is_some(), &[Payload]),
        ]
    };
    let foreign: Vec<&str> = present
        .iter()
        .filter(|(_, set, modes)| *set && !modes.contains(&req.mode))
        .map(|(name, _, _)| *name)
        .collect();
    if !foreign.is_empty() {
        return Err(model(format!(
            "mode={mode}: unexpected field{} {}",
            if foreign.len() == 1 { "" } else { "s" },
            foreign.join(", ")
        )));
    }
    match req.mode {
        MessageReadMode::History => match (&req.session_id, &req.channel) {
            (Some(_), Some(_)) => Err(model(
                "mode=history: give exactly one of session_id or channel, not both",
            )),
            (None, None) => Err(model(
                "mode=history: give exactly one of session_id or channel",
            )),
            _ => Ok(()),
        },
        MessageReadMode::Context if req.message_id.is_none() => {
            Err(model("mode=context: message_id is required"))
        }
        MessageReadMode::Payload if req.message_id.is_none() => {
            Err(model("mode=payload: message_id is required"))
        }
        MessageReadMode::Payload if req.field.is_none() => Err(model(
            "mode=payload: field is required (content | tool_result | reasoning | tool_calls)",
        )),
        _ => Ok(()),
    }
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
fn previewed(m: &Message, field: PayloadField, s: &str) -> String {
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
        parts.push(previewed(m, PayloadField::Content, &m.content));
    }
    if let Some(r) = &m.tool_result {
        parts.push(previewed(m, PayloadField::ToolResult, r));
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
    let field = |s: &mut String, name: &str, f: PayloadField, v: &str| {
        s.push_str(&format!(
            "\n  {name} ({} chars): {}",
            char_len(v),
            indent_continuation(&previewed(m, f, v), "    ")
        ));
    };
    if !m.content.is_empty() || (m.tool_result.is_none() && m.tool_calls.is_none()) {
        field(&mut s, "content", PayloadField::Content, &m.content);
    }
    if let Some(v) = &m.reasoning {
        field(&mut s, "reasoning", PayloadField::Reasoning, v);
    }
    if let Some(v) = &m.tool_calls {
        field(&mut s, "tool_calls", PayloadField::ToolCalls, v);
    }
    if let Some(v) = &m.tool_result {
        field(&mut s, "tool_result", PayloadField::ToolResult, v);
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

fn history(store: &dyn MessageStore, req: &MessageReadRequest) -> HandlerResult {
    let (scope, label) = match (&req.session_id, &req.channel) {
        (Some(s), None) => (Scope::Session(s), format!("session {s}")),
        (None, Some(c)) => (Scope::Channel(c), format!("channel {c}")),
        _ => {
            return Err(model(
                "mode=history: give exactly one of session_id or channel",
            ));
        }
    };
    let total = store.count(scope).map_err(store_err)?;
    if total == 0 {
        return Err(unknown_history_scope(store, scope));
    }
    let (text, structured) = match req.view.unwrap_or_default() {
        view @ (HistoryView::Transcript | HistoryView::Audit) => {
            history_by_message(store, req, scope, &label, total, view)?
        }
        HistoryView::Turns => history_by_turn(store, req, scope, &label, total)?,
    };
    Ok(ToolOutput {
        text: text.trim_end().to_string(),
        structured: Some(structured),
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

/// The transcript and audit views of history: the newest messages, one by one.
fn history_by_message(
    store: &dyn MessageStore,
    req: &MessageReadRequest,
    scope: Scope<'_>,
    label: &str,
    total: usize,
    view: HistoryView,
) -> Result<(String, Value), ToolError> {
    let is_channel = matches!(scope, Scope::Channel(_));
    let mut text = String::new();
    let limit = clamp(req.limit, HISTORY_DEFAULT_MESSAGES, HISTORY_MAX_MESSAGES).max(1);
    let msgs = store.history(scope, Some(limit)).map_err(store_err)?;
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
        if view == HistoryView::Transcript {
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
        "view": view,
        "session_id": req.session_id,
        "channel": req.channel,
        "total": total,
        "returned": msgs.len(),
        "truncated": older > 0,
        "messages": msgs.iter().map(message_json).collect::<Vec<_>>(),
    });
    Ok((text, structured))
}

/// The turns view of history: the newest turns, each with its messages.
fn history_by_turn(
    store: &dyn MessageStore,
    req: &MessageReadRequest,
    scope: Scope<'_>,
    label: &str,
    total: usize,
) -> Result<(String, Value), ToolError> {
    let is_channel = matches!(scope, Scope::Channel(_));
    let mut text = String::new();
    let limit = clamp(req.limit, HISTORY_DEFAULT_TURNS, HISTORY_MAX_TURNS).max(1);
    let msgs = store.history(scope, None).map_err(store_err)?;
    let turns = group_turns(&msgs);
    let skip = turns.len().saturating_sub(limit);
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
        "mode": "history",
        "view": HistoryView::Turns,
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

fn context(store: &dyn MessageStore, req: &MessageReadRequest) -> HandlerResult {
    let Some(id) = &req.message_id else {
        return Err(model("mode=context: message_id is required"));
    };
    let before = clamp(req.before, CONTEXT_DEFAULT, CONTEXT_MAX);
    let after = clamp(req.after, CONTEXT_DEFAULT, CONTEXT_MAX);
    let Some(around) = store.around(id, before, after).map_err(store_err)? else {
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
    Ok(ToolOutput {
        text: text.trim_end().to_string(),
        structured: Some(structured),
    })
}

fn payload(store: &dyn MessageStore, req: &MessageReadRequest) -> HandlerResult {
    let (Some(id), Some(field)) = (&req.message_id, req.field) else {
        return Err(model("mode=payload: message_id and field are required"));
    };
    let Some(m) = store.get(id).map_err(store_err)? else {
        return Err(unknown_message(store, id));
    };
    let Some(value) = field.of(&m) else {
        let present: Vec<&str> = [
            PayloadField::Content,
            PayloadField::ToolResult,
            PayloadField::Reasoning,
            PayloadField::ToolCalls,
        ]
        .into_iter()
        .filter(|f| f.of(&m).is_some())
        .map(PayloadField::as_str)
        .collect();
        return Err(model(format!(
            "message {id:?} has no {}; its fields: {}",
            field.as_str(),
            present.join(", ")
        )));
    };
    let total = char_len(value);
    let offset = usize::try_from(req.offset.unwrap_or(0)).unwrap_or(usize::MAX);
    if offset > total {
        return Err(model(format!(
            "offset {offset} is past the end of message {id:?} {} ({total} characters)",
            field.as_str()
        )));
    }
    let limit = clamp(req.limit, PAYLOAD_DEFAULT_CHARS, PAYLOAD_MAX_CHARS).max(1);
    let chunk: String = value.chars().skip(offset).take(limit).collect();
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
