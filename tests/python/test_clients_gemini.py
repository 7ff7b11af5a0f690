"""google-genai (pinned in scripts/requirements.txt) against `toolsurface serve --family gemini`
as its users call it: `generate_content(config={'tools': [session]})` with an MCP
ClientSession, so the SDK converts the listed MCP tools itself (`mcp_to_gemini_tool`) and runs
automatic function calling through the session. The model endpoint is scripted: a local HTTP
server speaking the Gemini REST `generateContent` shape (no network), answering one function
call per request (shell, read_file, shell_session list, a wrong call), then text.

The gemini family's MCP rendering leaves `additionalProperties: false` out (google-genai's
conversion crashes on it, upstream python-genai #2393/#2476); the server refuses unknown
fields anyway. The control: the chat rendering crashes the same conversion.
"""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from google import genai
from google.genai import _mcp_utils
from google.genai import types as gtypes
from mcp import Client, StdioServerParameters

from conftest import BIN, emit
from strict_model import CALLS, WRONG_CALL_TEXT

ROLE = "main"


class ScriptedGemini:
    """A local `models/*:generateContent` endpoint: CALLS as function calls, then "done"."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "body": body})
                step = len(outer.requests) - 1
                if step < len(CALLS):
                    name, args = CALLS[step]
                    part: dict[str, Any] = {"functionCall": {"name": name, "args": args}}
                else:
                    part = {"text": "done"}
                answer = json.dumps({
                    "candidates": [{"content": {"role": "model", "parts": [part]},
                                    "finishReason": "STOP", "index": 0}],
                    "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1,
                                      "totalTokenCount": 2},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def params(family: str, workdir: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(BIN), cwd=str(workdir),
        args=["serve", "--role", ROLE, "--family", family, "--workdir", str(workdir)],
    )


def test_generate_content_with_an_mcp_session_runs_the_tools(tmp_path: Path) -> None:
    endpoint = ScriptedGemini()

    async def scenario() -> Any:
        async with Client(params("gemini", tmp_path), read_timeout_seconds=60) as client:
            model = genai.Client(
                api_key="scripted", http_options=gtypes.HttpOptions(base_url=endpoint.url)
            )
            return await model.aio.models.generate_content(
                model="gemini-scripted", contents="exercise the tools",
                # A dict, as the SDK's MCP docs write it: a GenerateContentConfig object is
                # deep-copied first, which an mcp 2.x ClientSession (it holds tasks) refuses.
                config={"tools": [client.session]},
            )

    try:
        response = asyncio.run(asyncio.wait_for(scenario(), 120))
    finally:
        endpoint.close()
    assert response.text == "done"
    assert len(endpoint.requests) == len(CALLS) + 1
    declared = [
        d["name"]
        for tool in endpoint.requests[0]["body"]["tools"]
        for d in tool["functionDeclarations"]
    ]
    assert declared == [t["name"] for t in emit(ROLE, "gemini", "mcp")]
    # Each later request carries the function response of the call before it.
    responses = []
    for request in endpoint.requests[1:]:
        parts = request["body"]["contents"][-1]["parts"]
        responses.append(next(p["functionResponse"] for p in parts if "functionResponse" in p))
    assert [r["name"] for r in responses] == [name for name, _ in CALLS]
    shell, read, listing, wrong = (json.dumps(r["response"]) for r in responses)
    assert '"result"' in shell and "strict" in shell, shell
    assert '"result"' in read and "strict" in read, read
    assert '"result"' in listing and "sessions" in listing, listing
    assert '"error"' in wrong and WRONG_CALL_TEXT in wrong, wrong


@pytest.mark.parametrize("family,converts", [("gemini", True), ("chat", False)])
def test_only_the_gemini_rendering_survives_the_sdk_conversion(family: str, converts: bool) -> None:
    tools = [mcp_types.Tool.model_validate(t) for t in emit(ROLE, family, "mcp")]
    if converts:
        converted = _mcp_utils.mcp_to_gemini_tools(tools)
        assert [t.function_declarations[0].name for t in converted] == [t.name for t in tools]
        for tool in emit(ROLE, family, "mcp"):
            assert "additionalProperties" not in json.dumps(tool["inputSchema"]), tool["name"]
    else:
        with pytest.raises(AttributeError):
            _mcp_utils.mcp_to_gemini_tools(tools)
