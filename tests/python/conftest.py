"""Shared fixtures for the Python suites: the built `toolsurface` binary and its output.

The binary is TOOLSURFACE_BIN when set, else target/release/toolsurface or
target/debug/toolsurface (release preferred, unless the debug one was built more recently).
A missing binary is an error, never a skip.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL_DEFS = ROOT / "tool-defs"


def _locate_binary() -> Path:
    env = os.environ.get("TOOLSURFACE_BIN")
    if env:
        path = Path(env)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise RuntimeError(f"TOOLSURFACE_BIN={env} is not an executable file")
        return path
    built = [
        path
        for path in (ROOT / "target" / p / "toolsurface" for p in ("release", "debug"))
        if path.is_file() and os.access(path, os.X_OK)
    ]
    if built:
        # release first; but a stale release binary must not shadow a fresher debug build.
        return max(built, key=lambda p: p.stat().st_mtime)
    raise RuntimeError(
        "no toolsurface binary: set TOOLSURFACE_BIN or run `cargo build -p toolsurface-cli` "
        f"(looked in {ROOT / 'target' / 'release'} and {ROOT / 'target' / 'debug'})"
    )


BIN = _locate_binary()


def run_toolsurface(*args: str) -> str:
    """Run the binary; fail the test with its stderr if it does not exit 0."""
    proc = subprocess.run(
        [str(BIN), *args], capture_output=True, text=True, cwd=ROOT, check=False
    )
    if proc.returncode != 0:
        pytest.fail(
            f"toolsurface {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}",
            pytrace=False,
        )
    return proc.stdout


@lru_cache(maxsize=None)
def surfaces() -> tuple[tuple[str, str], ...]:
    """Every role × family, from `toolsurface emit --list`."""
    out = run_toolsurface("emit", "--list", str(TOOL_DEFS))
    pairs = tuple(tuple(line.split(" ")) for line in out.splitlines() if line)
    for pair in pairs:
        assert len(pair) == 2, f"bad --list line: {pair}"
    assert pairs, "toolsurface emit --list printed no surface"
    return pairs  # type: ignore[return-value]


@lru_cache(maxsize=None)
def emit_raw(role: str, family: str, dialect: str | None = None) -> str:
    args = ["emit", "--role", role, "--family", family]
    if dialect:
        args += ["--dialect", dialect]
    return run_toolsurface(*args, str(TOOL_DEFS))


def emit(role: str, family: str, dialect: str | None = None) -> list[dict]:
    """The published array, parsed (key order preserved)."""
    tools = json.loads(emit_raw(role, family, dialect))
    assert isinstance(tools, list)
    return tools


SKILL_META = "io.toolsurface/skill"


@lru_cache(maxsize=None)
def offered_skills(role: str, family: str) -> tuple[str, ...]:
    """The skills `role` offers (tool-defs/skills/*.yaml, in name order, that `emit
    --with-skill` accepts for it)."""
    offered = []
    for path in sorted((TOOL_DEFS / "skills").glob("*.yaml")):
        proc = subprocess.run(
            [str(BIN), "emit", "--role", role, "--family", family, "--with-skill", path.stem,
             str(TOOL_DEFS)],
            capture_output=True, text=True, cwd=ROOT, check=False,
        )
        if proc.returncode == 0:
            offered.append(path.stem)
        else:
            assert "offers no skill" in proc.stderr, proc.stderr
    return tuple(offered)


def skill_tool_names(skill: str) -> list[str]:
    """The `tools:` of tool-defs/skills/<skill>.yaml (a flow list, as the standard surface
    writes it; anything else fails the test rather than guessing)."""
    text = (TOOL_DEFS / "skills" / f"{skill}.yaml").read_text()
    m = re.search(r"^tools:\s*\[([^\]]*)\]\s*$", text, re.M)
    assert m, f"skills/{skill}.yaml: no flow-list `tools:` line"
    return [name.strip() for name in m.group(1).split(",") if name.strip()]


def mcp_listing(role: str, family: str) -> list[dict]:
    """What `toolsurface serve`'s `tools/list` must answer, for the whole session: the
    published mcp array, then every offered skill's tools (as `emit --with-skill` renders
    them) unless the array holds them already, each skill tool with `_meta` naming its
    skill beside the emitter's own `_meta` keys."""
    listed = emit(role, family, "mcp")
    for skill in offered_skills(role, family):
        with_skill = json.loads(
            run_toolsurface("emit", "--role", role, "--family", family, "--dialect", "mcp",
                            "--with-skill", skill, str(TOOL_DEFS))
        )
        for name in skill_tool_names(skill):
            tool = next((t for t in with_skill if t["name"] == name), None)
            if tool is None:
                continue  # not published on this family
            existing = next((t for t in listed if t["name"] == name), None)
            if existing is None:
                existing = dict(tool)
                listed.append(existing)
            existing["_meta"] = {**existing.get("_meta", {}), SKILL_META: skill}
    return listed


@pytest.fixture(scope="session")
def toolsurface_bin() -> Path:
    return BIN
