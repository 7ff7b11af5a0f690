//! The call-parsing kernel: the one place a refusal is worded. Beneath the compiler (whose plan
//! interpreter calls it), the generated parsers (build.rs and `surface!` output, which reach it
//! as `::toolsurface::__private::*`) and the facade: a light borrowed JSON value the walks
//! read, the model-facing [`CallError`] and one function per refusal text (the catalogue the
//! TypeScript and Python kernels port, held equal by the conformance corpus), and the few
//! helpers every generated walk shares.

use std::borrow::Cow;
use std::fmt;

mod implements;
mod json;
pub mod plan;
pub mod publish;
mod scan;
pub mod vocab;
pub mod walk;

pub use implements::FromNonNegative;
pub use json::{json_equal, to_json, to_value};
pub use scan::{Cursor, plain_run, scan};

use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// A JSON value as the generated walks see it: strings borrowed from the input where possible,
/// objects as ordered key/value vectors (duplicates kept, so they can be refused).
#[derive(Clone, Debug, PartialEq)]
pub enum Val<'a> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(Cow<'a, str>),
    Arr(Vec<Val<'a>>),
    Obj(Pairs<'a>),
}

/// A JSON object's members, in input order.
pub type Pairs<'a> = Vec<(Cow<'a, str>, Val<'a>)>;

/// A call's arguments object as `Call::parse` hands it to a tool's `parse`: the JSON text not
/// yet read (the tool's generated decoder reads it in one pass; the walk reads the members when
/// the decoder is not sure), or the members already (a `serde_json::Value`, a freeform input,
/// an alias's edits), or the refusal reading the text ran into.
#[derive(Clone, Debug)]
pub struct Obj<'a>(ObjRepr<'a>);

#[derive(Clone, Debug)]
enum ObjRepr<'a> {
    /// `tool` is the name the call used, for the error texts.
    Text {
        text: &'a str,
        tool: &'a str,
    },
    Pairs(Pairs<'a>),
    Refused(CallError),
}

impl<'a> Obj<'a> {
    /// The arguments text, when it has not been read yet.
    #[inline]
    pub fn text(&self) -> Option<&'a str> {
        match self.0 {
            ObjRepr::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The members, reading the text if need be (the refusal when it is not a JSON object).
    pub fn into_pairs(self) -> Result<Pairs<'a>, CallError> {
        match self.0 {
            ObjRepr::Text { text, tool } => pairs_of_text(text, tool),
            ObjRepr::Pairs(p) => Ok(p),
            ObjRepr::Refused(e) => Err(e),
        }
    }

    /// The members to edit (`None` once the text was refused; the refusal is kept).
    fn pairs_mut(&mut self) -> Option<&mut Pairs<'a>> {
        if let ObjRepr::Text { text, tool } = self.0 {
            self.0 = match pairs_of_text(text, tool) {
                Ok(p) => ObjRepr::Pairs(p),
                Err(e) => ObjRepr::Refused(e),
            };
        }
        match &mut self.0 {
            ObjRepr::Pairs(p) => Some(p),
            _ => None,
        }
    }
}

impl<'a> From<Pairs<'a>> for Obj<'a> {
    fn from(p: Pairs<'a>) -> Self {
        Obj(ObjRepr::Pairs(p))
    }
}

/// The members of an arguments text: the scanner, else serde_json (which then words the
/// error).
fn pairs_of_text<'a>(s: &'a str, tool: &str) -> Result<Pairs<'a>, CallError> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    let val = match scan(s) {
        Some(v) => v,
        None => {
            let mut de = serde_json::Deserializer::from_str(s);
            let v = Val::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
            match v {
                Ok(v) => v,
                Err(e) => {
                    return Err(CallError::new(
                        CallErrorKind::InvalidJson,
                        format!("{tool}: arguments are not valid JSON ({e})"),
                    ));
                }
            }
        }
    };
    match val {
        Val::Obj(o) => Ok(o),
        Val::Null => Ok(Vec::new()),
        other => Err(not_an_object(tool, &other)),
    }
}

