"""Many clients on one `toolsurface serve --http` (the official Python MCP client over real
HTTP on 127.0.0.1): a conversation per MCP session, no cross-client stall, the session
lifecycle (DELETE, idle timeout), bearer-token authentication, the limits and
`logging/setLevel`.

Timeouts only guard against a hung server; the one ordering assertion (B answers while A is
still blocked) compares events, not durations.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import subprocess
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from conftest import BIN
from test_mcp import GUARD_S, Events, HttpServer, pids_running, run, session_id_of, text


@asynccontextmanager
async def client_of(
    server: HttpServer, token: str | None = None
) -> AsyncIterator[tuple[Client, Events]]:
    """A new MCP session on `server` (DELETEd when the block ends)."""
    events = Events()
    assert server.url is not None
    transport: Any = server.url
    if token is not None:
        transport = streamable_http_client(
            server.url,
            http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}),
        )
    async with Client(
        transport,
        message_handler=events.on_message,
        logging_callback=events.on_log,
        read_timeout_seconds=GUARD_S,
        # Sessions are the handshake era's (2026-07-28 has none: test_mcp_2026.py).
        mode="legacy",
    ) as client:
        yield client, events


def raw(
    server: HttpServer,
    body: bytes,
    headers: dict[str, str] | None = None,
    method: str = "POST",
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request; status, headers (lower-case names) and body."""
    host, port = server.authority.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=GUARD_S)
    try:
        conn.request(
            method,
            "/mcp",
            body=body,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **(headers or {}),
            },
        )
        response = conn.getresponse()
        return (
            response.status,
            {k.lower(): v for k, v in response.getheaders()},
            response.read(),
        )
    finally:
        conn.close()


INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "probe", "version": "0"}},
}).encode()


def strip_ids(message: str, *ids: int) -> str:
    for sid in ids:
        message = message.replace(str(sid), "<id>")
    return message


def pid_absent(pid: int) -> bool:
    """Gone entirely: neither running nor a zombie waiting to be reaped."""
    return not Path(f"/proc/{pid}").exists()


async def until(predicate: Any, what: str) -> None:
    async def loop() -> None:
        while not predicate():
            await asyncio.sleep(0.05)

    try:
        await asyncio.wait_for(loop(), GUARD_S)
    except (asyncio.TimeoutError, TimeoutError):
        pytest.fail(f"never happened: {what}", pytrace=False)


def pid_of(result: types.CallToolResult) -> int:
    m = re.search(r"pid (\d+)", text(result))
    assert m, text(result)
    return int(m.group(1))


# ---- isolation --------------------------------------------------------------------------


