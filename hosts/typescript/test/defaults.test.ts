// `withDefaults`: the step after `parseCall` that fills each left-out field with its
// definition's `default:` (what the Rust conversion into a request type fills), never the
// parse itself (the conformance corpus holds `parseCall` to the Rust parser's calls, which keep
// what the model sent).
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseCall, withDefaults, type Call } from "../generated/index.ts";
import { PLAN } from "../generated/plan.ts";

function parsed(name: string, args: string): Call {
  const r = parseCall("main", "chat", name, args);
  assert.ok(r.ok, `${name} ${args} refused: ${r.ok ? "" : r.message}`);
  return r.call;
}

test("withDefaults fills what the call left out and keeps what it sent", () => {
  const call = parsed("shell", `{"command":"ls","max_output_tokens":1}`);
  const full = withDefaults(call);
  assert.deepEqual(full, { tool: "shell", command: "ls", max_output_tokens: 1, yield_ms: 10000, tty: false });
  assert.equal("yield_ms" in call, false, "the parsed call itself is untouched");
  // A call sending null for a field: null counts as absent, so the default applies.
  const nulls = withDefaults(parsed("shell", `{"command":"ls","tty":null,"yield_ms":null}`));
  assert.deepEqual(nulls, { tool: "shell", command: "ls", yield_ms: 10000, max_output_tokens: 10000, tty: false });
});

test("a call with nothing to fill is returned as it is", () => {
  const call = parsed("shell", `{"command":"ls","yield_ms":300,"max_output_tokens":5,"tty":true}`);
  assert.equal(withDefaults(call), call);
});

test("every default of the plan is filled, with the value the definitions declare", () => {
  let filled = 0;
  for (const tool of PLAN.tools) {
    for (const action of tool.actions) {
      const defaults = action.object.fields.filter((f) => f.default !== undefined);
      if (defaults.length === 0) continue;
      const bare: Record<string, unknown> = { tool: tool.name };
      if (tool.selector !== null && action.name !== null) bare[tool.selector] = action.name;
      const full = withDefaults(bare as unknown as Call) as unknown as Record<string, unknown>;
      for (const f of defaults) {
        assert.deepEqual(full[f.name], f.default, `${tool.name} ${action.name ?? ""} ${f.name}`);
        filled++;
      }
    }
  }
  // tool-defs declares 22 defaults, some on fields several actions take.
  assert.ok(filled >= 22, `only ${filled} defaults filled`);
});

test("an action's own default (defaults:) is filled for that action alone", () => {
  // message_read's limit counts messages, turns or characters: each mode has its own default.
  const limit = (args: string): unknown =>
    (withDefaults(parsed("message_read", args)) as unknown as Record<string, unknown>).limit;
  assert.equal(limit(`{"mode":"history","session_id":"s"}`), 50);
  assert.equal(limit(`{"mode":"turns","session_id":"s"}`), 10);
  assert.equal(limit(`{"mode":"payload","message_id":"m","field":"content"}`), 4000);
  assert.equal(limit(`{"mode":"turns","session_id":"s","limit":3}`), 3, "a sent limit is kept");
  // The plan carries them per action (FieldPlan.default), not once per field.
  const tool = PLAN.tools.find((t) => t.name === "message_read");
  assert.ok(tool !== undefined);
  const planned = tool.actions.map((a) => [a.name, a.object.fields.find((f) => f.name === "limit")?.default]);
  assert.deepEqual(planned, [["history", 50], ["turns", 10], ["context", undefined], ["payload", 4000]]);
});

test("a call of no tool of the plan is a TypeError", () => {
  assert.throws(() => withDefaults({ tool: "nope" } as unknown as Call), TypeError);
});
