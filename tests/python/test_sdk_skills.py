"""Skill strategies and request fragments, fed to the providers' own SDK types (pinned in
scripts/requirements.txt), strictly: each value is validated with pydantic's
`TypeAdapter(...).validate_python` (or the google-genai model's `model_validate`), and the
validated value, made plain, must equal the input — a key the SDK type does not know is
dropped by the TypedDict validation, so an extra key fails the comparison (the first test
proves the comparison catches one).

- anthropic: every tool of a `skills: defer` family as `ToolParam` (`defer_loading` on the
  skill tools only, `cache_control` on the last resident tool only); the activation's
  `tool_result` with one `ToolReferenceBlockParam` per skill tool.
- openai Responses: `FunctionToolParam` with `defer_loading`, the client `ToolSearchToolParam`
  (never deferred, its parameters the role's skill enum), a `tool_search_output` item
  (`ResponseToolSearchOutputItemParamParam`) carrying the skill's definitions as published,
  and the rehearsal `ToolChoiceAllowedParam`.
- openai Chat: `ChatCompletionToolChoiceOptionParam` (the `allowed_tools` form) of every
  allow-list and rehearsal fragment, naming only published tools.
- google-genai: `Tool` (functionDeclarations) and `ToolConfig` / `FunctionCallingConfig` of
  every fragment (mode VALIDATED with allowedFunctionNames, or NONE).
- every family: `tools` of every fragment is byte for byte the published array, for every
  turn kind and activation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

import pytest
from anthropic.types import ToolParam, ToolReferenceBlockParam, ToolResultBlockParam
from google.genai import types as gtypes
from openai.types.chat import ChatCompletionToolChoiceOptionParam
from openai.types.responses import (
    FunctionToolParam,
    ResponseToolSearchOutputItemParamParam,
    ToolChoiceAllowedParam,
    ToolSearchToolParam,
)
from pydantic import TypeAdapter

from conftest import TOOL_DEFS, emit, emit_raw, run_toolsurface, surfaces

SURFACES = surfaces()
IDS = [f"{r}-{f}" for r, f in SURFACES]
TURNS = ("normal", "rehearsal")


def plain(value):
    """The validated value as plain JSON data (pydantic hands Iterables back lazily)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple, Iterator, Iterable)):
        return [plain(v) for v in value]
    return value


def strictly(adapter: TypeAdapter, value, where: str):
    """Validate `value` and require that nothing was dropped or changed."""
    assert plain(adapter.validate_python(value)) == value, where


def request(role: str, family: str, turn: str = "normal", skills: tuple[str, ...] = ()) -> dict:
    args = ["emit", "--role", role, "--family", family, "--request", "--turn", turn]
    for s in skills:
        args += ["--with-skill", s]
    return json.loads(run_toolsurface(*args, str(TOOL_DEFS)))


def request_raw(role: str, family: str, turn: str, skills: tuple[str, ...]) -> str:
    args = ["emit", "--role", role, "--family", family, "--request", "--turn", turn]
    for s in skills:
        args += ["--with-skill", s]
    return run_toolsurface(*args, str(TOOL_DEFS))


def dialect(family: str) -> str:
    """The family's dialect, as the lock records it."""
    lock = (TOOL_DEFS / "surface.lock").read_text()
    block = False
    for line in lock.splitlines():
        if line.startswith("surface "):
            block = line.split()[2] == family
        elif block and line.startswith("  dialect "):
            return line.split()[1]
    raise AssertionError(f"family {family} not in the lock")


def skills_of(role: str) -> list[str]:
    """The skills `role` offers (what `introspect skills` would list), from the lock."""
    lock = (TOOL_DEFS / "surface.lock").read_text()
    out: list[str] = []
    block = False
    for line in lock.splitlines():
        if line.startswith("surface "):
            block = line.split()[1] == role
        elif block and line.startswith("  skill "):
            name = line.split()[1]
            if name not in out:
                out.append(name)
    return out


def skill_tools(role: str, family: str, skill: str) -> list[str]:
    lock = (TOOL_DEFS / "surface.lock").read_text()
    out: list[str] = []
    block = False
    for line in lock.splitlines():
        if line.startswith("surface "):
            block = line.split()[1:3] == [role, family]
        elif block and line.startswith(f"  skill {skill} "):
            out.append(line.split()[2])
    return out


def tool_name(tool: dict) -> str:
    if "function" in tool:
        return tool["function"]["name"]
    if tool.get("type") == "tool_search":
        return "activate_skill"
    return tool["name"]


def read_only_tools() -> set[str]:
    """Tools whose every action is read_only, from the lock's shapes."""
    lock = (TOOL_DEFS / "surface.lock").read_text()
    actions: dict[str, list[bool]] = {}
    current = None
    for line in lock.splitlines():
        if line.startswith("shape "):
            current = line.split()[1]
            actions[current] = []
        elif current and line.startswith("  action "):
            shape = json.loads(line.split(" ", 4)[4])
            actions[current].append(bool(shape["traits"].get("read_only")))
        elif not line.startswith("  "):
            current = None
    return {name for name, flags in actions.items() if flags and all(flags)}


