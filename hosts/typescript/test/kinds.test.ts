// The TypeScript host on the field kinds whose typed value is JSON (any, null, const, unions,
// open objects and maps, a tool's other keys): the host `toolsurface gen typescript` writes for
// tests/data/kinds must typecheck, and answer every case of that folder's conformance corpus
// (`toolsurface conformance`, the plan interpreter's verdicts) with the same verdict, kind,
// message bytes and call bytes (`5.0` stays `5.0` inside `any`, a const is its declared value,
// other keys follow the fields in input order).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BIN, ROOT } from "./oracle.ts";
import { readLines } from "./common.ts";

const HERE = fileURLToPath(new URL("../", import.meta.url));
const KINDS = `${ROOT}tests/data/kinds`;

interface Case {
  role: string;
  family: string;
  skills: string[];
  name: string;
  raw: string;
  verdict: "accept" | "refuse";
  kind?: string;
  message?: string;
}

interface Host {
  parseCall(role: string, family: string, name: string, args: unknown, skills?: readonly string[]):
    | { ok: true; call: unknown }
    | { ok: false; kind: string; message: string };
  callJson(call: unknown): string;
}

test("the host of tests/data/kinds typechecks and agrees with every case of its corpus", async () => {
  // Beside node_modules, so the generated zod.ts resolves `zod`.
  const dir = mkdtempSync(`${HERE}.kinds-`);
  try {
    execFileSync(BIN, ["gen", "typescript", KINDS, "--out", `${dir}/host`], { stdio: "pipe" });
    execFileSync(BIN, ["conformance", KINDS, "--out", `${dir}/corpus`], { stdio: "pipe" });
    writeFileSync(
      `${dir}/tsconfig.json`,
      JSON.stringify({ extends: `${HERE}tsconfig.json`, include: ["host/*.ts"] }),
    );
    const tsc = `${HERE}node_modules/typescript/bin/tsc`;
    assert.equal(execFileSync(process.execPath, [tsc, "-p", `${dir}/tsconfig.json`], { encoding: "utf8" }), "");
    const host = (await import(`${dir}/host/index.ts`)) as Host;
    const failures: string[] = [];
    let cases = 0;
    let accepted = 0;
    for (const file of readdirSync(`${dir}/corpus`).filter((f) => f.endsWith(".jsonl"))) {
      for (const line of readLines(`${dir}/corpus/${file}`)) {
        const c = JSON.parse(line) as Case;
        cases++;
        const r = host.parseCall(c.role, c.family, c.name, c.raw, c.skills);
        if (c.verdict === "accept") {
          accepted++;
          const want = line.slice(line.indexOf(',"call":') + ',"call":'.length, -1);
          if (!r.ok) failures.push(`${c.name} ${c.raw}: refused (${r.message}), Rust accepts ${want}`);
          else {
            const got = host.callJson(r.call);
            if (got !== want) failures.push(`${c.name} ${c.raw}: call ${got}, Rust ${want}`);
          }
        } else if (r.ok) failures.push(`${c.name} ${c.raw}: accepted, Rust refuses: ${c.message}`);
        else if (r.message !== c.message || r.kind !== c.kind) {
          failures.push(`${c.name} ${c.raw}:\n  ts   ${r.kind} ${r.message}\n  rust ${c.kind} ${c.message}`);
        }
      }
    }
    assert.ok(cases > 300 && accepted > 80, `${cases} cases, ${accepted} accepted`);
    // The typed value of `any` is plain data, a `__proto__` member an own member like any other.
    const r = host.parseCall("worker", "chat", "shape", '{"choice":3,"anything":{"__proto__":{"x":1},"b":2.0}}');
    assert.ok(r.ok);
    const anything = (r.call as { anything: Record<string, unknown> }).anything;
    assert.deepEqual(Object.keys(anything), ["__proto__", "b"]);
    assert.equal(anything["b"], 2);
    assert.deepEqual(failures, [], `${failures.length} of ${cases} cases differ`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
