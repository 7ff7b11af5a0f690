// The kernel of the generated TypeScript host: a hand-written port of toolsurface's Rust
// kernel (kernel/src/lib.rs, kernel/src/scan.rs, its walk kernel/src/walk.rs, text/src/lib.rs)
// and of the plan interpreter's name rules (compiler/src/plan/interp.rs). `toolsurface gen typescript` writes it verbatim
// beside the plan data; the walk reads that data, so no rule is written here twice.
//
// What must match Rust byte for byte: the JSON reading (duplicate keys kept in input order,
// number lexemes kept, serde_json 1.0's error texts and positions in UTF-8 bytes), the value
// rendering of `got …` (zmij's float layout, the 60-character cut counted in code points), the
// did-you-mean policy (strsim's Jaro-Winkler and Levenshtein) and every refusal's wording.

// ---------------------------------------------------------------------------------------
// The plan data (the subset of `toolsurface plan` the walk reads).

export type TypePlan =
  | {
      readonly kind: "string";
      readonly min_length: number | null;
      readonly max_length: number | null;
      readonly pattern: string | null;
      readonly expected: string;
    }
  | {
      readonly kind: "integer";
      readonly minimum: number | null;
      readonly maximum: number | null;
      readonly expected: string;
    }
  | {
      readonly kind: "number";
      readonly minimum: number | null;
      readonly maximum: number | null;
      readonly expected: string;
    }
  | { readonly kind: "boolean" }
  | { readonly kind: "enum"; readonly values: readonly string[]; readonly expected: string }
  | {
      readonly kind: "array";
      readonly items: TypePlan;
      readonly min_items: number | null;
      readonly max_items: number | null;
      readonly expected: string;
    }
  | { readonly kind: "object"; readonly object: ObjectPlan }
  | { readonly kind: "any" }
  | { readonly kind: "null" }
  | {
      readonly kind: "const";
      readonly value: unknown;
      /** The constant as serde_json writes it (`1.0` stays `1.0`; JavaScript would say `1`). */
      readonly json: string;
      readonly expected: string;
    }
  | {
      readonly kind: "union";
      readonly branches: readonly TypePlan[];
      readonly one: boolean;
      readonly expected: string;
      readonly ambiguous: string;
    };

export interface FieldPlan {
  readonly name: string;
  readonly required: boolean;
  readonly ty: TypePlan;
  /** The definition's `default:` (an optional field): what a typed request holds when the
   * call leaves the field out. Parsing never applies it. */
  readonly default?: unknown;
}

export interface MemberPlan {
  readonly field: string;
  readonly presence: "always" | "given" | "true" | "never";
}

export interface ObjectPlan {
  readonly fields: readonly FieldPlan[];
  readonly belongs: readonly { readonly field: string; readonly actions: string }[];
  readonly exactly_one_of: readonly (readonly MemberPlan[])[];
  readonly forbidden_with: readonly {
    readonly field: MemberPlan;
    readonly with: MemberPlan;
    readonly message: string;
  }[];
  /** The type of an open object's other keys (absent: they are refused). */
  readonly additional?: TypePlan;
}

export interface ActionPlan {
  readonly name: string | null;
  readonly prefix: string;
  readonly traits: { readonly [name: string]: boolean | string };
  readonly object: ObjectPlan;
}

export interface ToolPlan {
  readonly name: string;
  readonly selector: string | null;
  readonly expected_actions: string;
  readonly freeform: { readonly field: string; readonly families: readonly string[] } | null;
  readonly actions: readonly ActionPlan[];
}

export interface CallPlan {
  readonly activation_tool: string;
  /** The family names, `surface.yaml` order. */
  readonly families: readonly string[];
  readonly tools: readonly ToolPlan[];
  readonly aliases: readonly {
    readonly name: string;
    readonly tool: string;
    readonly rename: readonly (readonly [string, string])[];
    readonly set: readonly (readonly [string, unknown])[];
  }[];
  readonly retired: readonly { readonly name: string; readonly message: string }[];
  readonly skills: readonly { readonly name: string }[];
  readonly roles: readonly { readonly name: string; readonly skills: readonly string[] }[];
  readonly surfaces: readonly {
    readonly role: string;
    readonly family: string;
    readonly resident: readonly string[];
    readonly skills: readonly { readonly skill: string; readonly tools: readonly string[] }[];
  }[];
}

/** Published bytes of one surface in one dialect; strings are indices into the string table. */
export interface PublishedData {
  readonly dialect: string;
  readonly strategy: string;
  /** The tools array: a literal, or `[` + these strings joined by `,` + `]`. */
  readonly bytes: string | readonly number[];
  readonly tools: readonly { readonly name: string; readonly json: number }[];
  readonly skills: readonly {
    readonly name: string;
    readonly tools: readonly { readonly name: string; readonly json: number }[];
  }[];
  readonly requests: readonly {
    readonly turn: string;
    readonly open: string;
    readonly close_tools: string;
    readonly restriction: {
      readonly open: string;
      readonly close: string;
      readonly none: string;
      readonly resident: readonly string[];
      readonly skills: readonly (readonly [string, readonly string[]])[];
    } | null;
    readonly tail: string;
  }[];
}

// ---------------------------------------------------------------------------------------
// Values as the walk sees them (kernel `Val`): objects keep every member in input order.

/** A JSON number: `i` an integer that fits i64, `u` one that fits only u64, `f` a float. */
export class Num {
  readonly kind: "i" | "u" | "f";
  /** The value as a double (exact for floats and for integers within ±2^53). */
  readonly f: number;
  /** The decimal digits of an integer (`-12`); empty for a float. */
  readonly lex: string;
  constructor(kind: "i" | "u" | "f", f: number, lex: string) {
    this.kind = kind;
    this.f = f;
    this.lex = lex;
  }
}

/** A JSON object's members, in input order, duplicates kept. */
export class Obj {
  readonly pairs: [string, Val][];
  constructor(pairs: [string, Val][]) {
    this.pairs = pairs;
  }
}

export type Val = null | boolean | string | Num | Val[] | Obj;

const TWO53 = 9007199254740992;

function intNum(lex: string): Num {
  if (lex.length <= 15) return new Num("i", Number(lex), lex);
  const big = BigInt(lex);
  const kind = big <= 9223372036854775807n ? "i" : "u";
  return new Num(kind, Number(lex), lex);
}

// ---------------------------------------------------------------------------------------
// JSON reading: first kernel/src/scan.rs (the fast path, on the JS string), then, where it
// gives up, serde_json's deserializer (on the UTF-8 bytes; it defines the value and the error).

const MAX_DEPTH = 128;

/** A one-character JSON escape's character (`n` → newline), or undefined; `u` is not one. */
function shortEscape(c: number): string | undefined {
  switch (c) {
    case 34:
      return '"';
    case 92:
      return "\\";
    case 47:
      return "/";
    case 98:
      return "\b";
    case 102:
      return "\f";
    case 110:
      return "\n";
    case 114:
      return "\r";
    case 116:
      return "\t";
    default:
      return undefined;
  }
}

/** The value of a hex digit's code unit, or -1. */
function hexDigit(c: number): number {
  return c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
}

class Scanner {
  at = 0;
  readonly s: string;
  constructor(s: string) {
    this.s = s;
  }

