"""Bad input at the protocol edge: `toolsurface serve` over stdio and over HTTP gets
malformed JSON, a 50 MB message, JSON nested 100,000 deep, invalid UTF-8, an unknown
method and 10,000 requests in a burst from one client. Each gets a JSON-RPC error or a
bounded refusal, the server's memory stays bounded, and the next good request is answered.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conftest import BIN
from test_mcp import GUARD_S, HttpServer

MAX_RSS_BYTES = 256 * 1024 * 1024
BURST = 10_000

BAD_INPUTS: list[tuple[str, bytes, int]] = [
    # name, the message, the JSON-RPC error code that answers it
    ("malformed", b'{"jsonrpc":"2.0","id":2,"method":', -32700),
    ("invalid_utf8", b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"\xff\xfe"}}', -32700),
    ("nested_100000", b"[" * 100_000 + b"]" * 100_000, -32700),
    ("nested_in_a_call",
     b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"shell","arguments":'
     b'{"command":' + b"[" * 100_000 + b"]" * 100_000 + b"}}}", -32700),
    ("not_json_rpc", b'{"jsonrpc":"2.0","id":5,"hello":"world"}', -32600),
    ("unknown_method", b'{"jsonrpc":"2.0","id":6,"method":"no/such/method"}', -32601),
]
FIFTY_MB = (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"shell",'
            b'"arguments":{"command":"' + b"x" * 50_000_000 + b'"}}}')

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "edge", "version": "0"}}}


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


# ---- stdio ------------------------------------------------------------------------------


class StdioServer:
    def __init__(self, workdir: Path) -> None:
        self.proc = subprocess.Popen(
            [str(BIN), "serve", "--role", "side_chat", "--workdir", str(workdir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=workdir,
        )
        self.pending = b""

    def send(self, *lines: bytes) -> None:
        assert self.proc.stdin is not None
        data = b"".join(line + b"\n" for line in lines)

        def write() -> None:
            assert self.proc.stdin is not None
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

        # Written from a thread: the server answers while we write, and we read meanwhile.
        threading.Thread(target=write, daemon=True).start()

    def messages(self, want: int) -> list[dict[str, Any]]:
        """Read `want` messages (fails on a deadline)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        out: list[dict[str, Any]] = []
        deadline = time.monotonic() + GUARD_S * 2
        while len(out) < want:
            while b"\n" in self.pending and len(out) < want:
                line, self.pending = self.pending.split(b"\n", 1)
                out.append(json.loads(line))
            if len(out) >= want:
                break
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                pytest.fail(f"got {len(out)} of {want} messages (server exit: "
                            f"{self.proc.poll()})", pytrace=False)
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    continue
                self.pending += chunk
        return out

    def ping(self, request_id: int) -> None:
        self.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}).encode())
        [answer] = self.messages(1)
        assert answer == {"jsonrpc": "2.0", "id": request_id, "result": {}}, answer

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def stdio_server(tmp_path: Path) -> Any:
    server = StdioServer(tmp_path)
    server.send(json.dumps(INITIALIZE).encode())
    [init] = server.messages(1)
    assert init["result"]["serverInfo"]["name"] == "toolsurface"
    server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    yield server
    server.close()


