"""The toolsurface call kernel for Python: a JSON reader that keeps duplicate keys and words
its errors as serde_json does, the refusal texts of `toolsurface-kernel`, did-you-mean
(strsim), value rendering, and the walk that interprets a lowered plan. Written once by
hand, copied verbatim into every generated package by `toolsurface gen python`; the rules
themselves are data (the package's `_plan.json`). Stdlib only.
"""

from __future__ import annotations

import copy
import json
import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NoReturn, TypeAlias, Union, cast

__all__ = ["CallError", "Pairs", "Plan", "ScopeError", "Value", "describe", "read_json"]


class Pairs(list[tuple[str, "Value"]]):
    """A JSON object's members in input order, duplicates kept."""

    __slots__ = ()


Value: TypeAlias = Union[None, bool, int, float, str, list["Value"], Pairs]

_I64_MIN: Final = -(2**63)
_I64_MAX: Final = 2**63 - 1
_U64_MAX: Final = 2**64 - 1
_I32_MAX: Final = 2**31 - 1
_I32_MIN: Final = -(2**31)
_TWO53: Final = 9007199254740992.0


class CallError(Exception):
    """A refused call; `str()` is the model-facing message, byte-equal to Rust's."""

    __slots__ = ("kind", "message")
    kind: str
    message: str

    def __init__(self, kind: str, message: str) -> None:
        # `args` as Exception.__init__ would set it, without the call (a refusal is as
        # common as an accepted call, and this is a third of its cost).
        self.args = (message,)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return self.message


class ScopeError(ValueError):
    """A role, family or skill the definitions do not have (worded as Rust's)."""


# ---------------------------------------------------------------------------------------
# Text helpers (toolsurface-text): cut, did-you-mean.


def cut(s: str, max_chars: int) -> str:
    """`s` cut after `max_chars` characters, with `…` when anything was cut."""
    return s if len(s) <= max_chars else s[:max_chars] + "\u2026"


_ASCII_LOWER: Final = {c: c + 32 for c in range(65, 91)}


def _jaro(a: str, b: str) -> float:
    a_len, b_len = len(a), len(b)
    if not a_len or not b_len:
        return 1.0 if a_len == b_len else 0.0
    search = max(a_len, b_len) // 2 - 1
    if search < 0:
        search = 0
    taken = bytearray(b_len)  # b's matched positions
    a_matched: list[str] = []  # a's matched characters, in a's order
    find = b.find
    i = 0
    for ac in a:
        # The first untaken `ac` in the window (str.find scans in C).
        j = find(ac, i - search if i > search else 0, i + search + 1)
        while j != -1 and taken[j]:
            j = find(ac, j + 1, i + search + 1)
        if j != -1:
            taken[j] = 1
            a_matched.append(ac)
        i += 1
    matches = len(a_matched)
    if matches == 0:
        return 0.0
    b_matched = [c for c, t in zip(b, taken) if t]
    transpositions = sum(map(operator.ne, a_matched, b_matched)) // 2
    return (
        matches / a_len + matches / b_len + (matches - transpositions) / matches
    ) / 3.0


def _jaro_winkler(a: str, b: str) -> float:
    sim = _jaro(a, b)
    if sim > 0.7:
        prefix = 0
        for x, y in zip(a[:4], b):
            if x != y:
                break
            prefix += 1
        return sim + 0.1 * prefix * (1.0 - sim)
    return sim


def _within_edits(a: str, b: str, k: int) -> bool:
    """Whether strsim's `levenshtein(a, b) <= k`, without the table: a common prefix or
    suffix never changes the distance, and where the first characters differ an optimal
    script substitutes, deletes or inserts there."""
    if abs(len(a) - len(b)) > k:
        return False
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    j = 0
    while j < n - i and a[-1 - j] == b[-1 - j]:
        j += 1
    a, b = a[i : len(a) - j], b[i : len(b) - j]
    if not a or not b:
        return len(a) + len(b) <= k
    if k == 0:
        return False
    a1, b1 = a[1:], b[1:]
    return (
        _within_edits(a1, b1, k - 1)
        or _within_edits(a1, b, k - 1)
        or _within_edits(a, b1, k - 1)
    )


def _ascii_lower(s: str) -> str:
    # str.lower is ASCII lowercasing on an ASCII string, and ten times faster than translate.
    return s.lower() if s.isascii() else s.translate(_ASCII_LOWER)


# Candidates (the plan's names) lowered, with their characters, computed once each.
_LOWERED: Final[dict[str, tuple[str, frozenset[str]]]] = {}


def _lowered(c: str) -> tuple[str, frozenset[str]]:
    found = _LOWERED.get(c)
    if found is None:
        lc = _ascii_lower(c)
        found = (lc, frozenset(lc))
        if len(_LOWERED) < 4096:
            _LOWERED[c] = found
    return found


def _jaro_winkler_bound(a: str, b: str, b_chars: frozenset[str]) -> float:
    """An upper bound of `_jaro_winkler(a, b)` in C-speed operations, so a candidate that
    cannot reach 0.8 skips the Jaro walk (~3 µs in Python): no more matches than the
    characters of `a` that occur in `b`, no transposition, and a full 4-character prefix
    unless the first characters differ. Jaro-Winkler grows with the Jaro similarity at a
    fixed prefix, so the bound of the similarity bounds the score."""
    if not a or not b:
        return 1.0
    m = sum(map(b_chars.__contains__, a))
    if m == 0:
        return 0.0
    sim = (m / len(a) + min(m, len(b)) / len(b) + 1.0) / 3.0
    prefix = 4 if a[0] == b[0] else 0
    return sim + 0.1 * prefix * (1.0 - sim) if sim > 0.7 else sim


