// What the suites share: the generated API, a verdict rendered as the oracle's answer line,
// and the plan (for generators that walk each tool's keys).
import { readFileSync } from "node:fs";
import { callJson, type ParseResult } from "../generated/index.ts";
import { PLAN } from "../generated/plan.ts";
import { Num, Obj, formatFloat, readJson, type Val } from "../generated/runtime.ts";

export { PLAN };

/** A value as serde_json prints a `Value` (insertion order, floats as zmij prints them). */
function valJson(v: Val): string {
  if (v instanceof Num) return v.kind === "f" ? formatFloat(v.f) : v.lex;
  if (v instanceof Obj) return `{${v.pairs.map(([k, x]) => `${JSON.stringify(k)}:${valJson(x)}`).join(",")}}`;
  if (Array.isArray(v)) return `[${v.map(valJson).join(",")}]`;
  return JSON.stringify(v);
}

/**
 * The oracle prints an accepted call after reading it back into a `serde_json::Value`
 * (cli/src/commands/oracle.rs `accepted`), whose decimal-to-double conversion is not exact for some
 * floats: the same round trip, applied to our call's bytes (which are compared exactly with
 * the corpus, written without it).
 */
function throughValue(json: string): string {
  const r = readJson(json);
  return r.ok ? valJson(r.value) : json;
}

/** The oracle's line for a verdict: `{"ok":true,"call":…}` or `{"ok":false,"kind":…,"message":…}`. */
export function answerLine(r: ParseResult): string {
  return r.ok
    ? `{"ok":true,"call":${throughValue(callJson(r.call))}}`
    : `{"ok":false,"kind":${JSON.stringify(r.kind)},"message":${JSON.stringify(r.message)}}`;
}

export function readLines(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
}