impl Val<'_> {
    pub fn is_null(&self) -> bool {
        matches!(self, Val::Null)
    }
}

impl<'a> From<&'a serde_json::Value> for Val<'a> {
    fn from(v: &'a serde_json::Value) -> Self {
        use serde_json::Value;
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Val::Int(i)
                } else if let Some(u) = n.as_u64() {
                    Val::UInt(u)
                } else {
                    Val::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => Val::Str(Cow::Borrowed(s)),
            Value::Array(a) => Val::Arr(a.iter().map(Val::from).collect()),
            Value::Object(o) => Val::Obj(
                o.iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Val::from(v)))
                    .collect(),
            ),
        }
    }
}

impl<'de> Deserialize<'de> for Val<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValVisitor)
    }
}

struct ValVisitor;

impl<'de> Visitor<'de> for ValVisitor {
    type Value = Val<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Val<'de>, E> {
        Ok(Val::Null)
    }
    fn visit_none<E>(self) -> Result<Val<'de>, E> {
        Ok(Val::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Val<'de>, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Val<'de>, E> {
        Ok(Val::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Val<'de>, E> {
        Ok(Val::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Val<'de>, E> {
        Ok(i64::try_from(v).map_or(Val::UInt(v), Val::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Val<'de>, E> {
        Ok(Val::Float(v))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Val<'de>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Val::Arr(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Val<'de>, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(8).min(64));
        while let Some(k) = map.next_key_seed(KeySeed)? {
            let v = map.next_value()?;
            out.push((k, v));
        }
        Ok(Val::Obj(out))
    }
}

/// Object keys, borrowed when the input has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// A tool call's arguments as a provider hands them over: the JSON text (what OpenAI and most
/// wire formats send; for a freeform tool, the raw input), or an already parsed value.
#[derive(Clone, Debug)]
pub enum Arguments<'a> {
    Json(Cow<'a, str>),
    Value(Cow<'a, serde_json::Value>),
}

impl<'a> From<&'a str> for Arguments<'a> {
    #[inline]
    fn from(s: &'a str) -> Self {
        Arguments::Json(Cow::Borrowed(s))
    }
}
impl<'a> From<&'a String> for Arguments<'a> {
    #[inline]
    fn from(s: &'a String) -> Self {
        Arguments::Json(Cow::Borrowed(s))
    }
}
impl From<String> for Arguments<'static> {
    fn from(s: String) -> Self {
        Arguments::Json(Cow::Owned(s))
    }
}
impl<'a> From<&'a serde_json::Value> for Arguments<'a> {
    fn from(v: &'a serde_json::Value) -> Self {
        Arguments::Value(Cow::Borrowed(v))
    }
}
impl From<serde_json::Value> for Arguments<'static> {
    fn from(v: serde_json::Value) -> Self {
        Arguments::Value(Cow::Owned(v))
    }
}

impl Arguments<'_> {
    /// The raw text a freeform tool's input is taken from (a JSON text as is, or a JSON string
    /// value).
    #[inline]
    pub fn raw_text(&self) -> Option<&str> {
        match self {
            Arguments::Json(s) => Some(s),
            Arguments::Value(v) => v.as_str(),
        }
    }

    /// The arguments as an object. An empty text and `null` are the empty object (providers
    /// send both for tools without parameters). A JSON text is read later, by the tool's
    /// `parse`; its refusal (not JSON, not an object) comes from there, naming `tool`.
    #[inline]
    pub fn object<'s>(&'s self, tool: &'s str) -> Result<Obj<'s>, CallError> {
        match self {
            Arguments::Json(s) => Ok(Obj(ObjRepr::Text { text: s, tool })),
            Arguments::Value(v) => match Val::from(&**v) {
                Val::Obj(o) => Ok(Obj(ObjRepr::Pairs(o))),
                Val::Null => Ok(Obj(ObjRepr::Pairs(Vec::new()))),
                other => Err(not_an_object(tool, &other)),
            },
        }
    }
}

