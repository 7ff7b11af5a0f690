//! A fast path for reading tool-call arguments: a small JSON scanner for the common case
//! (strings without escapes, plain numbers), producing the same [`Val`] serde_json would.
//! Anything it is not sure about (an escape, a control character, a big or out-of-range
//! number, deep nesting, invalid JSON) makes it give up, and the caller parses with serde_json,
//! which then defines both the value and the error text.

use std::borrow::Cow;

use super::Val;

/// serde_json's default recursion limit.
const MAX_DEPTH: usize = 128;

/// The value of `text`, or `None` when the caller must fall back to serde_json.
pub fn scan(text: &str) -> Option<Val<'_>> {
    let mut s = Scanner {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    s.ws();
    let v = s.value(0)?;
    s.ws();
    (s.at == s.bytes.len()).then_some(v)
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
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
        let rest = self.bytes.get(start..)?;
        let len = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if rest.get(len) != Some(&b'"') {
            return None;
        }
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
