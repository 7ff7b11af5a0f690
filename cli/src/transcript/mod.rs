//! Reading the transcripts agent frameworks write, so `usage` and `replay` can count and
//! re-parse the tool calls models really made. Streaming: a file is read line by line into
//! one reused buffer and every tool call and tool result is handed to a callback as it is
//! found; nothing of a transcript is kept.
//!
//! Formats (detected per line, so one file may mix them): OpenAI Chat messages (assistant
//! `tool_calls`, `tool` results), OpenAI Responses items (`function_call`, `custom_tool_call`,
//! `function_call_output`, `custom_tool_call_output`), Anthropic Messages (`tool_use` /
//! `tool_result` blocks), Codex CLI rollouts (`response_item` / `session_meta` lines), and the
//! project's own messages import format (`toolsurface messages import`). Layouts:
//!
//! - one conversation per line: `{"messages": […]}` (fine-tuning), `{"input": […]}`
//!   (Responses), `{"custom_id", "body"|"params": {…}}` (OpenAI / Anthropic batch); the thread
//!   is the line (named by `custom_id` when there is one);
//! - one message or event per line: the thread is the line's `thread_id`, `conversation_id`,
//!   `session_id` or `thread` (also inside a `payload`), else the Codex `session_meta` id seen
//!   earlier in the file, else the file itself;
//! - a whole `.json` file (or one starting with `[`): one conversation, an array of messages
//!   or items, or an object with `messages` / `input`.
//!
//! A line that is not JSON, or JSON of none of these shapes' types, is reported as malformed
//! (file:line, reason) and skipped; a JSON line with no tool call in it (a user message, a
//! token count event) is simply not a call.
//!
//! Two readers, one answer: the serde reader (`Node`, every field any format uses at every
//! level, borrowed from the line) is the definition, and reads documents, lines that are not
//! UTF-8 and every line the one-pass reader ([`fast`]) leaves to it; the one-pass reader reads
//! a line's bytes once and turns each message into its events as it closes, without building
//! the conversation, and answers only lines it is sure the serde reader reads the same
//! (held to it line by line by this module's tests).

use std::borrow::Cow;
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;

mod fast;
pub mod generate;

pub(crate) use fast::object_members;

/// Where a tool call's arguments came from.
#[derive(Clone, Copy, Debug)]
pub enum CallArguments<'a> {
    /// A JSON text, as OpenAI Chat / Responses and Codex send it (a string holding JSON).
    Text(&'a str),
    /// A JSON value written inline (Anthropic `input`, the messages format's object): its JSON
    /// text as written.
    Inline(&'a str),
    /// A freeform (custom) tool's raw input.
    Freeform(&'a str),
}

impl<'a> CallArguments<'a> {
    /// The text a tool-call parser is handed: the JSON text, the inline value's JSON as
    /// written, or the raw freeform input.
    pub fn text(&self) -> &'a str {
        match self {
            CallArguments::Text(s) | CallArguments::Inline(s) | CallArguments::Freeform(s) => s,
        }
    }
}

/// One tool call a model made.
#[derive(Clone, Copy, Debug)]
pub struct CallEvent<'a> {
    pub format: Format,
    pub file: &'a str,
    pub thread: &'a str,
    /// 1-based line of the file (of the conversation's line, for one conversation per line).
    pub line: u64,
    pub call_id: Option<&'a str>,
    pub name: &'a str,
    pub arguments: CallArguments<'a>,
}

/// One tool result handed back to the model.
#[derive(Clone, Copy, Debug)]
pub struct ResultEvent<'a> {
    pub file: &'a str,
    pub thread: &'a str,
    pub line: u64,
    pub call_id: Option<&'a str>,
    /// Flagged an error explicitly (`is_error`, `isError`, `status: "failed"`).
    flagged: bool,
    /// The result's value as written (a text, a Codex output, a block list), read only when
    /// [`ResultEvent::is_error`] is asked.
    output: Option<&'a str>,
}

impl ResultEvent<'_> {
    /// An error result: an explicit flag (`is_error`, `isError`, `status: "failed"`), a Codex
    /// non-zero `exit_code`, or a text starting with `error` (any case).
    pub fn is_error(&self) -> bool {
        self.flagged || self.output.is_some_and(raw_is_error)
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    Call(CallEvent<'a>),
    Result(ResultEvent<'a>),
    /// A conversation-per-line thread is complete (event-per-line threads end with the input).
    ThreadEnd(&'a str),
}

/// The format a line (or document) was recognised as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    OpenaiChat,
    OpenaiResponses,
    Anthropic,
    Codex,
    ToolsurfaceMessages,
}

impl Format {
    /// The dialect a model writing this format was served (`None`: any).
    pub fn dialect(self) -> Option<toolsurface_compiler::ir::Dialect> {
        use toolsurface_compiler::ir::Dialect;
        match self {
            Format::OpenaiChat => Some(Dialect::OpenaiChat),
            Format::OpenaiResponses | Format::Codex => Some(Dialect::OpenaiResponses),
            Format::Anthropic => Some(Dialect::Anthropic),
            Format::ToolsurfaceMessages => None,
        }
    }
    pub const ALL: [Format; 5] = [
        Format::OpenaiChat,
        Format::OpenaiResponses,
        Format::Anthropic,
        Format::Codex,
        Format::ToolsurfaceMessages,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Format::OpenaiChat => "openai-chat",
            Format::OpenaiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Codex => "codex",
            Format::ToolsurfaceMessages => "toolsurface-messages",
        }
    }
}

/// A skipped line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    pub file: String,
    pub line: u64,
    pub reason: String,
}

/// What reading the inputs found besides the events.
#[derive(Clone, Debug, Default)]
pub struct ReadSummary {
    pub files: usize,
    pub lines: u64,
    pub calls: u64,
    pub results: u64,
    /// Lines (or documents) per detected format.
    pub formats: std::collections::BTreeMap<&'static str, u64>,
    pub malformed_count: u64,
    /// The first [`MALFORMED_LISTED`] malformed lines.
    pub malformed: Vec<Malformed>,
}

/// How many malformed lines are listed by name (all are counted).
pub const MALFORMED_LISTED: usize = 50;

impl ReadSummary {
    /// Add a later file's summary.
    pub fn absorb(&mut self, s: ReadSummary) {
        self.files += s.files;
        self.lines += s.lines;
        self.calls += s.calls;
        self.results += s.results;
        for (k, v) in s.formats {
            *self.formats.entry(k).or_default() += v;
        }
        self.malformed_count += s.malformed_count;
        let room = MALFORMED_LISTED.saturating_sub(self.malformed.len());
        self.malformed.extend(s.malformed.into_iter().take(room));
    }

