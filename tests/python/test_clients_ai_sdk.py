"""The JavaScript clients and MCP 2026-07-28 against `toolsurface serve`, which speaks that
revision beside the handshake-era ones (cli/src/mcp/mod.rs, "Protocol revisions"): the raw
bytes of a 2026-era client without a framework — `server/discover`, then stateless requests
each carrying its own `_meta` (protocolVersion, clientInfo, clientCapabilities), a background
session named by its handle across requests, the revision's error codes — on stdio and
streamable HTTP; a dual-era client's `initialize` still works after a discover; then the
Vercel AI SDK itself (pinned in tests/python/clients/package.json, run on the Node that
scripts/test-setup-clients installs) connects with its default discovery, stays on 2026-07-28
(asserted from the client and from the server's log of each request's revision), converts
the tools and runs a scripted model through shell, read_file, shell_session list and a wrong
call; OpenAI Agents JS does the same in strict mode against `--family chat_strict`; Mastra's
MCPClient builds its tools and runs them.
"""

from __future__ import annotations

import http.client
import json
import subprocess
from pathlib import Path
from typing import Any, Callable

import pytest

from clients_support import run_node
from conftest import BIN, emit
from test_mcp import HttpServer

MODERN = "2026-07-28"


def meta(version: str = MODERN) -> dict[str, Any]:
    """The `_meta` every 2026-07-28 request carries."""
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "raw-2026", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }


def request(id_: int, method: str, params: dict[str, Any] | None = None,
            version: str = MODERN) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method,
            "params": {**(params or {}), "_meta": meta(version)}}


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


def check_discovered(answer: dict) -> None:
    result = answer["result"]
    assert MODERN in result["supportedVersions"], answer
    assert "2025-11-25" in result["supportedVersions"], answer
    assert result["resultType"] == "complete"
    assert "tools" in result["capabilities"] and "logging" not in result["capabilities"]
    assert result["cacheScope"] == "public" and result["ttlMs"] > 0, answer
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "toolsurface"