def test_two_clients_are_isolated_on_every_point(tmp_path: Path) -> None:
    (tmp_path / "shared.txt").write_text("old\n")
    server = HttpServer("main", "chat", tmp_path)

    async def scenario() -> None:
        async with client_of(server) as (a, a_events), client_of(server) as (b, b_events):
            # Background sessions: B sees none of A's, and every action on A's id answers
            # exactly as for an id that does not exist.
            started = await a.call_tool("shell", {"command": "sleep 303.5", "yield_ms": 250})
            assert started.is_error is False, text(started)
            a_sid = session_id_of(started)
            listed = await b.call_tool("shell_session", {"action": "list"})
            assert str(a_sid) not in text(listed), text(listed)
            missing = 987_654
            for action, extra in [
                ("poll", {}), ("wait", {"timeout_s": 0.2}), ("kill", {}),
                ("resize", {"cols": 100, "rows": 30}), ("unwatch", {}),
            ]:
                on_a = await b.call_tool(
                    "shell_session", {"action": action, "session_id": a_sid, **extra}
                )
                on_missing = await b.call_tool(
                    "shell_session", {"action": action, "session_id": missing, **extra}
                )
                assert on_a.is_error is True and on_missing.is_error is True, action
                assert strip_ids(text(on_a), a_sid) == strip_ids(text(on_missing), missing), action
            assert pids_running("303.5"), "B's kill must not have reached A's session"
            a_listed = await a.call_tool("shell_session", {"action": "list"})
            assert str(a_sid) in text(a_listed), text(a_listed)
            # Session ids stay unique process-wide.
            b_started = await b.call_tool("shell", {"command": "sleep 303.75", "yield_ms": 250})
            assert session_id_of(b_started) != a_sid

            # Read memory: B read the file, A did not, so A's write is staged, not done.
            read = await b.call_tool("read_file", {"path": "shared.txt"})
            assert read.is_error is False, text(read)
            staged = await a.call_tool("write_file", {"path": "shared.txt", "content": "A\n"})
            assert (tmp_path / "shared.txt").read_text() == "old\n", text(staged)
            token = (staged.structured_content or {}).get("confirm_token")
            assert token, text(staged)
            # Confirm tokens: A's token means nothing in B's conversation.
            stolen = await b.call_tool(
                "write_file",
                {"path": "shared.txt", "content": "A\n", "confirm_token": token},
            )
            assert stolen.is_error is True, text(stolen)
            assert "unknown in this conversation" in text(stolen), text(stolen)
            assert (tmp_path / "shared.txt").read_text() == "old\n"

            # Skills: A's activation opens the skill's tools to A only; both lists stay as
            # they were (the skill tools are listed from the start) and nobody hears
            # list_changed.
            a_before = [t.name for t in (await a.list_tools()).tools]
            b_before = [t.name for t in (await b.list_tools()).tools]
            assert "sql_query" in a_before and a_before == b_before
            activated = await a.call_tool("activate_skill", {"name": "sqlite"})
            assert activated.is_error is False, text(activated)
            a_after = [t.name for t in (await a.list_tools(cache_mode="refresh")).tools]
            b_after = [t.name for t in (await b.list_tools(cache_mode="refresh")).tools]
            assert a_after == a_before and b_after == b_before
            sql_a = await a.call_tool("sql_query", {"database": "x.db", "sql": "select 1"})
            assert "activate_skill" not in text(sql_a), text(sql_a)
            sql = await b.call_tool("sql_query", {"database": "x.db", "sql": "select 1"})
            assert sql.is_error is True, text(sql)
            assert "call activate_skill with name sqlite first" in text(sql), text(sql)

            # Wake-ups: A's monitor wakes A only.
            monitor = await a.call_tool(
                "monitor_start",
                {"command": "sleep 0.5; echo ready-for-a; sleep 120", "until_output": "ready-for-a"},
            )
            assert monitor.is_error is False, text(monitor)
            await asyncio.wait_for(a_events.logged.wait(), GUARD_S)
            assert a_events.logs[0].data["session_id"] == session_id_of(monitor)
            # B asks for something after A's wake-up was sent; had it been sent to B it would
            # have arrived before this answer.
            await b.call_tool("shell_session", {"action": "list"})
            assert b_events.logs == [], b_events.logs
            assert b_events.list_changed == 0 and a_events.list_changed == 0

    try:
        run(scenario())
    finally:
        server.close()