    fn malformed(&mut self, file: &str, line: u64, reason: String) {
        self.malformed_count += 1;
        if self.malformed.len() < MALFORMED_LISTED {
            self.malformed.push(Malformed {
                file: file.to_owned(),
                line,
                reason,
            });
        }
    }
}

/// Every field any of the formats uses at any level; what a level does not use stays `None`.
/// Values whose type varies between formats are kept raw and read when their meaning is known.
#[derive(Deserialize, Default)]
struct Node<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow)]
    messages: Option<Vec<Node<'a>>>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    body: Option<Box<Node<'a>>>,
    #[serde(borrow)]
    params: Option<Box<Node<'a>>>,
    #[serde(borrow)]
    payload: Option<Box<Node<'a>>>,
    #[serde(borrow)]
    message: Option<Box<Node<'a>>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    tool_calls: Option<Vec<ToolCall<'a>>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    custom_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    thread_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    conversation_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    thread: Option<Cow<'a, str>>,
    #[serde(borrow)]
    tool_result: Option<&'a RawValue>,
    #[serde(borrow)]
    status: Option<Cow<'a, str>>,
    is_error: Option<bool>,
    #[serde(rename = "isError")]
    is_error_camel: Option<bool>,
}

/// An entry of a message's `tool_calls`: OpenAI Chat's `{id, function: {name, arguments}}` or
/// the messages format's `{id, name, arguments}`. Its own small type, not a [`Node`]: a
/// conversation holds one per call until its line is read, and a node is large.
#[derive(Deserialize)]
struct ToolCall<'a> {
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    function: Option<Function<'a>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Function<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
}

/// A block of a message's `content` list (Anthropic): what a `tool_use` or `tool_result`
/// block is read by, and no more (a [`Node`] is large, and a conversation has many blocks).
#[derive(Deserialize)]
struct ContentBlock<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    is_error: Option<bool>,
    #[serde(rename = "isError")]
    is_error_camel: Option<bool>,
}

impl ContentBlock<'_> {
    /// The events of a `tool_use` or `tool_result` block (read without building a [`Node`]).
    fn events(&self, emit: &mut Emit<'_, '_>) {
        match self.kind.as_deref() {
            Some("tool_use") => emit.anthropic_use(
                self.id.as_deref(),
                self.name.as_deref(),
                self.input.map(RawValue::get),
            ),
            Some("tool_result") => emit.anthropic_result(
                self.tool_use_id.as_deref(),
                self.is_error == Some(true) || self.is_error_camel == Some(true),
                self.content.map(RawValue::get),
            ),
            _ => {}
        }
    }
}

impl Node<'_> {
    /// `is_error: true` or `isError: true`.
    fn flags_error(&self) -> bool {
        self.is_error == Some(true) || self.is_error_camel == Some(true)
    }
}

/// A `content` block list or an item list, read lazily.
fn nodes_of<'a>(raw: &'a RawValue) -> Option<Vec<Node<'a>>> {
    if raw.get().starts_with('[') {
        serde_json::from_str(raw.get()).ok()
    } else {
        None
    }
}

/// A JSON string's value (borrowed when it has no escapes), from its JSON text.
fn string_of(raw: &str) -> Option<Cow<'_, str>> {
    if raw.starts_with('"') {
        serde_json::from_str::<Cow<'_, str>>(raw).ok()
    } else {
        None
    }
}

/// A JSON string's value, like [`string_of`], unescaped into `buf` (kept from call to call,
/// so a call's arguments text costs no allocation once the buffer has grown); borrowed from
/// `raw` when it has no escape. Anything but the plain escapes (`\\uD800`…`\\uDFFF`, a
/// control character, a bad escape) is left to serde_json, whose answer it then is.
fn string_into<'r>(raw: &'r str, buf: &'r mut String) -> Option<&'r str> {
    let body = raw.strip_prefix('"')?.strip_suffix('"')?;
    let bytes = body.as_bytes();
    if !bytes.iter().any(|b| *b == b'\\' || *b < 0x20 || *b == b'"') {
        return Some(body);
    }
    buf.clear();
    if unescape(body, buf).is_none() {
        let s = string_of(raw)?;
        buf.clear();
        buf.push_str(&s);
    }
    Some(buf)
}

/// The plain escapes of a JSON string's body; `None` where [`string_into`] defers to serde_json.
fn unescape(body: &str, out: &mut String) -> Option<()> {
    let bytes = body.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x20 || b == b'"' {
            return None;
        }
        if b != b'\\' {
            i += 1;
            continue;
        }
        out.push_str(&body[run..i]);
        let (c, len) = escape_at(&bytes[i..])?;
        out.push(c);
        i += len;
        run = i;
    }
    out.push_str(&body[run..]);
    Some(())
}

/// The JSON escape at the start of `b` (at its `\\`): the character it stands for and its
/// length; `None` for a malformed one and for a surrogate (half of a pair, or lone), which is
/// serde_json's to judge. Both transcript readers decode escapes here.
#[inline]
pub(crate) fn escape_at(b: &[u8]) -> Option<(char, usize)> {
    let c = match b.get(1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let mut code = 0u32;
            for h in b.get(2..6)? {
                code = code * 16 + char::from(*h).to_digit(16)?;
            }
            return Some((char::from_u32(code)?, 6));
        }
        _ => return None,
    };
    Some((c, 2))
}

/// Whether a result text reads as an error.
fn text_is_error(text: &str) -> bool {
    let t = text.trim_start();
    t.len() >= 5 && t.as_bytes()[..5].eq_ignore_ascii_case(b"error")
}

/// Whether a raw result value reads as an error: a string starting with `error`, a Codex
/// output (a JSON text in a string) whose `metadata.exit_code` is not 0, or a block list whose
/// first text does. Read from the raw JSON text without unescaping where the raw form decides it.
fn raw_is_error(s: &str) -> bool {
    if let Some(body) = s.strip_prefix('"') {
        let body = body.trim_start();
        if body.starts_with('{') {
            // Codex: `{"output":…,"metadata":{"exit_code":N,…}}`, escaped inside the string.
            return codex_exit_code(body).is_some_and(|c| c != 0);
        }
        if !body.starts_with('\\') {
            return text_is_error(body);
        }
        return string_of(s).is_some_and(|t| text_is_error(&t));
    }
    if s.starts_with('[') {
        #[derive(Deserialize)]
        struct Block<'a> {
            #[serde(borrow)]
            text: Option<Cow<'a, str>>,
        }
        if let Ok(blocks) = serde_json::from_str::<Vec<Block<'_>>>(s) {
            return blocks
                .iter()
                .find_map(|b| b.text.as_deref())
                .is_some_and(text_is_error);
        }
    }
    false
}