  ws(): void {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.at);
      if (c === 32 || c === 10 || c === 13 || c === 9) this.at++;
      else return;
    }
  }

  value(depth: number): Val | undefined {
    const c = this.s.charCodeAt(this.at);
    switch (c) {
      case 123:
        return this.object(depth + 1);
      case 91:
        return this.array(depth + 1);
      case 34:
        return this.string();
      case 116:
        return this.word("true", true);
      case 102:
        return this.word("false", false);
      case 110:
        return this.word("null", null);
      default:
        if (c === 45 || (c >= 48 && c <= 57)) return this.number();
        return undefined;
    }
  }

  word(w: string, v: Val): Val | undefined {
    if (this.s.startsWith(w, this.at)) {
      this.at += w.length;
      return v;
    }
    return undefined;
  }

  string(): string | undefined {
    const s = this.s;
    if (s.charCodeAt(this.at) !== 34) return undefined;
    const start = this.at + 1;
    let j = start;
    for (;;) {
      const c = s.charCodeAt(j);
      if (c === 34) break;
      if (c === 92) return this.escaped(start, j);
      if (c !== c || c < 0x20) return undefined; // NaN: end of text
      j++;
    }
    this.at = j + 1;
    return s.slice(start, j);
  }

  /**
   * The rest of a string with escapes (`j` at the first backslash), decoded as serde_json
   * decodes them. A `\u` escape of a surrogate, a control character or a bad escape goes to
   * serde_json (it words the error, or pairs the surrogates): `undefined`.
   */
  escaped(start: number, j: number): string | undefined {
    const s = this.s;
    let out = s.slice(start, j);
    let run = j;
    for (;;) {
      const c = s.charCodeAt(j);
      if (c === 34) {
        this.at = j + 1;
        return out + s.slice(run, j);
      }
      if (c !== c || c < 0x20) return undefined;
      if (c !== 92) {
        j++;
        continue;
      }
      out += s.slice(run, j);
      const e = s.charCodeAt(j + 1);
      let d: string | undefined;
      if (e === 117) {
        let u = 0;
        for (let k = 2; k < 6; k++) {
          const x = hexDigit(s.charCodeAt(j + k));
          if (x < 0) return undefined;
          u = u * 16 + x;
        }
        if (u >= 0xd800 && u <= 0xdfff) return undefined;
        d = String.fromCharCode(u);
        j += 4;
      } else {
        d = shortEscape(e);
        if (d === undefined) return undefined;
      }
      out += d;
      j += 2;
      run = j;
    }
  }

  digits(): number {
    const start = this.at;
    for (;;) {
      const c = this.s.charCodeAt(this.at);
      if (c >= 48 && c <= 57) this.at++;
      else return this.at - start;
    }
  }

  number(): Val | undefined {
    const s = this.s;
    const start = this.at;
    const negative = s.charCodeAt(this.at) === 45;
    if (negative) this.at++;
    const digitsStart = this.at;
    const c = s.charCodeAt(this.at);
    if (c === 48) this.at++;
    else if (c >= 49 && c <= 57) this.digits();
    else return undefined;
    const intLen = this.at - digitsStart;
    let float = false;
    if (s.charCodeAt(this.at) === 46) {
      this.at++;
      if (this.digits() === 0) return undefined;
      float = true;
    }
    const e = s.charCodeAt(this.at);
    if (e === 101 || e === 69) {
      this.at++;
      const sign = s.charCodeAt(this.at);
      if (sign === 43 || sign === 45) this.at++;
      if (this.digits() === 0) return undefined;
      float = true;
    }
    const text = s.slice(start, this.at);
    if (float) {
      const f = Number(text);
      return Number.isFinite(f) ? new Num("f", f, "") : undefined;
    }
    if (intLen > 18) return undefined;
    if (negative && intLen === 1 && s.charCodeAt(digitsStart) === 48) {
      return new Num("f", -0, "");
    }
    return intLen <= 15 ? new Num("i", Number(text), text) : intNum(text);
  }

  array(depth: number): Val | undefined {
    if (depth > MAX_DEPTH) return undefined;
    this.at++;
    this.ws();
    const out: Val[] = [];
    if (this.s.charCodeAt(this.at) === 93) {
      this.at++;
      return out;
    }
    for (;;) {
      this.ws();
      const v = this.value(depth);
      if (v === undefined) return undefined;
      out.push(v);
      this.ws();
      const c = this.s.charCodeAt(this.at);
      if (c === 44) this.at++;
      else if (c === 93) {
        this.at++;
        return out;
      } else return undefined;
    }
  }

  object(depth: number): Val | undefined {
    if (depth > MAX_DEPTH) return undefined;
    this.at++;
    this.ws();
    const out: [string, Val][] = [];
    if (this.s.charCodeAt(this.at) === 125) {
      this.at++;
      return new Obj(out);
    }
    for (;;) {
      this.ws();
      const key = this.string();
      if (key === undefined) return undefined;
      this.ws();
      if (this.s.charCodeAt(this.at) !== 58) return undefined;
      this.at++;
      this.ws();
      const v = this.value(depth);
      if (v === undefined) return undefined;
      out.push([key, v]);
      this.ws();
      const c = this.s.charCodeAt(this.at);
      if (c === 44) this.at++;
      else if (c === 125) {
        this.at++;
        return new Obj(out);
      } else return undefined;
    }
  }
}

/** kernel `scan`: the value of `text`, or `undefined` where serde_json must decide. */
function scan(text: string): Val | undefined {
  const s = new Scanner(text);
  s.ws();
  const v = s.value(0);
  if (v === undefined) return undefined;
  s.ws();
  return s.at === text.length ? v : undefined;
}

class JsonError {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

const U64_MAX = 18446744073709551615n;
const I32_MAX = 2147483647;
// `ignoreBOM`: a string value that starts with U+FEFF keeps it (by default each decode drops
// a leading one, and `"\ufeff{}"` would read as `"{}"`).
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });
const ENCODER = new TextEncoder();

/** What `SerdeReader.value` returns for an error (the error itself is in `err`). */
const FAIL: unique symbol = Symbol("fail");

/** serde_json's `Deserializer<StrRead>` reading a `Val`, with its errors. */
class SerdeReader {
  i = 0;
  /** The error of a read that returned `FAIL`. */
  err: JsonError | undefined;
  remainingDepth = 128;
  /** Where the number being read starts (its sign included). */
  numStart = 0;
  readonly b: Uint8Array;
  constructor(b: Uint8Array) {
    this.b = b;
  }

  peek(): number {
    return this.i < this.b.length ? (this.b[this.i] as number) : -1;
  }

  at(index: number, code: string): JsonError {
    const b = this.b;
    let startOfLine = 0;
    for (let j = index - 1; j >= 0; j--) {
      if (b[j] === 10) {
        startOfLine = j + 1;
        break;
      }
    }
    let line = 1;
    for (let j = 0; j < startOfLine; j++) if (b[j] === 10) line++;
    return new JsonError(`${code} at line ${line} column ${index - startOfLine}`);
  }

  error(code: string): JsonError {
    return this.at(this.i, code);
  }

  peekError(code: string): JsonError {
    return this.at(Math.min(this.b.length, this.i + 1), code);
  }

  ws(): number {
    for (;;) {
      const c = this.peek();
      if (c === 32 || c === 10 || c === 9 || c === 13) this.i++;
      else return c;
    }
  }

  peekOrNull(): number {
    const c = this.peek();
    return c < 0 ? 0 : c;
  }

  /**
   * A value, or `FAIL` with the error in `err`. Errors are thrown where they are found and
   * caught here, one frame up: a throw through every nested frame costs ~0.3 µs a frame in
   * V8 (40 µs for the recursion limit at depth 128).
   */
  value(): Val | typeof FAIL {
    try {
      return this.node();
    } catch (e) {
      if (!(e instanceof JsonError)) throw e;
      this.err = e;
      return FAIL;
    }
  }

