// Property tests against the Rust oracle (one long-lived `toolsurface validate --jsonl`):
// fast-check builds calls over each tool's keys (the selector, every action's fields, the
// fields other actions take) and random keys, with values around each field's type and bounds,
// number lexemes (5.0, 1e2, -0, 2^53+1, 2^64), escapes, astral characters, long strings,
// duplicates, and broken JSON. The string path must agree byte for byte: verdict, kind,
// message, and the accepted call. The object path (what JSON.parse left) is held to the oracle
// given the same value as a JSON value.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseCall, roles, families, toolNames, type Role, type Family, type Skill } from "../generated/index.ts";
import type { TypePlan, ToolPlan } from "../generated/runtime.ts";
import { Oracle, type OracleRequest } from "./oracle.ts";
import { PLAN, answerLine } from "./common.ts";

const RUNS = Number(process.env["TS_PROPERTY_RUNS"] ?? 12000);
const oracle = new Oracle();
after(() => oracle.close());

const NUMBER_LEXEMES = [
  "0", "1", "-1", "5", "5.0", "1e2", "1E2", "-0", "-0.0", "0.5", "1.5", "2e-7", "1e400", "-1e400",
  "9007199254740992", "9007199254740993", "-9007199254740993", "9223372036854775807",
  "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
  "18446744073709551616", "123456789012345678901234567890", "0.1e1", "1e-400", "1.7976931348623157e308",
  "01", "1.", ".5", "-", "1e", "1e+", "+1", "0x10", "NaN", "Infinity",
];

const ODD_STRINGS = [
  "", "😀".repeat(61), "é".repeat(70), "a".repeat(59) + "😀😀", "\u0000", "line\nbreak", "\u2028",
  "tab\there", "quote\"inside", "back\\slash", "\ud83d\ude00x", "models", "workdirs", "llm:gpt-5",
  "a@b", "user@host", "[::1]", "0123456789abcdef", "DEADBEEF", "ls -la", "main", "wait", "kill",
];

const lexeme = fc.oneof(
  fc.constantFrom(...NUMBER_LEXEMES),
  fc.integer({ min: -5, max: 100005 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
);

const anyString = fc.oneof(
  fc.constantFrom(...ODD_STRINGS),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: "grapheme", minLength: 55, maxLength: 70 }),
);

/** A JSON string literal: serialized by JSON.stringify, or with escapes written out. */
const stringText = fc.oneof(
  { weight: 4, arbitrary: anyString.map((s) => JSON.stringify(s)) },
  {
    weight: 1,
    arbitrary: anyString.map((s) =>
      `"${[...s].map((c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0").slice(-4)}`).join("")}"`,
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('"\\ud800"', '"\\udc00"', '"\\x"', '"\\u12"', '"a\tb"', '"\\/"', '"\\ud83d\\ude00"') },
);

const leaf: fc.Arbitrary<string> = fc.oneof(
  lexeme,
  stringText,
  fc.constantFrom("true", "false", "null", "tru", "nul"),
);

const jsonText: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("v"), { maxLength: 4 }).map((a) => `[${a.join(",")}]`),
    fc.array(fc.tuple(fc.string({ maxLength: 6 }), tie("v")), { maxLength: 3 }).map(
      (m) => `{${m.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`,
    ),
  ),
})).v;

/** A value aimed at a field's type: in bounds, at the bounds ±1, or of another type. */
function valueFor(ty: TypePlan): fc.Arbitrary<string> {
  const near = (lo: number | null, hi: number | null) =>
    fc.constantFrom(
      ...[lo, hi].flatMap((b) => (b === null ? [] : [b - 1, b, b + 1, b + 0.5])),
      ...(lo === null ? [-1, 0] : [lo]),
    ).map((n) => JSON.stringify(n));
  switch (ty.kind) {
    case "integer":
      return fc.oneof(near(ty.minimum, ty.maximum), lexeme);
    case "number":
      return fc.oneof(near(ty.minimum, ty.maximum), lexeme);
    case "boolean":
      return fc.constantFrom("true", "false", "null", '"true"', "1");
    case "enum":
      return fc.oneof(fc.constantFrom(...ty.values.map((v) => JSON.stringify(v))), stringText);
    case "string": {
      const lengths = [ty.min_length, ty.max_length].flatMap((b) => (b === null ? [] : [b - 1, b, b + 1]));
      return fc.oneof(
        { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 20 }).map((s) => JSON.stringify(s)) },
        { weight: 1, arbitrary: fc.constantFrom(...lengths.filter((n) => n >= 0 && n < 300), 0).map((n) => JSON.stringify("x".repeat(n))) },
        { weight: 1, arbitrary: stringText },
        { weight: 1, arbitrary: leaf },
      );
    }
    case "array":
      return fc.oneof(
        fc.array(valueFor(ty.items), { maxLength: Math.min(6, (ty.max_items ?? 5) + 1) }).map((a) => `[${a.join(",")}]`),
        leaf,
      );
    case "object":
      return fc.oneof(objectFor(ty.object.fields.map((f) => [f.name, valueFor(f.ty)] as const), []), leaf);
    case "any":
      return fc.oneof(jsonText, leaf);
    case "null":
      return fc.constantFrom("null", "0", '"null"');
    case "const":
      return fc.oneof(fc.constant(ty.json), leaf);
    case "union":
      return fc.oneof(...ty.branches.map(valueFor), leaf);
  }
}

