"""Real frameworks on the generated Python host, each with a scripted model (no network):
openai-agents runs an agent whose FunctionTools carry our published parameters and answer
with parse_call's verdicts; the `mcp` low-level server lists our published MCP tools and
answers calls through parse_call, over a real client session.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from conftest import ROOT

sys.path[:0] = [
    str(ROOT / "hosts" / "python"),
    str(ROOT / "hosts" / "python" / "examples"),
]

import toolsurface_standard as ts  # noqa: E402


# ---------------------------------------------------------------------------------------
# openai-agents


def test_openai_agents_function_tools_with_a_scripted_model() -> None:
    from agents import (
        Agent,
        ModelResponse,
        RunConfig,
        Runner,
        Usage,
        set_tracing_disabled,
    )
    from agents.models.interface import Model
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage
    from openai.types.responses import ResponseOutputText

    import openai_agents_host as host

    set_tracing_disabled(True)
    bad = '{"action":"kill","session_id":4242,"timeout_s":3}'
    good = '{"action":"kill","session_id":4242}'
    seen_inputs: list[Any] = []
    handled: list[ts.Call] = []

    class Scripted(Model):
        """Turn 1 a refused call, turn 2 the corrected one, turn 3 a final answer."""

        def __init__(self) -> None:
            self.turn = 0

        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            seen_inputs.append(args[1] if len(args) > 1 else kwargs["input"])
            self.turn += 1
            if self.turn <= 2:
                out: Any = ResponseFunctionToolCall(
                    type="function_call",
                    call_id=f"c{self.turn}",
                    name="shell_session",
                    arguments=bad if self.turn == 1 else good,
                )
            else:
                out = ResponseOutputMessage(
                    id="m",
                    type="message",
                    role="assistant",
                    status="completed",
                    content=[
                        ResponseOutputText(
                            type="output_text", text="done", annotations=[]
                        )
                    ],
                )
            return ModelResponse(output=[out], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    async def handle(call: ts.Call) -> str:
        handled.append(call)
        return f"killed {getattr(call, 'session_id')}"

    tools = host.function_tools("main", "responses", handle)
    published = {
        t["name"]: t
        for t in map(json.loads, ts.published_tools("main", "responses"))
        if "name" in t
    }
    for t in tools:  # the SDK kept our parameters object as published
        assert t.params_json_schema == published[t.name]["parameters"]
    agent = Agent(name="a", instructions="x", tools=list(tools), model=Scripted())
    result = asyncio.run(
        Runner.run(agent, "kill 4242", run_config=RunConfig(tracing_disabled=True))
    )
    assert result.final_output == "done"
    outputs = [
        item["output"]
        for item in seen_inputs[-1]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    assert outputs == [
        "action=kill: unexpected field timeout_s (it belongs to wait)",
        "killed 4242",
    ]
    assert handled == [ts.ShellSessionKill(session_id=4242)]


# ---------------------------------------------------------------------------------------
# mcp (low-level server): tools/list is our published MCP array, calls go through parse_call


def test_mcp_lowlevel_server_lists_published_tools_and_refuses_exactly() -> None:
    import mcp_host as host
    from mcp import Client

    server = host.server("main", "responses")

    async def run() -> tuple[Any, Any, Any]:
        async with Client(server) as client:
            listed = await client.list_tools()
            refused = await client.call_tool(
                "shell_session", {"action": "kill", "session_id": 1, "timeout_s": 3}
            )
            # A duplicate-free Mapping path refusal: 5 for a string field.
            wrong = await client.call_tool("read_file", {"path": 5})
            return listed, refused, wrong

    listed, refused, wrong = asyncio.run(run())
    want = json.loads(ts.published("main", "responses", "mcp"))
    got = [
        t.model_dump(mode="json", by_alias=True, exclude_none=True)
        for t in listed.tools
    ]
    assert [t["name"] for t in got] == [t["name"] for t in want]
    for g, w in zip(got, want):
        assert g["inputSchema"] == w["inputSchema"], w["name"]
    assert refused.is_error
    assert (
        refused.content[0].text
        == "action=kill: unexpected field timeout_s (it belongs to wait)"
    )
    assert wrong.is_error
    assert wrong.content[0].text == (
        "read_file: path: expected a string of 1 to 4096 characters, got 5"
    )