  node(): Val | typeof FAIL {
    const peek = this.ws();
    if (peek < 0) throw this.peekError("EOF while parsing a value");
    switch (peek) {
      case 110:
        this.i++;
        this.ident("ull");
        return null;
      case 116:
        this.i++;
        this.ident("rue");
        return true;
      case 102:
        this.i++;
        this.ident("alse");
        return false;
      case 45:
        this.numStart = this.i;
        this.i++;
        return this.integer(false);
      case 34:
        this.i++;
        return this.str();
      case 91: {
        this.enter();
        this.i++;
        const out: Val[] = [];
        let first = true;
        for (;;) {
          const c = this.ws();
          if (c < 0) throw this.peekError("EOF while parsing a list");
          if (c === 93) break;
          if (first) first = false;
          else if (c === 44) {
            this.i++;
            const d = this.ws();
            if (d === 93) throw this.peekError("trailing comma");
            if (d < 0) throw this.peekError("EOF while parsing a value");
          } else throw this.peekError("expected `,` or `]`");
          const v = this.value();
          if (v === FAIL) return FAIL;
          out.push(v);
        }
        this.remainingDepth++;
        this.endSeq();
        return out;
      }
      case 123: {
        this.enter();
        this.i++;
        const out: [string, Val][] = [];
        let first = true;
        for (;;) {
          const c = this.ws();
          if (c < 0) throw this.peekError("EOF while parsing an object");
          if (c === 125) break;
          if (first) {
            first = false;
            if (c !== 34) throw this.peekError("key must be a string");
          } else if (c === 44) {
            this.i++;
            const d = this.ws();
            if (d === 125) throw this.peekError("trailing comma");
            if (d < 0) throw this.peekError("EOF while parsing a value");
            if (d !== 34) throw this.peekError("key must be a string");
          } else throw this.peekError("expected `,` or `}`");
          this.i++;
          const key = this.str();
          const colon = this.ws();
          if (colon === 58) this.i++;
          else if (colon < 0) throw this.peekError("EOF while parsing an object");
          else throw this.peekError("expected `:`");
          const v = this.value();
          if (v === FAIL) return FAIL;
          out.push([key, v]);
        }
        this.remainingDepth++;
        this.endMap();
        return new Obj(out);
      }
      default:
        if (peek >= 48 && peek <= 57) {
          this.numStart = this.i;
          return this.integer(true);
        }
        throw this.peekError("expected value");
    }
  }

  enter(): void {
    this.remainingDepth--;
    if (this.remainingDepth === 0) throw this.peekError("recursion limit exceeded");
  }

  endSeq(): void {
    const c = this.ws();
    if (c === 93) {
      this.i++;
      return;
    }
    if (c === 44) {
      this.i++;
      if (this.ws() === 93) throw this.peekError("trailing comma");
      throw this.peekError("trailing characters");
    }
    if (c < 0) throw this.peekError("EOF while parsing a list");
    throw this.peekError("trailing characters");
  }

  endMap(): void {
    const c = this.ws();
    if (c === 125) {
      this.i++;
      return;
    }
    if (c === 44) throw this.peekError("trailing comma");
    if (c < 0) throw this.peekError("EOF while parsing an object");
    throw this.peekError("trailing characters");
  }

  ident(rest: string): void {
    for (let k = 0; k < rest.length; k++) {
      if (this.i >= this.b.length) throw this.error("EOF while parsing a value");
      const next = this.b[this.i++];
      if (next !== rest.charCodeAt(k)) throw this.error("expected ident");
    }
  }

  // Numbers: serde_json's parse_integer / parse_decimal / parse_exponent, with the
  // significand reduced to what decides the outcome. The value of a float is the whole
  // number text read back (fromParts), so only two facts of the significand matter: whether
  // it is zero (an overflowing exponent of zero is 0, not out of range) and, for an integer,
  // whether it fits u64 (19 digits always do, 21 never; 20 are compared as a BigInt).

  integer(positive: boolean): Val {
    const b = this.b;
    if (this.i >= b.length) throw this.error("EOF while parsing a value");
    const next = b[this.i++] as number;
    if (next === 48) {
      const c = this.peekOrNull();
      if (c >= 48 && c <= 57) throw this.peekError("invalid number");
      return this.number(positive, true);
    }
    if (next >= 49 && next <= 57) {
      for (;;) {
        const c = this.peekOrNull();
        if (c >= 48 && c <= 57) this.i++;
        else return this.number(positive, false);
      }
    }
    throw this.error("invalid number");
  }

  number(positive: boolean, zero: boolean): Val {
    const c = this.peekOrNull();
    if (c === 46) return new Num("f", this.decimal(zero), "");
    if (c === 101 || c === 69) return new Num("f", this.exponent(zero), "");
    const digitsStart = positive ? this.numStart : this.numStart + 1;
    const digits = this.ascii(digitsStart, this.i);
    if (digits.length > 20 || (digits.length === 20 && BigInt(digits) > U64_MAX)) {
      return new Num("f", this.fromParts(), "");
    }
    if (positive) return intNum(digits);
    if (zero || (digits.length >= 19 && BigInt(digits) > 9223372036854775808n)) {
      return new Num("f", -Number(digits), "");
    }
    return intNum(`-${digits}`);
  }

  decimal(zero: boolean): number {
    this.i++;
    const start = this.i;
    for (;;) {
      const c = this.peekOrNull();
      if (!(c >= 48 && c <= 57)) break;
      if (c !== 48) zero = false;
      this.i++;
    }
    if (this.i === start) {
      if (this.peek() >= 0) throw this.peekError("invalid number");
      throw this.peekError("EOF while parsing a value");
    }
    const c = this.peekOrNull();
    if (c === 101 || c === 69) return this.exponent(zero);
    return this.fromParts();
  }

  exponent(zero: boolean): number {
    this.i++;
    let positiveExp = true;
    const s = this.peekOrNull();
    if (s === 43) this.i++;
    else if (s === 45) {
      this.i++;
      positiveExp = false;
    }
    if (this.i >= this.b.length) throw this.error("EOF while parsing a value");
    const next = this.b[this.i++] as number;
    if (!(next >= 48 && next <= 57)) throw this.error("invalid number");
    let exp = next - 48;
    for (;;) {
      const c = this.peekOrNull();
      if (!(c >= 48 && c <= 57)) break;
      this.i++;
      const d = c - 48;
      if (exp * 10 + d > I32_MAX) return this.exponentOverflow(zero, positiveExp);
      exp = exp * 10 + d;
    }
    return this.fromParts();
  }

  /** An exponent past i32: out of range, or zero (a zero significand or a negative exponent). */
  exponentOverflow(zero: boolean, positiveExp: boolean): number {
    if (!zero && positiveExp) throw this.error("number out of range");
    for (;;) {
      const c = this.peekOrNull();
      if (c >= 48 && c <= 57) this.i++;
      else break;
    }
    return this.b[this.numStart] === 45 ? -0 : 0;
  }

  /** serde_json's `f64_from_parts` with `float_roundtrip` (the toolsurface workspace turns it
   * on): the whole number text read back to the nearest double, `number out of range` when
   * that is infinite. JavaScript's number parsing rounds correctly, as serde_json's does. */
  /** The bytes `from..to` of a number's text (ASCII) as a string. */
  ascii(from: number, to: number): string {
    let out = "";
    for (let k = from; k < to; k++) out += String.fromCharCode(this.b[k] as number);
    return out;
  }

  fromParts(): number {
    const text = this.ascii(this.numStart, this.i);
    const f = Number(text);
    if (!Number.isFinite(f)) throw this.error("number out of range");
    return f;
  }

  str(): string {
    const b = this.b;
    const parts: string[] = [];
    let start = this.i;
    for (;;) {
      let c = -1;
      while (this.i < b.length) {
        c = b[this.i] as number;
        if (c === 34 || c === 92 || c < 0x20) break;
        this.i++;
      }
      if (this.i === b.length) throw this.error("EOF while parsing a string");
      if (c === 34) {
        parts.push(UTF8.decode(b.subarray(start, this.i)));
        this.i++;
        return parts.length === 1 ? (parts[0] as string) : parts.join("");
      }
      if (c === 92) {
        parts.push(UTF8.decode(b.subarray(start, this.i)));
        this.i++;
        parts.push(this.escape());
        start = this.i;
      } else {
        this.i++;
        throw this.error("control character (\\u0000-\\u001F) found while parsing a string");
      }
    }
  }

  escape(): string {
    if (this.i >= this.b.length) throw this.error("EOF while parsing a string");
    const ch = this.b[this.i++] as number;
    if (ch === 117) return this.unicodeEscape();
    const d = shortEscape(ch);
    if (d === undefined) throw this.error("invalid escape");
    return d;
  }