def did_you_mean(name: str, candidates: Sequence[str]) -> str | None:
    """The candidate closest to `name` (Jaro-Winkler ≥ 0.8 or at most two edits, ASCII case
    ignored; ties by name), if any."""
    lname = _ascii_lower(name)
    best: tuple[float, str] | None = None
    for c in candidates:
        if c == name:
            continue
        lc, lc_chars = _lowered(c)
        if _jaro_winkler_bound(lname, lc, lc_chars) < 0.8 - 1e-9:
            if not _within_edits(lname, lc, 2):
                continue
            jw = _jaro_winkler(lname, lc)
        else:
            jw = _jaro_winkler(lname, lc)
            if jw < 0.8 and not _within_edits(lname, lc, 2):
                continue
        if best is None or jw > best[0] or (jw == best[0] and c < best[1]):
            best = (jw, c)
    return None if best is None else best[1]


# ---------------------------------------------------------------------------------------
# Rendering values as Rust does (serde_json, ryu).


def _json_char(m: re.Match[str]) -> str:
    c = m.group(0)
    short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n"}
    short.update({"\r": "\\r", "\t": "\\t"})
    return short.get(c) or "\\u%04x" % ord(c)


_JSON_ESCAPE: Final = re.compile(r'["\\\x00-\x1f]')


def json_string(s: str) -> str:
    """A JSON string literal as serde_json writes it."""
    return '"' + _JSON_ESCAPE.sub(_json_char, s) + '"'


def format_float(f: float) -> str:
    """An f64 as serde_json prints it (zmij: shortest digits, fixed notation for decimal
    exponents -5..=15, else `1e+100`, `1.5e-7`, `-9.223372036854776e+18`)."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    sign = "-" if math.copysign(1.0, f) < 0 else ""
    if f == 0:
        return sign + "0.0"
    s = repr(abs(f))
    mant, _, ex = s.partition("e")
    ip, _, fp = mant.partition(".")
    digits = ip + fp
    point = len(ip) + (int(ex) if ex else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    length = len(digits)
    e = point - 1
    if -5 <= e <= 15:
        if length - 1 <= e:
            out = digits + "0" * (e + 1 - length) + ".0"
        elif e >= 0:
            out = digits[: e + 1] + "." + digits[e + 1 :]
        else:
            out = "0." + "0" * (-e - 1) + digits
    else:
        rest = "." + digits[1:] if length > 1 else ""
        out = digits[0] + rest + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + out


def describe(v: Value) -> str:
    """A short rendering of a value for `got …`."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return format_float(v)
    if isinstance(v, str):
        return json_string(cut(v, 60))
    if isinstance(v, Pairs):
        return "an object"
    n = len(v)
    return f"an array of {n} item{'' if n == 1 else 's'}"


def to_json(v: object) -> str:
    """Compact JSON as serde_json writes a `Value` (dicts in insertion order)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return format_float(v) if math.isfinite(v) else "null"
    if isinstance(v, str):
        return json_string(v)
    if isinstance(v, Mapping):
        items: list[str] = []
        for k, x in v.items():  # type: ignore[reportUnknownVariableType]
            items.append(json_string(str(k)) + ":" + to_json(x))  # type: ignore[reportUnknownArgumentType]
        return "{" + ",".join(items) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(to_json(x) for x in v) + "]"  # type: ignore[reportUnknownVariableType]
    raise TypeError(f"not JSON data: {type(v).__name__}")


# ---------------------------------------------------------------------------------------
# Reading JSON: the Rust kernel's fast scanner (`scan`), else serde_json, whose error texts
# and number semantics are reproduced exactly.


class _GiveUp(Exception):
    pass


class _JsonError(Exception):
    pass


def _fast_int(s: str) -> int | float:
    digits = len(s) - (s[0] == "-")
    if digits > 18:
        raise _GiveUp
    n = int(s)
    if n == 0 and s[0] == "-":
        return -0.0
    return n


def _fast_float(s: str) -> float:
    f = float(s)
    if math.isinf(f):
        raise _GiveUp
    return f


def _fast_constant(s: str) -> None:
    raise _GiveUp


# The C decoder with hooks that give up exactly where the Rust scanner does: a 19+ digit
# integer, `-0`, a float out of range, NaN/Infinity. Its scanner is called directly: the
# JSONDecoder.decode wrapper's two whitespace regexes cost as much as the scan itself.
_DECODER: Final = json.JSONDecoder(
    object_pairs_hook=Pairs,
    parse_int=_fast_int,
    parse_float=_fast_float,
    parse_constant=_fast_constant,
)
# JSONDecoder sets scan_once in __init__ (json.scanner.make_scanner); typeshed omits it.
_SCAN_ONCE: Final = cast(
    "Callable[[str, int], tuple[Value, int]]",
    _DECODER.scan_once,  # type: ignore[attr-defined]
)
_JSON_WS: Final = " \t\n\r"


def _scan(text: str) -> Value | None:
    """What the Rust kernel's `scan` reads, or None where it gives up. A `\\u` escape may be
    a lone surrogate (the C decoder keeps it, serde_json refuses it) and more than 128
    brackets may pass serde_json's depth limit: serde_json decides those."""
    if "\\u" in text or text.count("[") + text.count("{") > 128:
        return None
    s = text.strip(_JSON_WS)
    try:
        v, end = _SCAN_ONCE(s, 0)
    except (_GiveUp, ValueError, RecursionError, StopIteration):
        return None
    return v if end == len(s) else None


_EOF_LIST: Final = "EOF while parsing a list"
_EOF_OBJECT: Final = "EOF while parsing an object"
_EOF_STRING: Final = "EOF while parsing a string"
_EOF_VALUE: Final = "EOF while parsing a value"
_EXPECTED_COLON: Final = "expected `:`"
_EXPECTED_LIST: Final = "expected `,` or `]`"
_EXPECTED_OBJECT: Final = "expected `,` or `}`"
_EXPECTED_IDENT: Final = "expected ident"
_EXPECTED_VALUE: Final = "expected value"
_INVALID_ESCAPE: Final = "invalid escape"
_INVALID_NUMBER: Final = "invalid number"
_OUT_OF_RANGE: Final = "number out of range"
_CONTROL: Final = "control character (\\u0000-\\u001F) found while parsing a string"
_KEY_STRING: Final = "key must be a string"
_LONE: Final = "lone leading surrogate in hex escape"
_TRAILING_COMMA: Final = "trailing comma"
_TRAILING: Final = "trailing characters"
_END_HEX: Final = "unexpected end of hex escape"
_RECURSION: Final = "recursion limit exceeded"

