"""Strict converters end to end against `toolsurface serve` (issue 29 item 2).

openai-agents' `convert_schemas_to_strict=True` and LangChain's `convert_to_openai_tool(strict=
True)` mark every property required; a strict model then sends every key. Served as
`--family chat_strict`, the MCP rendering is already strict-safe (all required, optional ones
nullable, `null` counted as absent): a fixed point of both converters, so a strict model sends
`null` for the other actions' fields and the calls run. Served as `--family chat`, the
converted schema requires them without allowing `null`, the model must invent values and the
server rightly refuses them: that is why the README says to serve `chat_strict` to strict-mode
clients.

openai-agents (pinned in scripts/requirements.txt) runs an Agent with a scripted Model (no
network) over stdio and streamable HTTP. langchain-core's converter runs here; the
langchain-mcp-adapters run is tests/python/clients/langchain_strict.py in its own venv
(scripts/test-setup-clients: the adapters pin mcp<2).
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, ModelResponse, Runner, Usage, set_tracing_disabled
from agents.items import ToolCallOutputItem
from agents.mcp import MCPServerStdio, MCPServerStreamableHttp
from agents.models.interface import Model
from agents.strict_schema import ensure_strict_json_schema
from langchain_core.utils.function_calling import convert_to_openai_tool
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from clients_support import langchain_python, run_json
from conftest import BIN, ROOT, emit
from strict_model import CALLS, WRONG_CALL_TEXT, strict_arguments
from test_mcp import HttpServer

ROLE = "main"
set_tracing_disabled(True)  # no network: nothing to export traces to


def langchain_strict(schema: dict[str, Any], name: str) -> dict[str, Any]:
    tool = {"name": name, "description": "d", "parameters": copy.deepcopy(schema)}
    return convert_to_openai_tool(tool, strict=True)["function"]["parameters"]


@pytest.mark.parametrize("family", ["chat_strict"])
def test_the_strict_rendering_is_a_fixed_point_of_both_converters(family: str) -> None:
    for tool in emit(ROLE, family, "mcp"):
        schema = tool["inputSchema"]
        assert ensure_strict_json_schema(copy.deepcopy(schema)) == schema, tool["name"]
        assert langchain_strict(schema, tool["name"]) == schema, tool["name"]


def test_the_plain_rendering_is_not_a_fixed_point() -> None:
    """The control: the chat rendering leaves optional fields out of `required`, which the
    converters add without making them nullable."""
    schema = next(t for t in emit(ROLE, "chat", "mcp") if t["name"] == "shell_session")
    converted = ensure_strict_json_schema(copy.deepcopy(schema["inputSchema"]))
    assert converted != schema["inputSchema"]
    assert converted["properties"]["session_id"]["type"] == "integer"
    assert set(converted["required"]) == set(converted["properties"])


class ScriptedModel(Model):
    """One strict-mode call of CALLS per turn, with the arguments `strict_arguments` derives
    from the schema the agent gave the model; then a final message."""

    def __init__(self) -> None:
        self.step = 0
        self.schemas: dict[str, dict[str, Any]] = {}
        self.strict: dict[str, bool] = {}
        self.sent: list[dict[str, Any]] = []

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                           handoffs, tracing, **kwargs) -> ModelResponse:
        for tool in tools:
            self.schemas[tool.name] = tool.params_json_schema
            self.strict[tool.name] = tool.strict_json_schema
        if self.step < len(CALLS):
            name, intended = CALLS[self.step]
            self.step += 1
            arguments = strict_arguments(self.schemas[name], intended)
            self.sent.append(arguments)
            item: Any = ResponseFunctionToolCall(
                type="function_call", call_id=f"call_{self.step}", name=name,
                arguments=json.dumps(arguments), id=f"fc_{self.step}", status="completed",
            )
        else:
            item = ResponseOutputMessage(
                id="msg_1", type="message", role="assistant", status="completed",
                content=[ResponseOutputText(type="output_text", text="done", annotations=[])],
            )
        return ModelResponse(output=[item], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):  # pragma: no cover - Runner.run never streams
        raise NotImplementedError("the scripted model answers get_response only")


async def run_agent(server: Any) -> tuple[ScriptedModel, list[str]]:
    model = ScriptedModel()
    async with server:
        agent = Agent(
            name="strict", instructions="use the tools", model=model, mcp_servers=[server],
            mcp_config={"convert_schemas_to_strict": True},
        )
        result = await Runner.run(agent, "go", max_turns=len(CALLS) + 2)
    outputs = [str(i.output) for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    assert result.final_output == "done"
    return model, outputs


def agents_server(transport: str, family: str, workdir: Path) -> tuple[Any, HttpServer | None]:
    if transport == "stdio":
        params = {"command": str(BIN), "cwd": str(workdir),
                  "args": ["serve", "--role", ROLE, "--family", family, "--workdir", str(workdir)]}
        return MCPServerStdio(params=params, client_session_timeout_seconds=30), None
    http = HttpServer(ROLE, family, workdir)
    return MCPServerStreamableHttp(params={"url": http.url}, client_session_timeout_seconds=30), http


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_openai_agents_strict_mode_runs_on_chat_strict(transport: str, tmp_path: Path) -> None:
    server, http = agents_server(transport, "chat_strict", tmp_path)
    try:
        model, outputs = asyncio.run(asyncio.wait_for(run_agent(server), 120))
    finally:
        if http is not None:
            http.close()
    published = {t["name"]: t["inputSchema"] for t in emit(ROLE, "chat_strict", "mcp")}
    for name, _ in CALLS:
        assert model.strict[name] is True, name
        assert model.schemas[name] == published[name], name
    # Every other action's field went as null, and null counts as absent.
    assert model.sent[2]["session_id"] is None and model.sent[2]["action"] == "list"
    shell, read, listing, wrong = outputs
    assert '"exit_code":0' in shell and "strict" in shell, shell
    assert "strict\\n" in read or "strict\n" in read, read
    assert '"sessions":[]' in listing, listing
    assert WRONG_CALL_TEXT in wrong, wrong


def test_openai_agents_strict_mode_on_plain_chat_is_refused(tmp_path: Path) -> None:
    """The control: under `--family chat` the strict model must invent values for the other
    actions' fields, and the server refuses them (so `chat_strict` is the family to serve)."""
    server, _ = agents_server("stdio", "chat", tmp_path)
    model, outputs = asyncio.run(asyncio.wait_for(run_agent(server), 120))
    assert model.sent[2]["session_id"] == 1
    assert "action=list: unexpected field" in outputs[2], outputs[2]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_langchain_mcp_adapters_strict_conversion_runs_on_chat_strict(
    transport: str, tmp_path: Path
) -> None:
    driver = ROOT / "tests" / "python" / "clients" / "langchain_strict.py"
    http = HttpServer(ROLE, "chat_strict", tmp_path) if transport == "http" else None
    try:
        target = http.url if http is not None else str(BIN)
        out = run_json(
            [str(langchain_python()), str(driver), transport, target, ROLE, "chat_strict",
             str(tmp_path)],
            cwd=tmp_path,
        )
    finally:
        if http is not None:
            http.close()
    published = {t["name"]: t["inputSchema"] for t in emit(ROLE, "chat_strict", "mcp")}
    for name, _ in CALLS:
        assert out["converted"][name] == published[name], name
    assert out["sent"][2]["session_id"] is None
    shell, read, listing, wrong = out["outputs"]
    assert shell["is_error"] is False and '"exit_code":0' in shell["text"], shell
    assert read["is_error"] is False and "strict" in read["text"], read
    assert listing["is_error"] is False and '"sessions":[]' in listing["text"], listing
    assert wrong["is_error"] is True and WRONG_CALL_TEXT in wrong["text"], wrong
    # The session-holding form: the write and the read share one conversation.
    assert out["same_session_read"] is True, out["held"]
    # The quick-start form opens an MCP session per call: the write never saw the read.
    assert out["per_call"]["write"]["is_error"] is True, out["per_call"]
    per_call_write = out["per_call"]["write"]["text"]
    assert per_call_write.startswith("Not written:"), per_call_write
    assert "was not read in this conversation" in per_call_write, per_call_write
    # A command left running: promised a wake-up in the held session, told the truth (it is
    # killed when the session closes) in the per-call one.
    held_bg = out["held_background"]["text"]
    assert "will be woken when it exits" in held_bg, held_bg
    per_call_bg = out["per_call_background"]["text"]
    assert "keeps running in the background" in per_call_bg, per_call_bg
    assert "woken when" not in per_call_bg, per_call_bg
    assert "never listed the tools" in per_call_bg, per_call_bg