#[cold]
fn not_an_object(tool: &str, v: &Val) -> CallError {
    CallError::new(
        CallErrorKind::NotAnObject,
        format!(
            "{tool}: arguments must be a JSON object, got {}",
            describe(v)
        ),
    )
}

/// What kind of mistake a refused call made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallErrorKind {
    /// No tool, alias or retired name of that name.
    UnknownTool,
    /// A retired name; the message says what to do instead.
    Retired,
    /// A real tool, but not offered in this role × family (or its skill is not active).
    NotOffered,
    /// The arguments text is not JSON.
    InvalidJson,
    /// The arguments are JSON but not an object.
    NotAnObject,
    /// No selector (`action`, `mode`, …).
    MissingSelector,
    /// A selector value that names no action.
    UnknownAction,
    /// A field the tool or action does not take.
    UnexpectedField,
    /// A field given twice.
    DuplicateField,
    /// A required field is absent.
    MissingField,
    /// A field of the wrong type or out of bounds.
    InvalidValue,
    /// An `exactly_one_of` or `forbidden_with` constraint failed.
    Constraint,
}

/// A refused tool call. `message` is meant for the model, e.g.
/// `action=kill: unexpected field timeout_s (it belongs to wait)`; Display prints it alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallError {
    pub kind: CallErrorKind,
    pub message: String,
}