@pytest.mark.parametrize("name,message,code", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_stdio_bad_input_gets_a_json_rpc_error_and_serving_goes_on(
    stdio_server: StdioServer, name: str, message: bytes, code: int
) -> None:
    stdio_server.send(message)
    [answer] = stdio_server.messages(1)
    assert answer["error"]["code"] == code, answer
    stdio_server.ping(100)
    assert rss_bytes(stdio_server.proc.pid) < MAX_RSS_BYTES


def test_stdio_a_50_mb_message_is_refused_unread(stdio_server: StdioServer) -> None:
    stdio_server.send(FIFTY_MB)
    [answer] = stdio_server.messages(1)
    assert answer["id"] is None and answer["error"]["code"] == -32600, answer
    assert "larger than this server's limit" in answer["error"]["message"]
    stdio_server.ping(101)
    assert rss_bytes(stdio_server.proc.pid) < MAX_RSS_BYTES


def test_stdio_a_burst_of_10000_requests_is_answered(stdio_server: StdioServer) -> None:
    ids = list(range(10_000, 10_000 + BURST))
    stdio_server.send(*(json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping"}).encode()
                        for i in ids))
    answers = stdio_server.messages(BURST)
    assert sorted(a["id"] for a in answers) == ids
    assert all(a.get("result") == {} for a in answers)
    stdio_server.ping(102)
    assert rss_bytes(stdio_server.proc.pid) < MAX_RSS_BYTES


# ---- HTTP -------------------------------------------------------------------------------


class HttpSession:
    def __init__(self, server: HttpServer) -> None:
        self.server = server
        status, headers, body = self.post(json.dumps(INITIALIZE).encode(), session=False)
        assert status == 200, body
        self.id = headers["mcp-session-id"]
        status, _, _ = self.post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        assert status == 202

    def post(
        self, body: bytes, session: bool = True, conn: http.client.HTTPConnection | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        host, port = self.server.authority.rsplit(":", 1)
        own = conn is None
        conn = conn or http.client.HTTPConnection(host, int(port), timeout=GUARD_S)
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream"}
        if session:
            headers |= {"Mcp-Session-Id": self.id, "MCP-Protocol-Version": "2025-06-18"}
        try:
            conn.request("POST", "/mcp", body=body, headers=headers)
            response = conn.getresponse()
            return (response.status, {k.lower(): v for k, v in response.getheaders()},
                    response.read())
        finally:
            if own:
                conn.close()

    @staticmethod
    def rpc(body: bytes) -> dict[str, Any]:
        """The JSON-RPC message of a JSON or SSE answer."""
        text = body.decode()
        m = re.search(r"^data: (\{.*\})$", text, re.M)
        return json.loads(m.group(1) if m else text)

    def ping(self, request_id: int) -> None:
        status, _, body = self.post(
            json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}).encode()
        )
        assert status == 200, body
        assert self.rpc(body) == {"jsonrpc": "2.0", "id": request_id, "result": {}}


@pytest.fixture
def http_session(tmp_path: Path) -> Any:
    server = HttpServer("side_chat", "chat", tmp_path)
    try:
        yield HttpSession(server)
    finally:
        server.close()


@pytest.mark.parametrize("name,message,code", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_http_bad_input_gets_a_json_rpc_error_and_serving_goes_on(
    http_session: HttpSession, name: str, message: bytes, code: int
) -> None:
    status, _, body = http_session.post(message)
    assert status in (200, 400), (status, body)
    assert http_session.rpc(body)["error"]["code"] == code, body
    http_session.ping(100)
    assert rss_bytes(http_session.server.proc.pid) < MAX_RSS_BYTES


def test_http_a_50_mb_body_gets_413(http_session: HttpSession) -> None:
    status, _, body = http_session.post(FIFTY_MB)
    assert status == 413, status
    assert b"larger than this server's limit" in body
    http_session.ping(101)
    assert rss_bytes(http_session.server.proc.pid) < MAX_RSS_BYTES


def test_http_a_burst_of_10000_requests_is_answered(http_session: HttpSession) -> None:
    host, port = http_session.server.authority.rsplit(":", 1)
    workers = 16

    def run_share(worker: int) -> list[int]:
        conn = http.client.HTTPConnection(host, int(port), timeout=GUARD_S)
        seen = []
        try:
            for i in range(worker, BURST, workers):
                status, _, body = http_session.post(
                    json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping"}).encode(),
                    conn=conn,
                )
                assert status == 200, body
                seen.append(http_session.rpc(body)["id"])
        finally:
            conn.close()
        return seen

    with ThreadPoolExecutor(workers) as pool:
        seen = [i for share in pool.map(run_share, range(workers)) for i in share]
    assert sorted(seen) == list(range(BURST))
    http_session.ping(102)
    assert rss_bytes(http_session.server.proc.pid) < MAX_RSS_BYTES
