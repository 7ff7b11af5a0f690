//! The one-pass reader of a transcript line: the line's bytes are read once, each message of a
//! conversation is turned into its events as soon as its object closes, and nothing of it is
//! kept but those events (spans into the line). The serde reader of [`super`] (`Node`) stays
//! the definition: this reader answers only lines it is sure of, and leaves any other to it
//! ([`Bail`]), whose answer it then is — a line that is not JSON, a type the serde reader
//! refuses, a duplicate field, an escape in a name or id, a surrogate escape anywhere, a struct
//! written as an array, nesting deeper than [`MAX_DEPTH`], a block list the serde reader would
//! drop. What it accepts, the serde reader accepts, and reads the same events from: every
//! level is type-checked as `Node` / `ToolCall` / `Function` / `ContentBlock` check it, even
//! where no event is read (`tests::agrees_with_the_serde_reader`).

use std::num::NonZeroU32;

use super::Format;

/// The line is left to the serde reader.
#[derive(Debug)]
pub(super) struct Bail;

type R<T> = Result<T, Bail>;

/// Deeper than this (arrays and objects), a line is the serde reader's (its own limit is 128).
const MAX_DEPTH: u32 = 64;

/// Bytes of the line: a string's contents (without the quotes, no escape in it) or a value's
/// JSON text as written (or of [`Lines::decoded`]). The end is kept plus one, so that an
/// `Option<Span>` takes no more room than a span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Span {
    start: u32,
    end1: NonZeroU32,
}

impl Span {
    /// `start..end` (both at most the line's length, which is below `u32::MAX`).
    fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end1: NonZeroU32::MIN.saturating_add(end as u32),
        }
    }

    pub(super) fn of(self, line: &str) -> &str {
        line.get(self.start as usize..self.end1.get() as usize - 1)
            .unwrap_or_default()
    }
}

/// A range of one of [`Lines`]' buffers (its end kept plus one, as [`Span`]'s).
#[derive(Clone, Copy, Debug)]
struct Range32 {
    start: u32,
    end1: NonZeroU32,
}

impl Range32 {
    /// `start..end` (both at most a buffer's length, below `u32::MAX`: it holds less than one
    /// entry per byte of the line).
    fn new(start: usize, end: usize) -> Range32 {
        Range32 {
            start: start as u32,
            end1: NonZeroU32::MIN.saturating_add(end as u32),
        }
    }

    fn of<T>(self, v: &[T]) -> &[T] {
        v.get(self.start as usize..self.end1.get() as usize - 1)
            .unwrap_or_default()
    }
}

/// A string's contents: in the line (it has no escape), or unescaped into [`Lines::decoded`].
#[derive(Clone, Copy, Debug)]
pub(super) enum Str {
    Line(Span),
    Decoded(Span),
}

/// A value whose contents are wanted when it is a string (a call's arguments text, a freeform
/// input): its JSON text as written, and its contents when it is a string.
#[derive(Clone, Copy, Debug)]
pub(super) struct Arg {
    pub(super) raw: Span,
    pub(super) text: Option<Str>,
}

/// How a call's arguments were found (as [`super::ArgsFound`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum Args {
    /// A JSON string holding the arguments' JSON text (or, not a string, the value itself);
    /// none given: the empty text.
    Text(Option<Arg>),
    Inline(Span),
    /// A freeform tool's input (a JSON string; anything else is the empty input).
    Freeform(Option<Arg>),
}

/// An event of the line, as [`super::Emit`] will hand it on.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ev {
    Call {
        format: Format,
        call_id: Option<Span>,
        name: Span,
        args: Args,
    },
    Result {
        format: Format,
        call_id: Option<Span>,
        /// Flagged an error; the output read when the consumer asks.
        flagged: bool,
        output: Option<Span>,
    },
}

/// What the serde reader's `Node` holds of an object, as spans; the lists it collects are
/// ranges of [`Lines`]' buffers, and the nested nodes indexes of [`Lines::nodes`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Info {
    pub(super) kind: Option<Span>,
    pub(super) role: Option<Span>,
    pub(super) name: Option<Span>,
    pub(super) id: Option<Span>,
    pub(super) call_id: Option<Span>,
    pub(super) tool_call_id: Option<Span>,
    pub(super) tool_use_id: Option<Span>,
    pub(super) custom_id: Option<Span>,
    pub(super) thread_id: Option<Span>,
    pub(super) conversation_id: Option<Span>,
    pub(super) session_id: Option<Span>,
    pub(super) thread: Option<Span>,
    pub(super) status: Option<Span>,
    pub(super) input: Option<Arg>,
    pub(super) output: Option<Span>,
    pub(super) content: Option<Span>,
    pub(super) arguments: Option<Arg>,
    pub(super) tool_result: Option<Span>,
    pub(super) is_error: Option<bool>,
    pub(super) is_error_camel: Option<bool>,
    /// The events of `messages`' elements (of a kept node).
    messages: Option<Range32>,
    /// The events of `input` / `output` read as a Responses item list (at the top and in its
    /// `body` / `params`), when it is one.
    input_items: Option<Range32>,
    output_items: Option<Range32>,
    /// `tool_calls`, in [`Lines::calls`].
    tool_calls: Option<Range32>,
    /// `content` read as a block list, in [`Lines::blocks`].
    blocks: Option<Range32>,
    pub(super) body: Option<u32>,
    pub(super) params: Option<u32>,
    pub(super) payload: Option<u32>,
    pub(super) message: Option<u32>,
}

