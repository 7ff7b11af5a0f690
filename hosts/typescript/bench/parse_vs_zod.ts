// ts_parse_vs_zod: calls per second of the generated parseCall against zod 4 safeParse of the
// equivalent strict discriminated union (generated/zod.ts), same process, same inputs: every
// conformance-corpus case whose arguments are a JSON object for a real tool its scope offers
// (accepted and refused, as the corpus mixes them), each in its own role × family. parseCall gets the arguments text
// (it reads the JSON itself); zod gets JSON.parse of the same text. 7 interleaved rounds of CPU time; the
// row is the median ratio (zod time / parseCall time) with its spread, written as
// `<dir>/ts_parse_vs_zod.json` for scripts/bench (target >= 2). scripts/bench runs it bundled by
// esbuild: under tsx every closure creation also calls esbuild's keepNames helper.
import { readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseCall, toolNames, type Family, type Role, type Skill, type ToolName } from "../generated/index.ts";
import { schemas } from "../generated/zod.ts";
import { readLines } from "../test/common.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DIR = `${ROOT}tests/conformance/`;
const out = process.argv[2];

interface Case { role: Role; family: Family; skills: Skill[]; name: string; raw: string; verdict: string }
const inputs: { role: Role; family: Family; skills: Skill[]; name: ToolName; raw: string }[] = [];
let accepted = 0;
for (const f of readdirSync(DIR).filter((x) => x.endsWith(".jsonl"))) {
  for (const line of readLines(DIR + f)) {
    const c = JSON.parse(line) as Case;
    if (!(toolNames as readonly string[]).includes(c.name)) continue;
    let v: unknown;
    try {
      v = JSON.parse(c.raw);
    } catch {
      continue;
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) continue;
    const r = parseCall(c.role, c.family, c.name, c.raw, c.skills);
    if (!r.ok && ["NotOffered", "Scope"].includes(r.kind)) continue;
    if (r.ok) accepted++;
    inputs.push({ role: c.role, family: c.family, skills: c.skills, name: c.name as ToolName, raw: c.raw });
  }
}

let sink = 0;
/** CPU time (user + system, ns) of a run: wall time moves with the box's load, CPU time less. */
function cpu(run: () => void): number {
  const t = process.cpuUsage();
  run();
  const d = process.cpuUsage(t);
  return (d.user + d.system) * 1000;
}

function timeParse(n: number): number {
  return cpu(() => {
  for (let k = 0; k < n; k++) {
    for (const x of inputs) if (parseCall(x.role, x.family, x.name, x.raw, x.skills).ok) sink++;
  }
  });
}
function timeZod(n: number): number {
  return cpu(() => {
  for (let k = 0; k < n; k++) {
    for (const x of inputs) if (schemas[x.name].safeParse(JSON.parse(x.raw)).success) sink++;
  }
  });
}

// Warm-up: both sides until each has had ~1 s of CPU (V8 tiers zod's closures up over the
// first few hundred ms; shorter warm-ups measured a zod still getting faster, round by round).
for (let parseSpent = 0, zodSpent = 0; parseSpent < 1e9 || zodSpent < 1e9; ) {
  parseSpent += timeParse(20);
  zodSpent += timeZod(20);
}
const n = Math.max(5, Math.round((3e8 / timeParse(20)) * 20)); // ~0.3 s of parseCall per round
const ratios: number[] = [];
let parsePerSec = 0;
let zodPerSec = 0;
const ROUNDS = 7;
for (let round = 0; round < ROUNDS; round++) {
  const p = timeParse(n);
  const z = timeZod(n);
  ratios.push(z / p);
  if (process.env.BENCH_DEBUG) console.error(`round ${round}: parse ${(p / 1e6).toFixed(1)} ms, zod ${(z / 1e6).toFixed(1)} ms`);
  parsePerSec = (n * inputs.length) / (p / 1e9);
  zodPerSec = (n * inputs.length) / (z / 1e9);
}
ratios.sort((a, b) => a - b);
const value = ratios[3] as number;
const spread = ((ratios[ROUNDS - 1] as number) - (ratios[0] as number)) / 2;
console.error(
  `ts_parse_vs_zod: ${inputs.length} inputs (${accepted} accepted), parseCall ${Math.round(parsePerSec)} calls/s, ` +
    `zod ${Math.round(zodPerSec)} calls/s, ratio ${value.toFixed(2)} ± ${spread.toFixed(2)} (sink ${sink > 0})`,
);
if (out !== undefined) {
  mkdirSync(out, { recursive: true });
  writeFileSync(`${out}/ts_parse_vs_zod.json`, JSON.stringify({ ts_parse_vs_zod: { value, spread, target: ">= 2" } }));
}
