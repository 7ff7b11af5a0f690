// What the suites share: the generated API, a verdict rendered as the oracle's answer line,
// and the plan (for generators that walk each tool's keys).
import { readFileSync } from "node:fs";
import { callJson, type ParseResult } from "../generated/index.ts";
import { PLAN } from "../generated/plan.ts";

export { PLAN };

/** The oracle's line for a verdict: `{"ok":true,"call":…}` or `{"ok":false,"kind":…,"message":…}`. */
export function answerLine(r: ParseResult): string {
  return r.ok
    ? `{"ok":true,"call":${callJson(r.call)}}`
    : `{"ok":false,"kind":${JSON.stringify(r.kind)},"message":${JSON.stringify(r.message)}}`;
}

export function readLines(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
}