impl CallError {
    pub fn new(kind: CallErrorKind, message: impl Into<String>) -> Self {
        CallError {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CallError {}

/// A short rendering of a value for `got …`.
pub fn describe(v: &Val) -> String {
    match v {
        Val::Null => "null".to_owned(),
        Val::Bool(b) => b.to_string(),
        Val::Int(n) => n.to_string(),
        Val::UInt(n) => n.to_string(),
        Val::Float(n) => {
            serde_json::Number::from_f64(*n).map_or_else(|| n.to_string(), |n| n.to_string())
        }
        Val::Str(s) => {
            serde_json::Value::String(toolsurface_text::cut(s, 60).into_owned()).to_string()
        }
        Val::Arr(a) => format!(
            "an array of {} item{}",
            a.len(),
            if a.len() == 1 { "" } else { "s" }
        ),
        Val::Obj(_) => "an object".to_owned(),
    }
}

/// `<ctx>, got <value>`; `ctx` is `action=wait: timeout_s: expected a number from 0 to 300`.
#[cold]
pub fn invalid(ctx: &str, v: &Val) -> CallError {
    CallError::new(
        CallErrorKind::InvalidValue,
        format!("{ctx}, got {}", describe(v)),
    )
}

#[cold]
pub fn missing(prefix: &str, field: &str) -> CallError {
    CallError::new(
        CallErrorKind::MissingField,
        format!("{prefix}missing field {field}"),
    )
}

#[cold]
pub fn duplicate(prefix: &str, field: &str) -> CallError {
    CallError::new(
        CallErrorKind::DuplicateField,
        format!("{prefix}duplicate field {field}"),
    )
}

#[cold]
pub fn constraint(prefix: &str, message: &str) -> CallError {
    CallError::new(CallErrorKind::Constraint, format!("{prefix}{message}"))
}

/// `exactly_one_of` failed: `count` of `group` were given.
#[cold]
pub fn exactly_one(prefix: &str, group: &[&str], given: &[&str]) -> CallError {
    let got = if given.is_empty() {
        "none".to_owned()
    } else {
        given.join(" and ")
    };
    constraint(
        prefix,
        &format!("expected exactly one of {}; got {got}", group.join(", ")),
    )
}

/// An unexpected key: `it belongs to …` when another action takes it, else a did-you-mean
/// among the accepted fields, else the accepted list.
#[cold]
pub fn unexpected_field(
    prefix: &str,
    key: &str,
    accepted: &[&str],
    belongs: &[(&str, &str)],
) -> CallError {
    let hint = if let Some((_, to)) = belongs.iter().find(|(f, _)| *f == key) {
        format!(" (it belongs to {to})")
    } else if let Some(near) = did_you_mean(key, accepted.iter().copied()) {
        format!(" (did you mean {near}?)")
    } else if accepted.is_empty() {
        " (it takes no fields)".to_owned()
    } else {
        format!(" (expected one of {})", accepted.join(", "))
    };
    CallError::new(
        CallErrorKind::UnexpectedField,
        format!("{prefix}unexpected field {key}{hint}"),
    )
}

#[cold]
pub fn missing_selector(message: &str) -> CallError {
    CallError::new(CallErrorKind::MissingSelector, message)
}

/// `action=bogus: unknown action; expected one of poll, wait, …`.
#[cold]
pub fn unknown_action(selector: &str, value: &str, expected: &str) -> CallError {
    CallError::new(
        CallErrorKind::UnknownAction,
        format!("{selector}={value}: unknown {selector}; expected one of {expected}"),
    )
}

#[cold]
pub fn unknown_tool<'a>(name: &str, offered: impl IntoIterator<Item = &'a str>) -> CallError {
    let hint = did_you_mean(name, offered)
        .map(|n| format!(" (did you mean {n}?)"))
        .unwrap_or_default();
    CallError::new(
        CallErrorKind::UnknownTool,
        format!("unknown tool {name}{hint}"),
    )
}

#[cold]
pub fn retired(name: &str, message: &str) -> CallError {
    CallError::new(
        CallErrorKind::Retired,
        format!("{name} was retired: {message}"),
    )
}

/// Why a tool the scope does not offer is still known to it: it belongs to a skill the
/// role offers and the conversation has not activated. The names come from the generated
/// `Skill` and `Tool` (or the plan, for `plan::interp`), never from a literal here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkillGate<'a> {
    pub skill: &'a str,
    /// The tool that activates skills, when the role × family publishes it.
    pub activation_tool: Option<&'a str>,
}

#[cold]
pub fn not_offered(name: &str, role: &str, family: &str, gate: Option<SkillGate<'_>>) -> CallError {
    let message = match gate {
        Some(SkillGate {
            skill,
            activation_tool: Some(activate),
        }) => format!(
            "{name} belongs to skill {skill}, which is not active in this conversation; call \
             {activate} with name {skill} first, then call {name} again"
        ),
        Some(SkillGate {
            skill,
            activation_tool: None,
        }) => format!(
            "{name} belongs to skill {skill}, and role {role} on family {family} has no tool \
             that activates skills"
        ),
        None => format!("tool {name} is not offered to role {role} on family {family}"),
    };
    CallError::new(CallErrorKind::NotOffered, message)
}

pub use toolsurface_text::did_you_mean;

/// The value as an integer (integral floats included).
#[inline]
pub fn as_int(v: &Val) -> Option<i64> {
    match *v {
        Val::Int(n) => Some(n),
        Val::Float(f)
            if f.fract() == 0.0
                && (-9.007_199_254_740_992e15..=9.007_199_254_740_992e15).contains(&f) =>
        {
            Some(f as i64)
        }
        _ => None,
    }
}

#[inline]
pub fn as_num(v: &Val) -> Option<f64> {
    match *v {
        Val::Int(n) => Some(n as f64),
        Val::UInt(n) => Some(n as f64),
        Val::Float(f) => Some(f),
        _ => None,
    }
}

#[inline]
pub fn as_bool(v: &Val) -> Option<bool> {
    match *v {
        Val::Bool(b) => Some(b),
        _ => None,
    }
}

#[inline]
pub fn as_str<'v>(v: &'v Val) -> Option<&'v str> {
    match v {
        Val::Str(s) => Some(s),
        _ => None,
    }
}

