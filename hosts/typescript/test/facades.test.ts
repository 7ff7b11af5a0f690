// The façades over parseCall: the Standard Schema object of each tool (validate = parseCall,
// jsonSchema.input = the published parameters) and the zod schemas of zod.ts, whose verdicts
// must equal parseCall's on parsed values (every JSON-object case of the conformance corpus).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { parseCall, publishedTool, standardSchema, toolNames, type Family, type Role, type Skill, type ToolName } from "../generated/index.ts";
import { PUBLISHED } from "../generated/published.ts";
import { schemas } from "../generated/zod.ts";
import { ROOT } from "./oracle.ts";
import { readLines } from "./common.ts";

interface Case {
  role: Role;
  family: Family;
  skills: Skill[];
  name: string;
  raw: string;
}

const DIR = `${ROOT}tests/conformance/`;
const cases: Case[] = readdirSync(DIR)
  .filter((f) => f.endsWith(".jsonl"))
  .flatMap((f) => readLines(DIR + f).map((l) => JSON.parse(l) as Case));

/** The corpus cases whose arguments parse to an object, for a real tool the scope offers. */
function objectCases(): { c: Case; value: Record<string, unknown>; tool: ToolName }[] {
  const out = [];
  for (const c of cases) {
    if (!(toolNames as readonly string[]).includes(c.name)) continue;
    let value: unknown;
    try {
      value = JSON.parse(c.raw);
    } catch {
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    const r = parseCall(c.role, c.family, c.name, value, c.skills);
    if (!r.ok && ["NotOffered", "Scope", "UnknownTool", "Retired"].includes(r.kind)) continue;
    out.push({ c, value: value as Record<string, unknown>, tool: c.name as ToolName });
  }
  return out;
}

test("zod.ts: the verdict of every tool's schema equals parseCall's (corpus, object path)", () => {
  const all = objectCases();
  assert.ok(all.length > 1000, `${all.length} cases`);
  const diffs: string[] = [];
  let accepted = 0;
  for (const { c, value, tool } of all) {
    const r = parseCall(c.role, c.family, tool, value, c.skills);
    const z = schemas[tool].safeParse(value);
    if (r.ok) accepted++;
    if (z.success !== r.ok) {
      diffs.push(`${tool} ${c.raw}: parseCall ${r.ok ? "accepts" : `refuses (${r.message})`}, zod ${z.success ? "accepts" : "refuses"}`);
    } else if (r.ok && z.success) {
      const { tool: _, ...rest } = r.call as unknown as Record<string, unknown>;
      assert.deepEqual(z.data, rest, `${tool} ${c.raw}`);
    }
  }
  assert.ok(accepted > 200, `${accepted} accepted`);
  assert.deepEqual(diffs.slice(0, 15), [], `${diffs.length} of ${all.length} differ`);
});

test("Standard Schema: validate is parseCall, jsonSchema.input the published parameters", () => {
  let checked = 0;
  for (const c of cases.filter((x) => (toolNames as readonly string[]).includes(x.name))) {
    const own = PUBLISHED[`${c.role}/${c.family}`]?.own;
    if (own === undefined) continue;
    const listed = [...own.tools, ...own.skills.flatMap((s) => s.tools)].some((t) => t.name === c.name);
    if (!listed) continue;
    const tool = c.name as ToolName;
    let schema;
    try {
      schema = standardSchema(c.role, c.family, tool, c.skills);
    } catch {
      continue; // a freeform (custom) tool publishes no parameters
    }
    const std = schema["~standard"];
    assert.equal(std.version, 1);
    assert.equal(std.vendor, "toolsurface");
    const r = parseCall(c.role, c.family, tool, c.raw, c.skills);
    const v = std.validate(c.raw);
    if (r.ok) assert.deepEqual(v, { value: r.call });
    else assert.deepEqual(v, { issues: [{ message: r.message }] });
    const published = publishedTool(c.role, c.family, tool);
    const fn = published["function"] as Record<string, unknown> | undefined;
    const want = fn?.["parameters"] ?? published["parameters"] ?? published["input_schema"];
    const got = std.jsonSchema.input({ target: "draft-07" });
    assert.deepEqual(got, want);
    got["mutated"] = true; // a framework's mutation does not reach the next caller
    assert.deepEqual(std.jsonSchema.input(), want);
    checked++;
  }
  assert.ok(checked > 1000, `${checked} checked`);
});