impl Info {
    fn flags_error(&self) -> bool {
        self.is_error == Some(true) || self.is_error_camel == Some(true)
    }
}

/// An entry of `tool_calls` (the serde reader's `ToolCall` and its `Function`).
#[derive(Clone, Copy, Debug, Default)]
struct CallEntry {
    id: Option<Span>,
    function: Option<FunctionEntry>,
    name: Option<Span>,
    arguments: Option<Arg>,
}

#[derive(Clone, Copy, Debug, Default)]
struct FunctionEntry {
    name: Option<Span>,
    arguments: Option<Arg>,
}

/// A block of a `content` list (the serde reader's `ContentBlock`).
#[derive(Clone, Copy, Debug, Default)]
struct Block {
    kind: Option<Span>,
    id: Option<Span>,
    name: Option<Span>,
    input: Option<Span>,
    tool_use_id: Option<Span>,
    content: Option<Span>,
    is_error: Option<bool>,
    is_error_camel: Option<bool>,
}

/// A file's buffers, reused from line to line.
#[derive(Default)]
pub(super) struct Lines {
    pub(super) events: Vec<Ev>,
    /// The nodes the line's events may be read from (the line, its `body`, `params`,
    /// `payload`, `message` and theirs); the line's own is the last.
    pub(super) nodes: Vec<Info>,
    calls: Vec<CallEntry>,
    blocks: Vec<Block>,
    /// Escaped argument texts, unescaped ([`Str::Decoded`]).
    pub(super) decoded: String,
}

/// A line read: its nodes and events are in [`Lines`].
impl Lines {
    /// Read one line (valid UTF-8, trimmed). On [`Bail`], the buffers hold nothing of use.
    pub(super) fn read(&mut self, line: &str) -> R<Info> {
        if line.len() >= u32::MAX as usize {
            return Err(Bail);
        }
        self.events.clear();
        self.nodes.clear();
        self.calls.clear();
        self.blocks.clear();
        self.decoded.clear();
        let mut c = Cursor {
            b: line.as_bytes(),
            line,
            i: 0,
            depth: 0,
            s: self,
        };
        let mut top = Info::default();
        c.node(Mode::Top, &mut top)?;
        c.ws();
        if c.i != c.b.len() {
            return Err(Bail);
        }
        Ok(top)
    }

    /// The events of one of the line's nodes (`None`: what `messages` held).
    fn range(&self, r: Option<Range32>) -> &[Ev] {
        r.map_or(&[], |r| r.of(&self.events))
    }

    /// The messages (events) of the conversation a node carries (`conversation_of`).
    pub(super) fn conversation_of(&self, node: &Info) -> Option<&[Ev]> {
        self.conversation_range(node, 0).map(|r| r.of(&self.events))
    }

    fn conversation_range(&self, node: &Info, depth: u32) -> Option<Range32> {
        if let Some(inner) = node.body.or(node.params) {
            let inner = self.nodes.get(inner as usize)?;
            if depth > MAX_DEPTH {
                return None;
            }
            return self.conversation_range(inner, depth + 1);
        }
        node.messages
    }

    /// A Responses request's items (`input`, then `output`), when either is an item list
    /// (`responses_items`).
    pub(super) fn responses_items(&self, node: &Info) -> Option<[&[Ev]; 2]> {
        if node.kind.is_some() || node.role.is_some() {
            return None;
        }
        let inner = match node.body.or(node.params) {
            Some(ix) => self.nodes.get(ix as usize)?,
            None => node,
        };
        if inner.input_items.is_none() && inner.output_items.is_none() {
            return None;
        }
        Some([
            self.range(inner.input_items),
            self.range(inner.output_items),
        ])
    }

    /// A string's contents.
    pub(super) fn str<'l>(&'l self, s: Str, line: &'l str) -> &'l str {
        match s {
            Str::Line(span) => span.of(line),
            Str::Decoded(span) => span.of(&self.decoded),
        }
    }

    pub(super) fn node(&self, ix: Option<u32>) -> Option<&Info> {
        ix.and_then(|ix| self.nodes.get(ix as usize))
    }

    /// The events of one message or item (`message_events`), appended to [`Lines::events`].
    pub(super) fn message_events(&mut self, node: &Info, line: &str) {
        message_events(node, &self.calls, &self.blocks, line, &mut self.events);
    }
}

/// A call event.
fn call(format: Format, call_id: Option<Span>, name: Span, args: Args) -> Ev {
    Ev::Call {
        format,
        call_id,
        name,
        args,
    }
}