def test_quick_calls_of_one_client_answer_while_another_blocks_in_wait(tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_text("hello\n")
    server = HttpServer("side_chat", "chat", tmp_path)

    async def scenario() -> None:
        async with client_of(server) as (a, _), client_of(server) as (b, _):
            started = await a.call_tool("shell", {"command": "sleep 60", "yield_ms": 250})
            sid = session_id_of(started)
            blocked = asyncio.create_task(
                a.call_tool("shell_session", {"action": "wait", "session_id": sid, "timeout_s": 20})
            )
            await asyncio.sleep(0.3)  # A's wait is running
            echoed = await b.call_tool("shell", {"command": "echo fast"})
            read = await b.call_tool("read_file", {"path": "note.txt"})
            assert "fast" in text(echoed) and "hello" in text(read)
            assert not blocked.done(), "B's calls had to wait for A's wait"
            # A's own conversation is still scheduled as before: its wait is still running.
            blocked.cancel()
            await a.call_tool("shell_session", {"action": "kill", "session_id": sid})

    try:
        run(scenario())
    finally:
        server.close()


# ---- lifecycle --------------------------------------------------------------------------


def test_delete_ends_the_conversation_and_kills_its_processes(tmp_path: Path) -> None:
    server = HttpServer("side_chat", "chat", tmp_path)

    async def scenario() -> int:
        async with client_of(server) as (a, _):
            started = await a.call_tool(
                "shell", {"command": "sleep 304.25 & sleep 304.5", "yield_ms": 250}
            )
            assert started.is_error is False, text(started)
            return pid_of(started)
        # leaving the block sends DELETE

    try:
        leader = run(scenario())
        run(until(lambda: pid_absent(leader), "the session leader reaped after DELETE"))
        run(until(lambda: not pids_running("304.25") and not pids_running("304.5"),
                  "every process of the group gone after DELETE"))
        assert server.proc.poll() is None, "the server keeps serving other sessions"
        assert any("ended; killed sessions" in l for l in server.stderr), "".join(server.stderr)
    finally:
        server.close()


def test_an_idle_session_expires_and_its_processes_are_killed(tmp_path: Path) -> None:
    server = HttpServer("side_chat", "chat", tmp_path, ("--idle-timeout-s", "1"))

    async def scenario() -> None:
        async with client_of(server) as (a, _):
            # A call that runs longer than the idle timeout does not expire the session.
            long = await a.call_tool("shell", {"command": "sleep 2; echo still-here"})
            assert "still-here" in text(long), text(long)
            started = await a.call_tool("shell", {"command": "sleep 305.5", "yield_ms": 250})
            leader = pid_of(started)
            await until(lambda: pid_absent(leader), "the idle session's process reaped")
            assert not pids_running("305.5")
            with pytest.raises(Exception):
                await a.call_tool("shell", {"command": "echo late"})

    try:
        run(scenario())
        assert any("idle for" in l for l in server.stderr), "".join(server.stderr)
    finally:
        server.close()


# ---- authentication ---------------------------------------------------------------------


def test_a_token_is_required_when_configured(tmp_path: Path) -> None:
    token = "tok-" + os.urandom(12).hex()
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    server = HttpServer("side_chat", "chat", tmp_path, ("--token-file", str(token_file)))

    async def with_token() -> None:
        async with client_of(server, token) as (client, _):
            echoed = await client.call_tool("shell", {"command": "echo authed"})
            assert "authed" in text(echoed)

    try:
        for headers in [{}, {"Authorization": "Bearer wrong"}, {"Authorization": token},
                        {"Authorization": f"Basic {token}"}]:
            status, got, body = raw(server, INITIALIZE, headers)
            assert status == 401, (headers, status)
            assert got.get("www-authenticate") == "Bearer"
            assert b"Authorization: Bearer" in body and token.encode() not in body
        status, _, _ = raw(server, INITIALIZE, {"Authorization": f"Bearer {token}"})
        assert status == 200
        run(with_token())
    finally:
        server.close()
    assert token not in "".join(server.stderr)


def test_the_token_file_may_come_from_the_environment_or_the_config(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("from-elsewhere\n")
    config = tmp_path / "serve.yaml"
    config.write_text(f"mcp:\n  token_file: {token_file}\n")
    env = {**os.environ, "TOOLSURFACE_TOKEN_FILE": str(token_file)}
    for extra, environment in [((), env), (("--config", str(config)), None)]:
        server = HttpServer("side_chat", "chat", tmp_path, extra, environment)
        try:
            assert raw(server, INITIALIZE)[0] == 401
            assert raw(server, INITIALIZE, {"Authorization": "Bearer from-elsewhere"})[0] == 200
        finally:
            server.close()


def test_binding_beyond_loopback_without_a_token_is_refused(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(BIN), "serve", "--role", "side_chat", "--workdir", str(tmp_path),
         "--http", "0.0.0.0:0"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=GUARD_S, check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "without authentication" in proc.stderr and "--token-file" in proc.stderr


# ---- limits -----------------------------------------------------------------------------


def test_sessions_beyond_the_limit_get_503(tmp_path: Path) -> None:
    server = HttpServer("side_chat", "chat", tmp_path, ("--max-sessions", "2"))

    async def scenario() -> None:
        async with client_of(server) as (a, _), client_of(server) as (b, _):
            status, _, body = raw(server, INITIALIZE)
            assert status == 503, status
            assert b"already serves 2 sessions" in body, body
            assert "fast" in text(await a.call_tool("shell", {"command": "echo fast"}))
            assert "fast" in text(await b.call_tool("shell", {"command": "echo fast"}))
        # Both ended (DELETE): new sessions are welcome again.
        async with client_of(server) as (c, _):
            await c.list_tools()

    try:
        run(scenario())
    finally:
        server.close()


def test_a_body_over_the_limit_gets_413(tmp_path: Path) -> None:
    server = HttpServer("side_chat", "chat", tmp_path, ("--max-message-bytes", "2000"))
    try:
        big = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "y" * 3000}})
        status, _, body = raw(server, big.encode())
        assert status == 413, status
        assert b"limit of 2000 bytes" in body, body
        assert raw(server, INITIALIZE)[0] == 200
    finally:
        server.close()