class Stdio:
    """`toolsurface serve` on stdio, one JSON-RPC line per request."""

    def __init__(self, workdir: Path) -> None:
        self.proc = subprocess.Popen(
            [str(BIN), "serve", "--role", "main", "--workdir", str(workdir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, cwd=workdir,
        )

    def send(self, body: dict) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(body) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> str:
        """Close stdin, wait for the server to end; its stderr."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return self.proc.stderr.read()


def test_discover_on_stdio_then_initialize_still_works(tmp_path: Path) -> None:
    """A dual-era client that probes and then (by choice) initializes gets the handshake era."""
    server = Stdio(tmp_path)
    try:
        check_discovered(server.send(request(1, "server/discover")))
        init = server.send(INITIALIZE)
        assert init["id"] == 2 and init["result"]["protocolVersion"] == "2025-11-25", init
    finally:
        server.close()


def post(server: HttpServer, body: dict,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], dict]:
    conn = http.client.HTTPConnection(server.authority, timeout=30)
    try:
        conn.request(
            "POST", "/mcp", json.dumps(body),
            {"Content-Type": "application/json",
             "Accept": "application/json, text/event-stream", **(headers or {})},
        )
        response = conn.getresponse()
        raw = response.read().decode()
        got = {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()
    if got.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in raw.splitlines() if line.startswith("data:")]
        raw = next(d for d in data if d)
    return response.status, got, json.loads(raw)


def modern_post(server: HttpServer, body: dict) -> tuple[int, dict[str, str], dict]:
    """A 2026-07-28 POST: the request metadata headers mirror the body (SEP-2243)."""
    params = body.get("params", {})
    version = params.get("_meta", {}).get("io.modelcontextprotocol/protocolVersion", MODERN)
    headers = {"MCP-Protocol-Version": version, "Mcp-Method": body["method"]}
    if "name" in params:
        headers["Mcp-Name"] = params["name"]
    return post(server, body, headers)


def test_discover_over_http_opens_no_session_and_initialize_still_does(tmp_path: Path) -> None:
    server = HttpServer("main", "chat", tmp_path)
    try:
        status, headers, answer = modern_post(server, request(1, "server/discover"))
        assert status == 200, (status, answer)
        assert "mcp-session-id" not in headers
        check_discovered(answer)
        status, headers, init = post(server, INITIALIZE)
        assert status == 200 and "mcp-session-id" in headers, (status, headers)
        assert init["result"]["protocolVersion"] == "2025-11-25", init
    finally:
        server.close()


def run_stateless(send: Callable[[dict], tuple[int, dict]]) -> None:
    """The raw 2026-07-28 path, each request on its own: list, a background shell session
    found again by its handle in a later request, read_file, a wrong call, the errors."""
    status, listed = send(request(1, "tools/list"))
    assert status == 200, listed
    assert [t["name"] for t in listed["result"]["tools"]] == [
        t["name"] for t in emit("main", "chat", "mcp")]
    assert listed["result"]["cacheScope"] == "public" and listed["result"]["ttlMs"] > 0
    status, shell = send(request(2, "tools/call", {
        "name": "shell",
        "arguments": {"command": "printf 'raw 2026\\n' > raw.txt; sleep 30", "yield_ms": 500},
    }))
    assert status == 200 and shell["result"]["isError"] is False, shell
    found = shell["result"]["structuredContent"]
    assert found["running"] is True, shell
    text = shell["result"]["content"][0]["text"]
    assert "woken when" not in text and "shell_session poll or wait" in text, text
    status, listing = send(request(3, "tools/call", {
        "name": "shell_session", "arguments": {"action": "list"}}))
    ids = [s["session_id"] for s in listing["result"]["structuredContent"]["sessions"]]
    assert found["session_id"] in ids, listing
    status, read = send(request(4, "tools/call", {
        "name": "read_file", "arguments": {"path": "raw.txt"}}))
    assert read["result"]["structuredContent"]["content"] == "raw 2026\n", read
    status, wrong = send(request(5, "tools/call", {
        "name": "shell_session",
        "arguments": {"action": "kill", "session_id": found["session_id"], "timeout_s": 5}}))
    assert wrong["result"]["isError"] is True
    assert wrong["result"]["content"][0]["text"].startswith(
        "action=kill: unexpected field timeout_s (it belongs to wait)")
    status, killed = send(request(6, "tools/call", {
        "name": "shell_session",
        "arguments": {"action": "kill", "session_id": found["session_id"]}}))
    assert killed["result"]["isError"] is False, killed
    # The revision's errors: a version not offered (-32022, naming the supported ones) and
    # a request without the required _meta keys (-32602).
    status, refused = send(request(7, "tools/list", version="2099-01-01"))
    assert refused["error"]["code"] == -32022, refused
    assert MODERN in refused["error"]["data"]["supported"], refused
    bare = request(8, "tools/list")
    del bare["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    status, refused = send(bare)
    assert refused["error"]["code"] == -32602, refused


def test_raw_2026_requests_on_stdio(tmp_path: Path) -> None:
    server = Stdio(tmp_path)
    try:
        run_stateless(lambda body: (200, server.send(body)))
    finally:
        log = server.close()
    assert f"tools/call on MCP {MODERN} (stateless) from raw-2026 1" in log, log


def test_raw_2026_requests_over_http(tmp_path: Path) -> None:
    server = HttpServer("main", "chat", tmp_path)
    try:
        def send(body: dict) -> tuple[int, dict]:
            status, headers, answer = modern_post(server, body)
            assert "mcp-session-id" not in headers, headers
            return status, answer

        run_stateless(send)
        # Over HTTP the version error is a 400 too, and so is a header that contradicts
        # the body (-32020 HeaderMismatch).
        status, _, answer = modern_post(server, request(9, "tools/list", version="2099-01-01"))
        assert status == 400 and answer["error"]["code"] == -32022, (status, answer)
        status, _, answer = post(server, request(10, "tools/list"),
                                 {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call"})
        assert status == 400 and answer["error"]["code"] == -32020, (status, answer)
    finally:
        server.close()
    log = "".join(server.stderr)
    assert f"tools/call on MCP {MODERN} (stateless) from raw-2026 1" in log, log
    assert log.count("is the stateless one") == 1, log


def check_ai_sdk_run(out: dict, family: str, server_log: str) -> None:
    names = [t["name"] for t in emit("main", family, "mcp")]
    assert out["serverInfo"]["name"] == "toolsurface"
    # The AI SDK settled on 2026-07-28 (no fallback to initialize), and the server saw
    # every call on that revision.
    assert out["protocolVersion"] == MODERN, out
    assert f"tools/call on MCP {MODERN} (stateless) from ai-sdk-mcp-client" in server_log, (
        server_log)
    assert "handshake era" not in server_log, server_log
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
def test_ai_sdk_speaks_2026_07_28_and_runs_a_scripted_model(
    transport: str, tmp_path: Path
) -> None:
    if transport == "stdio":
        log = tmp_path / "serve.log"
        workdir = tmp_path / "work"
        workdir.mkdir()
        out = run_node("ai_sdk.mjs", "stdio", str(BIN), "main", "chat", str(workdir), str(log))
        server_log = log.read_text()
    else:
        server = HttpServer("main", "chat", tmp_path)
        try:
            assert server.url is not None
            out = run_node("ai_sdk.mjs", "http", server.url)
        finally:
            server.close()
        server_log = "".join(server.stderr)
    check_ai_sdk_run(out, "chat", server_log)


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