_ESCAPES: Final = {
    0x22: b'"',
    0x5C: b"\\",
    0x2F: b"/",
    0x62: b"\x08",
    0x66: b"\x0c",
    0x6E: b"\n",
    0x72: b"\r",
    0x74: b"\t",
}
_WS: Final = frozenset(b" \n\t\r")
_DIGITS: Final = frozenset(b"0123456789")


class _De:
    """serde_json's `Deserializer<SliceRead>` reading a `Val`, step for step."""

    __slots__ = ("b", "i", "n", "depth", "num_start")
    b: bytes
    i: int
    n: int
    depth: int
    num_start: int

    def __init__(self, b: bytes) -> None:
        self.b = b
        self.i = 0
        self.n = len(b)
        self.depth = 128
        # Where the number being read starts (its sign included).
        self.num_start = 0

    def _at(self, i: int, code: str) -> _JsonError:
        start = self.b.rfind(b"\n", 0, i) + 1
        line = 1 + self.b.count(b"\n", 0, start)
        return _JsonError(f"{code} at line {line} column {i - start}")

    def error(self, code: str) -> _JsonError:
        return self._at(self.i, code)

    def peek_error(self, code: str) -> _JsonError:
        return self._at(min(self.n, self.i + 1), code)

    def peek(self) -> int:
        return self.b[self.i] if self.i < self.n else -1

    def ws(self) -> int:
        b, n, i = self.b, self.n, self.i
        while i < n and b[i] in _WS:
            i += 1
        self.i = i
        return b[i] if i < n else -1

    def value(self) -> Value:
        c = self.ws()
        if c == -1:
            raise self.peek_error(_EOF_VALUE)
        if c == 0x6E:
            self.i += 1
            self.ident(b"ull")
            return None
        if c == 0x74:
            self.i += 1
            self.ident(b"rue")
            return True
        if c == 0x66:
            self.i += 1
            self.ident(b"alse")
            return False
        if c == 0x2D:
            self.num_start = self.i
            self.i += 1
            return self.integer(False)
        if c in _DIGITS:
            self.num_start = self.i
            return self.integer(True)
        if c == 0x22:
            self.i += 1
            return self.string()
        if c == 0x5B:
            self.depth -= 1
            if self.depth == 0:
                raise self.peek_error(_RECURSION)
            self.i += 1
            out = self.seq()
            self.depth += 1
            self.ws()
            self.i += 1
            return out
        if c == 0x7B:
            self.depth -= 1
            if self.depth == 0:
                raise self.peek_error(_RECURSION)
            self.i += 1
            obj = self.map()
            self.depth += 1
            self.ws()
            self.i += 1
            return obj
        raise self.peek_error(_EXPECTED_VALUE)

    def ident(self, rest: bytes) -> None:
        for expected in rest:
            if self.i >= self.n:
                raise self.error(_EOF_VALUE)
            got = self.b[self.i]
            self.i += 1
            if got != expected:
                raise self.error(_EXPECTED_IDENT)

    def seq(self) -> list[Value]:
        out: list[Value] = []
        first = True
        while True:
            c = self.ws()
            if c == -1:
                raise self.peek_error(_EOF_LIST)
            if c == 0x5D:
                return out
            if first:
                first = False
            elif c == 0x2C:
                self.i += 1
                c = self.ws()
                if c == 0x5D:
                    raise self.peek_error(_TRAILING_COMMA)
                if c == -1:
                    raise self.peek_error(_EOF_VALUE)
            else:
                raise self.peek_error(_EXPECTED_LIST)
            out.append(self.value())

    def map(self) -> Pairs:
        out = Pairs()
        first = True
        while True:
            c = self.ws()
            if c == -1:
                raise self.peek_error(_EOF_OBJECT)
            if c == 0x7D:
                return out
            if first:
                first = False
                if c != 0x22:
                    raise self.peek_error(_KEY_STRING)
            elif c == 0x2C:
                self.i += 1
                c = self.ws()
                if c == 0x7D:
                    raise self.peek_error(_TRAILING_COMMA)
                if c == -1:
                    raise self.peek_error(_EOF_VALUE)
                if c != 0x22:
                    raise self.peek_error(_KEY_STRING)
            else:
                raise self.peek_error(_EXPECTED_OBJECT)
            self.i += 1
            key = self.string()
            c = self.ws()
            if c == 0x3A:
                self.i += 1
            elif c == -1:
                raise self.peek_error(_EOF_OBJECT)
            else:
                raise self.peek_error(_EXPECTED_COLON)
            out.append((key, self.value()))

    # Strings --------------------------------------------------------------------------

    def string(self) -> str:
        b, n = self.b, self.n
        start = self.i
        scratch: bytearray | None = None
        while True:
            i = self.i
            while i < n:
                c = b[i]
                if c == 0x22 or c == 0x5C or c < 0x20:
                    break
                i += 1
            self.i = i
            if i == n:
                raise self.error(_EOF_STRING)
            c = b[i]
            if c == 0x22:
                self.i = i + 1
                if scratch is None:
                    return b[start:i].decode("utf-8")
                scratch += b[start:i]
                return scratch.decode("utf-8")
            if c == 0x5C:
                if scratch is None:
                    scratch = bytearray()
                scratch += b[start:i]
                self.i = i + 1
                self.escape(scratch)
                start = self.i
                continue
            self.i = i + 1
            raise self.error(_CONTROL)

    def escape(self, scratch: bytearray) -> None:
        if self.i >= self.n:
            raise self.error(_EOF_STRING)
        ch = self.b[self.i]
        self.i += 1
        simple = _ESCAPES.get(ch)
        if simple is not None:
            scratch += simple
        elif ch == 0x75:
            self.unicode_escape(scratch)
        else:
            raise self.error(_INVALID_ESCAPE)

    def hex4(self) -> int:
        if self.n - self.i < 4:
            self.i = self.n
            raise self.error(_EOF_STRING)
        chunk = self.b[self.i : self.i + 4]
        self.i += 4
        try:
            if not all(c in b"0123456789abcdefABCDEF" for c in chunk):
                raise ValueError
            return int(chunk, 16)
        except ValueError:
            raise self.error(_INVALID_ESCAPE) from None

    def unicode_escape(self, scratch: bytearray) -> None:
        n = self.hex4()
        if 0xDC00 <= n <= 0xDFFF:
            raise self.error(_LONE)
        if n < 0xD800 or n > 0xDBFF:
            scratch += chr(n).encode("utf-8")
            return
        for expected in (0x5C, 0x75):
            if self.i >= self.n:
                raise self.error(_EOF_STRING)
            got = self.b[self.i]
            self.i += 1
            if got != expected:
                raise self.error(_END_HEX)
        n2 = self.hex4()
        if n2 < 0xDC00 or n2 > 0xDFFF:
            raise self.error(_LONE)
        cp = (((n - 0xD800) << 10) | (n2 - 0xDC00)) + 0x10000
        scratch += chr(cp).encode("utf-8")

    # Numbers --------------------------------------------------------------------------

    def peek_digit(self) -> int:
        if self.i < self.n:
            c = self.b[self.i]
            if 0x30 <= c <= 0x39:
                return c - 0x30
        return -1

    def integer(self, positive: bool) -> int | float:
        if self.i >= self.n:
            raise self.error(_EOF_VALUE)
        c = self.b[self.i]
        self.i += 1
        if c == 0x30:
            if self.peek_digit() >= 0:
                raise self.peek_error(_INVALID_NUMBER)
            return self.number(positive, 0)
        if 0x31 <= c <= 0x39:
            sig = c - 0x30
            while True:
                d = self.peek_digit()
                if d < 0:
                    return self.number(positive, sig)
                if sig * 10 + d > _U64_MAX:
                    return self.long_integer(positive, sig)
                self.i += 1
                sig = sig * 10 + d
        raise self.error(_INVALID_NUMBER)

    def number(self, positive: bool, sig: int) -> int | float:
        c = self.peek()
        if c == 0x2E:
            return self.decimal(positive, sig, 0)
        if c == 0x65 or c == 0x45:
            return self.exponent(positive, sig, 0)
        if positive:
            return sig
        if sig == 0 or sig > 2**63:
            return -float(sig)
        return -sig

    def decimal(self, positive: bool, sig: int, exp_before: int) -> float:
        self.i += 1
        after = 0
        while True:
            d = self.peek_digit()
            if d < 0:
                break
            if sig * 10 + d > _U64_MAX:
                while self.peek_digit() >= 0:
                    self.i += 1
                c = self.peek()
                if c == 0x65 or c == 0x45:
                    return self.exponent(positive, sig, exp_before + after)
                return self.from_parts(positive, sig, exp_before + after)
            self.i += 1
            sig = sig * 10 + d
            after -= 1
        if after == 0:
            if self.i < self.n:
                raise self.peek_error(_INVALID_NUMBER)
            raise self.peek_error(_EOF_VALUE)
        c = self.peek()
        if c == 0x65 or c == 0x45:
            return self.exponent(positive, sig, exp_before + after)
        return self.from_parts(positive, sig, exp_before + after)

    def exponent(self, positive: bool, sig: int, starting: int) -> float:
        self.i += 1
        positive_exp = True
        c = self.peek()
        if c == 0x2B:
            self.i += 1
        elif c == 0x2D:
            self.i += 1
            positive_exp = False
        if self.i >= self.n:
            raise self.error(_EOF_VALUE)
        c = self.b[self.i]
        self.i += 1
        if not 0x30 <= c <= 0x39:
            raise self.error(_INVALID_NUMBER)
        exp = c - 0x30
        while True:
            d = self.peek_digit()
            if d < 0:
                break
            self.i += 1
            if exp * 10 + d > _I32_MAX:
                if sig != 0 and positive_exp:
                    raise self.error(_OUT_OF_RANGE)
                while self.peek_digit() >= 0:
                    self.i += 1
                return 0.0 if positive else -0.0
            exp = exp * 10 + d
        final = starting + exp if positive_exp else starting - exp
        final = max(_I32_MIN, min(_I32_MAX, final))
        return self.from_parts(positive, sig, final)

    def from_parts(self, positive: bool, sig: int, exponent: int) -> float:
        # serde_json's `f64_from_parts` with `float_roundtrip` (the toolsurface workspace turns
        # it on): the whole number text read back to the nearest double, out of range when that
        # is infinite. Python's float() rounds correctly, as serde_json's does.
        del positive, sig, exponent
        f = float(self.b[self.num_start : self.i])
        if math.isinf(f):
            raise self.error(_OUT_OF_RANGE)
        return f

    def long_integer(self, positive: bool, sig: int) -> float:
        exponent = 0
        while True:
            c = self.peek()
            if 0x30 <= c <= 0x39:
                self.i += 1
                exponent += 1
            elif c == 0x2E:
                return self.decimal(positive, sig, exponent)
            elif c == 0x65 or c == 0x45:
                return self.exponent(positive, sig, exponent)
            else:
                return self.from_parts(positive, sig, exponent)


