// The Vercel AI SDK (@ai-sdk/mcp + ai, pinned in package.json) against `toolsurface serve`, as
// an application would use it: createMCPClient with its default protocol-version discovery
// (it sends `server/discover` declaring 2026-07-28 and, the server speaking that revision,
// stays on it: every request stateless, with its own _meta), client.tools() converted into
// AI SDK tools, and generateText with a scripted model (MockLanguageModelV4: no network) that
// calls shell, read_file, shell_session list and one wrong call. Prints one JSON object on
// stdout for tests/python/test_clients_ai_sdk.py, with the revision the client settled on.
//
//   node ai_sdk.mjs stdio BIN ROLE FAMILY WORKDIR SERVER_LOG   (the server's stderr goes there)
//   node ai_sdk.mjs http URL
import { openSync } from "node:fs";
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const [transportKind, ...rest] = process.argv.slice(2);

function transport() {
  if (transportKind === "stdio") {
    const [bin, role, family, workdir, serverLog] = rest;
    return new Experimental_StdioMCPTransport({
      command: bin,
      args: ["serve", "--role", role, "--family", family, "--workdir", workdir],
      cwd: workdir,
      stderr: openSync(serverLog, "w"),
    });
  }
  if (transportKind === "http") {
    return { type: "http", url: rest[0] };
  }
  throw new Error(`unknown transport ${transportKind}`);
}

// The scripted model: one tool call per step, then a final text.
const script = [
  ["shell", { command: "printf 'hello from the AI SDK\\n' > note.txt && cat note.txt" }],
  ["read_file", { path: "note.txt" }],
  ["shell_session", { action: "list" }],
  ["shell_session", { action: "kill", session_id: 1, timeout_s: 5 }],
];
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
let step = 0;
const seenTools = [];
const model = new MockLanguageModelV4({
  doGenerate: async (options) => {
    seenTools.push((options.tools ?? []).map((t) => t.name));
    if (step < script.length) {
      const [toolName, input] = script[step];
      step += 1;
      return {
        content: [
          { type: "tool-call", toolCallId: `call-${step}`, toolName, input: JSON.stringify(input) },
        ],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      };
    }
    return {
      content: [{ type: "text", text: "done" }],
      finishReason: { unified: "stop", raw: "stop" },
      usage,
      warnings: [],
    };
  },
});

const client = await createMCPClient({ transport: transport() });
const out = { transport: transportKind };
try {
  out.serverInfo = client.serverInfo ?? null;
  out.protocolVersion = client.initializeResult?.protocolVersion ?? null;
  const definitions = await client.listTools();
  out.listed = definitions.tools.map((t) => t.name);
  out.inputSchemas = Object.fromEntries(definitions.tools.map((t) => [t.name, t.inputSchema]));
  const tools = await client.tools();
  out.converted = Object.keys(tools);
  const result = await generateText({
    model,
    tools,
    prompt: "exercise the tools",
    stopWhen: stepCountIs(script.length + 1),
  });
  out.modelSawTools = seenTools[0] ?? [];
  out.results = result.steps.flatMap((s) =>
    s.toolResults.map((r) => ({ tool: r.toolName, input: r.input, output: r.output })),
  );
  out.errors = result.steps.flatMap((s) =>
    s.content
      .filter((c) => c.type === "tool-error")
      .map((c) => ({ tool: c.toolName, error: String(c.error) })),
  );
  out.text = result.text;
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
