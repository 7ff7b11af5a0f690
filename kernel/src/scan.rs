//! A fast path for reading tool-call arguments: a small JSON scanner for the common case
//! (strings without escapes, plain numbers), producing the same [`Val`] serde_json would.
//! Anything it is not sure about (an escape, a control character, a big or out-of-range
//! number, deep nesting, invalid JSON) makes it give up, and the caller parses with serde_json,
//! which then defines both the value and the error text.
//!
//! [`Cursor`] is the same scanner driven step by step: a tool's generated decoder reads the
//! arguments object with it straight into typed fields, and gives up (`None`) just as readily.

use std::borrow::Cow;

use super::{Val, as_int, as_num};

/// serde_json's default recursion limit.
const MAX_DEPTH: usize = 128;

/// The value of `text`, or `None` when the caller must fall back to serde_json.
pub fn scan(text: &str) -> Option<Val<'_>> {
    let mut s = Cursor::new(text);
    s.ws();
    let v = s.value(0)?;
    s.ws();
    (s.at == s.bytes.len()).then_some(v)
}

/// A position in a JSON text, read forward. Every reading method returns `None` (or `false`)
/// where [`scan`] would give up, and then the position is unspecified: the caller gives up too.
pub struct Cursor<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

/// The generated decoders' steps. Values are read at the position (no leading whitespace);
/// `open`, `key`, `next_member`, `arr_open` and `next_item` skip the whitespace after what
/// they read.
impl<'a> Cursor<'a> {
    #[inline]
    pub fn new(text: &'a str) -> Self {
        Cursor {
            text,
            bytes: text.as_bytes(),
            at: 0,
        }
    }

    /// The top-level object's `{`: `true` if members follow, `false` for `{}`.
    #[inline]
    pub fn open(&mut self) -> Option<bool> {
        self.ws();
        self.eat(b'{')?;
        self.ws();
        Some(self.eat(b'}').is_none())
    }

