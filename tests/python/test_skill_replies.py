"""The activation reply a host sends back for `activate_skill`, per family, fed to the
providers' own SDK types — and `examples/host.rs` run end to end.

The replies come from the built example (`target/<profile>/examples/host --replies`, built
by `cargo test --workspace --all-targets --no-run` in scripts/test; a missing binary is an
error, never a skip): one JSON line per family × skill with the family's delivery and the
typed `ActivationReply` serialized.

- Anthropic `defer` (ToolReference): the `content` of the `tool_result` block, accepted
  unchanged by `ToolResultBlockParam` (its `content` list: a text block, then one
  `ToolReferenceBlockParam` per skill tool).
- Responses `defer` (ToolSearchOutput): the `tool_search_output` input item, accepted
  unchanged by `ResponseToolSearchOutputItemParamParam`; its tools are the family's own
  published skill tools (`emit --with-skill`), byte for byte.
- `allow_list` / `append`: the text (a JSON string).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from anthropic.types import ToolReferenceBlockParam, ToolResultBlockParam
from openai.types.responses.response_input_item_param import ResponseToolSearchOutputItemParamParam
from pydantic import TypeAdapter

from conftest import BIN, ROOT, TOOL_DEFS, emit, run_toolsurface, skill_tool_names

EXAMPLE = BIN.parent / "examples" / "host"


def _example(*args: str) -> str:
    if not (EXAMPLE.is_file() and os.access(EXAMPLE, os.X_OK)):
        pytest.fail(
            f"no example binary at {EXAMPLE}: run `cargo build -p toolsurface --example host`",
            pytrace=False,
        )
    proc = subprocess.run(
        [str(EXAMPLE), *args], capture_output=True, text=True, cwd=ROOT, check=False,
        timeout=300,
    )
    if proc.returncode != 0:
        pytest.fail(f"examples/host {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}",
                    pytrace=False)
    return proc.stdout


def _replies() -> list[dict]:
    lines = [json.loads(line) for line in _example("--replies").splitlines() if line.strip()]
    assert lines, "examples/host --replies printed nothing"
    return lines


def _skill_tools_as_published(family: str, skill: str) -> list[dict]:
    """The family's own published definitions of the skill's tools."""
    names = skill_tool_names(skill)
    with_skill = json.loads(
        run_toolsurface("emit", "--role", "main", "--family", family, "--with-skill", skill,
                        str(TOOL_DEFS))
    )
    return [t for t in with_skill if t.get("name") in names]


def test_every_reply_has_its_dialect_shape() -> None:
    result_block = TypeAdapter(ToolResultBlockParam)
    reference = TypeAdapter(ToolReferenceBlockParam)
    search_output = TypeAdapter(ResponseToolSearchOutputItemParamParam)
    seen: dict[str, int] = {}
    for line in _replies():
        family, delivery, reply = line["family"], line["delivery"], line["reply"]
        seen[delivery] = seen.get(delivery, 0) + 1
        skill_tools = [t["name"] for t in emit("main", family)
                       if t.get("name") in skill_tool_names("sqlite")]
        if delivery == "ToolReference":
            block = {"type": "tool_result", "tool_use_id": line["call_id"], "content": reply}
            validated = result_block.validate_python(block)
            assert {**validated, "content": [dict(c) for c in validated["content"]]} == block
            assert reply[0]["type"] == "text" and "sqlite" in reply[0]["text"], reply
            refs = reply[1:]
            for ref in refs:
                assert reference.validate_python(ref) == ref
            assert [r["tool_name"] for r in refs] == skill_tool_names("sqlite"), refs
            assert all(name in skill_tools for name in skill_tool_names("sqlite")), (
                "deferred tools are declared in `tools` from the start")
        elif delivery == "ToolSearchOutput":
            validated = search_output.validate_python(reply)
            assert {**validated, "tools": [dict(t) for t in validated["tools"]]} == reply
            assert reply["call_id"] == line["call_id"] and reply["execution"] == "client"
            assert reply["tools"] == _skill_tools_as_published(family, "sqlite"), family
        else:
            assert delivery in ("AllowList", "Append"), delivery
            assert isinstance(reply, str) and "sqlite" in reply, reply
    assert seen.get("ToolReference") and seen.get("ToolSearchOutput"), seen


def _expected_delivery(family: str) -> str:
    """From the published bytes alone: deferred skill tools on an Anthropic array (tools
    with `input_schema`) answer with tool references, on a Responses array (a `tool_search`
    tool) with a tool_search_output; skill tools published plainly are allow-listed, absent
    ones appended."""
    tools = emit("main", family)
    names = skill_tool_names("sqlite")
    published = [t for t in tools if (t.get("name") or t.get("function", {}).get("name")) in names]
    if not published:
        return "Append"
    if all(t.get("defer_loading") is True for t in published):
        if any(t.get("type") == "tool_search" for t in tools):
            return "ToolSearchOutput"
        assert all("input_schema" in t for t in published), family
        return "ToolReference"
    return "AllowList"


def test_each_family_answers_with_the_delivery_its_bytes_call_for() -> None:
    for line in _replies():
        assert line["delivery"] == _expected_delivery(line["family"]), line


def test_the_example_runs_the_whole_loop_on_every_family() -> None:
    """A normal turn, the activation with its reply, a turn using the skill, a rehearsal
    turn: the tool bytes change only under `append`."""
    for line in _replies():
        family = line["family"]
        out = _example("main", family)
        for marker in ("[request] normal turn", "[reply] ", "[request] turn using the skill",
                       "[call_sql] sql_query → ok", "[request] rehearsal turn"):
            assert marker in out, (family, marker, out[-2000:])
        stable = line["delivery"] != "Append"
        expected = "tools bytes unchanged" if stable else "tools bytes changed"
        assert expected in out, (family, out[-2000:])