  hex(): number {
    const b = this.b;
    if (this.i + 4 > b.length) {
      this.i = b.length;
      throw this.error("EOF while parsing a string");
    }
    let n = 0;
    let ok = true;
    for (let k = 0; k < 4; k++) {
      const c = b[this.i + k] as number;
      const d = hexDigit(c);
      if (d < 0) ok = false;
      n = n * 16 + d;
    }
    this.i += 4;
    if (!ok) throw this.error("invalid escape");
    return n;
  }

  unicodeEscape(): string {
    const n = this.hex();
    if (n >= 0xdc00 && n <= 0xdfff) throw this.error("lone leading surrogate in hex escape");
    if (n < 0xd800 || n > 0xdbff) return String.fromCharCode(n);
    if (this.i >= this.b.length) throw this.error("EOF while parsing a string");
    if (this.b[this.i] === 92) this.i++;
    else {
      this.i++;
      throw this.error("unexpected end of hex escape");
    }
    if (this.i >= this.b.length) throw this.error("EOF while parsing a string");
    if (this.b[this.i] === 117) this.i++;
    else {
      this.i++;
      throw this.error("unexpected end of hex escape");
    }
    const n2 = this.hex();
    if (n2 < 0xdc00 || n2 > 0xdfff) throw this.error("lone leading surrogate in hex escape");
    return String.fromCharCode(n, n2);
  }
}

/** serde_json's reading of a whole text as a `Val` (`Val::deserialize` then `end`). */
function serdeRead(text: string): Val | JsonError {
  const r = new SerdeReader(ENCODER.encode(text));
  const v = r.value();
  if (v === FAIL) return r.err ?? r.error("unknown error");
  if (r.ws() >= 0) return r.peekError("trailing characters");
  return v;
}

/**
 * A JSON text read as `serde_json::from_str` reads it (duplicate keys kept in input order,
 * number lexemes kept), or the error text serde_json gives (`expected value at line 1 column 2`).
 */
export function readJson(text: string): { ok: true; value: Val } | { ok: false; message: string } {
  const v = serdeRead(text);
  return v instanceof JsonError ? { ok: false, message: v.message } : { ok: true, value: v };
}

/** Rust's `str::trim` (Unicode White_Space), to tell an empty arguments text. */
function isRustBlank(s: string): boolean {
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    const white =
      (c >= 9 && c <= 13) ||
      c === 32 ||
      c === 0x85 ||
      c === 0xa0 ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000;
    if (!white) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// Text: value rendering, cut, did-you-mean (text/src/lib.rs, kernel `describe`).

/** `s` cut after `max` code points, with `…` appended when anything was cut. */
export function cut(s: string, max: number): string {
  let n = 0;
  for (let k = 0; k < s.length; k++) {
    if (n === max) return `${s.slice(0, k)}…`;
    const c = s.charCodeAt(k);
    if (c >= 0xd800 && c <= 0xdbff && k + 1 < s.length) {
      const d = s.charCodeAt(k + 1);
      if (d >= 0xdc00 && d <= 0xdfff) k++;
    }
    n++;
  }
  return s;
}

/** A double as serde_json 1.0.154 prints it (zmij): `5.0`, `1e+100`, `1.5e-7`, `-0.0`. */
export function formatFloat(x: number): string {
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const s = String(Math.abs(x));
  const ePos = s.indexOf("e");
  const mant = ePos < 0 ? s : s.slice(0, ePos);
  const exp = ePos < 0 ? 0 : Number(s.slice(ePos + 1));
  const dot = mant.indexOf(".");
  const intPart = dot < 0 ? mant : mant.slice(0, dot);
  let digits = intPart + (dot < 0 ? "" : mant.slice(dot + 1));
  let point = intPart.length + exp;
  let lead = 0;
  while (lead < digits.length - 1 && digits[lead] === "0") lead++;
  digits = digits.slice(lead);
  point -= lead;
  digits = digits.replace(/0+$/, "");
  if (digits === "") digits = "0";
  const length = digits.length;
  const kk = point;
  const k = kk - length;
  let out: string;
  if (k >= 0 && kk <= 16) out = `${digits}${"0".repeat(k)}.0`;
  else if (kk > 0 && kk <= 16) out = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -5 && kk <= 0) out = `0.${"0".repeat(-kk)}${digits}`;
  else {
    const e = kk - 1;
    const mantissa = length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    out = `${mantissa}e${e >= 0 ? "+" : ""}${e}`;
  }
  return sign + out;
}

/** kernel `describe`: a short rendering of a value for `got …`. */
export function describe(v: Val): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return JSON.stringify(cut(v, 60));
  if (v instanceof Num) return v.kind === "f" ? formatFloat(v.f) : v.lex;
  if (Array.isArray(v)) return `an array of ${v.length} item${v.length === 1 ? "" : "s"}`;
  return "an object";
}

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0) as number);
  return out;
}

function asciiLower(s: string): string {
  let out = "";
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    out += c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : s[k];
  }
  return out;
}

// Scratch for jaro's match flags and levenshtein's row, grown as needed and reused: the
// did-you-mean hint runs them against every candidate of a refused name.
let FLAGS = new Uint8Array(64);
let ROW = new Int32Array(64);