def test_calls_beyond_the_per_session_limit_are_error_results(tmp_path: Path) -> None:
    server = HttpServer("side_chat", "chat", tmp_path, ("--max-calls-per-session", "1"))

    async def scenario() -> None:
        async with client_of(server) as (a, _), client_of(server) as (b, _):
            first = asyncio.create_task(a.call_tool("shell", {"command": "sleep 1.5; echo one"}))
            await asyncio.sleep(0.4)
            second = await a.call_tool("shell", {"command": "echo two"})
            assert second.is_error is True, text(second)
            assert "1 calls running" in text(second), text(second)
            # Another session has its own count.
            assert "other" in text(await b.call_tool("shell", {"command": "echo other"}))
            assert "one" in text(await first)
            assert "three" in text(await a.call_tool("shell", {"command": "echo three"}))

    try:
        run(scenario())
    finally:
        server.close()


def test_background_sessions_beyond_the_limit_are_refused(tmp_path: Path) -> None:
    server = HttpServer("side_chat", "chat", tmp_path, ("--max-background-sessions", "2"))

    async def scenario() -> None:
        async with client_of(server) as (a, _), client_of(server) as (b, _):
            for n in range(2):
                started = await a.call_tool("shell", {"command": f"sleep 306.{n}", "yield_ms": 250})
                assert started.is_error is False, text(started)
            refused = await a.call_tool("shell", {"command": "sleep 306.9", "yield_ms": 250})
            assert refused.is_error is True, text(refused)
            assert "all 2 shell sessions" in text(refused), text(refused)
            # The limit is per conversation: B starts its own.
            other = await b.call_tool("shell", {"command": "sleep 306.7", "yield_ms": 250})
            assert other.is_error is False, text(other)

    try:
        run(scenario())
    finally:
        server.close()


# ---- logging ----------------------------------------------------------------------------


def test_set_level_filters_wake_up_notifications(tmp_path: Path) -> None:
    server = HttpServer("side_chat", "chat", tmp_path)

    async def scenario() -> None:
        async with client_of(server) as (quiet, quiet_events), client_of(server) as (
            loud, loud_events
        ):
            await quiet.set_logging_level("warning")
            await loud.set_logging_level("notice")
            for client in (quiet, loud):
                started = await client.call_tool(
                    "monitor_start", {"command": "echo woke; sleep 0.2", "until_output": "woke"}
                )
                assert started.is_error is False, text(started)
            await asyncio.wait_for(loud_events.logged.wait(), GUARD_S)
            # The quiet session's wake-up (notice < warning) went out after its own exit;
            # wait until its session is reported gone, then nothing may have arrived.
            await until(lambda: sum("wake-up" in l for l in server.stderr) >= 2,
                        "both wake-ups produced")
            await quiet.call_tool("shell_session", {"action": "list"})
            assert quiet_events.logs == [], quiet_events.logs
            await quiet.set_logging_level("debug")
            again = await quiet.call_tool(
                "monitor_start", {"command": "echo woke-again", "until_output": "woke-again"}
            )
            assert again.is_error is False
            await asyncio.wait_for(quiet_events.logged.wait(), GUARD_S)

    try:
        run(scenario())
    finally:
        server.close()


def test_initialize_declares_logging(tmp_path: Path) -> None:
    server = HttpServer("side_chat", "chat", tmp_path)
    try:
        status, _, body = raw(server, INITIALIZE)
        assert status == 200
        assert b'"logging":{}' in body, body
    finally:
        server.close()
