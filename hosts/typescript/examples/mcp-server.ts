// An MCP server over the generated host, with the MCP TypeScript SDK's low-level `Server`
// (`registerTool` takes only zod, and would publish zod's JSON Schema): `tools/list` answers
// with the frozen bytes of `toolsurface emit --dialect mcp`, `tools/call` runs parseCall and
// answers a refusal as an `isError` result carrying Rust's exact text.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { callJson, mcpTools, parseCall, type Family, type Role, type Skill } from "../generated/index.ts";

/** What the host does with an accepted call: the tool's result (its output schema's shape). */
export type Run = (call: Parameters<typeof callJson>[0]) => Promise<Record<string, unknown>>;

export function createServer(role: Role, family: Family, skills: readonly Skill[] = [], run?: Run): Server {
  const server = new Server({ name: "toolsurface-ts", version: "0.1.0" }, { capabilities: { tools: {} } });
  const tools = mcpTools(role, family);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: JSON.parse(tools) as never[] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const r = parseCall(role, family, req.params.name, req.params.arguments ?? {}, skills);
    if (!r.ok) return { content: [{ type: "text" as const, text: r.message }], isError: true };
    if (run === undefined) return { content: [{ type: "text" as const, text: callJson(r.call) }] };
    const result = await run(r.call);
    return { content: [{ type: "text" as const, text: JSON.stringify(result) }], structuredContent: result };
  });
  return server;
}