def _serde_json(text: bytes) -> Value:
    de = _De(text)
    v = de.value()
    if de.ws() != -1:
        raise de.peek_error(_TRAILING)
    return v


# Rust's `char::is_whitespace` (the White_Space property), for `str::trim`.
_RUST_WS: Final = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def read_json(text: str, tool: str) -> Pairs:
    """The members of an arguments text, as the Rust kernel's `pairs_of_text` reads them."""
    v = _scan(text)
    if type(v) is Pairs:
        return v
    if not text.strip(_RUST_WS):
        return Pairs()
    if v is None:
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError:
            raise CallError(
                "InvalidJson",
                f"{tool}: arguments are not valid JSON (arguments are not valid UTF-8)",
            ) from None
        try:
            v = _serde_json(raw)
        except _JsonError as e:
            raise CallError(
                "InvalidJson", f"{tool}: arguments are not valid JSON ({e})"
            ) from None
    if isinstance(v, Pairs):
        return v
    if v is None:
        return Pairs()
    raise CallError(
        "NotAnObject", f"{tool}: arguments must be a JSON object, got {describe(v)}"
    )


def from_python(v: object) -> Value:
    """An already parsed value (`json.loads` output, a dict) as the kernel reads it (what
    `Val::from(&serde_json::Value)` is to Rust)."""
    if v is None or isinstance(v, (bool, str, float)):
        return v
    if isinstance(v, int):
        return v if _I64_MIN <= v <= _U64_MAX else float(v)
    if isinstance(v, Mapping):
        return Pairs((str(k), from_python(x)) for k, x in v.items())  # type: ignore[reportUnknownVariableType]
    if isinstance(v, (list, tuple)):
        return [from_python(x) for x in v]  # type: ignore[reportUnknownVariableType]
    raise TypeError(f"not JSON data: {type(v).__name__}")