function objectFor(
  keyed: readonly (readonly [string, fc.Arbitrary<string>])[],
  extraKeys: readonly string[],
): fc.Arbitrary<string> {
  const member = fc.oneof(
    { weight: 6, arbitrary: keyed.length > 0 ? fc.constantFrom(...keyed).chain(([k, v]) => v.map((x) => [k, x] as const)) : fc.constant(["k", "1"] as const) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...extraKeys, "zzz", "Path", "sesion_id", ""), leaf) },
    { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 8 }), jsonText) },
  );
  return fc.array(member, { maxLength: 7 }).map((m) => `{${m.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`);
}

/** Arguments text for a tool: selector and fields of its actions, foreign and random keys. */
function argsFor(tool: ToolPlan): fc.Arbitrary<string> {
  const keyed: [string, fc.Arbitrary<string>][] = [];
  const seen = new Set<string>();
  for (const a of tool.actions) {
    for (const f of a.object.fields) {
      if (seen.has(f.name)) continue;
      seen.add(f.name);
      keyed.push([f.name, valueFor(f.ty)]);
    }
  }
  if (tool.selector !== null) {
    const names = tool.actions.map((a) => JSON.stringify(a.name));
    keyed.push([tool.selector, fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: leaf })]);
    keyed.push([tool.selector, fc.constantFrom(...names)]);
  }
  return objectFor(keyed, [...seen].map((k) => k.slice(1)));
}

const MATCH_CANDIDATES = [
  ...ODD_STRINGS, "tools", "skills", "hosts", "workdirs", "llm", "models", "deadbeef", "abc_def",
  "host1", "user@host", "sqlite", "a", "x1", "llm:claude-3.5", "[fe80::1%eth0]",
];

/** A value the field takes (most of the time): in bounds, matching its pattern. */
function validFor(ty: TypePlan): fc.Arbitrary<string> {
  switch (ty.kind) {
    case "integer": {
      const lo = ty.minimum ?? -1000;
      const hi = ty.maximum ?? lo + 100000;
      return fc.oneof(fc.integer({ min: lo, max: hi }).map(String), fc.constantFrom(`${lo}.0`, `${hi}`, `${lo}`));
    }
    case "number": {
      const lo = ty.minimum ?? -1e6;
      const hi = ty.maximum ?? 1e6;
      return fc.double({ min: lo, max: hi, noNaN: true }).map((d) => JSON.stringify(d));
    }
    case "boolean":
      return fc.constantFrom("true", "false");
    case "enum":
      return fc.constantFrom(...ty.values.map((v) => JSON.stringify(v)));
    case "string": {
      if (ty.pattern !== null) {
        const re = new RegExp(ty.pattern, "u");
        const ok = MATCH_CANDIDATES.filter((c) => re.test(c));
        return ok.length > 0 ? fc.constantFrom(...ok.map((c) => JSON.stringify(c))) : valueFor(ty);
      }
      const min = ty.min_length ?? 0;
      const max = Math.min(ty.max_length ?? 40, min + 40);
      return fc.string({ minLength: min, maxLength: max, unit: "grapheme-ascii" }).map((x) => JSON.stringify(x));
    }
    case "array": {
      const min = ty.min_items ?? 0;
      const max = Math.min(ty.max_items ?? 4, min + 3);
      return fc.array(validFor(ty.items), { minLength: min, maxLength: max }).map((a) => `[${a.join(",")}]`);
    }
    case "object":
      return fc
        .tuple(...ty.object.fields.map((f) => fc.tuple(fc.constant(f), validFor(f.ty), fc.boolean())))
        .map((m) => `{${m.filter(([f, , keep]) => f.required || keep).map(([f, v]) => `${JSON.stringify(f.name)}:${v}`).join(",")}}`);
    case "any":
      return jsonText;
    case "null":
      return fc.constant("null");
    case "const":
      return fc.constant(ty.json);
    case "union":
      return fc.oneof(...ty.branches.map(validFor));
  }
}

/** A mostly valid call of one action: the selector, required fields, some optional ones. */
function validArgsFor(tool: ToolPlan): fc.Arbitrary<string> {
  return fc.constantFrom(...tool.actions).chain((a) =>
    fc
      .tuple(...a.object.fields.map((f) => fc.tuple(fc.constant(f.name), validFor(f.ty), fc.nat(3))))
      .map((members) => {
        const kept = members.filter(([name, , n]) => n > 0 || a.object.fields.find((f) => f.name === name)?.required);
        const parts = kept.map(([k, v]) => `${JSON.stringify(k)}:${v}`);
        if (tool.selector !== null) parts.unshift(`${JSON.stringify(tool.selector)}:${JSON.stringify(a.name)}`);
        return `{${parts.join(",")}}`;
      }),
  );
}