/// The member of `n` a plain string field (`bit`) is read into: kind, role, name, the ids,
/// thread and status; `None` for the others.
fn text_slot(n: &mut Info, bit: u32) -> Option<&mut Option<Span>> {
    Some(match bit {
        field::KIND => &mut n.kind,
        field::ROLE => &mut n.role,
        field::NAME => &mut n.name,
        field::ID => &mut n.id,
        field::CALL_ID => &mut n.call_id,
        field::TOOL_CALL_ID => &mut n.tool_call_id,
        field::TOOL_USE_ID => &mut n.tool_use_id,
        field::CUSTOM_ID => &mut n.custom_id,
        field::THREAD_ID => &mut n.thread_id,
        field::CONVERSATION_ID => &mut n.conversation_id,
        field::SESSION_ID => &mut n.session_id,
        field::THREAD => &mut n.thread,
        field::STATUS => &mut n.status,
        _ => return None,
    })
}

/// The events of one message or item, exactly as the serde reader's `message_events`.
fn message_events(n: &Info, calls: &[CallEntry], blocks: &[Block], line: &str, out: &mut Vec<Ev>) {
    if item_events(n, line, out) {
        return;
    }
    message_body_events(n, calls, blocks, line, out);
}

/// The events of a typed item (`type`: a Responses function or custom call or output, an
/// Anthropic `tool_use` / `tool_result` node); `false` when the node is no such item.
fn item_events(n: &Info, line: &str, out: &mut Vec<Ev>) -> bool {
    match n.kind.map(|k| k.of(line)) {
        Some("function_call") => {
            if let (Some(name), Some(args)) = (n.name, n.arguments) {
                out.push(call(
                    Format::OpenaiResponses,
                    n.call_id,
                    name,
                    Args::Text(Some(args)),
                ));
            }
            true
        }
        Some("custom_tool_call") => {
            if let Some(name) = n.name {
                out.push(call(
                    Format::OpenaiResponses,
                    n.call_id,
                    name,
                    Args::Freeform(n.input),
                ));
            }
            true
        }
        Some("function_call_output" | "custom_tool_call_output") => {
            let flagged = n.status.map(|s| s.of(line)) == Some("failed") || n.flags_error();
            out.push(Ev::Result {
                format: Format::OpenaiResponses,
                call_id: n.call_id,
                flagged,
                output: n.output,
            });
            true
        }
        Some("tool_use") => {
            if let (Some(name), Some(input)) = (n.name, n.input) {
                out.push(call(Format::Anthropic, n.id, name, Args::Inline(input.raw)));
            }
            true
        }
        Some("tool_result") => {
            out.push(Ev::Result {
                format: Format::Anthropic,
                call_id: n.tool_use_id,
                flagged: n.flags_error(),
                output: n.content,
            });
            true
        }
        _ => false,
    }
}

/// The events of a message: its `tool_calls` (OpenAI Chat, the messages format), then a
/// tool message's result or its content blocks' Anthropic calls and results.
fn message_body_events(
    n: &Info,
    calls: &[CallEntry],
    blocks: &[Block],
    line: &str,
    out: &mut Vec<Ev>,
) {
    if let Some(r) = n.tool_calls {
        for c in r.of(calls) {
            let (format, name, args) = match c.function {
                Some(f) => (Format::OpenaiChat, f.name, f.arguments),
                None => (Format::ToolsurfaceMessages, c.name, c.arguments),
            };
            let Some(name) = name else { continue };
            out.push(call(format, c.id, name, Args::Text(args)));
        }
    }
    match n.role.map(|r| r.of(line)) {
        Some("tool") => {
            let (format, raw) = match n.tool_result {
                Some(r) => (Format::ToolsurfaceMessages, Some(r)),
                None => (Format::OpenaiChat, n.content),
            };
            out.push(Ev::Result {
                format,
                call_id: n.tool_call_id,
                flagged: n.flags_error(),
                output: raw,
            });
        }
        Some(_) => {
            // A list `content` was read as blocks (or the line bailed).
            for b in n.blocks.map_or(&[][..], |r| r.of(blocks)) {
                match b.kind.map(|k| k.of(line)) {
                    Some("tool_use") => {
                        if let (Some(name), Some(input)) = (b.name, b.input) {
                            out.push(call(Format::Anthropic, b.id, name, Args::Inline(input)));
                        }
                    }
                    Some("tool_result") => out.push(Ev::Result {
                        format: Format::Anthropic,
                        call_id: b.tool_use_id,
                        flagged: b.is_error == Some(true) || b.is_error_camel == Some(true),
                        output: b.content,
                    }),
                    _ => {}
                }
            }
        }
        None => {}
    }
}

