"""fastmcp 4.1.6 and pydantic-ai 2.68.0 (tests/python/clients/requirements-py.txt, installed by
scripts/test-setup-clients in their own venv) against `toolsurface serve` over stdio and
streamable HTTP: list the tools, call shell, read_file, shell_session list and a wrong call
(pydantic-ai through an Agent with a scripted FunctionModel that sees the converted tool
definitions). The driver is tests/python/clients/py_frameworks.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clients_support import frameworks_python, run_json
from conftest import BIN, ROOT, emit
from strict_model import WRONG_CALL_TEXT
from test_mcp import HttpServer

DRIVER = ROOT / "tests" / "python" / "clients" / "py_frameworks.py"


def drive(framework: str, transport: str, tmp_path: Path) -> dict:
    if transport == "stdio":
        target = ["stdio", str(BIN), "main", "chat", str(tmp_path)]
        return run_json([str(frameworks_python()), str(DRIVER), framework, *target], tmp_path)
    server = HttpServer("main", "chat", tmp_path)
    try:
        assert server.url is not None
        return run_json(
            [str(frameworks_python()), str(DRIVER), framework, "http", server.url], tmp_path
        )
    finally:
        server.close()


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("framework", ["fastmcp", "pydantic_ai"])
def test_framework_lists_converts_and_calls(framework: str, transport: str, tmp_path: Path) -> None:
    out = drive(framework, transport, tmp_path)
    published = emit("main", "chat", "mcp")
    assert out["listed"] == [t["name"] for t in published]
    shell, read, listing, wrong = out["outputs"]
    assert shell["is_error"] is False and '"exit_code": 0' in shell["text"].replace(
        '"exit_code":0', '"exit_code": 0'), shell
    assert read["is_error"] is False and "strict" in read["text"], read
    assert listing["is_error"] is False and "sessions" in listing["text"], listing
    assert WRONG_CALL_TEXT in wrong["text"], wrong
    if framework == "fastmcp":
        assert wrong["is_error"] is True
        assert shell["structured"]["exit_code"] == 0
    else:
        # pydantic-ai hands the model the tool schemas as published (a JSON-Schema dict).
        for tool in published:
            assert out["schemas"][tool["name"]]["properties"].keys() == tool["inputSchema"][
                "properties"].keys(), tool["name"]
        assert out["text"] == "done"
