// Real frameworks around the generated host, each with the pinned package and a scripted
// client/model (no network). MCP: the TypeScript SDK's Client talks to examples/mcp-server.ts
// over the SDK's in-memory transport; tools/list must be the published MCP bytes, refusals
// isError results with Rust's text (checked against the oracle). OpenAI Agents JS: tool() over the
// strict published parameters (examples/agents-tool.ts), invoked with scripted argument texts.
// AI SDK 7: generateText with a scripted MockLanguageModelV4 over examples/ai-sdk-tool.ts, run
// on Node 24 from PyPI (scripts/test-setup-node), as the package needs Node >= 22.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { callJson, mcpTools, publishedTool } from "../generated/index.ts";
import { createServer } from "../examples/mcp-server.ts";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { fileURLToPath } from "node:url";
import { Oracle } from "./oracle.ts";

const oracle = new Oracle();
after(() => oracle.close());

test("MCP SDK: tools/list is the published bytes, tools/call answers with Rust's texts", async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // What the server puts on the wire (the client's own schemas re-order keys when reading).
  const sent: string[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    sent.push(JSON.stringify(message));
    return send(message, options);
  };
  // The scripted host runs an accepted kill: the result the output schema asks for.
  const ran: string[] = [];
  const server = createServer("main", "anthropic", [], async (call) => {
    ran.push(callJson(call));
    return {
      session_id: 4242, running: false, exit_code: null, signal: 9, reason: "killed", matched: null,
      output: "", offset: 0, next_offset: 0, total_bytes: 0, dropped_bytes: 0, truncated_bytes: 0,
      already_gone: false,
    };
  });
  await server.connect(serverSide);
  const client = new Client({ name: "scripted-model", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    const listed = await client.listTools();
    const bytes = mcpTools("main", "anthropic");
    assert.ok(sent.some((m) => m.includes(`"result":{"tools":${bytes}}`)), "tools/list carries the published bytes");
    assert.deepEqual(listed.tools, JSON.parse(bytes));
    // The scripted model's calls: accepted, a foreign field, a typo'd tool, a retired one.
    const script: { name: string; arguments: Record<string, unknown> }[] = [
      { name: "shell_session", arguments: { action: "kill", session_id: 4242 } },
      { name: "shell_session", arguments: { action: "kill", session_id: 1, timeout_s: 3 } },
      { name: "shell_sesion", arguments: {} },
      { name: "get_facts", arguments: {} },
      { name: "read_file", arguments: { path: "a", limit: 0 } },
    ];
    let refused = 0;
    for (const call of script) {
      const res = (await client.callTool(call)) as { content: { type: string; text: string }[]; isError?: boolean };
      const rust = JSON.parse(await oracle.ask({ role: "main", family: "anthropic", skills: [], ...call })) as {
        ok: boolean;
        message?: string;
        call?: unknown;
      };
      assert.equal(res.isError === true, !rust.ok, `${call.name}: isError`);
      if (rust.ok) assert.equal(JSON.stringify(rust.call), ran.at(-1), "the host ran Rust's call");
      else {
        refused++;
        assert.equal(res.content[0]?.text, rust.message);
      }
    }
    assert.equal(refused, 4);
    assert.equal(ran.length, 1);
  } finally {
    await client.close();
    await server.close();
  }
});

test("OpenAI Agents JS: tool() with the strict published parameters, refusals as the tool output", async () => {
  const { RunContext } = await import("@openai/agents-core");
  const { agentsTool } = await import("../examples/agents-tool.ts");
  const ran: string[] = [];
  const t = agentsTool("main", "chat_strict", "shell_session", async (call) => {
    ran.push(callJson(call));
    return "killed";
  });
  const published = publishedTool("main", "chat_strict", "shell_session");
  assert.equal(t.name, "shell_session");
  assert.equal(t.strict, true);
  assert.deepEqual(t.parameters, (published["function"] as Record<string, unknown>)["parameters"]);
  // The scripted model's argument texts, as a strict model sends them (every field, nulls).
  const script = [
    '{"action":"kill","session_id":7,"host_id":null,"chars":null,"keys":null,"peek":null,"offset":null,"timeout_s":null,"until_output":null,"cols":null,"rows":null,"watcher_id":null}',
    '{"action":"kill","session_id":7,"timeout_s":3}',
    '{"action":"wait","session_id":0}',
    '{"action":"bogus"}',
  ];
  const outputs: string[] = [];
  for (const args of script) {
    const out = String(await t.invoke(new RunContext(), args));
    outputs.push(out);
    const rust = JSON.parse(await oracle.ask({ role: "main", family: "chat_strict", skills: [], name: "shell_session", arguments: args })) as {
      ok: boolean;
      message?: string;
      call?: unknown;
    };
    if (rust.ok) assert.equal(out, "killed");
    else assert.equal(out, rust.message);
  }
  assert.deepEqual(ran, ['{"name":"shell_session","arguments":{"action":"kill","session_id":7}}']);
  assert.equal(outputs[1], "action=kill: unexpected field timeout_s (it belongs to wait)");
});

test("AI SDK 7 (on Node 24): tool() with the Standard Schema object, a scripted model", async () => {
  const cache = process.env["TOOLSURFACE_CACHE"] ?? `${homedir()}/.cache/toolsurface`;
  const node24 = `${cache}/node24-24.19.0/node`;
  assert.ok(existsSync(node24), `${node24} is missing: run scripts/test-setup-node`);
  const here = fileURLToPath(new URL("../", import.meta.url));
  const out = execFileSync(node24, ["--import", "tsx", "node24/ai-sdk.run.ts"], { cwd: here, encoding: "utf8" });
  const r = JSON.parse(out) as { ran: string[]; results: unknown[]; errors: string[]; sentTools: { name: string; inputSchema: unknown }[] };
  assert.deepEqual(r.ran, ['{"name":"shell_session","arguments":{"action":"kill","session_id":7}}']);
  assert.deepEqual(r.results, ["killed"]);
  const args = '{"action":"kill","session_id":7,"timeout_s":3}';
  const rust = JSON.parse(await oracle.ask({ role: "main", family: "chat", skills: [], name: "shell_session", arguments: args })) as { message: string };
  assert.equal(r.errors.length, 1);
  assert.ok(r.errors[0]?.includes(JSON.stringify([{ message: rust.message }])), r.errors[0]);
  // The model was sent the published parameters, not a schema recomputed from zod.
  const published = publishedTool("main", "chat", "shell_session");
  assert.deepEqual(r.sentTools[0]?.inputSchema, (published["function"] as Record<string, unknown>)["parameters"]);
});