    /// A member's key and its `:`.
    #[inline]
    pub fn key(&mut self) -> Option<&'a str> {
        let k = self.string()?;
        self.ws();
        self.eat(b':')?;
        self.ws();
        Some(k)
    }

    /// The byte after the one at the position: a string's first byte (or its closing quote)
    /// when a string starts there. The decoders switch on it before [`Cursor::literal`].
    #[inline]
    pub fn after_quote(&self) -> Option<u8> {
        self.bytes.get(self.at + 1).copied()
    }

    /// Reads `quoted` (a JSON string with its quotes, no escapes) if the text continues with
    /// exactly those bytes. For a literal of known length the comparison is a few wide loads:
    /// a decoder matches keys and enum values with it instead of scanning for the string's end.
    #[inline]
    pub fn literal(&mut self, quoted: &[u8]) -> bool {
        let end = self.at + quoted.len();
        let is_there = self.bytes.get(self.at..end) == Some(quoted);
        if is_there {
            self.at = end;
        }
        is_there
    }

    /// A member's `:` after its key (read with [`Cursor::literal`]).
    #[inline]
    pub fn colon(&mut self) -> Option<()> {
        self.ws();
        self.eat(b':')?;
        self.ws();
        Some(())
    }

    /// After a member: `,` (`true`, a member follows) or `}` (`false`).
    #[inline]
    pub fn next_member(&mut self) -> Option<bool> {
        self.ws();
        match self.peek()? {
            b',' => {
                self.at += 1;
                self.ws();
                Some(true)
            }
            b'}' => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// After the top-level object: nothing but whitespace.
    #[inline]
    pub fn end(&mut self) -> Option<()> {
        self.ws();
        (self.at == self.bytes.len()).then_some(())
    }

    /// An array's `[`: `true` if items follow, `false` for `[]`.
    #[inline]
    pub fn arr_open(&mut self) -> Option<bool> {
        self.eat(b'[')?;
        self.ws();
        Some(self.eat(b']').is_none())
    }

    /// After an item: `,` (`true`, an item follows) or `]` (`false`).
    #[inline]
    pub fn next_item(&mut self) -> Option<bool> {
        self.ws();
        match self.peek()? {
            b',' => {
                self.at += 1;
                self.ws();
                Some(true)
            }
            b']' => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// Reads a `null` if one is there.
    #[inline]
    pub fn null(&mut self) -> bool {
        let is_null = self.bytes.get(self.at..self.at.saturating_add(4)) == Some(b"null");
        if is_null {
            self.at += 4;
        }
        is_null
    }

    /// A string value (no escapes), borrowed.
    #[inline]
    pub fn str(&mut self) -> Option<&'a str> {
        self.string()
    }

    /// `true` or `false`.
    #[inline]
    pub fn bool(&mut self) -> Option<bool> {
        let (word, b): (&[u8], bool) = match self.peek()? {
            b't' => (b"true", true),
            b'f' => (b"false", false),
            _ => return None,
        };
        let end = self.at.checked_add(word.len())?;
        (self.bytes.get(self.at..end)? == word).then(|| {
            self.at = end;
            b
        })
    }

    /// A number as the walk takes an integer ([`as_int`] of what [`scan`] reads).
    #[inline]
    pub fn int(&mut self) -> Option<i64> {
        match self.plain_int() {
            Some(n) => Some(n),
            None => self.other_int(),
        }
    }

    /// A number as the walk takes a number ([`as_num`] of what [`scan`] reads).
    #[inline]
    pub fn num(&mut self) -> Option<f64> {
        match self.plain_int() {
            Some(n) => Some(n as f64),
            None => self.other_num(),
        }
    }

    #[inline(never)]
    fn other_int(&mut self) -> Option<i64> {
        as_int(&self.number()?)
    }

    #[inline(never)]
    fn other_num(&mut self) -> Option<f64> {
        as_num(&self.number()?)
    }

    /// The common number: an integer of 1 to 18 digits, no leading zero, no fraction or
    /// exponent, not `-0` (what [`scan`] reads as `Val::Int`). Anything else is left unread.
    #[inline]
    fn plain_int(&mut self) -> Option<i64> {
        let negative = self.peek() == Some(b'-');
        let start = self.at + usize::from(negative);
        let mut at = start;
        let mut n: i64 = 0;
        while let Some(&d) = self.bytes.get(at) {
            if !d.is_ascii_digit() {
                break;
            }
            n = n.wrapping_mul(10).wrapping_add(i64::from(d - b'0'));
            at += 1;
        }
        let len = at - start;
        let leading_zero = len > 1 && self.bytes.get(start) == Some(&b'0');
        let more = matches!(self.bytes.get(at), Some(b'.' | b'e' | b'E'));
        if len == 0 || len > 18 || leading_zero || more || (negative && n == 0) {
            return None;
        }
        self.at = at;
        Some(if negative { -n } else { n })
    }

    /// Any value, as [`scan`] reads it, `depth` containers deep (1 for a member of the
    /// top-level object).
    pub fn value_at(&mut self, depth: usize) -> Option<Val<'a>> {
        self.value(depth)
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.at += 1;
        }
    }

    #[inline]
    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.at += 1)
    }

    fn value(&mut self, depth: usize) -> Option<Val<'a>> {
        match self.peek()? {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(|s| Val::Str(Cow::Borrowed(s))),
            b't' => self.word(b"true", Val::Bool(true)),
            b'f' => self.word(b"false", Val::Bool(false)),
            b'n' => self.word(b"null", Val::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn word(&mut self, w: &[u8], v: Val<'a>) -> Option<Val<'a>> {
        let end = self.at.checked_add(w.len())?;
        (self.bytes.get(self.at..end)? == w).then(|| {
            self.at = end;
            v
        })
    }

    /// A string without escapes or control characters (the quote is at `at`).
    #[inline]
    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.at;
        let len = plain_len(self.bytes.get(start..)?)?;
        self.at = start + len + 1;
        self.text.get(start..start + len)
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        self.at - start
    }

    #[inline]
    fn number(&mut self) -> Option<Val<'a>> {
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let digits_start = self.at;
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        let int_len = self.at - digits_start;
        let mut float = false;
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        let text = self.text.get(start..self.at)?;
        if float {
            let f: f64 = text.parse().ok()?;
            f.is_finite().then_some(Val::Float(f))
        } else if int_len <= 18 {
            let digits = self.bytes.get(digits_start..self.at)?;
            let magnitude = digits
                .iter()
                .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
            match if negative { -magnitude } else { magnitude } {
                // serde_json reads `-0` as the float -0.0.
                0 if negative => Some(Val::Float(-0.0)),
                n => Some(Val::Int(n)),
            }
        } else {
            None
        }
    }

    fn array(&mut self, depth: usize) -> Option<Val<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.eat(b'[')?;
        self.ws();
        let mut out = Vec::new();
        if self.eat(b']').is_some() {
            return Some(Val::Arr(out));
        }
        loop {
            self.ws();
            out.push(self.value(depth)?);
            self.ws();
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(Val::Arr(out));
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<Val<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.eat(b'{')?;
        self.ws();
        let mut out = Vec::with_capacity(8);
        if self.eat(b'}').is_some() {
            return Some(Val::Obj(out));
        }
        loop {
            self.ws();
            let key = self.string()?;
            self.ws();
            self.eat(b':')?;
            self.ws();
            // Scalars are pushed where they are read: no intermediate `Option<Val>` to copy.
            let key = Cow::Borrowed(key);
            match self.peek()? {
                b'"' => {
                    let s = self.string()?;
                    out.push((key, Val::Str(Cow::Borrowed(s))));
                }
                b'-' | b'0'..=b'9' => {
                    let n = self.number()?;
                    out.push((key, n));
                }
                _ => {
                    let v = self.value(depth)?;
                    out.push((key, v));
                }
            }
            self.ws();
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(Val::Obj(out));
                }
                _ => return None,
            }
        }
    }
}

/// From `i` in a string's body, the first byte that is `"`, `\\` or below 0x20, read eight
/// bytes at a time; or, if none is in those, where fewer than eight bytes remain (the caller
/// reads the rest one by one). Such a byte sets its high bit in the mask; the lowest set bit is
/// always a true one (a false one only sits above a true one, where a borrow came from).
#[inline(always)]
pub fn plain_run(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = b.get(i..i + 8) {
        let Ok(w) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let x = u64::from_le_bytes(w);
        let q = x ^ (ONES * u64::from(b'"'));
        let bs = x ^ (ONES * u64::from(b'\\'));
        let m = ((q.wrapping_sub(ONES) & !q)
            | (bs.wrapping_sub(ONES) & !bs)
            | (x.wrapping_sub(ONES * 0x20) & !x))
            & HIGH;
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

/// Where the string body at the start of `rest` ends: the index of its closing quote, or `None`
/// if an escape or a control character comes first (or no quote).
#[inline]
fn plain_len(rest: &[u8]) -> Option<usize> {
    let i = plain_run(rest, 0);
    let j = i + rest
        .get(i..)?
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    (rest.get(j) == Some(&b'"')).then_some(j)
}
