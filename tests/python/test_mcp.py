"""`toolsurface serve` driven by the official Python MCP client (pinned in
scripts/requirements.txt), over stdio and over streamable HTTP.

Every server runs as a subprocess of the built binary with a fresh temp workdir. Timeouts
below only guard against a hung server (a test then fails); nothing asserts on durations.
"""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
import re
import subprocess
import threading
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from conftest import BIN, TOOL_DEFS, emit_raw, mcp_listing, run_toolsurface, surfaces

TRANSPORTS = ["stdio", "http"]
GUARD_S = 60  # deadlock guard for one scenario, never a measured bound


class HttpServer:
    """`toolsurface serve --http 127.0.0.1:0` in the background; the URL from its stderr."""

    def __init__(
        self,
        role: str,
        family: str,
        workdir: Path,
        extra: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        self.proc = subprocess.Popen(
            [str(BIN), "serve", "--role", role, "--family", family, "--workdir", str(workdir),
             "--http", "127.0.0.1:0", *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=workdir,
            env=env,
        )
        self.stderr: list[str] = []
        found = threading.Event()
        self.url: str | None = None

        def pump() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.stderr.append(line)
                m = re.search(r"listening on (http://\S+)", line)
                if m and self.url is None:
                    self.url = m.group(1)
                    found.set()
            found.set()

        threading.Thread(target=pump, daemon=True).start()
        found.wait(GUARD_S)
        if self.url is None:
            self.close()
            pytest.fail(f"serve --http printed no address:\n{''.join(self.stderr)}", pytrace=False)

    @property
    def authority(self) -> str:
        assert self.url is not None
        return self.url.split("//", 1)[1].split("/", 1)[0]

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Events:
    """Notifications the client saw."""

    def __init__(self) -> None:
        self.list_changed = 0
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.changed = asyncio.Event()
        self.logged = asyncio.Event()

    async def on_message(self, message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            message = getattr(message, "root", message)
        if isinstance(message, types.ToolListChangedNotification):
            self.list_changed += 1
            self.changed.set()

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)
        self.logged.set()


@asynccontextmanager
async def connect(
    transport: str,
    workdir: Path,
    role: str = "side_chat",
    family: str = "chat",
    running: HttpServer | None = None,
) -> AsyncIterator[tuple[Client, Events]]:
    """A client of a new server (or of `running`, which the caller closes)."""
    events = Events()
    if running is not None:
        server: Any = running.url
        http_server = None
    elif transport == "stdio":
        server = StdioServerParameters(
            command=str(BIN),
            args=["serve", "--role", role, "--family", family, "--workdir", str(workdir)],
            cwd=str(workdir),
        )
        http_server = None
    else:
        http_server = HttpServer(role, family, workdir)
        server = http_server.url
    try:
        async with Client(
            server,
            message_handler=events.on_message,
            logging_callback=events.on_log,
            read_timeout_seconds=GUARD_S,
            # The handshake era: a session per client, wake-ups as log notifications. The
            # SDK's default ("auto") settles on 2026-07-28, where neither exists
            # (test_mcp_2026.py).
            mode="legacy",
        ) as client:
            yield client, events
    finally:
        if http_server is not None:
            http_server.close()


def run(coro: Any) -> Any:
    async def guarded() -> Any:
        return await asyncio.wait_for(coro, GUARD_S * 2)

    return asyncio.run(guarded())


def sha256_hex(data: str) -> str:
    return hashlib.sha256(data.encode()).hexdigest()


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def dump(tool: types.Tool) -> dict[str, Any]:
    return tool.model_dump(by_alias=True, exclude_none=True, mode="json")


def assert_same_tools(listed: list[types.Tool], published: list[dict[str, Any]]) -> None:
    assert [t.name for t in listed] == [t["name"] for t in published]
    for tool, want in zip(listed, published):
        got = dump(tool)
        for key, value in want.items():
            assert got.get(key) == value, f"{want['name']}.{key} differs"
        assert list(got["inputSchema"].get("properties", {})) == list(
            want["inputSchema"].get("properties", {})
        ), f"{want['name']}: property order differs"


# ---- the surface ------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("role,family", [("side_chat", "chat"), ("main", "responses")])
def test_initialize_and_list_tools_equal_emit(
    transport: str, role: str, family: str, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with connect(transport, tmp_path, role, family) as (client, _):
            assert client.server_info is not None
            assert client.server_info.name == "toolsurface"
            assert client.server_capabilities.tools is not None
            # The list never changes (MCP 2026-07-28), so nothing announces changes.
            assert not client.server_capabilities.tools.list_changed
            listed = (await client.list_tools()).tools
            assert_same_tools(listed, mcp_listing(role, family))

    run(scenario())


@pytest.mark.parametrize("role,family", surfaces())
def test_every_surface_lists_as_emitted(role: str, family: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect("stdio", tmp_path, role, family) as (client, _):
            assert_same_tools((await client.list_tools()).tools, mcp_listing(role, family))

    run(scenario())


# ---- calls ------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_shell_echo(transport: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(transport, tmp_path) as (client, _):
            result = await client.call_tool("shell", {"command": "echo hi"})
            assert result.is_error is False, text(result)
            assert "hi" in text(result)

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_structured_results_conform_and_are_also_serialized(transport: str, tmp_path: Path) -> None:
    """The client validates structuredContent against the tool's outputSchema itself (a
    non-conforming result raises in call_tool); the JSON is also the second text block."""

    async def scenario() -> None:
        async with connect(transport, tmp_path) as (client, _):
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["shell"].output_schema is not None
            result = await client.call_tool("shell", {"command": "echo hi; exit 4"})
            assert result.is_error is False, text(result)
            assert result.structured_content["exit_code"] == 4
            blocks = [c.text for c in result.content if isinstance(c, types.TextContent)]
            assert len(blocks) == 2, blocks
            assert "Exit code: 4" in blocks[0]
            assert json.loads(blocks[1]) == result.structured_content
            listed = await client.call_tool("shell_session", {"action": "list"})
            assert listed.structured_content == {"sessions": []}

    run(scenario())


def session_id_of(result: types.CallToolResult) -> int:
    structured = result.structured_content or {}
    if "session_id" in structured:
        return int(structured["session_id"])
    m = re.search(r"session[_ ]id\D*(\d+)", text(result))
    assert m, f"no session id in: {text(result)}"
    return int(m.group(1))


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_session_poll_wait_kill(transport: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(transport, tmp_path) as (client, _):
            # Outlives its 250 ms window: becomes a background session.
            started = await client.call_tool(
                "shell",
                {"command": "echo first-line; read -t 120 line; sleep 1; echo got-$line; "
                            "sleep 120",
                 "yield_ms": 250, "tty": True},
            )
            assert started.is_error is False, text(started)
            assert started.structured_content is not None
            assert started.structured_content["running"] is True
            sid = session_id_of(started)
            assert f"session_id {sid}" in text(started)

            # poll types into the PTY; wait returns when the answer appears.
            poll = await client.call_tool(
                "shell_session", {"action": "poll", "session_id": sid, "chars": "abc\n"}
            )
            assert poll.is_error is False, text(poll)
            wait = await client.call_tool(
                "shell_session",
                {"action": "wait", "session_id": sid, "until_output": "got-abc",
                 "timeout_s": 60},
            )
            assert wait.is_error is False, text(wait)
            assert "got-abc" in text(poll) + text(wait)
            if "got-abc" not in text(poll):
                assert (wait.structured_content or {}).get("matched"), text(wait)

            # A short wait on a session that keeps running: times out, still running.
            short = await client.call_tool(
                "shell_session", {"action": "wait", "session_id": sid, "timeout_s": 0.5}
            )
            assert short.is_error is False, text(short)
            assert (short.structured_content or {}).get("running") is True, text(short)
            assert "still running" in text(short)

            listed = await client.call_tool("shell_session", {"action": "list"})
            assert str(sid) in text(listed)
            killed = await client.call_tool("shell_session", {"action": "kill", "session_id": sid})
            assert killed.is_error is False, text(killed)
            assert (killed.structured_content or {}).get("running") is False, text(killed)
            again = await client.call_tool("shell_session", {"action": "kill", "session_id": sid})
            assert again.is_error is False, text(again)  # kill is idempotent

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_unread_existing_file_is_staged_with_a_confirm_token(
    transport: str, tmp_path: Path
) -> None:
    target = tmp_path / "existing.txt"
    target.write_text("old\n")

    async def scenario() -> None:
        async with connect(transport, tmp_path) as (client, _):
            staged = await client.call_tool(
                "write_file", {"path": "existing.txt", "content": "new\n"}
            )
            body = text(staged)
            # An unwritten file is a failed write: isError, with the staged facts.
            assert staged.is_error is True, body
            structured = staged.structured_content or {}
            assert structured.get("status") == "staged", body
            token = structured.get("confirm_token")
            if token is None:
                m = re.search(r"confirm_token\W+([A-Za-z0-9_-]+)", body)
                assert m, f"no confirm_token in: {body}"
                token = m.group(1)
            assert token in body, body
            assert target.read_text() == "old\n"
            confirmed = await client.call_tool(
                "write_file",
                {"path": "existing.txt", "content": "new\n", "confirm_token": token},
            )
            assert confirmed.is_error is False, text(confirmed)
            assert target.read_text() == "new\n"

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_refused_and_retired_calls_are_error_results(transport: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(transport, tmp_path) as (client, _):
            refused = await client.call_tool(
                "shell_session", {"action": "kill", "session_id": 1, "timeout_s": 5}
            )
            assert refused.is_error is True
            assert text(refused).startswith("action=kill"), text(refused)
            assert "timeout_s" in text(refused)

            retired = await client.call_tool("get_current_time", {})
            assert retired.is_error is True
            assert "`date`" in text(retired), text(retired)

            unknown = await client.call_tool("shel", {"command": "true"})
            assert unknown.is_error is True
            assert "did you mean shell" in text(unknown), text(unknown)

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_long_call_reports_progress(transport: str, tmp_path: Path) -> None:
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    async def scenario() -> None:
        async with connect(transport, tmp_path) as (client, _):
            result = await client.call_tool(
                "shell",
                {"command": "sleep 2; echo done", "yield_ms": 20000},
                progress_callback=on_progress,
            )
            assert result.is_error is False, text(result)
            assert "done" in text(result)

    run(scenario())
    assert seen, "no progress notification"
    assert seen[0] == (0.0, "shell started")
    progress = [p for p, _ in seen]
    assert progress == sorted(progress)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_activating_a_skill_keeps_the_tool_list(transport: str, tmp_path: Path) -> None:
    """Activation works from the binary's generated statics (it reads no definitions folder):
    the skill's tools are listed from the start, refused until activation, and the list and
    its hashes are the same bytes after it; no list_changed is sent. (Every detail of the
    skill gate: test_mcp_skills.py.)"""
    resident_mcp = emit_raw("main", "chat", "mcp")

    async def scenario() -> None:
        async with connect(transport, tmp_path, "main", "chat") as (client, events):
            before = (await client.list_tools()).tools
            assert_same_tools(before, mcp_listing("main", "chat"))
            assert "sql_query" in [t.name for t in before]
            result = await client.call_tool("activate_skill", {"name": "sqlite"})
            assert result.is_error is False, text(result)
            after = (await client.list_tools(cache_mode="refresh")).tools
            assert [dump(t) for t in after] == [dump(t) for t in before]
            assert "sql_query" in text(result), text(result)
            facts = result.structured_content or {}
            assert facts.get("prefix_intact") is True, facts
            assert facts.get("new_tools") == ["sql_query"], facts
            assert facts.get("diverges_at") == len(resident_mcp), facts
            assert facts.get("previous_sha256") == sha256_hex(resident_mcp), facts
            assert facts["surface_sha256"] == facts["previous_sha256"], facts
            assert events.list_changed == 0

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_wake_up_arrives_as_a_log_notification(transport: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(transport, tmp_path) as (client, events):
            started = await client.call_tool(
                "monitor_start", {"command": "sleep 1; echo ready-now; sleep 120",
                                  "until_output": "ready-now"}
            )
            assert started.is_error is False, text(started)
            sid = session_id_of(started)
            await asyncio.wait_for(events.logged.wait(), GUARD_S)
            wake = events.logs[0]
            assert wake.logger == "toolsurface.wake"
            assert wake.data["event"] == "wake_up"
            assert wake.data["session_id"] == sid
            assert wake.data["kind"] == "matched"
            await client.call_tool("shell_session", {"action": "kill", "session_id": sid})

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_cancelled_call_is_interrupted_and_what_it_started_is_killed(
    transport: str, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with connect(transport, tmp_path) as (client, _):
            # The client gives up on a call whose command would block it for minutes:
            # notifications/cancelled interrupts the turn, and since the client never learns
            # the session id, the command it started is killed (nothing is left running
            # that nobody can name); the next call is served at once.
            with pytest.raises((asyncio.TimeoutError, TimeoutError)):
                await asyncio.wait_for(
                    client.call_tool(
                        "shell", {"command": "sleep 301.25; echo never", "yield_ms": 30000}
                    ),
                    1.0,
                )

            async def until_gone() -> None:
                while pids_running("301.25"):
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(until_gone(), GUARD_S)
            listed = await client.call_tool("shell_session", {"action": "list"})
            assert listed.is_error is False, text(listed)
            assert "301.25" not in text(listed), text(listed)
            echoed = await client.call_tool("shell", {"command": "echo after"})
            assert "after" in text(echoed), text(echoed)

    run(scenario())


def pids_running(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line contains `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline and not process_gone(int(entry.name)):
            found.append(int(entry.name))
    return found


def process_gone(pid: int) -> bool:
    """No such process, or a zombie nobody reaped yet (it has exited)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return any(l.startswith("State:") and "Z" in l.split()[1] for l in status.splitlines())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_background_sessions_end_with_the_server(transport: str, tmp_path: Path) -> None:
    server = HttpServer("side_chat", "chat", tmp_path) if transport == "http" else None

    async def scenario() -> int:
        async with connect(transport, tmp_path, running=server) as (client, _):
            started = await client.call_tool(
                "shell", {"command": "sleep 299", "yield_ms": 250}
            )
            assert started.is_error is False, text(started)
            m = re.search(r"pid (\d+)", text(started))
            assert m, text(started)
            pid = int(m.group(1))
            assert not process_gone(pid)
            return pid

    try:
        pid = run(scenario())
    finally:
        if server is not None:
            server.close()  # SIGTERM
            assert server.proc.returncode == 0, "".join(server.stderr)

    async def until_gone() -> None:
        while not process_gone(pid):
            await asyncio.sleep(0.1)

    run(until_gone())


# ---- HTTP only ---------------------------------------------------------------------------


def post(server: HttpServer, headers: dict[str, str]) -> int:
    host, port = server.authority.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=GUARD_S)
    body = json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "probe", "version": "0"}},
    })
    try:
        conn.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
        for k, v in {"Content-Type": "application/json",
                     "Accept": "application/json, text/event-stream", **headers}.items():
            conn.putheader(k, v)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body.encode())
        return conn.getresponse().status
    finally:
        conn.close()


def test_http_session_ends_cleanly(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        async with connect("http", tmp_path) as (client, _):
            await client.list_tools()

    with caplog.at_level("DEBUG"):
        run(scenario())
    failures = [r.getMessage() for r in caplog.records if "termination failed" in r.getMessage()]
    assert not failures


def test_http_refuses_foreign_host_and_origin(tmp_path: Path) -> None:
    server = HttpServer("side_chat", "chat", tmp_path)
    try:
        assert post(server, {"Host": server.authority}) == 200
        assert post(server, {"Host": f"localhost:{server.authority.rsplit(':', 1)[1]}"}) == 200
        assert post(server, {"Host": "evil.example"}) == 403
        assert post(server, {"Host": "evil.example:80"}) == 403
        assert post(server, {"Host": server.authority, "Origin": "http://evil.example"}) == 403
        assert post(server, {"Host": server.authority,
                             "Origin": f"http://{server.authority}"}) == 200
    finally:
        server.close()


# ---- configuration ----------------------------------------------------------------------


def test_config_file_feeds_introspect_with_secrets_redacted(tmp_path: Path) -> None:
    config = tmp_path / "serve.yaml"
    config.write_text(
        "llm:\n"
        "  - name: openai\n"
        "    base_url: https://api.example.invalid/v1\n"
        "    models: [gpt-5]\n"
        "    api_key: sk-very-secret-123\n"
        "conversation: test-thread\n"
    )

    async def scenario() -> None:
        params = StdioServerParameters(
            command=str(BIN),
            args=["serve", "--role", "main", "--workdir", str(tmp_path), "--config", str(config)],
            cwd=str(tmp_path),
        )
        async with Client(params, read_timeout_seconds=GUARD_S) as client:
            llm = await client.call_tool("introspect", {"target": "llm"})
            assert llm.is_error is False, text(llm)
            assert "openai" in text(llm)
            assert "sk-very-secret-123" not in text(llm) + json.dumps(llm.structured_content)
            hosts = await client.call_tool("introspect", {"target": "hosts"})
            assert str(tmp_path.resolve()) in text(hosts)

    run(scenario())


@pytest.mark.parametrize(
    "args,message",
    [
        ([], "--role"),
        (["--role", "nobody"], "unknown role `nobody`"),
        (["--role", "main", "--family", "nope"], "unknown family `nope`"),
        (["--role", "main", "--workdir", "/nonexistent/toolsurface"], "--workdir"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(BIN), "serve", *args], capture_output=True, text=True, cwd=tmp_path,
        stdin=subprocess.DEVNULL, timeout=GUARD_S, check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert proc.stdout == ""
