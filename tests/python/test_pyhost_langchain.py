"""LangChain on the generated Python host, with a scripted model (no network): a
`StructuredTool` per published tool whose `args_schema` is our published parameters (a dict,
so LangChain neither rewrites nor re-validates it), bound to a fake chat model that sends the
tool calls a model would; every call goes through `parse_call`, and a refusal comes back to
the model as the tool message with Rust's exact text.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from conftest import ROOT

sys.path[:0] = [str(ROOT / "hosts" / "python")]

import toolsurface_standard as ts  # noqa: E402

ROLE, FAMILY = "side_chat", "chat"


def structured_tools(handled: list[ts.Call]) -> list[Any]:
    from langchain_core.tools import StructuredTool

    tools = []
    for text in ts.published_tools(ROLE, FAMILY):
        function = json.loads(text)["function"]
        name = function["name"]

        def run(_name: str = name, **kwargs: Any) -> str:
            try:
                call = ts.parse_call(ROLE, FAMILY, _name, json.dumps(kwargs))
            except ts.CallError as e:
                return str(e)
            handled.append(call)
            return f"ok: {ts.call_json(call)}"

        tools.append(
            StructuredTool(
                name=name,
                description=function["description"],
                args_schema=function["parameters"],
                func=run,
            )
        )
    return tools


def test_structured_tools_carry_the_published_schema_and_answer_with_parse_call() -> (
    None
):
    from langchain_core.messages import AIMessage, ToolMessage

    handled: list[ts.Call] = []
    tools = {t.name: t for t in structured_tools(handled)}
    published = {
        json.loads(t)["function"]["name"]: json.loads(t)["function"]["parameters"]
        for t in ts.published_tools(ROLE, FAMILY)
    }
    assert set(tools) == set(published)
    # LangChain keeps the dict schema as given: what the model is shown is our bytes.
    for name, tool in tools.items():
        assert (
            tool.tool_call_schema == published[name]
            or tool.args_schema == published[name]
        )

    # A scripted model turn: one refused call, one accepted call, as a strict model sends them.
    turn = AIMessage(
        content="",
        tool_calls=[
            {
                "name": "shell_session",
                "args": {"action": "kill", "session_id": 4242, "timeout_s": 3},
                "id": "c1",
            },
            {
                "name": "shell_session",
                "args": {"action": "kill", "session_id": 4242},
                "id": "c2",
            },
        ],
    )
    replies: list[ToolMessage] = [tools[c["name"]].invoke(c) for c in turn.tool_calls]
    assert all(isinstance(r, ToolMessage) for r in replies)
    refused, accepted = (str(r.content) for r in replies)
    try:
        ts.parse_call(
            ROLE,
            FAMILY,
            "shell_session",
            '{"action":"kill","session_id":4242,"timeout_s":3}',
        )
    except ts.CallError as e:
        assert refused == str(e)
    else:
        raise AssertionError("the refused call parsed")
    assert refused == "action=kill: unexpected field timeout_s (it belongs to wait)"
    assert accepted.startswith("ok: ")
    assert (
        len(handled) == 1
        and handled[0].tool == "shell_session"
        and handled[0].action == "kill"
    )