const broken = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.nat(), fc.constantFrom("", "{", "}", "[", ",", ":", '"', "\\", "\u0001", " ", "\n", "x", "0", "-", "e")).map(
    ([t, at, ins]) => {
      const i = at % (t.length + 1);
      return at % 3 === 0 ? t.slice(0, i) : t.slice(0, i) + ins + t.slice(i);
    },
  );

const ALIASES = PLAN.aliases.map((a) => a.name);
const RETIRED = PLAN.retired.map((r) => r.name);

/** Rust strings are UTF-8: a lone surrogate cannot come from a provider, so none is sent. */
const wellFormed = (s: string) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

const callArb = fc
  .record({
    role: fc.oneof({ weight: 30, arbitrary: fc.constantFrom(...roles) }, { weight: 1, arbitrary: fc.constant("zzz_role" as Role) }),
    family: fc.oneof({ weight: 30, arbitrary: fc.constantFrom(...families) }, { weight: 1, arbitrary: fc.constant("nope" as Family) }),
    skills: fc.oneof(
      { weight: 10, arbitrary: fc.constant([] as Skill[]) },
      { weight: 10, arbitrary: fc.constant(["sqlite"] as Skill[]) },
      { weight: 1, arbitrary: fc.constant(["sqlite", "no_skill"] as Skill[]) },
    ),
    tool: fc.constantFrom(...PLAN.tools),
  })
  .chain((r) =>
    fc.record({
      role: fc.constant(r.role),
      family: fc.constant(r.family),
      skills: fc.constant(r.skills),
      name: fc.oneof(
        { weight: 12, arbitrary: fc.constant(r.tool.name) },
        { weight: 2, arbitrary: fc.constantFrom(...ALIASES, ...RETIRED) },
        { weight: 1, arbitrary: fc.constantFrom(...toolNames).map((n) => n.slice(0, -1) + "x") },
        { weight: 1, arbitrary: fc.string({ maxLength: 14 }) },
      ),
      arguments: fc.oneof(
        { weight: 10, arbitrary: validArgsFor(r.tool) },
        { weight: 8, arbitrary: argsFor(r.tool) },
        { weight: 3, arbitrary: broken(argsFor(r.tool)) },
        { weight: 1, arbitrary: jsonText },
        { weight: 1, arbitrary: fc.constantFrom("", "  ", "null", "[]", "\"x\"", "5", "{}", " {} ", "\u00a0", "\ufeff{}") },
      ).map(wellFormed),
    }),
  )
  .map((r) => ({ ...r, name: wellFormed(r.name) }));

function mine(req: OracleRequest): string {
  return answerLine(parseCall(req.role as Role, req.family as Family, req.name, req.arguments, req.skills as Skill[]));
}

test(`string path: ${RUNS} generated calls agree with the Rust oracle byte for byte`, async (t) => {
  const reqs = fc.sample(callArb, { numRuns: RUNS, seed: 2026 });
  const answers = await oracle.askAll(reqs);
  const diffs: string[] = [];
  let accepted = 0;
  reqs.forEach((req, i) => {
    const want = answers[i] as string;
    if (want.startsWith('{"ok":true')) accepted++;
    const got = mine(req);
    if (got !== want) diffs.push(`${JSON.stringify(req)}\n  ts   ${got}\n  rust ${want}`);
  });
  t.diagnostic(`${reqs.length} calls, ${accepted} accepted, ${diffs.length} differ`);
  assert.deepEqual(diffs.slice(0, 10), [], `${diffs.length} of ${reqs.length} differ`);
  // The generator must reach both verdicts, or the property proves little.
  assert.ok(accepted > RUNS / 20, `only ${accepted} of ${RUNS} accepted`);
  assert.ok(accepted < RUNS - RUNS / 20, `${accepted} of ${RUNS} accepted`);
});

test("string path: fast-check with shrinking (fresh seed each run)", async () => {
  await fc.assert(
    fc.asyncProperty(callArb, async (req) => {
      assert.equal(mine(req), await oracle.ask(req));
    }),
    { numRuns: 1500 },
  );
});

test("object path: parsed values agree with the oracle given the same JSON value", async () => {
  const texts = fc.sample(callArb, { numRuns: RUNS / 4, seed: 7 });
  const reqs: OracleRequest[] = [];
  for (const t of texts) {
    let v: unknown;
    try {
      v = JSON.parse(t.arguments as string);
    } catch {
      continue;
    }
    if (typeof v === "string") continue; // a string is the text path
    // A lone surrogate cannot reach Rust (its strings are UTF-8): not comparable.
    if (/\\ud[89a-f][0-9a-f]{2}/i.test(JSON.stringify(v))) continue;
    reqs.push({ ...t, arguments: v });
  }
  const answers = await oracle.askAll(reqs);
  const diffs: string[] = [];
  reqs.forEach((req, i) => {
    const got = mine(req);
    if (got !== answers[i]) diffs.push(`${JSON.stringify(req)}\n  ts   ${got}\n  rust ${answers[i]}`);
  });
  assert.ok(reqs.length > RUNS / 8, `only ${reqs.length} parsed`);
  assert.deepEqual(diffs.slice(0, 10), [], `${diffs.length} of ${reqs.length} differ`);
});
