// OpenAI Agents JS (@openai/agents-core, pinned in package.json) against `toolsurface serve
// --family chat_strict`, as an application uses it: an Agent with the MCP server and
// mcpConfig.convertSchemasToStrict, run with a scripted Model (no network) that reads the
// converted tool schemas and sends strict-mode calls (every key present, the other actions'
// fields null) for shell, read_file, shell_session list and a wrong call, then reads each
// function_call_result. Prints one JSON object for tests/python/test_clients_ai_sdk.py.
//
//   node agents_js.mjs stdio BIN ROLE FAMILY WORKDIR
//   node agents_js.mjs http URL
import {
  Agent,
  MCPServerStdio,
  MCPServerStreamableHttp,
  Usage,
  run,
  setTracingDisabled,
} from "@openai/agents-core";

setTracingDisabled(true);

const [kind, ...rest] = process.argv.slice(2);
const server =
  kind === "stdio"
    ? new MCPServerStdio({
        command: rest[0],
        args: ["serve", "--role", rest[1], "--family", rest[2], "--workdir", rest[3]],
        cwd: rest[3],
        clientSessionTimeoutSeconds: 60,
      })
    : new MCPServerStreamableHttp({ url: rest[0], clientSessionTimeoutSeconds: 60 });

const CALLS = [
  ["shell", { command: "printf 'strict\\n' > note.txt && cat note.txt" }],
  ["read_file", { path: "note.txt" }],
  ["shell_session", { action: "list" }],
  ["shell_session", { action: "kill", session_id: 1, timeout_s: 5 }],
];

const allowsNull = (s) =>
  s.type === "null" ||
  (Array.isArray(s.type) && s.type.includes("null")) ||
  (s.anyOf ?? []).some(allowsNull);

// What a strict model sends: every property, the intended ones as meant, the rest null.
function strictArguments(schema, intended) {
  const out = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (name in intended) out[name] = intended[name];
    else if (allowsNull(prop)) out[name] = null;
    else throw new Error(`${name} is required and not nullable: a strict model must invent it`);
  }
  return out;
}

const seen = { schemas: {}, strict: {}, sent: [], outputs: [] };
const model = {
  async getResponse(request) {
    for (const tool of request.tools ?? []) {
      seen.schemas[tool.name] = tool.parameters;
      seen.strict[tool.name] = tool.strict;
    }
    const results = (Array.isArray(request.input) ? request.input : []).filter(
      (i) => i.type === "function_call_result",
    );
    seen.outputs = results.map((r) =>
      typeof r.output === "string" ? r.output : (r.output?.text ?? JSON.stringify(r.output)),
    );
    const step = results.length;
    const usage = new Usage();
    if (step < CALLS.length) {
      const [name, intended] = CALLS[step];
      const args = strictArguments(seen.schemas[name], intended);
      seen.sent.push(args);
      return {
        usage,
        output: [
          {
            type: "function_call",
            callId: `call_${step}`,
            name,
            arguments: JSON.stringify(args),
            status: "completed",
          },
        ],
      };
    }
    return {
      usage,
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "done" }],
        },
      ],
    };
  },
  getStreamedResponse() {
    throw new Error("the scripted model answers getResponse only");
  },
};

await server.connect();
let finalOutput;
try {
  const agent = new Agent({
    name: "strict",
    instructions: "use the tools",
    model,
    mcpServers: [server],
    mcpConfig: { convertSchemasToStrict: true },
  });
  const result = await run(agent, "go", { maxTurns: CALLS.length + 2 });
  finalOutput = result.finalOutput;
} finally {
  await server.close();
}
process.stdout.write(JSON.stringify({ ...seen, finalOutput }) + "\n");