# --- the strictness check itself ------------------------------------------------------------


def test_an_unknown_key_fails_the_strict_comparison():
    tool = emit("main", "anthropic")[-1]
    adapter = TypeAdapter(ToolParam)
    strictly(adapter, tool, "as published")
    with pytest.raises(AssertionError):
        strictly(adapter, {**tool, "defer_loadin": True}, "misspelt key")
    with pytest.raises(Exception):
        adapter.validate_python({**tool, "cache_control": {"type": "ephemeral", "ttl": "2h"}})


# --- every family: the tools bytes never change --------------------------------------------


@pytest.mark.parametrize(("role", "family"), SURFACES, ids=IDS)
def test_tools_are_the_published_bytes_for_every_turn_and_activation(role, family):
    published = emit_raw(role, family)
    offered = skills_of(role)
    activations = [()] + [(s,) for s in offered]
    for turn in TURNS:
        for active in activations:
            raw = request_raw(role, family, turn, active)
            assert raw.startswith('{"tools":'), raw[:40]
            assert published in raw, f"{role} × {family} {turn} {active}"
            fragment = json.loads(raw)
            tools = fragment["tools"]
            if dialect(family) == "gemini":
                assert len(tools) == 1 and set(tools[0]) == {"functionDeclarations"}
                tools = tools[0]["functionDeclarations"]
            assert tools == json.loads(published)
            # Activating the skill again is the same bytes as activating it once.
            if active:
                assert raw == request_raw(role, family, turn, active + active)


# --- anthropic ---------------------------------------------------------------------------


def anthropic_surfaces():
    return [(r, f) for r, f in SURFACES if dialect(f) == "anthropic"]