/// The members of a JSON object text as serde_json's `deserialize_map` reads them (whitespace
/// before the object, nothing read after it): each key (one without escapes) with its value's
/// JSON text, in order. `None` for anything this reader is not sure of: an escape in a key, a
/// surrogate escape, invalid JSON before the closing brace, nesting past [`MAX_DEPTH`].
pub(crate) fn object_members<'t>(
    text: &'t str,
    mut member: impl FnMut(&'t str, &'t str),
) -> Option<()> {
    let mut lines = Lines::default();
    let mut c = Cursor {
        b: text.as_bytes(),
        line: text,
        i: 0,
        depth: 0,
        s: &mut lines,
    };
    c.object(|c, _, key, escaped| {
        if escaped {
            return Err(Bail);
        }
        let key = key.of(text);
        c.ws();
        let start = c.i;
        c.skip()?;
        member(key, text.get(start..c.i).ok_or(Bail)?);
        Ok(())
    })
    .ok()
}

/// What an object is read for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The line itself: kept, its `input` / `output` read as item lists.
    Top,
    /// A node events may be read from (`body`, `params`, `payload`, `message` of a kept
    /// node): kept in [`Lines::nodes`]; `items`: its `input` / `output` are read as item lists
    /// (the line's `body` and `params`).
    Kept { items: bool },
    /// An element of a kept node's `messages` or item list: its events are read when it
    /// closes.
    Message,
    /// Anything deeper: only checked, as the serde reader checks it.
    Check,
}

impl Mode {
    fn kept(self) -> bool {
        matches!(self, Mode::Top | Mode::Kept { .. })
    }
    fn items(self) -> bool {
        matches!(self, Mode::Top | Mode::Kept { items: true })
    }
    /// The mode of a nested `body` / `params` (`conversation`) or `payload` / `message`.
    fn nested(self, conversation: bool) -> Mode {
        match self {
            Mode::Top => Mode::Kept {
                items: conversation,
            },
            Mode::Kept { .. } => Mode::Kept { items: false },
            Mode::Message | Mode::Check => Mode::Check,
        }
    }
    /// The mode of the elements of `messages`.
    fn elements(self) -> Mode {
        if self.kept() {
            Mode::Message
        } else {
            Mode::Check
        }
    }
}

/// Fields of `Node`, as bits (a field given twice is the serde reader's duplicate-field error).
mod field {
    pub const KIND: u32 = 1 << 0;
    pub const ROLE: u32 = 1 << 1;
    pub const MESSAGES: u32 = 1 << 2;
    pub const INPUT: u32 = 1 << 3;
    pub const OUTPUT: u32 = 1 << 4;
    pub const BODY: u32 = 1 << 5;
    pub const PARAMS: u32 = 1 << 6;
    pub const PAYLOAD: u32 = 1 << 7;
    pub const MESSAGE: u32 = 1 << 8;
    pub const CONTENT: u32 = 1 << 9;
    pub const TOOL_CALLS: u32 = 1 << 10;
    pub const NAME: u32 = 1 << 11;
    pub const ARGUMENTS: u32 = 1 << 12;
    pub const ID: u32 = 1 << 13;
    pub const CALL_ID: u32 = 1 << 14;
    pub const TOOL_CALL_ID: u32 = 1 << 15;
    pub const TOOL_USE_ID: u32 = 1 << 16;
    pub const CUSTOM_ID: u32 = 1 << 17;
    pub const THREAD_ID: u32 = 1 << 18;
    pub const CONVERSATION_ID: u32 = 1 << 19;
    pub const SESSION_ID: u32 = 1 << 20;
    pub const THREAD: u32 = 1 << 21;
    pub const TOOL_RESULT: u32 = 1 << 22;
    pub const STATUS: u32 = 1 << 23;
    pub const IS_ERROR: u32 = 1 << 24;
    pub const IS_ERROR_CAMEL: u32 = 1 << 25;
    pub const FUNCTION: u32 = 1 << 26;
}

/// `bit` and the key's length when `rest` starts with the key `name` and its closing quote.
#[inline(always)]
fn key_at(rest: &[u8], name: &[u8], bit: u32) -> Option<(u32, usize)> {
    (rest.get(..name.len()) == Some(name) && rest.get(name.len()) == Some(&b'"'))
        .then_some((bit, name.len()))
}