# ---------------------------------------------------------------------------------------
# Refusals (toolsurface-kernel), one function each.


def invalid(ctx: str, v: Value) -> CallError:
    return CallError("InvalidValue", f"{ctx}, got {describe(v)}")


def unexpected_field(
    prefix: str, key: str, accepted: Sequence[str], belongs: Sequence[tuple[str, str]]
) -> CallError:
    to = next((t for f, t in belongs if f == key), None)
    if to is not None:
        hint = f" (it belongs to {to})"
    else:
        near = did_you_mean(key, accepted)
        if near is not None:
            hint = f" (did you mean {near}?)"
        elif not accepted:
            hint = " (it takes no fields)"
        else:
            hint = f" (expected one of {', '.join(accepted)})"
    return CallError("UnexpectedField", f"{prefix}unexpected field {key}{hint}")


def not_offered(
    name: str, role: str, family: str, skill: str | None, activate: str | None
) -> CallError:
    if skill is not None and activate is not None:
        message = (
            f"{name} belongs to skill {skill}, which is not active in this "
            f"conversation; call {activate} with name {skill} first, then call {name} again"
        )
    elif skill is not None:
        message = (
            f"{name} belongs to skill {skill}, and role {role} on family {family} has no "
            "tool that activates skills"
        )
    else:
        message = f"tool {name} is not offered to role {role} on family {family}"
    return CallError("NotOffered", message)


# ---------------------------------------------------------------------------------------
# Numbers as the walk takes them.


def as_int(v: Value) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v if v <= _I64_MAX else None
    if isinstance(v, float) and v.is_integer() and -_TWO53 <= v <= _TWO53:
        return int(v)
    return None


def as_num(v: Value) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    return None


def rust_regex(pattern: str) -> re.Pattern[str] | None:
    """A Rust `regex` pattern for Python's `re` (unanchored search). `$` outside a class is
    end of text (`\\Z`), as in Rust; None when it does not compile (every value refused)."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":
                out.append("[]")
                i += 2
                continue
        elif c == "$":
            c = r"\Z"
        out.append(c)
        i += 1
    try:
        return re.compile("".join(out))
    except re.error:
        return None


# ---------------------------------------------------------------------------------------
# The plan and its walk (kernel/src/walk.rs, step for step; the name rules of
# compiler/src/plan/interp.rs).

Fields: TypeAlias = dict[str, Any]

#: Where a call's typed fields keep an open object's other keys (no field name has a space).
OTHER_KEYS: Final = " other keys"

_NONE: Final = object()


def to_data(v: Value) -> object:
    """A value as serde_json's `Value` holds it (interp.rs `to_json`): objects as dicts in
    input order, of a key given twice the last value (at the first one's place)."""
    if isinstance(v, Pairs):
        out: dict[str, object] = {}
        for k, x in v:
            out[k] = to_data(x)
        return out
    if isinstance(v, list):
        return [to_data(x) for x in v]
    return v


def json_equal(a: object, b: object) -> bool:
    """`const`'s equality (kernel `json_equal`): numbers by value (`1` = `1.0`; integers
    exactly, else as doubles), arrays item by item, objects member by member in any order."""
    numbers = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, numbers) and isinstance(b, numbers):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        xs = cast("list[object]", a)
        ys = cast("list[object]", b)
        return len(xs) == len(ys) and all(json_equal(x, y) for x, y in zip(xs, ys))
    if isinstance(a, dict) and isinstance(b, dict):
        xm = cast("dict[str, object]", a)
        ym = cast("dict[str, object]", b)
        return len(xm) == len(ym) and all(
            k in ym and json_equal(x, ym[k]) for k, x in xm.items()
        )
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return a is None and b is None


# A field's conversion: (value, path prefix, key) to the typed value, or a CallError.
Converter: TypeAlias = Callable[[Value, str, str], object]


def _constraints(rules: Mapping[str, Any], values: Fields, prefix: str) -> None:
    """An object's exactly_one_of groups, then its forbidden_with pairs (interp.rs)."""

    def present(m: Mapping[str, Any]) -> bool:
        p = m["presence"]
        if p == "always":
            return True
        if p == "never":
            return False
        if p == "given":
            return m["field"] in values
        return values.get(m["field"]) is True

    for group in rules["exactly_one_of"]:
        names = [m["field"] for m in group]
        given = [m["field"] for m in group if present(m)]
        if len(given) != 1:
            got = " and ".join(given) if given else "none"
            raise CallError(
                "Constraint",
                f"{prefix}expected exactly one of {', '.join(names)}; got {got}",
            )
    for fw in rules["forbidden_with"]:
        if present(fw["field"]) and present(fw["with"]):
            raise CallError("Constraint", f"{prefix}{fw['message']}")


