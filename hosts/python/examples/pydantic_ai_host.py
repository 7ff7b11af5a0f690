"""pydantic-ai on the generated host: every published function tool becomes a
`pydantic_ai.Tool.from_schema(...)` whose `json_schema` is our frozen `parameters` object,
passed as is, and whose function decides the call with `parse_call`, handing a refused
call's exact refusal text back to the model as the tool's output.

What pydantic-ai (2.68) does with the published schema (each point is a probe of
`run_scripted`, asserted by tests/python/test_pyhost_pydantic_ai.py):

- `Tool.from_schema` does not validate against it. It pairs the schema with pydantic-core's
  `any_schema()` validator, so the schema is only what the model is shown (the tool
  definition's `parameters_json_schema`, our dict as is). The arguments are parsed as JSON
  (`validate_json` when the model sent text, `validate_python` for a dict) and handed to the
  function as keyword arguments, unchecked: an unknown field, a value out of a declared bound
  or a field of another action reaches `parse_call`, and the model reads our refusal, as a
  successful tool return (not a retry: it costs none of the tool's `max_retries`).
- The function gets parsed values, so it re-serializes them (`json.dumps`) for `parse_call`.
  A duplicate key is gone by then (pydantic-core keeps the last one): such a call is accepted
  with the last value, where `parse_call` on the raw text refuses it ("duplicate field").
  Numbers keep their form (`20.0` stays a float).
- Arguments that are not JSON fail pydantic-ai's own parse before the function runs: the
  model gets a return with outcome "retried" whose text is `{"error": [<pydantic's error
  details>]}`, pydantic-ai's wording, not ours, and it counts against `max_retries` (default
  1; past it the run raises `UnexpectedModelBehavior`).
- JSON that is not an object (`[1]`) passes `any_schema()` and then cannot be spread as
  keyword arguments: the run raises `TypeError` out of `Agent.run`. Neither our refusal nor a
  retry reaches the model; a host that must survive that wraps the run.
- A concrete provider model may rewrite the schema on its way out (its profile's
  `JsonSchemaTransformer`, e.g. OpenAI strict mode); `FunctionModel`, used below, passes it as
  given. `strict` is copied from the published tool (chat, chat_strict, responses carry it),
  so the transformer does not infer it; Anthropic tools publish none and stay `None`.

Run it (pydantic-ai lives in target/clients/py, see scripts/test-setup-clients):

    PYTHONPATH=hosts/python target/clients/py/bin/python hosts/python/examples/pydantic_ai_host.py

It drives an `Agent` with a scripted `FunctionModel` (no network) and prints one JSON line.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import toolsurface_standard as ts
from pydantic_ai import Agent, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

Handler = Callable[[ts.Call], str]


def _function_tools(role: str, family: str) -> list[dict[str, Any]]:
    """The published function tools of `role` on `family` as {name, description,
    parameters, strict}: the Chat Completions shape (chat, chat_strict), the Responses one
    (its custom and tool_search tools are not function tools) and Anthropic's
    `input_schema`. Gemini publishes an OpenAPI subset, not JSON Schema: refused."""
    if family == "gemini":
        raise ValueError("gemini parameters are an OpenAPI subset, not a JSON Schema")
    out = []
    for text in ts.published_tools(role, family):
        tool = json.loads(text)
        if "function" in tool:  # chat, chat_strict
            tool = tool["function"]
        elif "input_schema" in tool:  # anthropic
            tool = {**tool, "parameters": tool["input_schema"]}
        elif tool.get("type") != "function" or "parameters" not in tool:
            continue  # responses custom (freeform) and tool_search tools
        out.append(tool)
    return out


def _decide(role: str, family: str, name: str, handle: Handler) -> Callable[..., Any]:
    """The tool function: every argument the model sent arrives as a keyword (the function
    declares no other parameter, so none can be captured), and `parse_call` decides."""

    async def run(**arguments: Any) -> str:
        try:
            call = ts.parse_call(role, family, name, json.dumps(arguments))
        except ts.CallError as refused:
            return str(refused)
        return handle(call)

    return run


def tools(role: str, family: str, handle: Handler) -> list[Tool[Any]]:
    """One pydantic-ai Tool per function tool published for `role` on `family`."""
    out: list[Tool[Any]] = []
    for published in _function_tools(role, family):
        tool: Tool[Any] = Tool.from_schema(
            _decide(role, family, published["name"], handle),
            name=published["name"],
            description=published.get("description"),
            json_schema=published["parameters"],
            takes_ctx=False,
        )
        tool.strict = published.get("strict")  # published as is, not inferred
        out.append(tool)
    return out


# ---------------------------------------------------------------------------------------
# A scripted run: FunctionModel plays the model, no network.

ROLE, FAMILY = "main", "chat"
# Schema-valid (mode and both fields are published properties) but refused by the
# `exactly_one_of: [[session_id, channel]]` rule of tool-defs/tools/message_read.yaml.
REFUSED_ARGS = '{"mode":"history","session_id":"s1","channel":"ops"}'
ACCEPTED_ARGS = '{"mode":"history","channel":"ops","limit":20}'


def _script(turns: list[ModelResponse], shown: list[list[Any]]) -> FunctionModel:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        shown.append(
            [
                {
                    "name": t.name,
                    "parameters": t.parameters_json_schema,
                    "strict": t.strict,
                }
                for t in info.function_tools
            ]
        )
        return turns[len(shown) - 1]

    return FunctionModel(model)


def _tool_outputs(messages: list[ModelMessage]) -> list[dict[str, Any]]:
    """What came back to the model for each call, in order: the return's outcome
    ("success", or "retried" for pydantic-ai's own retry prompt) and the text a provider
    model is sent for it."""
    return [
        {"outcome": part.outcome, "text": part.model_response_str()}
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]


async def _run(turns: list[ModelResponse], handle: Handler) -> dict[str, Any]:
    shown: list[list[Any]] = []
    agent = Agent(_script(turns, shown), tools=tools(ROLE, FAMILY, handle))
    try:
        result = await agent.run("read the last 20 messages of #ops")
    except Exception as e:  # noqa: BLE001 - the probe reports what the framework raised
        return {"raised": f"{type(e).__name__}: {e}", "shown": shown}
    return {
        "output": result.output,
        "tool_outputs": _tool_outputs(result.all_messages()),
        "shown": shown,
    }


# Calls the published schema does not allow, or whose text is not one plain JSON object:
# each probe is a run of its own, one call per turn, then a final text.
PROBES = {
    "unknown_field": ['{"mode":"history","channel":"ops","foo":1}'],
    "out_of_bound": ['{"mode":"history","channel":"ops","limit":0}'],
    "duplicate_key": ['{"mode":"history","channel":"ops","channel":"dev"}'],
    "not_json": ['{"mode":'],
    "retries_exhausted": ['{"mode":', '{"mode":'],
    "not_object": ["[1]"],
}


def run_scripted() -> dict[str, Any]:
    """Turn 1 a refused call, turn 2 the accepted one, turn 3 the final text; then each of
    PROBES in a run of its own; then the tool definitions of every JSON Schema family."""
    handled: list[str] = []

    def handle(call: ts.Call) -> str:
        handled.append(ts.call_json(call))
        return f"ok: {ts.call_json(call)}"

    def call(args: str, n: int) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("message_read", args, f"c{n}")])

    main = asyncio.run(
        _run(
            [
                call(REFUSED_ARGS, 1),
                call(ACCEPTED_ARGS, 2),
                ModelResponse(parts=[TextPart("done")]),
            ],
            handle,
        )
    )
    main["sent"] = [REFUSED_ARGS, ACCEPTED_ARGS]
    main["handled"] = list(handled)
    probes = {}
    for label, calls in PROBES.items():
        handled.clear()
        turns = [call(args, n) for n, args in enumerate(calls, 1)]
        probes[label] = asyncio.run(
            _run([*turns, ModelResponse(parts=[TextPart("done")])], handle)
        )
        del probes[label]["shown"]
        probes[label]["sent"] = calls
        probes[label]["handled"] = list(handled)
    main["schema_invalid"] = probes
    main["families"] = {  # the tool definitions built for every JSON Schema family
        family: [
            {
                "name": t.tool_def.name,
                "parameters": t.tool_def.parameters_json_schema,
                "strict": t.tool_def.strict,
            }
            for t in tools(ROLE, family, handle)
        ]
        for family in ("chat", "chat_strict", "responses", "anthropic")
    }
    return main


if __name__ == "__main__":
    print(json.dumps(run_scripted()))