/// The `Node` field whose key starts `rest` (just past the key's opening quote), as a bit of
/// [`field`], and the key's length.
#[inline]
fn node_field(rest: &[u8]) -> Option<(u32, usize)> {
    let key = |name: &[u8], bit| key_at(rest, name, bit);
    match rest.first()? {
        b'a' => key(b"arguments", field::ARGUMENTS),
        b'b' => key(b"body", field::BODY),
        b'c' => key(b"content", field::CONTENT)
            .or_else(|| key(b"call_id", field::CALL_ID))
            .or_else(|| key(b"custom_id", field::CUSTOM_ID))
            .or_else(|| key(b"conversation_id", field::CONVERSATION_ID)),
        b'i' => key(b"id", field::ID)
            .or_else(|| key(b"input", field::INPUT))
            .or_else(|| key(b"is_error", field::IS_ERROR))
            .or_else(|| key(b"isError", field::IS_ERROR_CAMEL)),
        b'm' => key(b"messages", field::MESSAGES).or_else(|| key(b"message", field::MESSAGE)),
        b'n' => key(b"name", field::NAME),
        b'o' => key(b"output", field::OUTPUT),
        b'p' => key(b"payload", field::PAYLOAD).or_else(|| key(b"params", field::PARAMS)),
        b'r' => key(b"role", field::ROLE),
        b's' => key(b"session_id", field::SESSION_ID).or_else(|| key(b"status", field::STATUS)),
        b't' => key(b"type", field::KIND)
            .or_else(|| key(b"tool_calls", field::TOOL_CALLS))
            .or_else(|| key(b"tool_call_id", field::TOOL_CALL_ID))
            .or_else(|| key(b"tool_use_id", field::TOOL_USE_ID))
            .or_else(|| key(b"tool_result", field::TOOL_RESULT))
            .or_else(|| key(b"thread_id", field::THREAD_ID))
            .or_else(|| key(b"thread", field::THREAD)),
        _ => None,
    }
}

/// The `ToolCall` field whose key starts `rest` (just past the key's opening quote), as a bit of
/// [`field`], and the key's length.
#[inline]
fn tool_call_field(rest: &[u8]) -> Option<(u32, usize)> {
    let key = |name: &[u8], bit| key_at(rest, name, bit);
    match rest.first()? {
        b'a' => key(b"arguments", field::ARGUMENTS),
        b'f' => key(b"function", field::FUNCTION),
        b'i' => key(b"id", field::ID),
        b'n' => key(b"name", field::NAME),
        _ => None,
    }
}

/// The `Function` field whose key starts `rest` (just past the key's opening quote), as a bit of
/// [`field`], and the key's length.
#[inline]
fn function_field(rest: &[u8]) -> Option<(u32, usize)> {
    let key = |name: &[u8], bit| key_at(rest, name, bit);
    match rest.first()? {
        b'a' => key(b"arguments", field::ARGUMENTS),
        b'n' => key(b"name", field::NAME),
        _ => None,
    }
}

/// The `ContentBlock` field whose key starts `rest` (just past the key's opening quote), as a bit of
/// [`field`], and the key's length.
#[inline]
fn block_field(rest: &[u8]) -> Option<(u32, usize)> {
    let key = |name: &[u8], bit| key_at(rest, name, bit);
    match rest.first()? {
        b'c' => key(b"content", field::CONTENT),
        b'i' => key(b"id", field::ID)
            .or_else(|| key(b"input", field::INPUT))
            .or_else(|| key(b"is_error", field::IS_ERROR))
            .or_else(|| key(b"isError", field::IS_ERROR_CAMEL)),
        b'n' => key(b"name", field::NAME),
        b't' => key(b"type", field::KIND).or_else(|| key(b"tool_use_id", field::TOOL_USE_ID)),
        _ => None,
    }
}

/// First seeing of a field (bit of [`field`]) in an object.
#[inline]
fn once(seen: &mut u32, bit: u32) -> R<()> {
    if *seen & bit != 0 {
        return Err(Bail);
    }
    *seen |= bit;
    Ok(())
}

struct Cursor<'a, 's> {
    b: &'a [u8],
    line: &'a str,
    i: usize,
    depth: u32,
    s: &'s mut Lines,
}