class _Scope:
    __slots__ = ("role", "family", "offered", "gates", "activate")
    role: str
    family: str
    offered: frozenset[str]
    gates: dict[str, str]
    activate: str | None

    def __init__(
        self,
        role: str,
        family: str,
        offered: frozenset[str],
        gates: dict[str, str],
        activate: str | None,
    ) -> None:
        self.role = role
        self.family = family
        self.offered = offered
        self.gates = gates
        self.activate = activate


class Plan:
    """The rules of one definitions folder, read from its lowered plan (`_plan.json`)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        if data.get("format") != 2:
            raise ValueError(f"unknown host plan format {data.get('format')!r}")
        self.data = data
        self.tools: dict[str, Any] = {t["name"]: t for t in data["tools"]}
        self.tool_order: list[str] = [t["name"] for t in data["tools"]]
        self.aliases: dict[str, Any] = {a["name"]: a for a in data["aliases"]}
        self.retired: dict[str, Any] = {r["name"]: r for r in data["retired"]}
        self.skills: list[Any] = list(data["skills"])
        self.roles: dict[str, Any] = {r["name"]: r for r in data["roles"]}
        self.families: list[str] = [f["name"] for f in data["families"]]
        self.surfaces: dict[tuple[str, str], Any] = {
            (s["role"], s["family"]): s for s in data["surfaces"]
        }
        self.json: list[str] = list(data["json"])
        # What a called name reaches, resolved once: (tool, alias, retired). A retired name
        # is refused before anything else; an alias whose tool exists stands before a tool
        # of the same name (as interp.rs resolves them).
        self._names: dict[str, tuple[Any, Any, Any]] = {
            n: (t, None, None) for n, t in self.tools.items()
        }
        for n, a in self.aliases.items():
            if a["tool"] in self.tools:
                self._names[n] = (self.tools[a["tool"]], a, None)
        for n, r in self.retired.items():
            self._names[n] = (None, None, r)
        self.patterns: dict[str, re.Pattern[str] | None] = {}
        self._scopes: dict[tuple[str, str, tuple[str, ...]], _Scope] = {}
        for t in data["tools"]:
            t["by_action"] = {a["name"]: a for a in t["actions"]}
            for a in t["actions"]:
                self._compile(a["object"])

    def defaults(self, tool: str, action: str | None) -> dict[str, object]:
        """The `default:` of each field `tool`'s `action` takes that has one (plan
        `FieldPlan.default`), by JSON name, each converted as a sent value would be (so it
        has the parsed representation). What the Rust conversion into a request type fills
        in; `check` never applies it."""
        t = self.tools.get(tool)
        a = None if t is None else t["by_action"].get(action)
        if a is None:
            raise ValueError(f"not a call of this plan: {tool} {action or ''}".rstrip())
        found = a.get("defaults")
        if found is None:
            found = {
                f["name"]: f["convert"](from_python(f["default"]), "", f["name"])
                for f in a["object"]["fields"]
                if "default" in f
            }
            a["defaults"] = found
        return dict(found)

    def _compile(self, obj: dict[str, Any]) -> None:
        # Lookup tables the walk reads (derived from the rules, never new rules).
        obj["by_name"] = {f["name"]: f for f in obj["fields"]}
        obj["names"] = [f["name"] for f in obj["fields"]]
        obj["belongs_to"] = {b["field"]: b["actions"] for b in obj["belongs"]}
        obj["required"] = [f["name"] for f in obj["fields"] if f["required"]]
        obj["constrained"] = bool(obj["exactly_one_of"] or obj["forbidden_with"])
        other = obj.get("additional")
        for f in obj["fields"]:
            self._prepare(f["ty"])
        if other is not None:
            self._prepare(other)
        for f in obj["fields"]:
            f["convert"] = self._converter(f["ty"])
        obj["other"] = None if other is None else self._converter(other)

    def _prepare(self, ty: Mapping[str, Any]) -> None:
        # The patterns and nested objects beneath a type, compiled before its converter.
        kind = ty["kind"]
        if kind == "array":
            self._prepare(ty["items"])
        elif kind == "union":
            for b in ty["branches"]:
                self._prepare(b)
        elif kind == "string" and ty["pattern"] is not None:
            p: str = ty["pattern"]
            if p not in self.patterns:
                self.patterns[p] = rust_regex(p)
        elif kind == "object":
            self._compile(ty["object"])

    def scope(self, role: str, family: str, skills: Sequence[str]) -> _Scope:
        key = (role, family, tuple(skills))
        found = self._scopes.get(key)
        if found is not None:
            return found
        role_decl = self.roles.get(role)
        if role_decl is None:
            raise ScopeError(
                f"unknown role {role} (expected one of {', '.join(self.roles)})"
            )
        surface = self.surfaces.get((role, family))
        if surface is None:
            raise ScopeError(
                f"unknown family {family} (expected one of {', '.join(self.families)})"
            )
        names = [k["name"] for k in self.skills]
        for s in skills:
            if s not in names:
                raise ScopeError(
                    f"unknown skill {s} (expected one of {', '.join(names)})"
                )
        offered = set(surface["resident"])
        gates: dict[str, str] = {}
        for sk in self.skills:
            if sk["name"] not in role_decl["skills"]:
                continue
            tools = [
                t
                for si in surface["skills"]
                if si["skill"] == sk["name"]
                for t in si["tools"]
            ]
            for t in tools:
                gates.setdefault(t, sk["name"])
            if sk["name"] in skills:
                offered.update(tools)
        at = self.data["activation_tool"]
        activate = at if at in self.tools and at in surface["resident"] else None
        found = _Scope(role, family, frozenset(offered), gates, activate)
        self._scopes[key] = found
        return found

    def check(
        self,
        role: str,
        family: str,
        name: str,
        arguments: str | bytes | Mapping[str, object],
        skills: Sequence[str] = (),
    ) -> tuple[str, str | None, Fields]:
        """(tool, action, typed fields) of an accepted call, or CallError."""
        scope = self.scope(role, family, skills)
        found = self._names.get(name)
        if found is None:
            offered = [t for t in self.tool_order if t in scope.offered]
            near = did_you_mean(name, offered)
            hint = f" (did you mean {near}?)" if near is not None else ""
            raise CallError("UnknownTool", f"unknown tool {name}{hint}")
        tool, alias, retired = found
        if retired is not None:
            raise CallError(
                "Retired", f"{retired['name']} was retired: {retired['message']}"
            )
        tool_name: str = tool["name"]
        if tool_name not in scope.offered:
            raise not_offered(
                name,
                scope.role,
                scope.family,
                scope.gates.get(tool_name),
                scope.activate,
            )
        if type(arguments) is not str and isinstance(arguments, bytes):
            try:
                arguments = arguments.decode("utf-8")
            except UnicodeDecodeError:
                raise CallError(
                    "InvalidJson",
                    f"{name}: arguments are not valid JSON (arguments are not valid UTF-8)",
                ) from None
        if isinstance(arguments, str):
            ff = tool["freeform"]
            if ff is not None and family in ff["families"]:
                pairs = Pairs([(ff["field"], arguments)])
            else:
                pairs = read_json(arguments, name)
        else:
            v = from_python(arguments)
            if isinstance(v, Pairs):
                pairs = v
            elif v is None:
                pairs = Pairs()
            else:
                raise CallError(
                    "NotAnObject",
                    f"{name}: arguments must be a JSON object, got {describe(v)}",
                )
        if alias is not None:
            for old, new in alias["rename"]:
                pairs = Pairs((new if k == old else k, v) for k, v in pairs)
            for key, value in alias["set"]:
                pairs = Pairs((k, v) for k, v in pairs if k != key)
                pairs.append((key, from_python(value)))
        action, fields = self._tool(tool, pairs)
        return tool_name, action, fields

    def _tool(self, tool: Mapping[str, Any], pairs: Pairs) -> tuple[str | None, Fields]:
        sel: str | None = tool["selector"]
        if sel is None:
            actions = tool["actions"]
            if not actions:
                return None, {}
            a = actions[0]
            return None, self._object(a["object"], None, pairs, a["prefix"], False)
        expected = tool["expected_actions"]
        found: Value = None
        for k, v in pairs:
            if k == sel:
                found = v
                break
        if found is None:
            raise CallError(
                "MissingSelector", f"missing {sel}: expected one of {expected}"
            )
        if not isinstance(found, str):
            raise invalid(f"{sel}: expected one of {expected}", found)
        action = tool["by_action"].get(found)
        if action is None:
            raise CallError(
                "UnknownAction",
                f"{sel}={found}: unknown {sel}; expected one of {expected}",
            )
        fields = self._object(action["object"], sel, pairs, action["prefix"], False)
        return found, fields

    def _object(
        self,
        rules: Mapping[str, Any],
        selector: str | None,
        pairs: Pairs,
        prefix: str,
        ordered: bool,
    ) -> Fields:
        """The walk of ObjectPlan as in interp.rs: members in input order, then required,
        then constraints. The fields come back in declaration order if `ordered` (a nested
        object's value, serialized as it is), else in input order (a call's, which
        parse_call passes to its class by name)."""
        by_name: dict[str, Any] = rules["by_name"]
        values: dict[str, object] = {}
        # An open object's other keys (made on the first one: no cost for strict objects).
        extra: dict[str, object] | None = None
        selector_seen = False
        for key, v in pairs:
            f = by_name.get(key)
            if f is not None:
                if v is None:
                    continue
                if key in values:
                    raise CallError("DuplicateField", f"{prefix}duplicate field {key}")
                values[key] = f["convert"](v, prefix, key)
                continue
            if key == selector:
                if selector_seen:
                    raise CallError("DuplicateField", f"{prefix}duplicate field {key}")
                selector_seen = True
                continue
            belongs: dict[str, str] = rules["belongs_to"]
            if v is None and key in belongs:
                continue
            other: Converter | None = rules["other"]
            if other is not None:
                # An open object's other key: null counts as absent, twice is a duplicate.
                if v is None:
                    continue
                if extra is None:
                    extra = {}
                elif key in extra:
                    raise CallError("DuplicateField", f"{prefix}duplicate field {key}")
                extra[key] = other(v, prefix, key)
                continue
            raise unexpected_field(prefix, key, rules["names"], list(belongs.items()))
        for name in rules["required"]:
            if name not in values:
                raise CallError("MissingField", f"{prefix}missing field {name}")
        if rules["constrained"]:
            _constraints(rules, values, prefix)
        if ordered:
            # A nested object's value: declaration order, then its other keys.
            if len(values) > 1 or extra:
                out = {n: values[n] for n in rules["names"] if n in values}
                if extra:
                    out.update(extra)
                return out
        elif rules["other"] is not None:
            values[OTHER_KEYS] = {} if extra is None else extra
        return values

    def _converter(self, ty: Mapping[str, Any]) -> Converter:
        """The conversion of a value to the type `ty` (interp.rs `Walker::convert`), built
        once per field when the plan is read: `(value, prefix, key)` to the typed value, or
        the refusal for the path `prefix + key` (joined only then)."""
        kind = ty["kind"]
        if kind in ("string", "integer", "number", "enum", "array", "const", "union"):
            expected = f": expected {ty['expected']}"
        else:
            expected = {
                "boolean": ": expected true or false",
                "null": ": expected null",
            }.get(kind, ": expected an object")

        def refuse(v: Value, prefix: str, key: str) -> NoReturn:
            raise invalid(f"{prefix}{key}{expected}", v)

        if kind == "string":
            lo, hi, p = ty["min_length"], ty["max_length"], ty["pattern"]
            rx = None if p is None else self.patterns.get(p)
            if lo is None and hi is None and p is None:

                def plain_string(v: Value, prefix: str, key: str) -> object:
                    return v if type(v) is str else refuse(v, prefix, key)

                return plain_string

            def string(v: Value, prefix: str, key: str) -> object:
                if type(v) is str:
                    n = len(v)
                    if (lo is None or n >= lo) and (hi is None or n <= hi):
                        if p is None or (rx is not None and rx.search(v) is not None):
                            return v
                refuse(v, prefix, key)

            return string
        if kind in ("integer", "number"):
            read: Callable[[Value], int | float | None] = (
                as_int if kind == "integer" else as_num
            )
            lo, hi = ty["minimum"], ty["maximum"]

            def bounded(v: Value, prefix: str, key: str) -> object:
                n = read(v)
                if (
                    n is not None
                    and (lo is None or n >= lo)
                    and (hi is None or n <= hi)
                ):
                    return n
                refuse(v, prefix, key)

            return bounded
        if kind == "enum":
            values = frozenset(ty["values"])

            def enum(v: Value, prefix: str, key: str) -> object:
                return v if type(v) is str and v in values else refuse(v, prefix, key)

            return enum
        if kind == "boolean":

            def boolean(v: Value, prefix: str, key: str) -> object:
                return v if type(v) is bool else refuse(v, prefix, key)

            return boolean
        if kind == "array":
            alo, ahi = ty["min_items"] or 0, ty["max_items"]
            item = self._converter(ty["items"])

            def array(v: Value, prefix: str, key: str) -> object:
                if type(v) is list and alo <= len(v) and (ahi is None or len(v) <= ahi):
                    return tuple(
                        item(x, prefix, f"{key}[{i}]") for i, x in enumerate(v)
                    )
                refuse(v, prefix, key)

            return array
        if kind in ("any", "null", "const", "union"):
            return self._json_converter(ty, refuse)
        rules = ty["object"]

        def obj(v: Value, prefix: str, key: str) -> object:
            if isinstance(v, Pairs):
                return self._object(rules, None, v, f"{prefix}{key}: ", True)
            refuse(v, prefix, key)

        return obj

    def _json_converter(
        self, ty: Mapping[str, Any], refuse: Callable[[Value, str, str], NoReturn]
    ) -> Converter:
        """`_converter` for the kinds whose typed value is JSON (any, null, const, unions),
        as interp.rs converts them."""
        kind = ty["kind"]
        if kind == "any":

            def any_value(v: Value, prefix: str, key: str) -> object:
                return to_data(v)

            return any_value
        if kind == "null":

            def null(v: Value, prefix: str, key: str) -> object:
                return None if v is None else refuse(v, prefix, key)

            return null
        if kind == "const":
            const_value: object = ty["value"]

            # An array or object constant is copied into each call (not shared with the plan).
            shared = not isinstance(const_value, (list, dict))

            def const(v: Value, prefix: str, key: str) -> object:
                if json_equal(to_data(v), const_value):
                    return const_value if shared else copy.deepcopy(const_value)
                refuse(v, prefix, key)

            return const
        branches = [self._converter(b) for b in ty["branches"]]
        one: bool = ty["one"]
        ambiguous = f": expected {ty['ambiguous']}"

        def union(v: Value, prefix: str, key: str) -> object:
            accepted: object = _NONE
            for branch in branches:
                try:
                    x = branch(v, prefix, key)
                except CallError:
                    continue
                if not one:
                    return x
                if accepted is not _NONE:
                    raise invalid(f"{prefix}{key}{ambiguous}", v)
                accepted = x
            if accepted is _NONE:
                refuse(v, prefix, key)
            return accepted

        return union

    # Published bytes --------------------------------------------------------------------

    def _published(
        self, role: str, family: str, dialect: str | None
    ) -> Mapping[str, Any]:
        s = self.surfaces.get((role, family))
        if s is None:
            raise ValueError(f"no surface for role `{role}` × family `{family}`")
        if dialect is None or dialect == s["published"]["dialect"]:
            return s["published"]
        if dialect == "mcp":
            return s["mcp"]
        raise ValueError(f"dialect {dialect} is not in the plan (its own, or mcp)")

    def _array(self, tools: Sequence[Mapping[str, Any]]) -> str:
        texts: list[str] = [self.json[t["json"]] for t in tools]
        return "[" + ",".join(texts) + "]"

    def published_refs(
        self, role: str, family: str, dialect: str | None = None
    ) -> list[Mapping[str, Any]]:
        """The published tools in order: resident, then under `defer` and `allow_list`
        each offered skill's (a tool two skills share, once)."""
        p = self._published(role, family, dialect)
        tools = list(p["tools"])
        if p["strategy"] != "append":
            for k in p["skills"]:
                for t in k["tools"]:
                    if all(x["name"] != t["name"] for x in tools):
                        tools.append(t)
        return tools

    def published(self, role: str, family: str, dialect: str | None = None) -> str:
        p = self._published(role, family, dialect)
        if p["bytes"] is not None:
            return p["bytes"]
        return self._array(self.published_refs(role, family, dialect))

    def with_skills(
        self, role: str, family: str, active: Sequence[str], dialect: str | None = None
    ) -> str:
        p = self._published(role, family, dialect)
        tools = list(p["tools"])
        for name in active:
            k = next((k for k in p["skills"] if k["name"] == name), None)
            if k is None:
                raise ValueError(f"role `{role}` offers no skill `{name}`")
            for t in k["tools"]:
                if all(x["name"] != t["name"] for x in tools):
                    tools.append(t)
        if p["strategy"] != "append":
            return self.published(role, family, dialect)
        return self._array(tools)

    def request(self, role: str, family: str, turn: str, active: Sequence[str]) -> str:
        tools = self.with_skills(role, family, active)
        p = self._published(role, family, None)
        parts = next((r for r in p["requests"] if r["turn"] == turn), None)
        if parts is None:
            kinds = ", ".join(r["turn"] for r in p["requests"])
            raise ValueError(f"unknown turn kind `{turn}` (expected one of {kinds})")
        restriction = ""
        r = parts["restriction"]
        if r is not None:
            entries: list[str] = list(r["resident"])
            for skill, skill_entries in r["skills"]:
                if skill in active:
                    for e in skill_entries:
                        if e not in entries:
                            entries.append(e)
            restriction = (
                r["open"] + ",".join(entries) + r["close"] if entries else r["none"]
            )
        return (
            parts["open"] + tools + parts["close_tools"] + restriction + parts["tail"]
        )
