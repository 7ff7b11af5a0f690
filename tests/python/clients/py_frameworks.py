"""fastmcp's Client and pydantic-ai's MCPToolset (pinned in requirements-py.txt, their own venv)
against `toolsurface serve`, as applications use them: fastmcp lists the tools and calls them
(`raise_on_error=False`, the way agent code reads error results); pydantic-ai runs an Agent
with a scripted FunctionModel (no network) that sees the converted tool definitions and makes
strict_model.CALLS one per step, reading each tool return or retry prompt. Prints one JSON
object for tests/python/test_clients_frameworks.py.

    python py_frameworks.py fastmcp|pydantic_ai stdio BIN ROLE FAMILY WORKDIR
    python py_frameworks.py fastmcp|pydantic_ai http URL
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastmcp import Client  # noqa: E402
from fastmcp.client.transports import StdioTransport  # noqa: E402

from strict_model import CALLS  # noqa: E402


def transport(argv: list[str]) -> Any:
    if argv[0] == "stdio":
        bin_, role, family, workdir = argv[1:5]
        return StdioTransport(
            command=bin_, args=["serve", "--role", role, "--family", family, "--workdir", workdir],
            cwd=workdir,
        )
    return argv[1]


def text_of(content: Any) -> str:
    return "".join(getattr(c, "text", "") for c in content)


async def run_fastmcp(argv: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"outputs": []}
    async with Client(transport(argv), timeout=60) as client:
        tools = await client.list_tools()
        out["listed"] = [t.name for t in tools]
        for name, args in CALLS:
            result = await client.call_tool(name, args, raise_on_error=False)
            out["outputs"].append({
                "is_error": result.is_error,
                "text": text_of(result.content),
                "structured": result.structured_content,
            })
    return out


async def run_pydantic_ai(argv: list[str]) -> dict[str, Any]:
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import (
        ModelResponse,
        RetryPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    out: dict[str, Any] = {"outputs": [], "schemas": {}}

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        step = len(out["outputs"]) if out["schemas"] else 0
        if not out["schemas"]:
            out["listed"] = [t.name for t in info.function_tools]
            out["schemas"] = {t.name: t.parameters_json_schema for t in info.function_tools}
        else:
            for part in messages[-1].parts:
                if isinstance(part, ToolReturnPart):
                    out["outputs"].append({"is_error": False, "text": json.dumps(part.content)})
                elif isinstance(part, RetryPromptPart):
                    text = part.content if isinstance(part.content, str) else json.dumps(
                        part.content)
                    out["outputs"].append({"is_error": True, "text": text})
            step = len(out["outputs"])
        if step < len(CALLS):
            name, args = CALLS[step]
            return ModelResponse(parts=[ToolCallPart(tool_name=name, args=args,
                                                     tool_call_id=f"c{step}")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), toolsets=[MCPToolset(transport(argv), read_timeout=60)])
    result = await agent.run("exercise the tools")
    out["text"] = result.output
    return out


async def main() -> None:
    which, argv = sys.argv[1], sys.argv[2:]
    out = await (run_fastmcp(argv) if which == "fastmcp" else run_pydantic_ai(argv))
    print(json.dumps(out, default=str))


asyncio.run(main())
