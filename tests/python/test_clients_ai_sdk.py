"""The JavaScript clients and MCP 2026-07-28 discovery against `toolsurface serve`: the raw
bytes a dual-era client sends first (`server/discover` declaring 2026-07-28) must be answered
`-32601`, so that it falls back to `initialize` (a `-32022` makes the AI SDK give up), on
stdio and streamable HTTP; then the Vercel AI SDK itself (pinned in
tests/python/clients/package.json, run on the Node that scripts/test-setup-clients installs)
connects with its default discovery, converts the tools and runs a scripted model through
shell, read_file, shell_session list and a wrong call; OpenAI Agents JS does the same in
strict mode against `--family chat_strict`; Mastra's MCPClient builds its tools and runs them.
"""

from __future__ import annotations

import http.client
import json
import subprocess
from pathlib import Path

import pytest

from clients_support import run_node
from conftest import BIN, emit
from test_mcp import HttpServer

DISCOVER = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "server/discover",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    },
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


def assert_method_not_found(answer: dict) -> None:
    assert answer["id"] == 1, answer
    assert answer["error"]["code"] == -32601, answer
    assert "initialize" in answer["error"]["message"], answer


def test_discover_on_stdio_is_method_not_found_then_initialize_works(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [str(BIN), "serve", "--role", "main", "--workdir", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True, cwd=tmp_path,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(DISCOVER) + "\n")
        proc.stdin.flush()
        assert_method_not_found(json.loads(proc.stdout.readline()))
        proc.stdin.write(json.dumps(INITIALIZE) + "\n")
        proc.stdin.flush()
        init = json.loads(proc.stdout.readline())
        assert init["id"] == 2 and init["result"]["protocolVersion"] == "2025-11-25", init
    finally:
        proc.kill()
        proc.wait()


def post(server: HttpServer, body: dict) -> tuple[int, dict[str, str], dict]:
    conn = http.client.HTTPConnection(server.authority, timeout=30)
    try:
        conn.request(
            "POST", "/mcp", json.dumps(body),
            {"Content-Type": "application/json",
             "Accept": "application/json, text/event-stream"},
        )
        response = conn.getresponse()
        raw = response.read().decode()
        headers = {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()
    if headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in raw.splitlines() if line.startswith("data:")]
        raw = next(d for d in data if d)
    return response.status, headers, json.loads(raw)


def test_discover_over_http_is_method_not_found_and_opens_no_session(tmp_path: Path) -> None:
    server = HttpServer("main", "chat", tmp_path)
    try:
        status, headers, answer = post(server, DISCOVER)
        assert status == 200, (status, answer)
        assert "mcp-session-id" not in headers
        assert_method_not_found(answer)
        status, headers, init = post(server, INITIALIZE)
        assert status == 200 and "mcp-session-id" in headers, (status, headers)
        assert init["result"]["protocolVersion"] == "2025-11-25", init
    finally:
        server.close()


def check_ai_sdk_run(out: dict, family: str) -> None:
    names = [t["name"] for t in emit("main", family, "mcp")]
    assert out["serverInfo"]["name"] == "toolsurface"
    assert out["listed"] == names
    assert out["converted"] == names
    assert out["modelSawTools"] == names
    assert out["errors"] == []
    results = out["results"]
    assert [r["tool"] for r in results] == ["shell", "read_file", "shell_session", "shell_session"]
    shell, read, listing, wrong = (r["output"] for r in results)
    assert shell["isError"] is False
    assert shell["structuredContent"]["exit_code"] == 0
    assert "hello from the AI SDK" in shell["structuredContent"]["output"]
    assert read["isError"] is False
    assert read["structuredContent"]["content"] == "hello from the AI SDK\n"
    assert listing["isError"] is False and listing["structuredContent"] == {"sessions": []}
    assert wrong["isError"] is True
    assert wrong["content"][0]["text"].startswith(
        "action=kill: unexpected field timeout_s (it belongs to wait)"
    )
    assert out["text"] == "done"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_ai_sdk_discovers_falls_back_and_runs_a_scripted_model(
    transport: str, tmp_path: Path
) -> None:
    if transport == "stdio":
        out = run_node("ai_sdk.mjs", "stdio", str(BIN), "main", "chat", str(tmp_path))
    else:
        server = HttpServer("main", "chat", tmp_path)
        try:
            assert server.url is not None
            out = run_node("ai_sdk.mjs", "http", server.url)
        finally:
            server.close()
    check_ai_sdk_run(out, "chat")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_agents_js_strict_mode_runs_on_chat_strict(transport: str, tmp_path: Path) -> None:
    """OpenAI Agents JS with convertSchemasToStrict and a scripted strict model: the chat_strict
    rendering is kept as published (every tool strict), the other actions' fields go as null
    and every call gets its real result (tests/python/clients/agents_js.mjs)."""
    if transport == "stdio":
        out = run_node("agents_js.mjs", "stdio", str(BIN), "main", "chat_strict", str(tmp_path))
    else:
        server = HttpServer("main", "chat_strict", tmp_path)
        try:
            assert server.url is not None
            out = run_node("agents_js.mjs", "http", server.url)
        finally:
            server.close()
    published = {t["name"]: t["inputSchema"] for t in emit("main", "chat_strict", "mcp")}
    assert out["strict"] == {name: True for name in published}
    for name, schema in published.items():
        assert out["schemas"][name]["properties"] == schema["properties"], name
        assert sorted(out["schemas"][name]["required"]) == sorted(schema["required"]), name
    assert out["sent"][2]["action"] == "list" and out["sent"][2]["session_id"] is None
    shell, read, listing, wrong = out["outputs"]
    assert '\\"exit_code\\":0' in shell and "strict" in shell, shell
    assert "strict" in read, read
    assert "sessions" in listing, listing
    assert "action=kill: unexpected field timeout_s (it belongs to wait)" in wrong, wrong
    assert out["finalOutput"] == "done"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_mastra_lists_and_runs_the_tools(transport: str, tmp_path: Path) -> None:
    """Mastra's MCPClient: listToolsets() builds Mastra tools from the listing; execute() runs
    them, and the wrong call's isError surfaces as the exact refusal text
    (tests/python/clients/mastra.mjs)."""
    if transport == "stdio":
        out = run_node("mastra.mjs", "stdio", str(BIN), "main", "chat", str(tmp_path))
    else:
        server = HttpServer("main", "chat", tmp_path)
        try:
            assert server.url is not None
            out = run_node("mastra.mjs", "http", server.url)
        finally:
            server.close()
    assert out["listed"] == [t["name"] for t in emit("main", "chat", "mcp")]
    shell, read, listing, wrong = out["outputs"]
    assert shell["is_error"] is False and shell["result"]["exit_code"] == 0, shell
    assert read["is_error"] is False and read["result"]["content"] == "strict\n", read
    assert listing == {"is_error": False, "result": {"sessions": []}}, listing
    assert wrong["is_error"] is True
    assert wrong["text"] == "action=kill: unexpected field timeout_s (it belongs to wait)"