impl<'a> Cursor<'a, '_> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// JSON's whitespace (the serde reader's: space, tab, CR, LF).
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.i += 1;
        }
    }

    #[inline]
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(start, end)
    }

    /// A string at `"`: its contents' span, and whether it has an escape. Refuses what the
    /// serde reader refuses (a control character, a bad escape) and bails on a surrogate escape
    /// (which the serde reader accepts or not depending on where the string goes).
    #[inline]
    fn string(&mut self) -> R<(Span, bool)> {
        if self.peek() != Some(b'"') {
            return Err(Bail);
        }
        self.i += 1;
        let start = self.i;
        let mut escaped = false;
        loop {
            self.i = toolsurface_kernel::plain_run(self.b, self.i);
            match self.peek() {
                Some(b'"') => {
                    let span = self.span(start, self.i);
                    self.i += 1;
                    return Ok((span, escaped));
                }
                Some(b'\\') => {
                    escaped = true;
                    self.escape()?;
                }
                Some(0..=0x1f) | None => return Err(Bail),
                Some(_) => self.i += 1,
            }
        }
    }

    /// A string at `"`, its contents unescaped into [`Lines::decoded`] when it has an escape
    /// (as `string_into` would, which then has nothing left to do).
    fn string_contents(&mut self) -> R<Str> {
        if self.peek() != Some(b'"') {
            return Err(Bail);
        }
        self.i += 1;
        let start = self.i;
        self.i = toolsurface_kernel::plain_run(self.b, self.i);
        if self.peek() == Some(b'"') {
            let end = self.i;
            self.i += 1;
            return Ok(Str::Line(self.span(start, end)));
        }
        // An escape (or what bails): unescaped from the start, plain runs copied whole.
        let from = self.s.decoded.len();
        let mut run = start;
        loop {
            match self.peek() {
                Some(b'"') => {
                    let end = self.i;
                    self.i += 1;
                    let decoded = &mut self.s.decoded;
                    decoded.push_str(self.line.get(run..end).ok_or(Bail)?);
                    return Ok(Str::Decoded(Span::new(from, decoded.len())));
                }
                Some(b'\\') => {
                    let decoded = &mut self.s.decoded;
                    decoded.push_str(self.line.get(run..self.i).ok_or(Bail)?);
                    // The escapes that stand for themselves, inline (an arguments text is
                    // full of `\"`).
                    match self.b.get(self.i + 1) {
                        Some(&c @ (b'"' | b'\\' | b'/')) => {
                            decoded.push(char::from(c));
                            self.i += 2;
                        }
                        _ => {
                            let c = self.escaped_char()?;
                            self.s.decoded.push(c);
                        }
                    }
                    run = self.i;
                }
                Some(0..=0x1f) | None => return Err(Bail),
                Some(_) => self.i += 1,
            }
            self.i = toolsurface_kernel::plain_run(self.b, self.i);
        }
    }

    /// An escape at `\`.
    #[inline]
    fn escape(&mut self) -> R<()> {
        self.escaped_char().map(|_| ())
    }

    /// An escape at `\`: the character it stands for (a surrogate, paired or not, bails).
    #[inline]
    fn escaped_char(&mut self) -> R<char> {
        let (c, len) = super::escape_at(self.b.get(self.i..).ok_or(Bail)?).ok_or(Bail)?;
        self.i += len;
        Ok(c)
    }

    /// A string without escapes (a name, an id, a type): its contents.
    #[inline]
    fn plain(&mut self) -> R<Span> {
        match self.string()? {
            (span, false) => Ok(span),
            (_, true) => Err(Bail),
        }
    }

    /// `null` (consumed) or not.
    #[inline]
    fn null(&mut self) -> R<bool> {
        self.ws();
        if self.peek() != Some(b'n') {
            return Ok(false);
        }
        self.literal(b"null")?;
        Ok(true)
    }

    #[inline]
    fn literal(&mut self, word: &[u8]) -> R<()> {
        match self.b.get(self.i..self.i + word.len()) {
            Some(w) if w == word => {
                self.i += word.len();
                Ok(())
            }
            _ => Err(Bail),
        }
    }

    /// `Option<Cow<str>>`: `null` or a string (without escapes, or bail).
    fn opt_str(&mut self) -> R<Option<Span>> {
        if self.null()? {
            return Ok(None);
        }
        self.plain().map(Some)
    }

    /// `Option<bool>`.
    fn opt_bool(&mut self) -> R<Option<bool>> {
        self.ws();
        match self.peek() {
            Some(b'n') => self.literal(b"null").map(|()| None),
            Some(b't') => self.literal(b"true").map(|()| Some(true)),
            Some(b'f') => self.literal(b"false").map(|()| Some(false)),
            _ => Err(Bail),
        }
    }

    /// `Option<&RawValue>`: `null`, or the value's text as written.
    fn opt_raw(&mut self) -> R<Option<Span>> {
        if self.null()? {
            return Ok(None);
        }
        let start = self.i;
        self.skip()?;
        Ok(Some(self.span(start, self.i)))
    }

    /// `Option<&RawValue>` whose contents are wanted when it is a string ([`Arg`]).
    fn opt_arg(&mut self) -> R<Option<Arg>> {
        if self.null()? {
            return Ok(None);
        }
        let start = self.i;
        if self.peek() != Some(b'"') {
            self.skip()?;
            return Ok(Some(Arg {
                raw: self.span(start, self.i),
                text: None,
            }));
        }
        let text = self.string_contents()?;
        Ok(Some(Arg {
            raw: self.span(start, self.i),
            text: Some(text),
        }))
    }

    /// Any value, checked as the serde reader's `IgnoredAny` checks it.
    fn skip(&mut self) -> R<()> {
        self.ws();
        match self.peek() {
            Some(b'"') => self.string().map(|_| ()),
            Some(b'{') => self.object(|c, _, _, _| c.skip()),
            Some(b'[') => self.array(|c| c.skip()),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(Bail),
        }
    }

    /// A number, as JSON (and the serde reader) spell one.
    fn number(&mut self) -> R<()> {
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.i += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(Bail);
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(Bail),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            self.some_digits()?;
        }
        Ok(())
    }

    #[inline]
    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
    }

    fn some_digits(&mut self) -> R<()> {
        let start = self.i;
        self.digits();
        if self.i == start { Err(Bail) } else { Ok(()) }
    }

    /// An object: `member` reads each value, given its key's contents (as written: the span's
    /// bytes) and whether the key has an escape.
    #[inline]
    fn object(
        &mut self,
        mut member: impl FnMut(&mut Self, &'a [u8], Span, bool) -> R<()>,
    ) -> R<()> {
        self.ws();
        if self.peek() != Some(b'{') {
            return Err(Bail);
        }
        self.enter()?;
        self.i += 1;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(());
        }
        let b = self.b;
        loop {
            self.ws();
            let (span, escaped) = self.string()?;
            let key = b
                .get(span.start as usize..span.end1.get() as usize - 1)
                .ok_or(Bail)?;
            self.ws();
            if self.peek() != Some(b':') {
                return Err(Bail);
            }
            self.i += 1;
            member(self, key, span, escaped)?;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(Bail),
            }
        }
    }

    /// An object whose keys `known` recognizes where they stand (a field's key as a quoted
    /// literal, one compare each): `member` reads each value, given its key's field as a bit of
    /// [`field`] (`None`: a key of no field, without escapes; one with an escape bails, it may
    /// spell a field).
    #[inline]
    fn fields(
        &mut self,
        known: impl Fn(&[u8]) -> Option<(u32, usize)>,
        mut member: impl FnMut(&mut Self, Option<u32>) -> R<()>,
    ) -> R<()> {
        self.ws();
        if self.peek() != Some(b'{') {
            return Err(Bail);
        }
        self.enter()?;
        self.i += 1;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(Bail);
            }
            let field = match self.b.get(self.i + 1..).and_then(&known) {
                Some((f, len)) => {
                    self.i += len + 2;
                    Some(f)
                }
                None => {
                    if self.string()?.1 {
                        return Err(Bail);
                    }
                    None
                }
            };
            self.ws();
            if self.peek() != Some(b':') {
                return Err(Bail);
            }
            self.i += 1;
            member(self, field)?;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(Bail),
            }
        }
    }

    /// An array: `element` reads each element.
    #[inline]
    fn array(&mut self, mut element: impl FnMut(&mut Self) -> R<()>) -> R<()> {
        self.ws();
        if self.peek() != Some(b'[') {
            return Err(Bail);
        }
        self.enter()?;
        self.i += 1;
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            element(self)?;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(Bail),
            }
        }
    }

    #[inline]
    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Bail);
        }
        Ok(())
    }

    /// Whether the next value is an array (after whitespace).
    #[inline]
    fn at_array(&mut self) -> bool {
        self.ws();
        self.peek() == Some(b'[')
    }

    /// A `Node` (an object; an array is the serde reader's, which reads a struct from one),
    /// into `n` (a default one).
    fn node(&mut self, mode: Mode, n: &mut Info) -> R<()> {
        let mut seen = 0u32;
        self.fields(node_field, |c, field| {
            let Some(bit) = field else {
                return c.skip();
            };
            once(&mut seen, bit)?;
            match text_slot(n, bit) {
                Some(slot) => {
                    *slot = c.opt_str()?;
                    Ok(())
                }
                None => c.node_member(mode, n, bit),
            }
        })?;
        if mode == Mode::Message {
            message_events(
                n,
                &self.s.calls,
                &self.s.blocks,
                self.line,
                &mut self.s.events,
            );
        }
        Ok(())
    }

    /// A member of a `Node` other than its plain strings ([`text_slot`]): nested nodes and
    /// lists, raw values, flags.
    fn node_member(&mut self, mode: Mode, n: &mut Info, bit: u32) -> R<()> {
        match bit {
            field::MESSAGES => {
                n.messages = self.nodes(mode.elements())?;
            }
            field::INPUT => {
                if mode.items() && self.at_array() {
                    let start = self.i;
                    n.input_items = self.nodes(Mode::Message)?;
                    n.input = Some(Arg {
                        raw: self.span(start, self.i),
                        text: None,
                    });
                } else if mode == Mode::Check {
                    n.input = self.opt_raw()?.map(|raw| Arg { raw, text: None });
                } else {
                    n.input = self.opt_arg()?;
                }
            }
            field::OUTPUT => {
                if mode.items() && self.at_array() {
                    let start = self.i;
                    n.output_items = self.nodes(Mode::Message)?;
                    n.output = Some(self.span(start, self.i));
                } else {
                    n.output = self.opt_raw()?;
                }
            }
            field::BODY => {
                n.body = self.nested(mode.nested(true))?;
            }
            field::PARAMS => {
                n.params = self.nested(mode.nested(true))?;
            }
            field::PAYLOAD => {
                n.payload = self.nested(mode.nested(false))?;
            }
            field::MESSAGE => {
                n.message = self.nested(mode.nested(false))?;
            }
            field::CONTENT => {
                if mode != Mode::Check && self.at_array() {
                    let start = self.i;
                    n.blocks = Some(self.blocks()?);
                    n.content = Some(self.span(start, self.i));
                } else {
                    n.content = self.opt_raw()?;
                }
            }
            field::TOOL_CALLS => {
                n.tool_calls = self.tool_calls(mode != Mode::Check)?;
            }
            field::ARGUMENTS => {
                n.arguments = if mode == Mode::Check {
                    self.opt_raw()?.map(|raw| Arg { raw, text: None })
                } else {
                    self.opt_arg()?
                };
            }
            field::TOOL_RESULT => {
                n.tool_result = self.opt_raw()?;
            }
            field::IS_ERROR => {
                n.is_error = self.opt_bool()?;
            }
            field::IS_ERROR_CAMEL => {
                n.is_error_camel = self.opt_bool()?;
            }
            _ => return Err(Bail),
        }
        Ok(())
    }

    /// `Option<Box<Node>>`: kept in [`Lines::nodes`] when events may be read from it.
    fn nested(&mut self, mode: Mode) -> R<Option<u32>> {
        if self.null()? {
            return Ok(None);
        }
        let mut n = Info::default();
        self.node(mode, &mut n)?;
        if !mode.kept() {
            return Ok(None);
        }
        let ix = u32::try_from(self.s.nodes.len()).map_err(|_| Bail)?;
        self.s.nodes.push(n);
        Ok(Some(ix))
    }

    /// `Option<Vec<Node>>`: the range of the events its elements gave.
    fn nodes(&mut self, mode: Mode) -> R<Option<Range32>> {
        if self.null()? {
            return Ok(None);
        }
        let start = self.s.events.len();
        self.array(|c| c.node(mode, &mut Info::default()))?;
        Ok(Some(Range32::new(start, self.s.events.len())))
    }

    /// `Option<Vec<ToolCall>>`, kept in [`Lines::calls`] when `keep`.
    fn tool_calls(&mut self, keep: bool) -> R<Option<Range32>> {
        if self.null()? {
            return Ok(None);
        }
        let start = self.s.calls.len();
        self.array(|c| {
            let mut e = CallEntry::default();
            let mut seen = 0u32;
            c.fields(tool_call_field, |c, field| {
                let Some(bit) = field else {
                    return c.skip();
                };
                once(&mut seen, bit)?;
                match bit {
                    field::ID => {
                        e.id = c.opt_str()?;
                    }
                    field::FUNCTION => {
                        e.function = c.function(keep)?;
                    }
                    field::NAME => {
                        e.name = c.opt_str()?;
                    }
                    field::ARGUMENTS => {
                        e.arguments = c.arguments(keep)?;
                    }
                    _ => return Err(Bail),
                }
                Ok(())
            })?;
            if keep {
                c.s.calls.push(e);
            }
            Ok(())
        })?;
        Ok(Some(Range32::new(start, self.s.calls.len())))
    }

    /// A tool call's `arguments`: its contents read only where the call is kept.
    fn arguments(&mut self, keep: bool) -> R<Option<Arg>> {
        if keep {
            self.opt_arg()
        } else {
            Ok(self.opt_raw()?.map(|raw| Arg { raw, text: None }))
        }
    }

    /// `Option<Function>`.
    fn function(&mut self, keep: bool) -> R<Option<FunctionEntry>> {
        if self.null()? {
            return Ok(None);
        }
        let mut f = FunctionEntry::default();
        let mut seen = 0u32;
        self.fields(function_field, |c, field| {
            let Some(bit) = field else {
                return c.skip();
            };
            once(&mut seen, bit)?;
            match bit {
                field::NAME => {
                    f.name = c.opt_str()?;
                }
                field::ARGUMENTS => {
                    f.arguments = c.arguments(keep)?;
                }
                _ => return Err(Bail),
            }
            Ok(())
        })?;
        Ok(Some(f))
    }

    /// A `content` list as `Vec<ContentBlock>`, into [`Lines::blocks`]. A list the serde
    /// reader would not read as blocks (it then reads none) is the serde reader's.
    fn blocks(&mut self) -> R<Range32> {
        let start = self.s.blocks.len();
        self.array(|c| {
            let mut b = Block::default();
            let mut seen = 0u32;
            c.fields(block_field, |c, field| {
                let Some(bit) = field else {
                    return c.skip();
                };
                once(&mut seen, bit)?;
                match bit {
                    field::KIND => {
                        b.kind = c.opt_str()?;
                    }
                    field::ID => {
                        b.id = c.opt_str()?;
                    }
                    field::NAME => {
                        b.name = c.opt_str()?;
                    }
                    field::INPUT => {
                        b.input = c.opt_raw()?;
                    }
                    field::TOOL_USE_ID => {
                        b.tool_use_id = c.opt_str()?;
                    }
                    field::CONTENT => {
                        b.content = c.opt_raw()?;
                    }
                    field::IS_ERROR => {
                        b.is_error = c.opt_bool()?;
                    }
                    field::IS_ERROR_CAMEL => {
                        b.is_error_camel = c.opt_bool()?;
                    }
                    _ => return Err(Bail),
                }
                Ok(())
            })?;
            c.s.blocks.push(b);
            Ok(())
        })?;
        Ok(Range32::new(start, self.s.blocks.len()))
    }
}
