"""openai-agents on the generated host: every published tool becomes a `FunctionTool` whose
`params_json_schema` is our frozen `parameters` object (not a schema pydantic derived), and
whose `on_invoke_tool` decides the call with `parse_call`, handing a refused call's exact
refusal text back to the model as the tool output.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext

import toolsurface_standard as ts

Handler = Callable[[ts.Call], Awaitable[str]]


def function_tools(role: str, family: str, handle: Handler) -> list[FunctionTool]:
    """One FunctionTool per function tool published for `role` on `family` (a Responses
    family: its tools carry `parameters` and `strict` as published)."""
    out: list[FunctionTool] = []
    for text in ts.published_tools(role, family):
        tool = json.loads(text)
        if tool.get("type") != "function":
            continue  # tool_search, custom (freeform) tools: not FunctionTools

        async def invoke(
            ctx: ToolContext[Any], arguments: str, name: str = tool["name"]
        ) -> str:
            try:
                call = ts.parse_call(role, family, name, arguments)
            except ts.CallError as refused:
                return str(refused)
            return await handle(call)

        out.append(
            FunctionTool(
                name=tool["name"],
                description=tool.get("description", ""),
                params_json_schema=tool["parameters"],
                on_invoke_tool=invoke,
                # Our bytes are already what the provider gets; the SDK's strict rewrite
                # (every field required, not nullable) must not touch them.
                strict_json_schema=False,
            )
        )
    return out
