// Mastra's MCP client (@mastra/mcp + @mastra/core, pinned in package.json) against `toolsurface
// serve`, as a Mastra agent gets its tools: MCPClient.listToolsets() (Mastra Tool objects built
// from the listed MCP tools), then each tool's execute() for shell, read_file, shell_session
// list and a wrong call (an isError result is thrown as a MastraError carrying the text, which
// an agent hands to its model). Prints one JSON object for tests/python/test_clients_ai_sdk.py.
//
//   node mastra.mjs stdio BIN ROLE FAMILY WORKDIR
//   node mastra.mjs http URL
import { MCPClient } from "@mastra/mcp";

const [kind, ...rest] = process.argv.slice(2);
const server =
  kind === "stdio"
    ? {
        command: rest[0],
        args: ["serve", "--role", rest[1], "--family", rest[2], "--workdir", rest[3]],
        cwd: rest[3],
      }
    : { url: new URL(rest[0]) };
const mcp = new MCPClient({ servers: { toolsurface: server }, timeout: 60_000 });

const CALLS = [
  ["shell", { command: "printf 'strict\\n' > note.txt && cat note.txt" }],
  ["read_file", { path: "note.txt" }],
  ["shell_session", { action: "list" }],
  ["shell_session", { action: "kill", session_id: 1, timeout_s: 5 }],
];

const out = { outputs: [] };
try {
  const tools = (await mcp.listToolsets()).toolsurface;
  out.listed = Object.keys(tools);
  for (const [name, args] of CALLS) {
    try {
      const result = await tools[name].execute(args, {});
      out.outputs.push({ is_error: false, result });
    } catch (e) {
      out.outputs.push({ is_error: true, text: String(e?.message ?? e) });
    }
  }
} finally {
  await mcp.disconnect();
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
