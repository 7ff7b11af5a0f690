// The conformance corpus (tests/conformance/*.jsonl, written by `toolsurface conformance` from
// the plan and checked in): every case through the generated parseCall, asserting the verdict,
// the refusal kind and message bytes, and the accepted call's bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { parseCall, type Family, type Role, type Skill } from "../generated/index.ts";
import { ROOT } from "./oracle.ts";
import { readLines } from "./common.ts";

const DIR = `${ROOT}tests/conformance/`;

interface Case {
  role: Role;
  family: Family;
  skills: Skill[];
  name: string;
  raw: string;
  verdict: "accept" | "refuse";
  kind?: string;
  message?: string;
}

const files = readdirSync(DIR).filter((f) => f.endsWith(".jsonl"));

test("the corpus is there and not empty", () => {
  assert.ok(files.length >= 10, `expected the corpus under ${DIR}, found ${files.length} files`);
});

for (const file of files) {
  test(`conformance ${file}`, () => {
    const lines = readLines(DIR + file);
    assert.ok(lines.length > 0);
    const failures: string[] = [];
    for (const line of lines) {
      const c = JSON.parse(line) as Case;
      const r = parseCall(c.role, c.family, c.name, c.raw, c.skills);
      if (c.verdict === "accept") {
        // The call is the line's last member, as serde_json printed it (5.0 stays 5.0).
        const want = line.slice(line.indexOf(',"call":') + ',"call":'.length, -1);
        if (!r.ok) failures.push(`${c.name} ${c.raw}: refused (${r.message}), Rust accepts ${want}`);
        else {
          const got = callJsonOf(r.call);
          if (got !== want) failures.push(`${c.name} ${c.raw}: call ${got}, Rust ${want}`);
        }
      } else if (r.ok) failures.push(`${c.name} ${c.raw}: accepted, Rust refuses: ${c.message}`);
      else if (r.message !== c.message || r.kind !== c.kind) {
        failures.push(`${c.name} ${c.raw}:\n  ts   ${r.kind} ${r.message}\n  rust ${c.kind} ${c.message}`);
      }
    }
    assert.deepEqual(failures, [], `${failures.length} of ${lines.length} cases differ`);
  });
}

import { callJson as callJsonOf } from "../generated/index.ts";

import { Obj, readJson } from "../generated/runtime.ts";

test("a string value that starts with U+FEFF keeps it (as serde_json reads it)", () => {
  const r = readJson('{"patch":"\ufeff{}","b":"x\ufeff"}');
  assert.ok(r.ok);
  assert.deepEqual(r.value, new Obj([["patch", "\ufeff{}"], ["b", "x\ufeff"]]));
});
