"""pydantic-ai on the generated Python host, with a scripted `FunctionModel` (no network):
hosts/python/examples/pydantic_ai_host.py builds a `Tool.from_schema` per published tool
with our parameters as is, and every call the model makes goes through `parse_call`.

pydantic-ai lives only in the client venv (target/clients/py, scripts/test-setup-clients),
so the example runs there as a subprocess and prints one JSON line; this suite, in the main
venv, holds it to what `toolsurface_standard.parse_call` says for the same argument text.
A missing client venv is a failure naming the setup script, never a skip.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from typing import Any

import pytest
from clients_support import GUARD_S, frameworks_python
from conftest import ROOT

HOST = ROOT / "hosts" / "python"
sys.path[:0] = [str(HOST)]

import toolsurface_standard as ts

ROLE, FAMILY = "main", "chat"
EXAMPLE = HOST / "examples" / "pydantic_ai_host.py"


@cache
def _scripted_raw() -> str:
    python = frameworks_python()
    proc = subprocess.run(
        [str(python), str(EXAMPLE)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(HOST)},
        timeout=GUARD_S,
        check=False,
    )
    if proc.returncode != 0:
        pytest.fail(
            f"{python} {EXAMPLE} exited {proc.returncode}:\n{proc.stderr[-4000:]}",
            pytrace=False,
        )
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert lines, f"the example printed nothing; stderr:\n{proc.stderr[-4000:]}"
    return lines[-1]


def scripted() -> dict[str, Any]:
    return json.loads(_scripted_raw())


def refusal(args: str) -> str:
    """What parse_call, here in the main venv, says to `message_read(args)`."""
    try:
        call = ts.parse_call(ROLE, FAMILY, "message_read", args)
    except ts.CallError as e:
        return str(e)
    raise AssertionError(f"parse_call accepted {args}: {call!r}")


def published_parameters(family: str) -> list[tuple[str, Any, Any]]:
    out = []
    for text in ts.published_tools(ROLE, family):
        tool = json.loads(text)
        tool = tool.get("function", tool)
        params = tool.get("parameters", tool.get("input_schema"))
        if "name" in tool and params is not None:
            out.append((tool["name"], params, tool.get("strict")))
    return out


def test_agent_run_refusal_is_parse_calls_text_and_accepted_call_is_typed() -> None:
    run = scripted()
    refused_args, accepted_args = run["sent"]
    assert run["output"] == "done"
    # Turn 1: schema-valid (both fields are published properties), refused by the
    # exactly_one_of rule; the model reads parse_call's text as the tool's return.
    # Turn 2: accepted, the handler saw the typed call.
    accepted = ts.parse_call(ROLE, FAMILY, "message_read", accepted_args)
    assert accepted == ts.MessageReadHistory(channel="ops", limit=20)
    assert run["tool_outputs"] == [
        {"outcome": "success", "text": refusal(refused_args)},
        {"outcome": "success", "text": f"ok: {ts.call_json(accepted)}"},
    ]
    assert refusal(refused_args) == (
        "mode=history: expected exactly one of session_id, channel; got session_id and channel"
    )
    assert run["handled"] == [ts.call_json(accepted)]
    assert ts.call_json(accepted) == (
        '{"name":"message_read","arguments":{"mode":"history","channel":"ops","limit":20}}'
    )


def test_the_model_is_shown_the_published_parameters_as_is() -> None:
    run = scripted()
    want = [
        {"name": n, "parameters": p, "strict": s}
        for n, p, s in published_parameters(FAMILY)
    ]
    assert len(run["shown"]) == 3  # one model request per turn
    for shown in run["shown"]:
        assert shown == want
    for family, built in run["families"].items():
        assert [(t["name"], t["parameters"], t["strict"]) for t in built] == (
            published_parameters(family)
        ), family


def test_pydantic_ai_does_not_validate_against_the_schema() -> None:
    """from_schema's validator is any_schema(): a call the schema forbids reaches parse_call,
    and the model reads our refusal, as a plain (successful) tool return."""
    probes = scripted()["schema_invalid"]
    for label in ("unknown_field", "out_of_bound"):
        probe = probes[label]
        [args] = probe["sent"]
        assert probe["tool_outputs"] == [
            {"outcome": "success", "text": refusal(args)}
        ], label
        assert probe["handled"] == [], label
    assert probes["unknown_field"]["tool_outputs"][0]["text"] == (
        "mode=history: unexpected field foo (expected one of session_id, channel, view, limit)"
    )
    assert probes["out_of_bound"]["tool_outputs"][0]["text"] == (
        "mode=history: limit: expected an integer from 1 to 50000, got 0"
    )


def test_what_pydantic_ai_decides_before_parse_call() -> None:
    """The gaps, pinned so a pydantic-ai upgrade that changes them is noticed."""
    probes = scripted()["schema_invalid"]

    # A duplicate key is dropped by pydantic-core's JSON parse (last one kept) before our
    # function sees the arguments: accepted there, refused by parse_call on the raw text.
    dup = probes["duplicate_key"]
    [args] = dup["sent"]
    assert refusal(args) == "mode=history: duplicate field channel"
    assert dup["handled"] == [ts.call_json(ts.MessageReadHistory(channel="dev"))]

    # Text that is not JSON: pydantic-ai's own retry (its wording), counted in max_retries.
    bad = probes["not_json"]
    [args] = bad["sent"]
    assert refusal(args).startswith("message_read: arguments are not valid JSON")
    [out] = bad["tool_outputs"]
    assert out["outcome"] == "retried"
    assert json.loads(out["text"])["error"][0]["type"] == "json_invalid"
    assert bad["handled"] == []
    assert probes["retries_exhausted"]["raised"].startswith(
        "UnexpectedModelBehavior: Tool 'message_read' exceeded max retries count of 1"
    )

    # JSON that is not an object cannot be spread as keyword arguments: the run raises.
    not_object = probes["not_object"]
    [args] = not_object["sent"]
    assert refusal(args) == (
        "message_read: arguments must be a JSON object, got an array of 1 item"
    )
    assert not_object["raised"].startswith("TypeError: ")
    assert "must be a mapping, not list" in not_object["raised"]
