// OpenAI Agents JS: a `tool()` per published tool with the frozen parameters as a plain JSON
// schema and `strict: true`; `execute` runs parseCall and returns a refusal's text as the tool
// output (the default errorFunction would replace it with a fixed "An error occurred …").
import { tool, type FunctionTool } from "@openai/agents-core";
import { parseCall, publishedTool, type Family, type Role, type ToolName, type Call } from "../generated/index.ts";

export function agentsTool(
  role: Role,
  family: Family,
  name: ToolName,
  run: (call: Call) => Promise<string>,
): FunctionTool {
  const published = publishedTool(role, family, name);
  const fn = (published["function"] as Record<string, unknown> | undefined) ?? published;
  return tool({
    name,
    description: String(fn["description"] ?? ""),
    parameters: structuredClone(fn["parameters"]) as never,
    strict: true,
    execute: async (input: unknown) => {
      const r = parseCall(role, family, name, input);
      return r.ok ? run(r.call) : r.message;
    },
  }) as unknown as FunctionTool;
}
