"""`toolsurface serve` on MCP 2026-07-28 with the official Python SDK (pinned in
scripts/requirements.txt) in its default `mode="auto"`: it sends `server/discover` and, the
server speaking that revision, stays on it — every request stateless, with its own `_meta`
(cli/src/mcp/mod.rs, "Protocol revisions"). Over stdio and streamable HTTP: the listing,
calls, progress on the request's own stream, a staged write as an `isError` result, and the
stateless conversation: a background session is named by its id from another client's
requests, its reply promises no wake-up, and one client's blocking call delays no other's.
The handshake-era suites (test_mcp.py, test_mcp_tenancy.py) pin `mode="legacy"`. One HTTP
server serves the module.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, emit
from test_mcp import GUARD_S, TRANSPORTS, Events, HttpServer, run, text

MODERN = "2026-07-28"


@pytest.fixture(scope="module")
def http_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp2026")


@pytest.fixture(scope="module")
def http_server(http_workdir: Path) -> Iterator[HttpServer]:
    server = HttpServer("main", "chat", http_workdir)
    yield server
    server.close()


@asynccontextmanager
async def connect(target: Any) -> AsyncIterator[tuple[Client, Events]]:
    events = Events()
    async with Client(target, logging_callback=events.on_log,
                      read_timeout_seconds=GUARD_S) as client:
        assert client.protocol_version == MODERN
        yield client, events


def target(transport: str, tmp_path: Path, http_server: HttpServer,
           http_workdir: Path) -> tuple[Any, Path]:
    if transport == "http":
        return http_server.url, http_workdir
    workdir = tmp_path / "work"
    workdir.mkdir()
    return StdioServerParameters(
        command=str(BIN), args=["serve", "--role", "main", "--workdir", str(workdir)],
        cwd=str(workdir)), workdir


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_auto_mode_settles_on_2026_lists_calls_and_reports_progress(
    transport: str, tmp_path: Path, http_server: HttpServer, http_workdir: Path
) -> None:
    where, workdir = target(transport, tmp_path, http_server, http_workdir)
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    async def scenario() -> None:
        async with connect(where) as (client, _):
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == [t["name"] for t in emit("main", "chat", "mcp")]
            echo = await client.call_tool("shell", {"command": "echo hi"})
            assert echo.is_error is False and echo.structured_content["output"] == "hi\n"
            slow = await client.call_tool(
                "shell", {"command": "sleep 1.5; echo done", "yield_ms": 20000},
                progress_callback=on_progress)
            assert slow.is_error is False and "done" in text(slow), text(slow)
            note = workdir / f"existing-{transport}.txt"
            note.write_text("old\n")
            staged = await client.call_tool(
                "write_file", {"path": str(note), "content": "new\n"})
            assert staged.is_error is True, text(staged)
            assert staged.structured_content["status"] == "staged"
            assert note.read_text() == "old\n"
            wrong = await client.call_tool(
                "shell_session", {"action": "kill", "session_id": 1, "timeout_s": 5})
            assert wrong.is_error is True
            assert text(wrong).startswith(
                "action=kill: unexpected field timeout_s (it belongs to wait)")

    run(scenario())
    assert seen and seen[0] == (0.0, "shell started"), seen


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_background_session_is_named_by_its_id_across_requests(
    transport: str, tmp_path: Path, http_server: HttpServer, http_workdir: Path
) -> None:
    """The id is the state's only name: over HTTP a second client (new connection, no
    session) finds and kills the first one's background session; no wake-up is promised
    and no log notification arrives."""
    where, _ = target(transport, tmp_path, http_server, http_workdir)

    async def scenario() -> None:
        async with connect(where) as (first, events):
            started = await first.call_tool(
                "shell", {"command": "sleep 30", "yield_ms": 250})
            assert started.structured_content["running"] is True
            assert "woken when" not in text(started), text(started)
            assert "shell_session poll or wait" in text(started), text(started)
            sid = started.structured_content["session_id"]
            if transport == "http":
                async with connect(where) as (second, _):
                    listed = await second.call_tool("shell_session", {"action": "list"})
                    ids = [s["session_id"] for s in listed.structured_content["sessions"]]
                    assert sid in ids, listed.structured_content
                    killed = await second.call_tool(
                        "shell_session", {"action": "kill", "session_id": sid})
                    assert killed.is_error is False, text(killed)
            else:
                killed = await first.call_tool(
                    "shell_session", {"action": "kill", "session_id": sid})
                assert killed.is_error is False, text(killed)
            assert events.logs == []

    run(scenario())
    if transport == "http":
        log = "".join(http_server.stderr)
        assert f"tools/call on MCP {MODERN} (stateless) from mcp" in log, log


def test_one_callers_wait_delays_no_other_2026_request(
    http_server: HttpServer, http_workdir: Path
) -> None:
    """2026-07-28 requests are ordered against no other (each runs on a schedule of its
    own): while one client blocks in `shell_session wait`, another's shell answers."""

    async def scenario() -> None:
        async with connect(http_server.url) as (a, _), connect(http_server.url) as (b, _):
            started = await a.call_tool("shell", {"command": "sleep 60", "yield_ms": 250})
            sid = started.structured_content["session_id"]
            blocked = asyncio.create_task(a.call_tool(
                "shell_session", {"action": "wait", "session_id": sid, "timeout_s": 20}))
            await asyncio.sleep(0.3)  # A's wait is running
            echoed = await b.call_tool("shell", {"command": "echo fast"})
            assert echoed.structured_content["output"] == "fast\n"
            assert not blocked.done(), "B's call had to wait for A's wait"
            blocked.cancel()
            killed = await b.call_tool("shell_session", {"action": "kill", "session_id": sid})
            assert killed.is_error is False, text(killed)

    run(scenario())
