// Run under Node >= 22 (AI SDK 7) by test/frameworks.test.ts: generateText with a scripted
// model (the SDK's MockLanguageModelV4) that calls shell_session twice, once validly and once
// with a foreign field; prints one JSON object with what the model was sent and what came back.
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { callJson } from "../generated/index.ts";
import { aiSdkTool } from "../examples/ai-sdk-tool.ts";

const ran: string[] = [];
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
let turn = 0;
const sentTools: unknown[] = [];
const model = new MockLanguageModelV4({
  doGenerate: async (options) => {
    sentTools.push(options.tools);
    turn++;
    if (turn === 1) {
      return {
        content: [
          { type: "tool-call", toolCallId: "c1", toolName: "shell_session", input: '{"action":"kill","session_id":7}' },
          { type: "tool-call", toolCallId: "c2", toolName: "shell_session", input: '{"action":"kill","session_id":7,"timeout_s":3}' },
        ],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      } as never;
    }
    return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] } as never;
  },
});

const result = await generateText({
  model,
  tools: {
    shell_session: aiSdkTool("main", "chat", "shell_session", "Manage background sessions.", async (call) => {
      ran.push(callJson(call));
      return "killed";
    }),
  },
  prompt: "stop session 7",
  stopWhen: stepCountIs(3),
});
const first = result.steps[0];
console.log(
  JSON.stringify({
    ran,
    results: first?.toolResults.map((r) => r.output) ?? [],
    errors: first?.content.filter((c) => c.type === "tool-error").map((c) => String((c as { error: unknown }).error)) ?? [],
    sentTools: sentTools[0],
  }),
);