function jaro(a: number[], b: number[]): number {
  const aLen = a.length;
  const bLen = b.length;
  if (aLen === 0 && bLen === 0) return 1;
  if (aLen === 0 || bLen === 0) return 0;
  const range = Math.max(0, Math.floor(Math.max(aLen, bLen) / 2) - 1);
  if (FLAGS.length < aLen + bLen) FLAGS = new Uint8Array(2 * (aLen + bLen));
  const flags = FLAGS; // a's flags at 0.., b's at aLen..
  flags.fill(0, 0, aLen + bLen);
  let matches = 0;
  for (let i = 0; i < aLen; i++) {
    const lo = i > range ? i - range : 0;
    const hi = Math.min(bLen, i + range + 1);
    const x = a[i];
    for (let j = lo; j < hi; j++) {
      if (x === b[j] && flags[aLen + j] === 0) {
        flags[i] = 1;
        flags[aLen + j] = 1;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let j = 0;
  for (let i = 0; i < aLen; i++) {
    if (flags[i] === 0) continue;
    while (j < bLen && flags[aLen + j] === 0) j++;
    if (j < bLen) {
      if (a[i] !== b[j]) transpositions++;
      j++;
    }
  }
  transpositions = Math.floor(transpositions / 2);
  return (matches / aLen + matches / bLen + (matches - transpositions) / matches) / 3;
}

function jaroWinkler(a: number[], b: number[]): number {
  const sim = jaro(a, b);
  if (sim <= 0.7) return sim;
  let prefix = 0;
  while (prefix < 4 && prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  return sim + 0.1 * prefix * (1 - sim);
}

/** strsim's levenshtein; `Math.abs(a.length - b.length)` is a lower bound callers may test first. */
function levenshtein(a: number[], b: number[]): number {
  const bLen = b.length;
  if (ROW.length < bLen) ROW = new Int32Array(2 * bLen);
  const row = ROW;
  for (let j = 0; j < bLen; j++) row[j] = j + 1;
  let result = bLen;
  for (let i = 0; i < a.length; i++) {
    result = i + 1;
    let distanceB = i;
    const x = a[i];
    for (let j = 0; j < bLen; j++) {
      const distanceA = distanceB + (x === b[j] ? 0 : 1);
      distanceB = row[j] as number;
      const r = result + 1;
      const m = distanceA < distanceB + 1 ? distanceA : distanceB + 1;
      result = r < m ? r : m;
      row[j] = result;
    }
  }
  return result;
}

function byteOrder(a: string, b: string): number {
  // Rust compares str by UTF-8 bytes, which orders like code points.
  const x = codePoints(a);
  const y = codePoints(b);
  for (let k = 0; k < Math.min(x.length, y.length); k++) {
    if (x[k] !== y[k]) return (x[k] as number) - (y[k] as number);
  }
  return x.length - y.length;
}

/** The one candidate close enough to `name` to suggest (Jaro-Winkler ≥ 0.8 or ≤ 2 edits). */
const LOWERED = new Map<string, number[]>();

/** A candidate's lowercase code points, computed once (candidates are the plan's names). */
function lowered(c: string): number[] {
  let v = LOWERED.get(c);
  if (v === undefined) {
    v = codePoints(asciiLower(c));
    if (LOWERED.size < 4096) LOWERED.set(c, v);
  }
  return v;
}

export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  const a = codePoints(asciiLower(name));
  let best: [number, string] | undefined;
  for (const c of candidates) {
    if (c === name) continue;
    const b = lowered(c);
    const jw = jaroWinkler(a, b);
    if (!(jw >= 0.8 || (Math.abs(a.length - b.length) <= 2 && levenshtein(a, b) <= 2))) continue;
    if (best === undefined || jw > best[0] || (jw === best[0] && byteOrder(c, best[1]) < 0)) {
      best = [jw, c];
    }
  }
  return best?.[1];
}

// ---------------------------------------------------------------------------------------
// Refusals (kernel/src/lib.rs: one function per text).

export type RefusalKind =
  | "UnknownTool"
  | "Retired"
  | "NotOffered"
  | "InvalidJson"
  | "NotAnObject"
  | "MissingSelector"
  | "UnknownAction"
  | "UnexpectedField"
  | "DuplicateField"
  | "MissingField"
  | "InvalidValue"
  | "Constraint"
  /** The role, family or a skill asked for is not in the definitions. */
  | "Scope";

export class Refusal {
  readonly kind: RefusalKind;
  readonly message: string;
  constructor(kind: RefusalKind, message: string) {
    this.kind = kind;
    this.message = message;
  }
}

const invalid = (ctx: string, v: Val) => new Refusal("InvalidValue", `${ctx}, got ${describe(v)}`);
const missing = (prefix: string, field: string) =>
  new Refusal("MissingField", `${prefix}missing field ${field}`);
const duplicate = (prefix: string, field: string) =>
  new Refusal("DuplicateField", `${prefix}duplicate field ${field}`);
const constraint = (prefix: string, message: string) =>
  new Refusal("Constraint", `${prefix}${message}`);

function exactlyOne(prefix: string, group: string[], given: string[]): Refusal {
  const got = given.length === 0 ? "none" : given.join(" and ");
  return constraint(prefix, `expected exactly one of ${group.join(", ")}; got ${got}`);
}

function unexpectedField(prefix: string, key: string, rules: ObjectPlan): Refusal {
  const accepted = rules.fields.map((f) => f.name);
  const belongs = rules.belongs.find((b) => b.field === key);
  let hint: string;
  if (belongs !== undefined) hint = ` (it belongs to ${belongs.actions})`;
  else {
    const near = didYouMean(key, accepted);
    if (near !== undefined) hint = ` (did you mean ${near}?)`;
    else if (accepted.length === 0) hint = " (it takes no fields)";
    else hint = ` (expected one of ${accepted.join(", ")})`;
  }
  return new Refusal("UnexpectedField", `${prefix}unexpected field ${key}${hint}`);
}

function notAnObject(tool: string, v: Val): Refusal {
  return new Refusal("NotAnObject", `${tool}: arguments must be a JSON object, got ${describe(v)}`);
}

// ---------------------------------------------------------------------------------------
// Arguments: the text path (full fidelity) and the object path (what JSON.parse left).

/** The members of an arguments text (kernel `pairs_of_text`). */
function pairsOfText(s: string, tool: string): [string, Val][] | Refusal {
  if (isRustBlank(s)) return [];
  let v = scan(s);
  if (v === undefined) {
    const read = serdeRead(s);
    if (read instanceof JsonError) {
      return new Refusal("InvalidJson", `${tool}: arguments are not valid JSON (${read.message})`);
    }
    v = read;
  }
  if (v instanceof Obj) return v.pairs;
  if (v === null) return [];
  return notAnObject(tool, v);
}

/** A number text as serde_json reads it (its own decimal-to-double conversion). */
function serdeNumber(text: string): Val {
  const v = serdeRead(text);
  return v instanceof JsonError ? null : v;
}

function bigNum(n: bigint): Num {
  return n >= -9223372036854775808n && n <= U64_MAX ? intNum(n.toString()) : new Num("f", Number(n), "");
}

/** A parsed JavaScript value as serde_json's `Value` would hold it, then as a `Val`. */
export function fromJs(x: unknown): Val {
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case "boolean":
    case "string":
      return x;
    case "number":
      // As serde_json reads `JSON.stringify(x)`: integral below 1e21 is an integer (-0 is 0).
      if (!Number.isFinite(x)) return null;
      if (Number.isInteger(x) && Math.abs(x) < 1e21) return bigNum(BigInt(String(x)));
      return serdeNumber(String(x));
    case "bigint":
      return bigNum(x);
    case "object": {
      if (Array.isArray(x)) return x.map((e) => (e === undefined ? null : fromJs(e)));
      const toJSON = (x as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function") return fromJs((toJSON as () => unknown).call(x));
      const pairs: [string, Val][] = [];
      for (const [k, e] of Object.entries(x as Record<string, unknown>)) {
        if (e === undefined || typeof e === "function" || typeof e === "symbol") continue;
        pairs.push([k, fromJs(e)]);
      }
      return new Obj(pairs);
    }
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------
// The walk (kernel/src/walk.rs `Walker`), building the typed call.

type Typed = unknown;

function asInt(v: Val): number | bigint | undefined {
  if (!(v instanceof Num)) return undefined;
  if (v.kind === "i") {
    // A number when the double is exact (every integer up to 2^53), else the exact bigint.
    return Math.abs(v.f) < TWO53 || String(v.f) === v.lex ? v.f : BigInt(v.lex);
  }
  if (v.kind === "f" && Number.isInteger(v.f) && Math.abs(v.f) <= TWO53) return v.f + 0;
  return undefined;
}

function asNum(v: Val): number | undefined {
  return v instanceof Num ? v.f : undefined;
}

function charsWithin(s: string, min: number, max: number): boolean {
  if (s.length <= max && Math.ceil(s.length / 2) >= min) return true;
  let n = 0;
  for (const _ of s) n++;
  return n >= min && n <= max;
}

function within(n: number | bigint, min: number | null, max: number | null): boolean {
  if (typeof n === "bigint") {
    return (min === null || n >= BigInt(min)) && (max === null || n <= BigInt(max));
  }
  return (min === null || n >= min) && (max === null || n <= max);
}

/** Whether a constraint member counts as given (plan `Presence`). */
function presentIn(m: MemberPlan, ix: ObjectIndex, values: readonly unknown[]): boolean {
  switch (m.presence) {
    case "always":
      return true;
    case "never":
      return false;
    default: {
      const k = ix.fields.get(m.field);
      const value = k === undefined ? undefined : values[k];
      return m.presence === "given" ? value !== undefined : value === true;
    }
  }
}

/**
 * The index of the field named `key`. A few fields are compared in turn: the key is a fresh
 * string from the arguments text, and hashing it for the map costs more than a handful of
 * comparisons that mostly fail on the length.
 */
function fieldIndex(fields: readonly FieldPlan[], ix: ObjectIndex, key: string): number | undefined {
  if (fields.length > 8) return ix.fields.get(key);
  for (let k = 0; k < fields.length; k++) if ((fields[k] as FieldPlan).name === key) return k;
  return undefined;
}

/**
 * Where an open object's typed value keeps its other keys (`additional_properties`): a map in
 * input order, after the fields when the call is written out.
 */
export const OTHER_KEYS: unique symbol = Symbol("toolsurface.otherKeys");

/**
 * A typed value of a kind whose value is JSON (any, null, const, unions) on its way into its
 * record or array: the plain JavaScript value, and its JSON text as serde_json writes the Rust
 * value (JavaScript cannot tell `5` from `5.0`, and orders integer-like keys first).
 */
class JsonTyped {
  readonly value: unknown;
  readonly text: string;
  constructor(value: unknown, text: string) {
    this.value = value;
    this.text = text;
  }
}

/** The JSON text of the JSON-kind value at `container[key]`, kept when it was stored. */
const JSON_TEXTS = new WeakMap<object, Map<string | number, string>>();

/** `c` stored at `container[key]`: a JSON-kind value unwrapped, its text kept. */
function unwrap(container: object, key: string | number, c: Typed): unknown {
  if (!(c instanceof JsonTyped)) return c;
  let texts = JSON_TEXTS.get(container);
  if (texts === undefined) {
    texts = new Map();
    JSON_TEXTS.set(container, texts);
  }
  texts.set(key, c.text);
  return c.value;
}

/** An object's members with a key given twice reduced to its last value (at its first place). */
function lastOfEach(o: Obj): Map<string, Val> {
  const m = new Map<string, Val>();
  for (const [k, v] of o.pairs) m.set(k, v);
  return m;
}

/** A value as the Rust `serde_json::Value` holds it (kernel `to_json`), as JavaScript data. */
function toData(v: Val): unknown {
  if (v instanceof Num) return v.kind === "f" ? v.f : (asInt(v) ?? BigInt(v.lex));
  if (Array.isArray(v)) return v.map(toData);
  if (v instanceof Obj) {
    const out: Record<string, unknown> = {};
    // Defined, not assigned: a member named `__proto__` is a member like any other.
    for (const [k, x] of lastOfEach(v)) {
      Object.defineProperty(out, k, { value: toData(x), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return v;
}

/** The same value's JSON text, as serde_json writes it. */
function dataJson(v: Val): string {
  if (v instanceof Num) return v.kind === "f" ? formatFloat(v.f) : BigInt(v.lex).toString();
  if (Array.isArray(v)) return `[${v.map(dataJson).join(",")}]`;
  if (v instanceof Obj) {
    const parts: string[] = [];
    for (const [k, x] of lastOfEach(v)) parts.push(`${JSON.stringify(k)}:${dataJson(x)}`);
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(v);
}

/** `const`'s equality (kernel `json_equal`) of a value and a constant from the plan. */
function constEqual(v: Val, c: unknown): boolean {
  if (v instanceof Num) {
    if (typeof c !== "number") return false;
    if (v.kind !== "f" && Number.isInteger(c)) return BigInt(v.lex) === BigInt(c);
    return v.f === c;
  }
  if (Array.isArray(v)) {
    return Array.isArray(c) && c.length === v.length && v.every((x, i) => constEqual(x, c[i]));
  }
  if (v instanceof Obj) {
    if (typeof c !== "object" || c === null || Array.isArray(c)) return false;
    const m = lastOfEach(v);
    const rec = c as Record<string, unknown>;
    const keys = Object.keys(rec);
    return keys.length === m.size && keys.every((k) => m.has(k) && constEqual(m.get(k) as Val, rec[k]));
  }
  return v === c;
}

/** Per object rules: field name → index, and the fields other actions take. */
interface ObjectIndex {
  readonly fields: Map<string, number>;
  readonly belongs: Set<string>;
}

export class Walker {
  private readonly patterns = new Map<string, RegExp | null>();
  private readonly indexes = new WeakMap<ObjectPlan, ObjectIndex>();

  private index(rules: ObjectPlan): ObjectIndex {
    let ix = this.indexes.get(rules);
    if (ix === undefined) {
      ix = {
        fields: new Map(rules.fields.map((f, i) => [f.name, i])),
        belongs: new Set(rules.belongs.map((b) => b.field)),
      };
      this.indexes.set(rules, ix);
    }
    return ix;
  }

  pattern(p: string): RegExp | null {
    let re = this.patterns.get(p);
    if (re === undefined) {
      try {
        re = new RegExp(p, "u");
      } catch {
        re = null;
      }
      this.patterns.set(p, re);
    }
    return re;
  }

  /** The tool's `parse`: the selector, then the chosen action's walk. */
  tool(tool: ToolPlan, pairs: [string, Val][]): Record<string, Typed> | Refusal {
    const sel = tool.selector;
    if (sel === null) {
      const action = tool.actions[0];
      const out: Record<string, Typed> = { tool: tool.name };
      if (action === undefined) return out;
      const r = this.object(action.object, null, pairs, action.prefix, out);
      return r instanceof Refusal ? r : out;
    }
    // Plain loops, not callbacks: this is the hot path.
    const expected = tool.expected_actions;
    let given: Val | undefined;
    for (let k = 0; k < pairs.length; k++) {
      const pair = pairs[k] as [string, Val];
      if (pair[0] === sel) {
        given = pair[1];
        break;
      }
    }
    if (given === undefined || given === null) {
      return new Refusal("MissingSelector", `missing ${sel}: expected one of ${expected}`);
    }
    const v = given;
    if (typeof v !== "string") return invalid(`${sel}: expected one of ${expected}`, v);
    let action: ActionPlan | undefined;
    for (let k = 0; k < tool.actions.length; k++) {
      if ((tool.actions[k] as ActionPlan).name === v) {
        action = tool.actions[k];
        break;
      }
    }
    if (action === undefined) {
      return new Refusal("UnknownAction", `${sel}=${v}: unknown ${sel}; expected one of ${expected}`);
    }
    const out: Record<string, Typed> = { tool: tool.name };
    out[sel] = v;
    const r = this.object(action.object, sel, pairs, action.prefix, out);
    return r instanceof Refusal ? r : out;
  }

  /** The walk of one object: members in input order, then required, then constraints. */
  // long: one walk, as interp.rs `Walker::object`, kept whole so the order of refusals reads
  object(
    rules: ObjectPlan,
    selector: string | null,
    pairs: [string, Val][],
    prefix: string,
    out: Record<string, Typed>,
  ): Refusal | undefined {
    const fields = rules.fields;
    const ix = this.index(rules);
    const values: (Typed | undefined)[] = new Array<Typed | undefined>(fields.length).fill(undefined);
    let extra: Map<string, Typed> | undefined;
    let selectorSeen = false;
    for (let p = 0; p < pairs.length; p++) {
      const pair = pairs[p] as [string, Val];
      const key = pair[0];
      const v = pair[1];
      if (key === selector) {
        if (selectorSeen) return duplicate(prefix, key);
        selectorSeen = true;
        continue;
      }
      const i = fieldIndex(fields, ix, key);
      if (i !== undefined) {
        if (v === null) continue;
        const f = fields[i] as FieldPlan;
        if (values[i] !== undefined) return duplicate(prefix, f.name);
        const c = this.convert(f.ty, v, prefix + f.name);
        if (c instanceof Refusal) return c;
        values[i] = c;
        continue;
      }
      if (v === null && ix.belongs.has(key)) continue;
      const other = rules.additional;
      if (other === undefined) return unexpectedField(prefix, key, rules);
      // An open object's other key: null counts as absent, twice is a duplicate.
      if (v === null) continue;
      extra ??= new Map();
      if (extra.has(key)) return duplicate(prefix, key);
      const c = this.convert(other, v, prefix + key);
      if (c instanceof Refusal) return c;
      extra.set(key, c);
    }
    for (let k = 0; k < fields.length; k++) {
      const f = fields[k] as FieldPlan;
      if (f.required && values[k] === undefined) return missing(prefix, f.name);
    }
    for (const group of rules.exactly_one_of) {
      let count = 0;
      for (let k = 0; k < group.length; k++) if (presentIn(group[k] as MemberPlan, ix, values)) count++;
      if (count !== 1) {
        return exactlyOne(
          prefix,
          group.map((m) => m.field),
          group.filter((m) => presentIn(m, ix, values)).map((m) => m.field),
        );
      }
    }
    for (const fw of rules.forbidden_with) {
      if (presentIn(fw.field, ix, values) && presentIn(fw.with, ix, values)) {
        return constraint(prefix, fw.message);
      }
    }
    for (let k = 0; k < fields.length; k++) {
      const x = values[k];
      if (x === undefined) continue;
      const name = (fields[k] as FieldPlan).name;
      out[name] = unwrap(out, name, x);
    }
    if (rules.additional !== undefined) {
      const kept = new Map<string, unknown>();
      for (const [k, x] of extra ?? []) kept.set(k, unwrap(kept, k, x));
      (out as Record<symbol, unknown>)[OTHER_KEYS] = kept;
    }
    return undefined;
  }

  /** A value converted to its field's type, or `<path>: expected <…>, got <value>`. */
  convert(ty: TypePlan, v: Val, path: string): Typed | Refusal {
    switch (ty.kind) {
      case "integer": {
        const n = asInt(v);
        if (n !== undefined && within(n, ty.minimum, ty.maximum)) return n;
        return invalid(`${path}: expected ${ty.expected}`, v);
      }
      case "number": {
        const n = asNum(v);
        if (n !== undefined && within(n, ty.minimum, ty.maximum)) return n;
        return invalid(`${path}: expected ${ty.expected}`, v);
      }
      case "boolean":
        return typeof v === "boolean" ? v : invalid(`${path}: expected true or false`, v);
      case "string": {
        if (
          typeof v === "string" &&
          ((ty.min_length === null && ty.max_length === null) ||
            charsWithin(v, ty.min_length ?? 0, ty.max_length ?? Infinity)) &&
          (ty.pattern === null || (this.pattern(ty.pattern)?.test(v) ?? false))
        ) {
          return v;
        }
        return invalid(`${path}: expected ${ty.expected}`, v);
      }
      case "enum":
        if (typeof v === "string" && ty.values.includes(v)) return v;
        return invalid(`${path}: expected ${ty.expected}`, v);
      case "array": {
        if (
          Array.isArray(v) &&
          v.length >= (ty.min_items ?? 0) &&
          v.length <= (ty.max_items ?? Infinity)
        ) {
          const out: Typed[] = [];
          for (let i = 0; i < v.length; i++) {
            const item = this.convert(ty.items, v[i] as Val, `${path}[${i}]`);
            if (item instanceof Refusal) return item;
            out.push(item instanceof JsonTyped ? unwrap(out, i, item) : item);
          }
          return out;
        }
        return invalid(`${path}: expected ${ty.expected}`, v);
      }
      case "object": {
        if (!(v instanceof Obj)) return invalid(`${path}: expected an object`, v);
        const out: Record<string, Typed> = {};
        const r = this.object(ty.object, null, v.pairs, `${path}: `, out);
        return r instanceof Refusal ? r : out;
      }
      case "any":
        return new JsonTyped(toData(v), dataJson(v));
      case "null":
        return v === null ? new JsonTyped(null, "null") : invalid(`${path}: expected null`, v);
      case "const":
        // An array or object constant is copied into each call (not shared with the plan).
        return constEqual(v, ty.value)
          ? new JsonTyped(typeof ty.value === "object" ? structuredClone(ty.value) : ty.value, ty.json)
          : invalid(`${path}: expected ${ty.expected}`, v);
      case "union":
        return this.union(ty, v, path);
    }
  }

  /** The first branch that accepts (with `one`, the only one), as JSON. */
  private union(ty: TypePlan & { readonly kind: "union" }, v: Val, path: string): Typed | Refusal {
    let accepted: JsonTyped | undefined;
    for (const branch of ty.branches) {
      const x = this.convert(branch, v, path);
      if (x instanceof Refusal) continue;
      const typed = x instanceof JsonTyped ? x : new JsonTyped(x, typedJson(branch, x));
      if (!ty.one) return typed;
      if (accepted !== undefined) return invalid(`${path}: expected ${ty.ambiguous}`, v);
      accepted = typed;
    }
    return accepted ?? invalid(`${path}: expected ${ty.expected}`, v);
  }
}

// ---------------------------------------------------------------------------------------
// Name resolution per role × family (interp.rs `CallChecker`).

export type Verdict = { ok: true; call: unknown } | { ok: false; kind: RefusalKind; message: string };

type Name = { t: "tool"; i: number } | { t: "alias"; a: number; i: number } | { t: "retired"; r: number };

export class Checker {
  private readonly names = new Map<string, Name>();
  private readonly walker = new Walker();
  private readonly scopes = new Map<string, Map<string, Scope>>();

  readonly plan: CallPlan;
  constructor(plan: CallPlan) {
    this.plan = plan;
    const index = new Map(plan.tools.map((t, i) => [t.name, i]));
    plan.tools.forEach((t, i) => this.names.set(t.name, { t: "tool", i }));
    plan.aliases.forEach((a, k) => {
      const i = index.get(a.tool);
      if (i !== undefined) this.names.set(a.name, { t: "alias", a: k, i });
    });
    plan.retired.forEach((r, k) => this.names.set(r.name, { t: "retired", r: k }));
  }

  /** The scope of a role × family, or interp.rs `UnknownScope`'s refusal. */
  scope(role: string, family: string, active: readonly string[]): Scope | Refusal {
    const plan = this.plan;
    let byFamily = this.scopes.get(role);
    let s = byFamily?.get(family);
    if (s === undefined) {
      const r = plan.roles.find((x) => x.name === role);
      if (r === undefined) return unknown("role", role, plan.roles.map((x) => x.name));
      const surface = plan.surfaces.find((x) => x.role === role && x.family === family);
      if (surface === undefined) return unknown("family", family, plan.families);
      s = new Scope(plan, r, surface);
      if (byFamily === undefined) {
        byFamily = new Map();
        this.scopes.set(role, byFamily);
      }
      byFamily.set(family, s);
    }
    if (active.length > 0) {
      for (const skill of active) {
        if (!plan.skills.some((k) => k.name === skill)) {
          return unknown("skill", skill, plan.skills.map((k) => k.name));
        }
      }
    }
    return s;
  }

  /** `Call::parse_in`: the typed call, or the refusal Rust words for the same input. */
  parse(role: string, family: string, active: readonly string[], name: string, args: unknown): Verdict {
    const scope = this.scope(role, family, active);
    const r = scope instanceof Refusal ? scope : this.check(scope, active, name, args);
    return r instanceof Refusal ? { ok: false, kind: r.kind, message: r.message } : { ok: true, call: r };
  }

  private check(scope: Scope, active: readonly string[], name: string, args: unknown): unknown {
    const plan = this.plan;
    const n = this.names.get(name);
    if (n === undefined) {
      const offered = plan.tools.filter((_, i) => scope.offers(i, active)).map((t) => t.name);
      const near = didYouMean(name, offered);
      return new Refusal(
        "UnknownTool",
        `unknown tool ${name}${near === undefined ? "" : ` (did you mean ${near}?)`}`,
      );
    }
    if (n.t === "retired") {
      const r = plan.retired[n.r] as CallPlan["retired"][number];
      return new Refusal("Retired", `${r.name} was retired: ${r.message}`);
    }
    const tool = plan.tools[n.i] as ToolPlan;
    if (!scope.offers(n.i, active)) return scope.notOffered(name, n.i);
    const alias = n.t === "alias" ? plan.aliases[n.a] : undefined;
    let pairs: [string, Val][] | Refusal;
    const freeform =
      tool.freeform !== null && tool.freeform.families.includes(scope.family) ? tool.freeform : null;
    if (freeform !== null && typeof args === "string") pairs = [[freeform.field, args]];
    else if (typeof args === "string") pairs = pairsOfText(args, name);
    else {
      const v = fromJs(args);
      if (v === null) pairs = [];
      else if (v instanceof Obj) pairs = v.pairs;
      else pairs = notAnObject(name, v);
    }
    if (alias !== undefined && !(pairs instanceof Refusal)) {
      for (const [from, to] of alias.rename) {
        pairs = pairs.map(([k, v]): [string, Val] => [k === from ? to : k, v]);
      }
      for (const [key, value] of alias.set) {
        pairs = pairs.filter(([k]) => k !== key);
        pairs.push([key, fromJs(value)]);
      }
    }
    if (pairs instanceof Refusal) return pairs;
    return this.walker.tool(tool, pairs);
  }
}

/** interp.rs `UnknownScope`. */
function unknown(what: string, name: string, all: readonly string[]): Refusal {
  return new Refusal("Scope", `unknown ${what} ${name} (expected one of ${all.join(", ")})`);
}

/** One role × family: who is resident, what each skill adds. */
export class Scope {
  readonly family: string;
  private readonly plan: CallPlan;
  private readonly role: CallPlan["roles"][number];
  private readonly resident: boolean[];
  private readonly skillTools: Map<string, boolean[]>;

  constructor(plan: CallPlan, role: CallPlan["roles"][number], surface: CallPlan["surfaces"][number]) {
    this.plan = plan;
    this.role = role;
    this.family = surface.family;
    const flags = (names: Iterable<string>) => {
      const v = plan.tools.map(() => false);
      for (const n of names) {
        const i = plan.tools.findIndex((t) => t.name === n);
        if (i >= 0) v[i] = true;
      }
      return v;
    };
    this.resident = flags(surface.resident);
    this.skillTools = new Map(
      plan.skills.map((sk) => [
        sk.name,
        flags(surface.skills.filter((s) => s.skill === sk.name).flatMap((s) => s.tools)),
      ]),
    );
  }

  private offeredSkill(skill: string, tool: number): boolean {
    return this.role.skills.includes(skill) && (this.skillTools.get(skill)?.[tool] ?? false);
  }

  offers(tool: number, active: readonly string[]): boolean {
    if (this.resident[tool] === true) return true;
    for (let k = 0; k < active.length; k++) if (this.offeredSkill(active[k] as string, tool)) return true;
    return false;
  }

  notOffered(name: string, tool: number): Refusal {
    const plan = this.plan;
    const skill = plan.skills.find((s) => this.offeredSkill(s.name, tool))?.name;
    const act = plan.tools.findIndex((t) => t.name === plan.activation_tool);
    const activate = act >= 0 && this.resident[act] === true ? plan.activation_tool : undefined;
    const role = this.role.name;
    let message: string;
    if (skill !== undefined && activate !== undefined) {
      message =
        `${name} belongs to skill ${skill}, which is not active in this conversation; call ` +
        `${activate} with name ${skill} first, then call ${name} again`;
    } else if (skill !== undefined) {
      message =
        `${name} belongs to skill ${skill}, and role ${role} on family ${this.family} has no tool ` +
        "that activates skills";
    } else message = `tool ${name} is not offered to role ${role} on family ${this.family}`;
    return new Refusal("NotOffered", message);
  }
}

// ---------------------------------------------------------------------------------------
// The call as JSON, byte for byte what `serde_json::to_string` of the Rust `Call` prints.

function typedJson(ty: TypePlan, v: unknown): string {
  switch (ty.kind) {
    case "integer":
      return String(v);
    case "number":
      return formatFloat(v as number);
    case "array": {
      const items = v as unknown[];
      const texts = JSON_TEXTS.get(items);
      return `[${items.map((x, i) => texts?.get(i) ?? typedJson(ty.items, x)).join(",")}]`;
    }
    case "object":
      return objectJson(ty.object, v as Record<string, unknown>, null);
    default:
      return JSON.stringify(v);
  }
}

function objectJson(rules: ObjectPlan, v: Record<string, unknown>, first: string | null): string {
  const parts: string[] = first === null ? [] : [first];
  const texts = JSON_TEXTS.get(v);
  for (const f of rules.fields) {
    const x = v[f.name];
    if (x !== undefined) parts.push(`${JSON.stringify(f.name)}:${texts?.get(f.name) ?? typedJson(f.ty, x)}`);
  }
  const other = rules.additional;
  const kept = (v as Record<symbol, unknown>)[OTHER_KEYS];
  if (other !== undefined && kept instanceof Map) {
    const keptTexts = JSON_TEXTS.get(kept);
    for (const [k, x] of kept as Map<string, unknown>) {
      parts.push(`${JSON.stringify(k)}:${keptTexts?.get(k) ?? typedJson(other, x)}`);
    }
  }
  return `{${parts.join(",")}}`;
}

/** `{"name":…,"arguments":{…}}` of an accepted call (selector first, declaration order). */
/** The tool and action of a typed call (a `TypeError` for a call of no tool of `plan`). */
function actionOf(
  plan: CallPlan,
  call: { readonly tool: string },
): { tool: ToolPlan; action: ActionPlan; rec: Record<string, unknown> } {
  const tool = plan.tools.find((t) => t.name === call.tool);
  if (tool === undefined) throw new TypeError(`not a call of this plan: ${call.tool}`);
  const rec = call as unknown as Record<string, unknown>;
  const sel = tool.selector;
  const action = sel === null ? tool.actions[0] : tool.actions.find((a) => a.name === rec[sel]);
  if (action === undefined) throw new TypeError(`not a call of this plan: ${call.tool}`);
  return { tool, action, rec };
}

/** `call` with each field its action takes that it left out filled with the field's
 * `default:`, the way the Rust conversion into a host's request type fills it (plan
 * `FieldPlan.default`). A new object; `call` itself is untouched, and one with nothing to
 * fill is returned as it is. Parsing never applies defaults (the parsed call keeps what the
 * model sent); this is the step after it, for handlers that want concrete values. The
 * default goes through the field's own conversion, so it has the parsed representation
 * (an integer outside ±2^53 a `bigint`). */
export function withDefaults<C extends { readonly tool: string }>(plan: CallPlan, call: C): C {
  const { action, rec } = actionOf(plan, call);
  let out: Record<string, unknown> | undefined;
  for (const f of action.object.fields) {
    if (f.default === undefined || rec[f.name] !== undefined) continue;
    const v = DEFAULT_WALKER.convert(f.ty, fromJs(f.default), f.name);
    if (v instanceof Refusal) throw new TypeError(`the default of ${f.name} does not convert: ${v.message}`);
    out ??= { ...rec };
    out[f.name] = v;
  }
  return (out ?? call) as C;
}

const DEFAULT_WALKER = new Walker();

export function callJson(plan: CallPlan, call: { readonly tool: string }): string {
  const { tool, action, rec } = actionOf(plan, call);
  const sel = tool.selector;
  const first = sel === null ? null : `${JSON.stringify(sel)}:${JSON.stringify(rec[sel])}`;
  const args = objectJson(action.object, rec, first);
  return `{"name":${JSON.stringify(tool.name)},"arguments":${args}}`;
}

// ---------------------------------------------------------------------------------------
// Published bytes and request fragments (compiler/src/emit: `with_skills`, `assemble`).

export function arrayBytes(strings: readonly string[], p: PublishedData): string {
  return typeof p.bytes === "string"
    ? p.bytes
    : `[${p.bytes.map((i) => strings[i] as string).join(",")}]`;
}

/** The tools array after activating `active` (in activation order). */
export function withSkills(strings: readonly string[], p: PublishedData, active: readonly string[]): string {
  const tools = p.tools.slice();
  for (const name of active) {
    const skill = p.skills.find((s) => s.name === name);
    if (skill === undefined) throw new RangeError(`unknown skill ${name} for this surface`);
    for (const t of skill.tools) if (!tools.some((x) => x.name === t.name)) tools.push(t);
  }
  if (p.strategy !== "append") return arrayBytes(strings, p);
  return `[${tools.map((t) => strings[t.json] as string).join(",")}]`;
}

/** The request fragment of one turn kind with `active` skills. */
export function fragment(
  strings: readonly string[],
  p: PublishedData,
  turn: string,
  active: readonly string[],
): string {
  const parts = p.requests.find((r) => r.turn === turn);
  if (parts === undefined) throw new RangeError(`unknown turn kind ${turn}`);
  const tools = withSkills(strings, p, active);
  let restriction = "";
  const r = parts.restriction;
  if (r !== null) {
    const entries = r.resident.slice();
    for (const [skill, list] of r.skills) {
      if (!active.includes(skill)) continue;
      for (const e of list) if (!entries.includes(e)) entries.push(e);
    }
    restriction = entries.length === 0 ? r.none : `${r.open}${entries.join(",")}${r.close}`;
  }
  return `${parts.open}${tools}${parts.close_tools}${restriction}${parts.tail}`;
}