/// The `exit_code` of a Codex function output, from its escaped JSON text.
fn codex_exit_code(escaped: &str) -> Option<i64> {
    const KEY: &str = "\\\"exit_code\\\":";
    // memchr's searcher (str::rfind builds a Two-Way searcher per call: ~1.5% of replay).
    let at = memchr::memmem::rfind(escaped.as_bytes(), KEY.as_bytes())? + KEY.len();
    let rest = escaped.get(at..)?.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '-'))
        .unwrap_or(rest.len());
    rest.get(..end)?.parse().ok()
}

/// Where a parsed line's events go: the thread naming and the callback.
struct Emit<'s, 'f> {
    /// A Codex rollout line: its items are Codex's, whatever their shape.
    codex: bool,
    file: &'s str,
    thread: &'s str,
    line: u64,
    sink: &'s mut dyn FnMut(Event<'_>),
    summary: &'s mut ReadSummary,
    /// The format of the line's first event (what the line is counted as).
    first: &'f mut Option<Format>,
    /// Where an escaped arguments text is unescaped (the file's, reused).
    scratch: &'s mut String,
}

/// A call's arguments as found (JSON texts as written), before [`Emit::call`] reads them.
#[derive(Clone, Copy)]
enum ArgsFound<'a> {
    /// A JSON string holding the arguments' JSON text (or, not a string, the value itself);
    /// none given: the empty text.
    Text(Option<&'a str>),
    Inline(&'a str),
    /// A freeform tool's input (a JSON string; anything else is the empty input).
    Freeform(Option<&'a str>),
    /// Read already (by the one-pass reader).
    Read(CallArguments<'a>),
}

impl Emit<'_, '_> {
    fn call(&mut self, format: Format, call_id: Option<&str>, name: &str, found: ArgsFound<'_>) {
        let format = if self.codex { Format::Codex } else { format };
        self.first.get_or_insert(format);
        self.summary.calls += 1;
        let args = match found {
            ArgsFound::Text(None) => CallArguments::Text(""),
            ArgsFound::Text(Some(raw)) => match string_into(raw, self.scratch) {
                Some(t) => CallArguments::Text(t),
                None => CallArguments::Inline(raw),
            },
            ArgsFound::Inline(raw) => CallArguments::Inline(raw),
            ArgsFound::Freeform(raw) => CallArguments::Freeform(
                raw.and_then(|r| string_into(r, self.scratch))
                    .unwrap_or_default(),
            ),
            ArgsFound::Read(args) => args,
        };
        (self.sink)(Event::Call(CallEvent {
            format,
            file: self.file,
            thread: self.thread,
            line: self.line,
            call_id,
            name,
            arguments: args,
        }));
    }
    /// An Anthropic `tool_use` block (a message's content block or a node of its own): a call
    /// when it has a name and an input.
    fn anthropic_use(&mut self, id: Option<&str>, name: Option<&str>, input: Option<&str>) {
        if let (Some(name), Some(input)) = (name, input) {
            self.call(Format::Anthropic, id, name, ArgsFound::Inline(input));
        }
    }

    /// An Anthropic `tool_result` block: an error when flagged (`is_error` / `isError`) or
    /// when its content reads as one.
    fn anthropic_result(&mut self, id: Option<&str>, flagged: bool, content: Option<&str>) {
        self.result(Format::Anthropic, id, flagged, content);
    }

    /// An event the one-pass reader read (spans of `line`), its arguments read as
    /// [`Emit::call`] reads them.
    fn event(&mut self, ev: &fast::Ev, line: &str, lines: &fast::Lines) {
        match *ev {
            fast::Ev::Call {
                format,
                call_id,
                name,
                args,
            } => {
                let args = match args {
                    fast::Args::Text(None) => CallArguments::Text(""),
                    fast::Args::Text(Some(a)) => match a.text {
                        Some(t) => CallArguments::Text(lines.str(t, line)),
                        None => CallArguments::Inline(a.raw.of(line)),
                    },
                    fast::Args::Inline(s) => CallArguments::Inline(s.of(line)),
                    fast::Args::Freeform(a) => CallArguments::Freeform(
                        a.and_then(|a| a.text).map_or("", |t| lines.str(t, line)),
                    ),
                };
                self.call(
                    format,
                    call_id.map(|s| s.of(line)),
                    name.of(line),
                    ArgsFound::Read(args),
                );
            }
            fast::Ev::Result {
                format,
                call_id,
                flagged,
                output,
            } => self.result(
                format,
                call_id.map(|s| s.of(line)),
                flagged,
                output.map(|s| s.of(line)),
            ),
        }
    }

    /// A result, an error when `flagged` or when its `output` reads as one.
    fn result(
        &mut self,
        format: Format,
        call_id: Option<&str>,
        flagged: bool,
        output: Option<&str>,
    ) {
        let format = if self.codex { Format::Codex } else { format };
        self.first.get_or_insert(format);
        self.summary.results += 1;
        (self.sink)(Event::Result(ResultEvent {
            file: self.file,
            thread: self.thread,
            line: self.line,
            call_id,
            flagged,
            output,
        }));
    }
}

/// The events of one message or item (any format).
fn message_events(node: &Node<'_>, emit: &mut Emit<'_, '_>) {
    let kind = node.kind.as_deref();
    match kind {
        Some("function_call") => {
            if let (Some(name), Some(args)) = (&node.name, node.arguments) {
                emit.call(
                    Format::OpenaiResponses,
                    node.call_id.as_deref(),
                    name,
                    ArgsFound::Text(Some(args.get())),
                );
            }
            return;
        }
        Some("custom_tool_call") => {
            if let Some(name) = &node.name {
                emit.call(
                    Format::OpenaiResponses,
                    node.call_id.as_deref(),
                    name,
                    ArgsFound::Freeform(node.input.map(RawValue::get)),
                );
            }
            return;
        }
        Some("function_call_output" | "custom_tool_call_output") => {
            let flagged = node.status.as_deref() == Some("failed") || node.flags_error();
            emit.result(
                Format::OpenaiResponses,
                node.call_id.as_deref(),
                flagged,
                node.output.map(RawValue::get),
            );
            return;
        }
        Some("tool_use") => {
            emit.anthropic_use(
                node.id.as_deref(),
                node.name.as_deref(),
                node.input.map(RawValue::get),
            );
            return;
        }
        Some("tool_result") => {
            emit.anthropic_result(
                node.tool_use_id.as_deref(),
                node.flags_error(),
                node.content.map(RawValue::get),
            );
            return;
        }
        _ => {}
    }
    // A message: chat tool calls, the messages format's tool calls, Anthropic blocks.
    if let Some(calls) = &node.tool_calls {
        for c in calls {
            let (format, name, args) = match &c.function {
                Some(f) => (Format::OpenaiChat, f.name.as_deref(), f.arguments),
                None => (Format::ToolsurfaceMessages, c.name.as_deref(), c.arguments),
            };
            let Some(name) = name else { continue };
            emit.call(
                format,
                c.id.as_deref(),
                name,
                ArgsFound::Text(args.map(RawValue::get)),
            );
        }
    }
    match node.role.as_deref() {
        Some("tool") => {
            let (format, raw) = match node.tool_result {
                Some(r) => (Format::ToolsurfaceMessages, Some(r)),
                None => (Format::OpenaiChat, node.content),
            };
            emit.result(
                format,
                node.tool_call_id.as_deref(),
                node.flags_error(),
                raw.map(RawValue::get),
            );
        }
        Some(_) => {
            let blocks = node
                .content
                .filter(|c| c.get().starts_with('['))
                .and_then(|c| serde_json::from_str::<Vec<ContentBlock<'_>>>(c.get()).ok());
            for b in blocks.iter().flatten() {
                b.events(emit);
            }
        }
        None => {}
    }
}

/// The conversation a node carries as a whole (one conversation per line or per document):
/// its messages or items, `None` when it is a single message or event.
fn conversation_of<'n, 'a>(node: &'n Node<'a>) -> Option<&'n [Node<'a>]> {
    if let Some(inner) = node.body.as_deref().or(node.params.as_deref()) {
        return conversation_of(inner);
    }
    node.messages.as_deref()
}

/// Items of a Responses request/response (`input` / `output` arrays at the conversation level).
fn responses_items<'a>(node: &Node<'a>) -> Option<Vec<Node<'a>>> {
    if node.kind.is_some() || node.role.is_some() {
        return None;
    }
    let inner = node
        .body
        .as_deref()
        .or(node.params.as_deref())
        .unwrap_or(node);
    let mut items = Vec::new();
    let mut any = false;
    for raw in [inner.input, inner.output].into_iter().flatten() {
        if let Some(list) = nodes_of(raw) {
            any = true;
            items.extend(list);
        }
    }
    any.then_some(items)
}

/// The thread id a single-event line names (itself or in its payload / message).
fn explicit_thread<'n>(node: &'n Node<'_>) -> Option<&'n str> {
    let own = node
        .thread_id
        .as_deref()
        .or(node.conversation_id.as_deref())
        .or(node.session_id.as_deref())
        .or(node.thread.as_deref());
    own.or_else(|| node.payload.as_deref().and_then(explicit_thread))
        .or_else(|| node.message.as_deref().and_then(explicit_thread))
}

/// Per-file reading state: the Codex session id once seen, and the file's own name as the
/// thread of last resort.
struct FileState {
    name: String,
    codex_session: Option<String>,
    /// [`Emit::scratch`].
    scratch: String,
    /// The one-pass reader's buffers.
    lines: fast::Lines,
    /// Lines per format ([`Format::ALL`]'s order), added to [`ReadSummary::formats`] when the
    /// file is done (`Some(0)`: a format named with no line counted yet).
    formats: [Option<u64>; 5],
}

impl FileState {
    fn new(name: String) -> Self {
        FileState {
            name,
            codex_session: None,
            scratch: String::new(),
            lines: fast::Lines::default(),
            formats: [None; 5],
        }
    }

    /// Add the file's format counts to the summary.
    fn finish(&self, summary: &mut ReadSummary) {
        for (format, n) in Format::ALL.iter().zip(self.formats) {
            if let Some(n) = n {
                *summary.formats.entry(format.as_str()).or_default() += n;
            }
        }
    }
}

/// Count a line (or document) as of the format of its first event, if it had one.
fn count_format(formats: &mut [Option<u64>; 5], first: Option<Format>) {
    if let Some(f) = first {
        *formats[f as usize].get_or_insert(0) += 1;
    }
}

/// Read one line with the one-pass reader ([`fast`]) and emit its events, as [`node_events`]
/// does for the line's `Node`. On `Err`, nothing was emitted or counted: the line is the serde
/// reader's.
fn fast_line(
    text: &str,
    line: u64,
    file: &mut FileState,
    sink: &mut dyn FnMut(Event<'_>),
    summary: &mut ReadSummary,
) -> Result<(), fast::Bail> {
    let FileState {
        name,
        codex_session,
        scratch,
        lines,
        formats,
    } = file;
    let top = lines.read(text)?;
    let mut first = None;
    // One conversation per line.
    let conversation = lines.conversation_of(&top);
    let items = if conversation.is_none() {
        lines.responses_items(&top)
    } else {
        None
    };
    if conversation.is_some() || items.is_some() {
        let thread = match top.custom_id {
            Some(id) => format!("{name}#{}", id.of(text)),
            None => format!("{name}:{line}"),
        };
        let mut emit = Emit {
            codex: false,
            file: name,
            thread: &thread,
            line,
            sink,
            summary,
            first: &mut first,
            scratch,
        };
        for ev in conversation.into_iter().flatten() {
            emit.event(ev, text, lines);
        }
        for ev in items.iter().flatten().flat_map(|evs| evs.iter()) {
            emit.event(ev, text, lines);
        }
        (emit.sink)(Event::ThreadEnd(&thread));
        count_format(formats, first);
        return Ok(());
    }
    // One message or event per line.
    if top.kind.map(|k| k.of(text)) == Some("session_meta") {
        if let Some(id) = lines.node(top.payload).and_then(|p| p.id) {
            *codex_session = Some(format!("codex:{}", id.of(text)));
        }
        formats[Format::Codex as usize].get_or_insert(0);
        return Ok(());
    }
    let codex = top.kind.map(|k| k.of(text)) == Some("response_item");
    let inner = *lines
        .node(top.payload)
        .or(lines.node(top.message))
        .unwrap_or(&top);
    let start = lines.events.len();
    lines.message_events(&inner, text);
    let thread = fast_explicit_thread(lines, &top, text)
        .or(codex_session.as_deref())
        .unwrap_or(name);
    let mut emit = Emit {
        codex,
        file: name,
        thread,
        line,
        sink,
        summary,
        first: &mut first,
        scratch,
    };
    for ev in lines.events.get(start..).unwrap_or_default() {
        emit.event(ev, text, lines);
    }
    count_format(formats, first);
    Ok(())
}

/// [`explicit_thread`] of a node the one-pass reader read.
fn fast_explicit_thread<'t>(
    lines: &fast::Lines,
    node: &fast::Info,
    text: &'t str,
) -> Option<&'t str> {
    let own = node
        .thread_id
        .or(node.conversation_id)
        .or(node.session_id)
        .or(node.thread);
    own.map(|s| s.of(text))
        .or_else(|| {
            lines
                .node(node.payload)
                .and_then(|p| fast_explicit_thread(lines, p, text))
        })
        .or_else(|| {
            lines
                .node(node.message)
                .and_then(|m| fast_explicit_thread(lines, m, text))
        })
}

