"""The MCP Inspector CLI (`@modelcontextprotocol/inspector`, pinned in
tests/python/clients/package.json, run on the Node that scripts/test-setup-clients installs)
against `toolsurface serve` on stdio and streamable HTTP, in both protocol eras it offers:
its default for an ad-hoc target (the handshake era, `initialize`) and `--protocol-era modern`
(MCP 2026-07-28: `server/discover`, then stateless requests). Per era and transport:
`--method tools/list` (the published tools), and `--method tools/call` of shell, read_file
and a wrong call, whose `isError` result the CLI prints and reports with exit code 5; over
HTTP the server's log shows the revision each era's calls used. One HTTP server serves the
whole module.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest

from clients_support import CLIENTS, GUARD_S, _installed, node
from conftest import BIN, emit
from test_mcp import HttpServer

ERAS = ["legacy", "modern"]
TRANSPORTS = ["stdio", "http"]


def inspector() -> Path:
    return _installed(
        CLIENTS / "js" / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients"
        / "launcher" / "build" / "index.js",
        "the MCP Inspector",
    )


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("inspector")


@pytest.fixture(scope="module")
def http_server(workdir: Path) -> Iterator[HttpServer]:
    server = HttpServer("main", "chat", workdir)
    yield server
    server.close()


def run(target: list[str], era: str, cwd: Path, *method: str) -> tuple[int, dict[str, Any], str]:
    """One Inspector CLI run: its exit code, the JSON result it printed, its stderr."""
    argv = [str(node()), str(inspector()), "--cli", "--format", "json", "-q",
            "--protocol-era", era, *method, *target]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=GUARD_S,
                          check=False)
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert lines, f"{argv} printed nothing (exit {proc.returncode}):\n{proc.stderr[-4000:]}"
    return proc.returncode, json.loads(lines[-1]), proc.stderr


def target(transport: str, workdir: Path, http_server: HttpServer) -> list[str]:
    if transport == "stdio":
        return ["--cwd", str(workdir), str(BIN), "serve", "--role", "main", "--workdir",
                str(workdir)]
    assert http_server.url is not None
    return [http_server.url]


def call(tool: str, arguments: dict[str, Any]) -> tuple[str, ...]:
    return ("--method", "tools/call", "--tool-name", tool,
            "--tool-args-json", json.dumps(arguments))


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_inspector_lists_the_published_tools(
    transport: str, era: str, workdir: Path, http_server: HttpServer
) -> None:
    code, out, err = run(target(transport, workdir, http_server), era, workdir,
                         "--method", "tools/list")
    assert code == 0, err
    assert out["result"]["tools"] == emit("main", "chat", "mcp")


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_inspector_calls_shell_read_file_and_a_wrong_call(
    transport: str, era: str, workdir: Path, http_server: HttpServer
) -> None:
    where = target(transport, workdir, http_server)
    note = f"inspector-{transport}-{era}.txt"
    code, out, err = run(where, era, workdir,
                         *call("shell", {"command": f"echo {era} > {note} && cat {note}"}))
    assert code == 0, err
    shell = out["result"]
    assert shell["isError"] is False, shell
    assert shell["structuredContent"]["exit_code"] == 0
    assert shell["structuredContent"]["output"] == f"{era}\n"

    code, out, err = run(where, era, workdir, *call("read_file", {"path": note}))
    assert code == 0, err
    read = out["result"]
    assert read["isError"] is False and read["structuredContent"]["content"] == f"{era}\n"

    code, out, err = run(where, era, workdir, *call(
        "shell_session", {"action": "kill", "session_id": 1, "timeout_s": 5}))
    assert code == 5, (code, out, err)
    assert out["result"]["isError"] is True
    assert out["result"]["content"][0]["text"] == (
        "action=kill: unexpected field timeout_s (it belongs to wait)")
    if transport == "http":
        # The server logged which revision the Inspector's calls used.
        seen = {"legacy": "MCP 2025-11-25 (handshake era)", "modern": "MCP 2026-07-28 (stateless)"}
        log = "".join(http_server.stderr)
        assert f"tools/call on {seen[era]} from inspector-cli" in log, log
