// The published bytes: `published(role, family)` hashed against tool-defs/surface.lock, and
// `published`, `mcpTools`, `publishedWithSkills` and `requestFragment` compared with what
// `toolsurface emit` prints for every role × family, turn kind and skill activation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import {
  families,
  mcpTools,
  published,
  publishedWithSkills,
  requestFragment,
  roles,
  turns,
  type Family,
  type Role,
  type Skill,
} from "../generated/index.ts";
import { PUBLISHED } from "../generated/published.ts";
import { BIN, ROOT } from "./oracle.ts";

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const run = promisify(execFile);
const emitSync = (...args: string[]) =>
  execFileSync(BIN, ["emit", ...args, `${ROOT}tool-defs`], { encoding: "utf8", maxBuffer: 1 << 26 });

/** `toolsurface emit ARGS` (two at a time: each run compiles the definitions). */
let running = 0;
const queue: (() => void)[] = [];
async function emit(...args: string[]): Promise<string> {
  while (running >= 2) await new Promise<void>((r) => queue.push(r));
  running++;
  try {
    const { stdout } = await run(BIN, ["emit", ...args, `${ROOT}tool-defs`], { encoding: "utf8", maxBuffer: 1 << 26 });
    return stdout;
  } finally {
    running--;
    queue.shift()?.();
  }
}

/** `surface ROLE FAMILY` → its `sha256` line, from the lock. */
function lockHashes(): Map<string, string> {
  const out = new Map<string, string>();
  let surface = "";
  for (const line of readFileSync(`${ROOT}tool-defs/surface.lock`, "utf8").split("\n")) {
    const s = /^surface (\S+) (\S+)$/.exec(line);
    if (s !== null) surface = `${s[1]}/${s[2]}`;
    const h = /^ {2}sha256 ([0-9a-f]{64})$/.exec(line);
    if (h !== null) out.set(surface, h[1] as string);
  }
  return out;
}

const surfaces = emitSync("--list")
  .trim()
  .split("\n")
  .map((l) => l.split(" ") as [Role, Family]);

test("every role × family of the lock is generated, and no other", () => {
  const generated = roles.flatMap((r) => families.map((f) => `${r}/${f}`)).filter((k) => PUBLISHED[k] !== undefined);
  assert.deepEqual(generated.sort(), surfaces.map(([r, f]) => `${r}/${f}`).sort());
});

test("sha256 of published(role, family) equals surface.lock", () => {
  const lock = lockHashes();
  assert.equal(lock.size, surfaces.length);
  for (const [role, family] of surfaces) {
    assert.equal(sha256(published(role, family)), lock.get(`${role}/${family}`), `${role} × ${family}`);
  }
});

test("every surface: the bytes emit prints (array, MCP, skill activations, request fragments)", async () => {
  const checks: Promise<void>[] = [];
  const same = (got: string, args: string[]) =>
    checks.push(emit(...args).then((want) => assert.equal(got, want, `emit ${args.join(" ")}`)));
  for (const [role, family] of surfaces) {
    same(published(role, family), ["--role", role, "--family", family]);
    same(mcpTools(role, family), ["--role", role, "--family", family, "--dialect", "mcp"]);
    const offered = (PUBLISHED[`${role}/${family}`]?.own.skills ?? []).map((s) => s.name as Skill);
    const activations: Skill[][] = [[], ...offered.map((s) => [s])];
    for (const active of activations) {
      const flags = active.flatMap((s) => ["--with-skill", s]);
      if (active.length > 0) {
        same(publishedWithSkills(role, family, active), ["--role", role, "--family", family, ...flags]);
      }
      for (const turn of turns) {
        same(requestFragment(role, family, turn, active), ["--role", role, "--family", family, "--request", "--turn", turn, ...flags]);
      }
    }
  }
  await Promise.all(checks);
  assert.ok(checks.length >= surfaces.length * 4, `${checks.length} comparisons`);
});