@pytest.mark.parametrize(("role", "family"), anthropic_surfaces())
def test_anthropic_defer_tools_validate_as_tool_params(role, family):
    adapter = TypeAdapter(ToolParam)
    tools = emit(role, family)
    deferred = {t for s in skills_of(role) for t in skill_tools(role, family, s)}
    resident = [t for t in tools if t["name"] not in deferred]
    for i, tool in enumerate(tools):
        strictly(adapter, tool, f"{role} × {family} {tool['name']}")
        assert tool.get("defer_loading", False) == (tool["name"] in deferred), tool["name"]
        is_last_resident = tool is resident[-1]
        assert ("cache_control" in tool) == is_last_resident, tool["name"]
        if is_last_resident:
            assert tool["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
        if tool["name"] in deferred:
            # Deferred tools come after every resident one.
            assert i >= len(resident)
    # No allowed-tools mechanism: the fragment is `tools` alone, rehearsal included.
    for turn in TURNS:
        assert set(request(role, family, turn)) == {"tools"}


@pytest.mark.parametrize(("role", "family"), anthropic_surfaces())
def test_anthropic_activation_result_carries_tool_references(role, family):
    result = TypeAdapter(ToolResultBlockParam)
    reference = TypeAdapter(ToolReferenceBlockParam)
    published = {t["name"] for t in emit(role, family)}
    for skill in skills_of(role):
        names = skill_tools(role, family, skill)
        assert names and set(names) <= published
        blocks = [{"type": "tool_reference", "tool_name": n} for n in names]
        for b in blocks:
            strictly(reference, b, b["tool_name"])
            assert len(b["tool_name"]) <= 64
        strictly(
            result,
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": blocks},
            f"{role} {skill}",
        )


# --- openai responses --------------------------------------------------------------------


def responses_surfaces():
    return [(r, f) for r, f in SURFACES if dialect(f) == "openai-responses"]


@pytest.mark.parametrize(("role", "family"), responses_surfaces())
def test_responses_deferred_functions_and_the_client_tool_search(role, family):
    function = TypeAdapter(FunctionToolParam)
    search = TypeAdapter(ToolSearchToolParam)
    tools = emit(role, family)
    offered = skills_of(role)
    deferred = {t for s in offered for t in skill_tools(role, family, s)}
    searches = [t for t in tools if t.get("type") == "tool_search"]
    if not deferred:
        assert searches == [] and not any(t.get("defer_loading") for t in tools)
        return
    # Deferred tools without tool_search are a 400; the search tool is never deferred.
    assert len(searches) == 1
    tool_search = searches[0]
    strictly(search, tool_search, "tool_search")
    assert tool_search["execution"] == "client"
    assert "defer_loading" not in tool_search
    params = tool_search["parameters"]
    assert params["required"] == ["name"] and params["additionalProperties"] is False
    assert params["properties"]["name"]["enum"] == [
        s for s in offered if skill_tools(role, family, s)
    ]
    assert not any(t.get("name") == "activate_skill" for t in tools), "published as tool_search"
    for tool in tools:
        if tool.get("type") != "function":
            continue
        strictly(function, tool, tool["name"])
        assert tool.get("defer_loading", False) == (tool["name"] in deferred), tool["name"]


@pytest.mark.parametrize(("role", "family"), responses_surfaces())
def test_responses_tool_search_output_carries_the_skill_definitions(role, family):
    item = TypeAdapter(ResponseToolSearchOutputItemParamParam)
    for skill in skills_of(role):
        definitions = [
            json.loads(
                run_toolsurface(
                    "emit", "--role", role, "--family", family, "--tool", name, str(TOOL_DEFS)
                )
            )
            for name in skill_tools(role, family, skill)
        ]
        assert definitions
        output = {
            "type": "tool_search_output",
            "call_id": "call_1",
            "execution": "client",
            "status": "completed",
            "tools": definitions,
        }
        strictly(item, output, f"{role} {skill}")


@pytest.mark.parametrize(("role", "family"), responses_surfaces())
def test_responses_rehearsal_allows_only_read_only_published_tools(role, family):
    allowed = TypeAdapter(ToolChoiceAllowedParam)
    read_only = read_only_tools()
    published = {tool_name(t) for t in emit(role, family)}
    for active in [()] + [(s,) for s in skills_of(role)]:
        fragment = request(role, family, "rehearsal", active)
        assert fragment["parallel_tool_calls"] is True
        choice = fragment["tool_choice"]
        strictly(allowed, choice, f"{role} {active}")
        assert choice["mode"] == "auto"
        names = [e["name"] for e in choice["tools"]]
        assert names and set(names) <= published & read_only, names
        active_tools = {t for s in active for t in skill_tools(role, family, s)}
        inactive = {t for s in skills_of(role) for t in skill_tools(role, family, s)} - active_tools
        assert not set(names) & inactive
        # Normal turns under `defer` need no restriction: deferred tools load on activation.
        assert "tool_choice" not in request(role, family, "normal", active)


# --- openai chat -------------------------------------------------------------------------


def chat_surfaces():
    return [(r, f) for r, f in SURFACES if dialect(f) == "openai-chat"]


@pytest.mark.parametrize(("role", "family"), chat_surfaces())
def test_chat_allowed_tools_tool_choice(role, family):
    choice_type = TypeAdapter(ChatCompletionToolChoiceOptionParam)
    read_only = read_only_tools()
    published = [tool_name(t) for t in emit(role, family)]
    offered = skills_of(role)
    skill_names = {t for s in offered for t in skill_tools(role, family, s)}
    for turn in TURNS:
        for active in [()] + [(s,) for s in offered]:
            fragment = request(role, family, turn, active)
            assert fragment["parallel_tool_calls"] is True
            if turn == "normal" and not offered:
                assert "tool_choice" not in fragment, "nothing to restrict"
                continue
            choice = fragment["tool_choice"]
            strictly(choice_type, choice, f"{role} {turn} {active}")
            assert choice["type"] == "allowed_tools"
            assert choice["allowed_tools"]["mode"] == "auto"
            names = [e["function"]["name"] for e in choice["allowed_tools"]["tools"]]
            assert all(e["type"] == "function" for e in choice["allowed_tools"]["tools"])
            active_tools = {t for s in active for t in skill_tools(role, family, s)}
            expected = [
                n
                for n in published
                if (n not in skill_names or n in active_tools)
                and (turn == "normal" or n in read_only)
            ]
            assert names == expected, (turn, active)


# --- gemini ------------------------------------------------------------------------------


def gemini_surfaces():
    return [(r, f) for r, f in SURFACES if dialect(f) == "gemini"]


@pytest.mark.parametrize(("role", "family"), gemini_surfaces())
def test_gemini_tool_config_validates(role, family):
    read_only = read_only_tools()
    offered = skills_of(role)
    skill_names = {t for s in offered for t in skill_tools(role, family, s)}
    published = [t["name"] for t in emit(role, family)]
    for turn in TURNS:
        for active in [()] + [(s,) for s in offered]:
            fragment = request(role, family, turn, active)
            assert "parallel_tool_calls" not in fragment
            for tool in fragment["tools"]:
                parsed = gtypes.Tool.model_validate(tool)
                assert [d.name for d in parsed.function_declarations] == published
            if turn == "normal" and not offered:
                assert set(fragment) == {"tools"}
                continue
            config = gtypes.ToolConfig.model_validate(fragment["toolConfig"])
            fcc = config.function_calling_config
            assert fcc is not None
            # allowedFunctionNames only applies in ANY / VALIDATED mode; VALIDATED still
            # lets the model answer in text.
            assert fcc.mode == gtypes.FunctionCallingConfigMode.VALIDATED
            active_tools = {t for s in active for t in skill_tools(role, family, s)}
            expected = [
                n
                for n in published
                if (n not in skill_names or n in active_tools)
                and (turn == "normal" or n in read_only)
            ]
            assert fcc.allowed_function_names == expected
            dumped = config.model_dump(by_alias=True, exclude_none=True, mode="json")
            assert dumped == fragment["toolConfig"], "nothing dropped"