/// Length in characters within `[min, max]`. A character takes one to four bytes, so the
/// byte length alone often settles it.
#[inline]
pub fn chars_within(s: &str, min: u64, max: u64) -> bool {
    let bytes = s.len() as u64;
    if bytes <= max && bytes.div_ceil(4) >= min {
        return true;
    }
    let n = s.chars().count() as u64;
    n >= min && n <= max
}

/// A decoded string value, owned. Most argument strings are short, and for a few bytes the
/// `memcpy` call of `String::from` costs more than the allocation (benches/parse.rs, perf):
/// up to 16 bytes are copied with fixed-size moves into a 16-byte allocation instead.
#[inline]
pub fn owned(s: &str) -> String {
    let b = s.as_bytes();
    let n = b.len();
    if n == 0 || n > 16 {
        return String::from(s);
    }
    let mut buf = [0u8; 16];
    // Two overlapping fixed-size copies cover any length in their range.
    if n >= 8 {
        buf[..8].copy_from_slice(&b[..8]);
        buf[n - 8..n].copy_from_slice(&b[n - 8..]);
    } else if n >= 4 {
        buf[..4].copy_from_slice(&b[..4]);
        buf[n - 4..n].copy_from_slice(&b[n - 4..]);
    } else {
        buf[0] = b[0];
        buf[n / 2] = b[n / 2];
        buf[n - 1] = b[n - 1];
    }
    let mut v = buf.to_vec();
    v.truncate(n);
    // SAFETY: `v` holds exactly the bytes of `s` (its first `n` bytes were copied from `s`,
    // which is `n` bytes long), so it is valid UTF-8.
    unsafe { String::from_utf8_unchecked(v) }
}

/// Matches a pattern compiled once (`None` if the pattern did not compile: refuse).
#[inline]
pub fn matches(re: &Option<regex::Regex>, s: &str) -> bool {
    re.as_ref().is_some_and(|re| re.is_match(s))
}

/// Take a string value out (the caller checked it is one).
#[inline]
pub fn into_string(v: Val) -> String {
    match v {
        Val::Str(s) => s.into_owned(),
        _ => String::new(),
    }
}

/// Rename `from` to `to` (an alias's `rename`).
pub fn rename_key<'a>(obj: &mut Obj<'a>, from: &str, to: &'a str) {
    let Some(obj) = obj.pairs_mut() else {
        return;
    };
    for (k, _) in obj.iter_mut() {
        if k == from {
            *k = Cow::Borrowed(to);
        }
    }
}

/// Set `key` to `value`, replacing what the call gave (an alias's fixed arguments).
pub fn set_key<'a>(obj: &mut Obj<'a>, key: &'a str, value: Val<'a>) {
    let Some(obj) = obj.pairs_mut() else {
        return;
    };
    obj.retain(|(k, _)| k != key);
    obj.push((Cow::Borrowed(key), value));
}

/// Freeform input as the object holding its one field.
pub fn freeform<'a>(field: &'a str, raw: &'a str) -> Obj<'a> {
    Obj(ObjRepr::Pairs(vec![(
        Cow::Borrowed(field),
        Val::Str(Cow::Borrowed(raw)),
    )]))
}

/// sha256 of published bytes, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// A role, family or skill name that the surface does not define (`FromStr` of the generated
/// name enums).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    pub what: &'static str,
    pub name: String,
    pub expected: &'static str,
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} {} (expected one of {})",
            self.what, self.name, self.expected
        )
    }
}

impl std::error::Error for UnknownName {}

#[cfg(test)]
mod tests {
    use super::owned;

    #[test]
    fn owned_copies_every_length_exactly() {
        let text = "aé€😀bcdefghijklmnopqrstuvwxyz0123456789";
        for (start, _) in text.char_indices() {
            for end in (start..=text.len()).filter(|e| text.is_char_boundary(*e)) {
                let s = &text[start..end];
                assert_eq!(owned(s), s, "{start}..{end}");
                assert_eq!(owned(s).len(), s.len());
            }
        }
    }
}