/// Read one parsed line (or document) and emit its events.
fn node_events(
    node: &Node<'_>,
    line: u64,
    file: &mut FileState,
    sink: &mut dyn FnMut(Event<'_>),
    summary: &mut ReadSummary,
) {
    let mut first = None;
    // One conversation per line.
    let conversation = conversation_of(node);
    let items = if conversation.is_none() {
        responses_items(node)
    } else {
        None
    };
    if conversation.is_some() || items.is_some() {
        let thread = match node.custom_id.as_deref() {
            Some(id) => format!("{}#{id}", file.name),
            None => format!("{}:{line}", file.name),
        };
        let mut emit = Emit {
            codex: false,
            file: &file.name,
            thread: &thread,
            line,
            sink,
            summary,
            first: &mut first,
            scratch: &mut file.scratch,
        };
        for m in conversation.into_iter().flatten() {
            message_events(m, &mut emit);
        }
        for m in items.iter().flatten() {
            message_events(m, &mut emit);
        }
        (emit.sink)(Event::ThreadEnd(&thread));
        count_format(&mut file.formats, first);
        return;
    }
    // One message or event per line.
    if node.kind.as_deref() == Some("session_meta") {
        if let Some(id) = node.payload.as_deref().and_then(|p| p.id.as_deref()) {
            file.codex_session = Some(format!("codex:{id}"));
        }
        file.formats[Format::Codex as usize].get_or_insert(0);
        return;
    }
    let thread = explicit_thread(node)
        .or(file.codex_session.as_deref())
        .unwrap_or(&file.name);
    let codex = node.kind.as_deref() == Some("response_item");
    let inner = node
        .payload
        .as_deref()
        .or(node.message.as_deref())
        .unwrap_or(node);
    let mut emit = Emit {
        codex,
        file: &file.name,
        thread,
        line,
        sink,
        summary,
        first: &mut first,
        scratch: &mut file.scratch,
    };
    message_events(inner, &mut emit);
    count_format(&mut file.formats, first);
}

/// Read every file, in order, handing each event to `sink`. An unreadable file is an error;
/// a malformed line is counted, listed and skipped.
pub fn read_files(
    paths: &[impl AsRef<Path>],
    sink: &mut dyn FnMut(Event<'_>),
) -> std::io::Result<ReadSummary> {
    let mut summary = ReadSummary::default();
    for p in paths {
        read_file(p.as_ref(), sink, &mut summary)?;
    }
    Ok(summary)
}

/// Whether a file is one JSON document rather than JSON lines: a `.json` name, or a first
/// non-blank byte `[`.
fn is_document(path: &Path, first: &[u8]) -> bool {
    path.extension().is_some_and(|e| e == "json")
        || first.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

fn read_file(
    path: &Path,
    sink: &mut dyn FnMut(Event<'_>),
    summary: &mut ReadSummary,
) -> std::io::Result<()> {
    let mut f = std::fs::File::open(path)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    summary.files += 1;
    let mut file = FileState::new(path.display().to_string());
    // The first read decides whether the file is one document.
    let mut buf = vec![0u8; 1 << 20];
    let n = read_some(&mut f, &mut buf)?;
    if is_document(path, buf.get(..n).unwrap_or_default()) {
        buf.truncate(n);
        std::io::Read::read_to_end(&mut f, &mut buf)?;
        summary.lines += 1;
        read_document(&buf, &mut file, sink, summary)?;
    } else {
        read_lines(&mut f, buf, n, &mut file, sink, summary)?;
    }
    file.finish(summary);
    Ok(())
}

/// One `read` into `buf` (retried when interrupted).
fn read_some(reader: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

/// Read a JSON-lines file line by line (the last line may lack its newline), as `read_until`
/// would hand them over, but each in place in one buffer refilled by large reads: only the
/// line a read cuts in two is moved (to the buffer's front), and the buffer grows only for a
/// line longer than it.
/// `buf[..end]` holds the file's first bytes.
fn read_lines(
    reader: &mut impl std::io::Read,
    mut buf: Vec<u8>,
    mut end: usize,
    file: &mut FileState,
    sink: &mut dyn FnMut(Event<'_>),
    summary: &mut ReadSummary,
) -> std::io::Result<()> {
    // The unread bytes are buf[start..end].
    let mut start = 0;
    let mut line = 0u64;
    loop {
        let read = buf.get(start..end).unwrap_or_default();
        let mut at = 0;
        for nl in memchr::memchr_iter(b'\n', read) {
            line += 1;
            let text = read.get(at..=nl).unwrap_or_default();
            line_events(text, line, file, sink, summary, Reader::OnePass);
            at = nl + 1;
        }
        start += at;
        buf.copy_within(start..end, 0);
        end -= start;
        start = 0;
        if end == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = read_some(reader, buf.get_mut(end..).unwrap_or_default())?;
        if n == 0 {
            if end > 0 {
                line += 1;
                let text = buf.get(..end).unwrap_or_default();
                line_events(text, line, file, sink, summary, Reader::OnePass);
            }
            return Ok(());
        }
        end += n;
    }
}

/// Which reader reads a line first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// [`fast`], leaving what it is not sure of to the serde reader.
    OnePass,
    /// The serde reader alone (what [`fast`] is held to).
    #[cfg(test)]
    Serde,
}

/// Read one line of a JSON-lines file (as read, with its newline) and emit its events.
fn line_events(
    raw: &[u8],
    line: u64,
    file: &mut FileState,
    sink: &mut dyn FnMut(Event<'_>),
    summary: &mut ReadSummary,
    reader: Reader,
) {
    summary.lines += 1;
    let text = raw.trim_ascii();
    if text.is_empty() {
        return;
    }
    // One UTF-8 check of the line, not one per string read (serde_json's slice reader
    // checks each); a line that is not UTF-8 is read as before, for the same answer.
    let utf8 = std::str::from_utf8(text).ok();
    if let Some(t) = utf8
        && reader == Reader::OnePass
        && fast_line(t, line, file, sink, summary).is_ok()
    {
        return;
    }
    let parsed = match utf8 {
        Some(t) => serde_json::from_str::<Node<'_>>(t),
        None => serde_json::from_slice::<Node<'_>>(text),
    };
    match parsed {
        Ok(node) => node_events(&node, line, file, sink, summary),
        Err(e) => {
            let reason = if utf8.is_none() {
                "not UTF-8".to_owned()
            } else {
                format!("not a JSON object of a known shape ({e})")
            };
            summary.malformed(&file.name, line, reason);
        }
    }
}

/// A whole-file conversation: an array of messages or items, or one object.
fn read_document(
    text: &[u8],
    file: &mut FileState,
    sink: &mut dyn FnMut(Event<'_>),
    summary: &mut ReadSummary,
) -> std::io::Result<()> {
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    let node = if first == Some(&b'[') {
        serde_json::from_slice::<Vec<Node<'_>>>(text).map(|messages| Node {
            messages: Some(messages),
            ..Node::default()
        })
    } else {
        serde_json::from_slice::<Node<'_>>(text)
    };
    match node {
        Ok(node) => node_events(&node, 1, file, sink, summary),
        Err(e) => summary.malformed(
            &file.name,
            e.line() as u64,
            format!("not a JSON conversation ({e})"),
        ),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// `string_into` answers exactly what serde_json's string reading does (`string_of`),
    /// for plain text, every escape, surrogate pairs and lone halves, control characters,
    /// bad escapes and non-strings, with the buffer reused from one to the next.
    #[test]
    fn string_into_agrees_with_serde_json() {
        let cases = [
            r#""plain""#,
            r#""""#,
            r#""{\"path\":\"src/a.rs\",\"n\":1}""#,
            r#""a\\b\/c\bd\fe\nf\rg\th""#,
            r#""\u00e9\u4e2d\u0000x""#,
            r#""\uD83D\uDE00 pair""#,
            r#""\uDE00 lone low""#,
            r#""\uD83D lone high""#,
            r#""\u12 short""#,
            r#""\uZZZZ""#,
            r#""\q bad escape""#,
            "\"tab\tinside\"",
            r#""ends with escape\\""#,
            r#"{"not": "a string"}"#,
            "17",
            "null",
        ];
        let mut buf = String::from("left over");
        for case in cases {
            let Ok(raw) = serde_json::from_str::<&RawValue>(case) else {
                // Not JSON at all (a raw control character): never a RawValue.
                continue;
            };
            let want = string_of(raw.get()).map(|c| c.into_owned());
            let got = string_into(raw.get(), &mut buf).map(str::to_owned);
            assert_eq!(got, want, "{case}");
        }
    }

    /// An event as text, a result's verdict included.
    fn record(e: Event<'_>) -> String {
        match e {
            Event::Result(r) => format!("{e:?} error={}", r.is_error()),
            _ => format!("{e:?}"),
        }
    }

    /// Every event of a JSON-lines text read by `reader`, and the summary, as text.
    fn read_with(text: &[u8], reader: Reader) -> (Vec<String>, String) {
        let mut events = Vec::new();
        let mut summary = ReadSummary::default();
        let mut file = FileState::new("f.jsonl".to_owned());
        let mut sink = |e: Event<'_>| events.push(record(e));
        for (i, line) in text.split_inclusive(|b| *b == b'\n').enumerate() {
            line_events(
                line,
                i as u64 + 1,
                &mut file,
                &mut sink,
                &mut summary,
                reader,
            );
        }
        file.finish(&mut summary);
        (events, format!("{summary:?}"))
    }

    /// Lines of `text` the one-pass reader leaves to the serde reader.
    fn left_to_serde(text: &[u8]) -> Vec<String> {
        let mut file = FileState::new("f.jsonl".to_owned());
        let mut summary = ReadSummary::default();
        let mut left = Vec::new();
        for (i, line) in text.split(|b| *b == b'\n').enumerate() {
            let Ok(t) = std::str::from_utf8(line.trim_ascii()) else {
                continue;
            };
            if !t.is_empty()
                && fast_line(t, i as u64 + 1, &mut file, &mut |_| {}, &mut summary).is_err()
            {
                left.push(t.to_owned());
            }
        }
        left
    }

    /// Both readers give the same events and summary, line by line.
    fn assert_agree(text: &[u8]) {
        for line in text.split_inclusive(|b| *b == b'\n') {
            let serde = read_with(line, Reader::Serde);
            let fast = read_with(line, Reader::OnePass);
            assert_eq!(fast, serde, "{}", String::from_utf8_lossy(line));
        }
        // And across lines (Codex session ids, counts).
        assert_eq!(
            read_with(text, Reader::OnePass),
            read_with(text, Reader::Serde)
        );
    }

    /// Lines of every shape the one-pass reader must read as the serde reader does, or leave to
    /// it: duplicates, wrong types and nulls at every level, escapes, surrogates, structs
    /// written as arrays, numbers, nesting, whitespace, the layouts' precedence rules.
    const EDGE_LINES: &[&str] = &[
        r#"{"type":"function_call","ty\u0070e":"x","name":"a","arguments":"{}"}"#,
        r#"{"type":"function_call","type":"x","name":"a","arguments":"{}"}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","type":"function","function":{"name":"shell","arguments":"{\"a\":1}"}}]}],"messages":[]}"#,
        r#"{"messages":[{"role":"assistant","role":"user"}]}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","id":"2","function":{"name":"a","arguments":"{}"}}]}]}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"a","name":"b","arguments":"{}"}}]}]}"#,
        r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","type":"x","id":"1","name":"a","input":{}}]}]}"#,
        r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"a","input":{}},{"type":"text","is_error":"no"}]}]}"#,
        r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"a","input":{}},"text"]}]}"#,
        r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"a","input":{}},["tool_use","2","b",{}]]}]}"#,
        r#"{"messages":[{"role":5}]}"#,
        r#"{"messages":[{"role":"tool","is_error":"yes","content":"x"}]}"#,
        r#"{"messages":{}}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":{}}]}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[null]}]}"#,
        r#"{"messages":[null]}"#,
        r#"{"messages":[["assistant"]]}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":"shell"}]}]}"#,
        r#"{"body":[],"messages":[]}"#,
        r#"{"body":5}"#,
        r#"{"payload":"x","type":"response_item"}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"sh\u0065ll","arguments":"{}"}}]}]}"#,
        r#"{"messages":[{"ro\u006ce":"tool","tool_call_id":"1","content":"ok"}]}"#,
        r#"{"thread_id":"t\u00e9","message":{"role":"tool","tool_call_id":"1","content":"Error"}}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"a","arguments":"{\"p\":\"\ud83d\ude00\"}"}}]}]}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"a","arguments":"{\"p\":\"\udead\"}"}}]}]}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"a","arguments":"{\"p\":\"\q\"}"}}]}]}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"a","arguments":"\u12"}}]}]}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"a","arguments":"tab	inside"}}]}]}"#,
        r#"{"x":01}"#,
        r#"{"x":1.}"#,
        r#"{"x":-}"#,
        r#"{"x":1e}"#,
        r#"{"x":.5}"#,
        r#"{"x":tru}"#,
        r#"{"x":nul,"messages":[]}"#,
        r#"{"a":1} x"#,
        r#"{"a":1,}"#,
        r#"{"a":[1,]}"#,
        r#"{"a" 1}"#,
        r#"{1:1}"#,
        r#"{"a":1"#,
        "{\"messages\":[]\u{c}}",
        "\u{c}{\"messages\":[]}",
        "{\"messages\":[],\"x\":\"\u{7f}\"}",
        r#"{"body":{"input":[{"type":"function_call","call_id":"1","name":"a","arguments":"{}"}]}}"#,
        r#"{"input":[1],"output":[{"type":"function_call","call_id":"1","name":"a","arguments":"{}"}]}"#,
        r#"{"input":[null]}"#,
        r#"{"type":"tool_use","name":"x","id":"1","input":[1,2]}"#,
        r#"{"role":"tool","tool_call_id":"1","content":[{"type":"image"},{"type":"text","text":"  error\nx"}]}"#,
        r#"{"role":"tool","tool_call_id":"1","content":[{"type":"text","text":5}]}"#,
        r#"{"role":"tool","tool_call_id":"1","content":"\u0065rror"}"#,
        r#"{"role":"tool","tool_call_id":"1","isError":true}"#,
        r#"{"type":"tool_result","tool_use_id":"1","content":[{"text":"ERROR"}]}"#,
        r#"{"type":"response_item","payload":{"type":"function_call","call_id":"1","name":"a","arguments":"{\"x\":\"y\"}"}}"#,
        r#"{"type":"session_meta","payload":{"cwd":"/"}}"#,
        r#"{"type":"response_item","payload":{"type":"custom_tool_call","call_id":"2","name":"apply_patch"}}"#,
        r#"{"type":"function_call","name":"a"}"#,
        r#"{"messages":[{"role":"assistant","messages":[{"role":5}]}]}"#,
        r#"{"messages":[{"role":"assistant","body":{"tool_calls":[{"function":5}]}}]}"#,
        r#"{"messages":[{"role":"assistant","body":{"tool_calls":[{"function":{"name":"a"}}],"content":[1]}}]}"#,
        r#"{"messages":[],"x\"y":1}"#,
        r#"[]"#,
        r#"[{"role":"tool"}]"#,
        r#"null"#,
        r#"5"#,
        r#""str""#,
        "",
        "   ",
    ];

    /// Lines the one-pass reader reads itself (and must read as the serde reader does).
    const SURE_LINES: &[&str] = &[
        r#"{"messages":[],"types":1,"typ":2,"thread_ids":"x","messagesx":[1],"i":0,"":1}"#,
        r#"{"message":{"role":"tool","tool_call_id":"1","content":"Error","is_errors":5,"isErr":"x"},"payloads":[]}"#,
        r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"a","input":{},"types":1,"inputs":"x","contents":2}],"tool_calls":[{"id":"2","ids":1,"function":{"name":"b","names":1,"arguments":"{}","argument":2},"functions":3}]}]}"#,
        r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"a","input":null},{"type":"tool_use","id":"2","name":"b","input":[1,{"x":"y"}]}]}]}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":null,"name":"shell","arguments":{"a":1}}]}]}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"arguments":"{}"}},{"id":"2","name":"b"},{"function":{"name":"c","arguments":null}}]}]}"#,
        r#"{"role":null,"messages":null,"content":null,"input":null,"arguments":null,"body":null,"params":null,"payload":null,"message":null,"tool_calls":null,"is_error":null,"isError":null,"type":null}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"a","arguments":"{\"p\":\"\u00e9\\n\\\"\"}"}}]}]}"#,
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"a","arguments":"{\"x\":1}","extra":[1,-0.5E-3,1e5,0,true,false,null,{"k":"v"}]}}]}]}"#,
        r#"{"x":1e999999,"messages":[]}"#,
        r#"{"a":1}   "#,
        "{ \"messages\" : [ { \"role\" : \"tool\" , \"content\" : \"Error: x\" } ] , \"custom_id\" :\t\"c\" }",
        r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"a","arguments":"{}"}}]}],"body":{"messages":[{"role":"assistant","tool_calls":[{"id":"2","function":{"name":"b","arguments":"{}"}}]}]}}"#,
        r#"{"custom_id":"x","params":{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"a","input":{"q":1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"1","content":"error: no","is_error":false}]}]}}"#,
        r#"{"custom_id":"x","body":{"messages":[]},"params":{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"a","input":{}}]}]}}"#,
        r#"{"body":{"body":{"messages":[{"role":"tool","tool_call_id":"1","content":"ok"}]}}}"#,
        r#"{"body":{"params":{"input":[{"type":"function_call","call_id":"1","name":"a","arguments":"{}"}]},"input":[{"type":"function_call","call_id":"2","name":"b","arguments":"{}"}]}}"#,
        r#"{"output":[{"type":"function_call_output","call_id":"2","output":"Error!"}],"input":[{"type":"function_call","call_id":"1","name":"a","arguments":"{}"}]}"#,
        r#"{"input":[{"type":"function_call","call_id":"1","name":"a","arguments":"{}"}],"output":"text"}"#,
        r#"{"input":[]}"#,
        r#"{"role":"user","input":[{"type":"function_call","call_id":"1","name":"a","arguments":"{}"}]}"#,
        r#"{"type":"tool_use","name":"x","id":"1","input":[{"type":"function_call","call_id":"1","name":"a","arguments":"{}"}]}"#,
        r#"{"role":"tool","tool_call_id":"1","content":[{"type":"text","text":"Error: bad"}]}"#,
        r#"{"role":"tool","tool_call_id":"1","content":"\nError"}"#,
        r#"{"role":"tool","tool_call_id":"1","tool_result":{"x":1},"content":"error"}"#,
        r#"{"type":"function_call_output","call_id":"1","output":"ok","status":"failed"}"#,
        r#"{"type":"custom_tool_call_output","call_id":"1","output":"{\"output\":\"x\",\"metadata\":{\"exit_code\":2}}"}"#,
        r#"{"type":"session_meta","payload":{"id":"s1"}}"#,
        r#"{"type":"response_item","payload":{"type":"custom_tool_call","call_id":"2","name":"apply_patch","input":"*** Begin\n\"x\"\n"}}"#,
        r#"{"type":"response_item","payload":{"type":"custom_tool_call","call_id":"2","name":"apply_patch","input":{"a":1}}}"#,
        r#"{"payload":{"thread_id":"p","payload":{"thread":"pp"}},"message":{"conversation_id":"m"}}"#,
        r#"{"payload":{"payload":{"thread":"pp"},"type":"function_call","name":"a","arguments":"{}"},"message":{"conversation_id":"m"}}"#,
        r#"{"message":{"message":{"session_id":"mm"},"role":"assistant","tool_calls":[{"id":"1","name":"a","arguments":{"k":[1]}}]}}"#,
        r#"{"session_id":"s","role":"assistant","content":[{"type":"tool_use","id":"1","name":"a","input":{}}],"tool_calls":[{"id":"0","name":"z","arguments":"{}"}]}"#,
        r#"{"type":"function_call","name":"a","arguments":"{}","tool_calls":[{"id":"0","name":"z","arguments":"{}"}]}"#,
        r#"{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"error x"}]}]}]}"#,
        r#"{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","isError":true,"is_error":null}]}]}"#,
        r#"{"messages":[],"x":"\"\\\/\b\f\n\r\t"}"#,
        r#"{"messages":[],"é":"ü"}"#,
        r#"{}"#,
    ];

    #[test]
    fn agrees_with_the_serde_reader_on_edge_lines() {
        let mut text = Vec::new();
        for line in EDGE_LINES {
            text.extend_from_slice(line.as_bytes());
            text.push(b'\n');
        }
        // Deep nesting, below and above the one-pass reader's limit and serde_json's.
        for depth in [10, 63, 64, 65, 127, 128, 129, 300] {
            let deep = format!(
                "{{\"messages\":[],\"x\":{}1{}}}\n",
                "[".repeat(depth),
                "]".repeat(depth)
            );
            text.extend_from_slice(deep.as_bytes());
            let deep = format!(
                "{{\"messages\":[{}{{\"role\":\"tool\"}}{}]}}\n",
                "{\"body\":".repeat(depth),
                "}".repeat(depth)
            );
            text.extend_from_slice(deep.as_bytes());
        }
        text.extend_from_slice(b"\xff\xfe not text\n");
        assert_agree(&text);
        // The lines it is sure of are read by it.
        let mut sure = Vec::new();
        for line in SURE_LINES {
            sure.extend_from_slice(line.as_bytes());
            sure.push(b'\n');
        }
        assert_agree(&sure);
        assert_eq!(left_to_serde(&sure), Vec::<String>::new());
    }

    /// `FileState::formats` is indexed by `Format as usize`.
    #[test]
    fn formats_are_indexed_in_their_order() {
        for (i, f) in Format::ALL.iter().enumerate() {
            assert_eq!(*f as usize, i);
        }
    }

    /// A reader handing over at most `step` bytes per read.
    struct Trickle<'a> {
        text: &'a [u8],
        step: usize,
    }

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.text.len());
            buf[..n].copy_from_slice(&self.text[..n]);
            self.text = &self.text[n..];
            Ok(n)
        }
    }

    /// `read_lines` hands over the lines `read_until` would, whatever the reads and the
    /// buffer's size: lines cut by a read, longer than the buffer, blank, with CR LF, and a
    /// last line without its newline.
    #[test]
    fn lines_are_handed_over_whole_whatever_the_reads() {
        let call = r#"{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"shell","arguments":"{\"command\":\"ls\"}"}}]},{"role":"tool","tool_call_id":"1","content":"Error: no"}]}"#;
        let long = format!(
            r#"{{"thread_id":"t","message":{{"role":"assistant","tool_calls":[{{"id":"2","name":"a","arguments":{{"x":"{}"}}}}]}}}}"#,
            "y".repeat(300)
        );
        for last in ["", "\n", "\r\n"] {
            let text = format!("{call}\n\n  \n{long}\r\n{call}\nnot json\n{long}{last}");
            let want = read_with(text.as_bytes(), Reader::OnePass);
            for (step, size) in [(1, 1), (7, 16), (64, 64), (1000, 4096), (1 << 20, 1 << 20)] {
                let mut events = Vec::new();
                let mut summary = ReadSummary::default();
                let mut file = FileState::new("f.jsonl".to_owned());
                let mut sink = |e: Event<'_>| events.push(record(e));
                let mut reader = Trickle {
                    text: text.as_bytes(),
                    step,
                };
                let mut buf = vec![0u8; size];
                let n = read_some(&mut reader, &mut buf).unwrap();
                read_lines(&mut reader, buf, n, &mut file, &mut sink, &mut summary).unwrap();
                file.finish(&mut summary);
                assert_eq!(
                    (events, format!("{summary:?}")),
                    want,
                    "{step} {size} {last:?}"
                );
            }
        }
    }

    #[test]
    fn agrees_with_the_serde_reader_on_the_fixtures_and_generated_transcripts() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut fixtures = 0;
        for entry in std::fs::read_dir(root.join("tests/data/transcripts")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                assert_agree(&std::fs::read(&path).unwrap());
                fixtures += 1;
            }
        }
        assert!(fixtures >= 7);
        let sources =
            toolsurface_compiler::read_dir(&root.join("examples/consolidation/before")).unwrap();
        let ir = toolsurface_compiler::compile(&sources).ir.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = generate::Config::new("side_chat", "chat", 120, 10);
        let g = generate::write_all(&ir, &config, dir.path()).unwrap();
        for path in &g.files {
            let text = std::fs::read(path).unwrap();
            assert_agree(&text);
            // Every generated line is the one-pass reader's.
            assert_eq!(
                left_to_serde(&text),
                Vec::<String>::new(),
                "{}",
                path.display()
            );
        }
    }
}
