// Vercel AI SDK 7: `tool()` with the generated Standard Schema object as `inputSchema` (its
// Standard JSON Schema is the published parameters, its validate is parseCall) and `execute`
// running the typed call. AI SDK 7 needs Node >= 22.
import { tool } from "ai";
import { standardSchema, type CallOf, type Family, type Role, type ToolName } from "../generated/index.ts";

export function aiSdkTool<T extends ToolName>(
  role: Role,
  family: Family,
  name: T,
  description: string,
  run: (call: CallOf<T>) => Promise<string>,
) {
  return tool({
    description,
    inputSchema: standardSchema(role, family, name),
    execute: async (call: CallOf<T>) => run(call),
  });
}
