"""The published schemas, fed to the providers' own SDK validators (pinned in
scripts/requirements.txt): every role × family from `toolsurface emit --list`, in its own
dialect and in `mcp`.

- jsonschema: Draft202012Validator.check_schema on every parameters schema (gemini's with
  its type names lower-cased; google-genai checks the OpenAPI spelling itself).
- openai-agents: the strict variant is a fixed point of ensure_strict_json_schema; the
  openai SDK's tool param types accept every chat / responses tool unchanged.
- anthropic: transform_schema accepts every input_schema and keeps its properties and
  required lists; ToolParam accepts every tool unchanged.
- google-genai: FunctionDeclaration.model_validate (no warnings, nothing dropped) and
  Schema.model_validate; Schema.from_json_schema of the same tool's JSON Schema yields the
  same Schema.
- mcp: Tool.model_validate (nothing dropped) and SEP-986 tool-name validation.
- lark: every Responses `custom` tool's grammar compiles, and the apply_patch grammar takes
  a patch with and without its `*** Device:` line and refuses an option-like device; it
  judges every case of runtime/tests/data/apply_patch_syntax.json as labelled there (the
  runtime's parser is held to the same file), so it takes what the parser takes except
  where a case notes why not.
"""

from __future__ import annotations

import copy
import json
import re
import warnings

import anthropic
import pytest
from lark import Lark
from lark.exceptions import LarkError
from agents.strict_schema import ensure_strict_json_schema
from anthropic.types import ToolParam
from google.genai import types as gtypes
from jsonschema import Draft202012Validator
from mcp.shared.tool_name_validation import validate_tool_name
from mcp.types import Tool as McpTool
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import CustomToolParam, FunctionToolParam
from pydantic import TypeAdapter

from conftest import ROOT, emit, surfaces

SURFACES = surfaces()
IDS = [f"{r}-{f}" for r, f in SURFACES]
NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def dialect_of(tool: dict) -> str:
    """Which dialect a published tool is in, from its shape."""
    if "function" in tool:
        return "openai-chat"
    if tool.get("type") == "tool_search":
        # activate_skill under `skills: defer` (test_sdk_skills.py checks it).
        return "tool_search"
    if tool.get("type") in ("function", "custom") and "name" in tool:
        return "openai-responses"
    if "input_schema" in tool:
        return "anthropic"
    if "inputSchema" in tool:
        return "mcp"
    if set(tool) <= {"name", "description", "parameters"}:
        return "gemini"
    raise AssertionError(f"unknown tool shape: {sorted(tool)}")


def params_of(tool: dict) -> dict | None:
    d = dialect_of(tool)
    if d == "openai-chat":
        return tool["function"]["parameters"]
    if d == "anthropic":
        return tool["input_schema"]
    if d == "mcp":
        return tool["inputSchema"]
    return tool.get("parameters")


def all_tools(dialect: str | None = None):
    """(role, family, tool) for every surface, native dialect or the one given."""
    for role, family in SURFACES:
        for tool in emit(role, family, dialect):
            yield role, family, tool


def walk(schema, path="$"):
    """Every schema node below (and including) `schema`, with its path."""
    yield path, schema
    for key, sub in (schema.get("properties") or {}).items():
        yield from walk(sub, f"{path}.{key}")
    if isinstance(schema.get("items"), dict):
        yield from walk(schema["items"], f"{path}[]")


# --- flat-schema rules, every dialect -----------------------------------------------------


@pytest.mark.parametrize("dialect", [None, "mcp"], ids=["native", "mcp"])
@pytest.mark.parametrize(("role", "family"), SURFACES, ids=IDS)
def test_flat_root_and_limits(role, family, dialect):
    tools = emit(role, family, dialect)
    assert len(tools) <= 128
    names = []
    for tool in tools:
        d = dialect_of(tool)
        if dialect == "mcp":
            assert d == "mcp"
        if d == "tool_search":
            continue
        name = tool["function"]["name"] if d == "openai-chat" else tool["name"]
        desc = (
            tool["function"]["description"] if d == "openai-chat" else tool["description"]
        )
        assert NAME.match(name), name
        assert 0 < len(desc) <= 1024, name
        assert desc == desc.strip(), name
        names.append(name)
        params = params_of(tool)
        if params is None:
            assert tool.get("type") == "custom" or d == "gemini", name
            continue
        assert params["type"] in ("object", "OBJECT"), name
        for banned in ("oneOf", "anyOf", "allOf", "enum", "not", "$ref", "default"):
            assert banned not in params, f"{name}: {banned} at the root"
        for path, node in walk(params):
            # A field's `default:` is published beside it (the standard surface declares
            # its defaults); the SDK conversions below take it.
            for banned in ("const", "$ref", "oneOf", "anyOf", "allOf"):
                assert banned not in node, f"{name}{path}: {banned}"
            # Closed objects everywhere but Gemini's own dialect and the gemini family's MCP
            # rendering (google-genai's MCP conversion crashes on additionalProperties).
            open_objects = d == "gemini" or (d == "mcp" and family == "gemini")
            if node.get("type") in ("object", "OBJECT") and not open_objects:
                assert node.get("additionalProperties") is False, f"{name}{path}"
            elif node.get("type") in ("object", "OBJECT"):
                assert "additionalProperties" not in node, f"{name}{path}"
    assert len(set(names)) == len(names), "duplicate tool names"


# --- jsonschema ---------------------------------------------------------------------------


def _json_schema_spelling(gemini: dict) -> dict:
    """A gemini (OpenAPI) schema with JSON Schema's lower-case type names."""
    out = dict(gemini)
    out["type"] = gemini["type"].lower()
    if "properties" in out:
        out["properties"] = {k: _json_schema_spelling(v) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = _json_schema_spelling(out["items"])
    return out


@pytest.mark.parametrize("dialect", [None, "mcp"], ids=["native", "mcp"])
@pytest.mark.parametrize(("role", "family"), SURFACES, ids=IDS)
def test_jsonschema_check_schema(role, family, dialect):
    tools = emit(role, family, dialect)
    checked = 0
    for tool in tools:
        params = params_of(tool)
        if params is None:
            assert tool.get("type") == "custom" or dialect_of(tool) == "gemini"
            continue  # a grammar tool, or a gemini tool without parameters
        if dialect_of(tool) == "gemini":
            # OpenAPI spelling; google-genai checks it as is in test_gemini_*.
            params = _json_schema_spelling(params)
        Draft202012Validator.check_schema(params)
        checked += 1
    if dialect == "mcp":
        assert checked == len(tools)


def _materialized(validated: dict) -> dict:
    """ToolParam's `input_examples` is an Iterable: pydantic hands back a lazy iterator."""
    out = dict(validated)
    if "input_examples" in out:
        out["input_examples"] = [dict(e) for e in out["input_examples"]]
    return out


def test_jsonschema_accepts_and_refuses_calls_as_the_flat_schema_says():
    """The flat schema is a real schema: it refuses unknown fields and a missing selector."""
    tools = emit(*SURFACES[0], "mcp")
    selector_tools = [
        t for t in tools if any("enum" in p for p in t["inputSchema"]["properties"].values())
        and t["inputSchema"].get("required", [])[:1]
        and "enum" in t["inputSchema"]["properties"][t["inputSchema"]["required"][0]]
    ]
    assert selector_tools, "no tool with a selector in the standard surface"
    for tool in selector_tools:
        schema = tool["inputSchema"]
        selector = schema["required"][0]
        v = Draft202012Validator(schema)
        actions = schema["properties"][selector]["enum"]
        assert not v.is_valid({}), tool["name"]
        assert not v.is_valid({selector: "no_such_action"}), tool["name"]
        assert not v.is_valid({selector: actions[0], "no_such_field": 1}), tool["name"]


# --- openai -------------------------------------------------------------------------------


def test_openai_strict_variant_is_a_fixed_point_of_ensure_strict_json_schema():
    strict = [
        (r, f, t)
        for r, f, t in all_tools()
        if dialect_of(t) == "openai-chat" and t["function"]["strict"] is True
    ]
    assert strict, "no strict openai-chat family in tool-defs (expected chat_strict)"
    assert {f for _, f, _ in strict} >= {"chat_strict"}
    for role, family, tool in strict:
        params = tool["function"]["parameters"]
        out = ensure_strict_json_schema(copy.deepcopy(params))
        where = f"{role} × {family} {tool['function']['name']}"
        assert out == params, where
        # Key order too: the bytes would be the same.
        assert json.dumps(out) == json.dumps(params), where
        for path, node in walk(params):
            if "properties" in node:
                assert node["required"] == list(node["properties"]), f"{where}{path}"


def test_openai_non_strict_families_say_strict_false():
    seen = 0
    for _, _, tool in all_tools():
        d = dialect_of(tool)
        if d == "openai-chat" and tool["function"]["strict"] is False:
            seen += 1
        elif d == "openai-responses" and tool["type"] == "function":
            assert tool["strict"] is False
            seen += 1
    assert seen > 0


def test_openai_sdk_tool_params_accept_every_tool_unchanged():
    chat = TypeAdapter(ChatCompletionFunctionToolParam)
    function = TypeAdapter(FunctionToolParam)
    custom = TypeAdapter(CustomToolParam)
    seen = {"openai-chat": 0, "function": 0, "custom": 0}
    for _, _, tool in all_tools():
        d = dialect_of(tool)
        if d == "openai-chat":
            assert chat.validate_python(tool) == tool
            seen["openai-chat"] += 1
        elif d == "openai-responses" and tool["type"] == "function":
            assert function.validate_python(tool) == tool
            seen["function"] += 1
        elif d == "openai-responses":
            assert custom.validate_python(tool) == tool
            assert tool["format"]["syntax"] == "lark" and tool["format"]["definition"]
            seen["custom"] += 1
    assert all(seen.values()), seen


# --- anthropic ----------------------------------------------------------------------------


def _same_structure(ours: dict, theirs: dict, where: str):
    """transform_schema may move constraints into descriptions, but must keep the shape."""
    assert set(theirs.get("properties", {})) == set(ours.get("properties", {})), where
    assert theirs.get("required") == ours.get("required"), where
    if "enum" in ours:
        assert theirs["enum"] == ours["enum"], where
    for key, sub in ours.get("properties", {}).items():
        _same_structure(sub, theirs["properties"][key], f"{where}.{key}")
    if isinstance(ours.get("items"), dict):
        _same_structure(ours["items"], theirs["items"], f"{where}[]")


def test_anthropic_transform_schema_accepts_every_input_schema():
    adapter = TypeAdapter(ToolParam)
    seen = 0
    for role, family, tool in all_tools():
        if dialect_of(tool) != "anthropic":
            continue
        where = f"{role} × {family} {tool['name']}"
        out = anthropic.transform_schema(copy.deepcopy(tool["input_schema"]))
        assert out["type"] == "object", where
        assert out["additionalProperties"] is False, where
        _same_structure(tool["input_schema"], out, where)
        assert _materialized(adapter.validate_python(tool)) == tool, where
        seen += 1
    assert seen > 0, "no anthropic family in tool-defs"


# --- gemini -------------------------------------------------------------------------------


def _without_additional_properties(schema: dict) -> dict:
    out = {k: v for k, v in schema.items() if k != "additionalProperties"}
    if "properties" in out:
        out["properties"] = {
            k: _without_additional_properties(v) for k, v in out["properties"].items()
        }
    if isinstance(out.get("items"), dict):
        out["items"] = _without_additional_properties(out["items"])
    return out


def test_gemini_function_declarations_validate_unchanged():
    seen = 0
    for role, family in SURFACES:
        native = emit(role, family)
        if not native or dialect_of(native[0]) != "gemini":
            continue
        # The same tools as JSON Schema (mcp rendering of the same surface).
        generic = {t["name"]: t["inputSchema"] for t in emit(role, family, "mcp")}
        for tool in native:
            where = f"{role} × {family} {tool['name']}"
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                decl = gtypes.FunctionDeclaration.model_validate(tool)
            dumped = decl.model_dump(mode="json", by_alias=True, exclude_none=True)
            assert dumped == tool, where
            params = tool.get("parameters")
            if params is None:
                assert generic[tool["name"]]["properties"] == {}, where
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                schema = gtypes.Schema.model_validate(params)
            for path, node in walk(params):
                assert isinstance(node["type"], str) and node["type"].isupper(), where + path
                assert "nullable" not in node and "additionalProperties" not in node
                if "enum" in node:
                    assert node["type"] == "STRING"
                    assert all(isinstance(v, str) for v in node["enum"]), where + path
            # Google's own JSON Schema -> Schema conversion agrees with our emission.
            js = gtypes.JSONSchema.model_validate(
                _without_additional_properties(generic[tool["name"]])
            )
            converted = gtypes.Schema.from_json_schema(
                json_schema=js, raise_error_on_unsupported_field=True
            )
            assert converted == schema, where
            seen += 1
    assert seen > 0, "no gemini family in tool-defs"


# --- mcp ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("role", "family"), SURFACES, ids=IDS)
def test_mcp_tools_validate_for_every_role_and_family(role, family):
    tools = emit(role, family, "mcp")
    for tool in tools:
        where = f"{role} × {family} {tool['name']}"
        parsed = McpTool.model_validate(tool)
        dumped = parsed.model_dump(mode="json", by_alias=True, exclude_none=True)
        assert dumped == tool, where
        result = validate_tool_name(parsed.name)
        assert result.is_valid and not result.warnings, (where, result.warnings)
        assert parsed.input_schema["type"] == "object", where
        a = parsed.annotations
        assert a is not None, where
        hints = (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint)
        assert all(isinstance(h, bool) for h in hints), where
        if a.read_only_hint:
            assert a.destructive_hint is False, where
        assert parsed.title and parsed.title[0].isupper(), where


def test_mcp_annotations_follow_traits():
    """Spot checks of the documented rule on the standard surface (docs/published-bytes.md)."""
    tools = {t["name"]: t["annotations"] for _, _, t in all_tools("mcp")}
    # Only tools whose every action is read_only are read-only; writers are destructive.
    if "read_file" in tools:
        assert tools["read_file"]["readOnlyHint"] is True
    if "write_file" in tools:
        assert tools["write_file"]["readOnlyHint"] is False
        assert tools["write_file"]["destructiveHint"] is True
    # shell_session mixes read-only (list) and other actions.
    if "shell_session" in tools:
        assert tools["shell_session"]["readOnlyHint"] is False
    # Route local -> closed world.
    if "introspect" in tools:
        assert tools["introspect"]["openWorldHint"] is False
    assert tools, "no mcp tools"


# --- lark (Responses custom tools) --------------------------------------------------------


def _custom_tools() -> dict[str, str]:
    """Every custom tool's grammar by tool name (identical across surfaces)."""
    grammars: dict[str, str] = {}
    for role, family, tool in all_tools():
        if dialect_of(tool) == "openai-responses" and tool["type"] == "custom":
            assert tool["format"]["type"] == "grammar"
            assert tool["format"]["syntax"] == "lark"
            prev = grammars.setdefault(tool["name"], tool["format"]["definition"])
            assert prev == tool["format"]["definition"], f"{role} × {family} {tool['name']}"
    return grammars


def test_custom_tool_grammars_compile_with_lark():
    grammars = _custom_tools()
    assert grammars, "no custom (grammar) tool in any responses surface"
    for name, definition in grammars.items():
        Lark(definition, start="start", parser="earley")  # raises on a bad grammar
        assert definition.endswith("\n"), name


def test_apply_patch_grammar_takes_the_device_line():
    grammars = _custom_tools()
    assert "apply_patch" in grammars
    parser = Lark(grammars["apply_patch"], start="start", parser="earley")
    body = "*** Update File: src/a.txt\n@@ fn main\n-old\n+new\n context\n*** End Patch\n"
    parser.parse("*** Begin Patch\n" + body)
    parser.parse("*** Begin Patch\n*** Device: deploy@build-01\n" + body)
    parser.parse("*** Begin Patch\n*** Device: [fe80::1%eth0]\n" + body)
    parser.parse("*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch\n")
    for bad in (
        "*** Begin Patch\n*** Device: -oProxyCommand=x\n" + body,
        "*** Begin Patch\n*** Device: host;rm\n" + body,
        "*** Begin Patch\n*** End Patch\n",
        "*** Update File: a\n*** End Patch\n",
    ):
        with pytest.raises(LarkError):
            parser.parse(bad)


APPLY_PATCH_SYNTAX = json.loads(
    (ROOT / "runtime" / "tests" / "data" / "apply_patch_syntax.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", APPLY_PATCH_SYNTAX, ids=[c["name"] for c in APPLY_PATCH_SYNTAX])
def test_apply_patch_grammar_agrees_with_the_parser(case: dict) -> None:
    parser = Lark(_custom_tools()["apply_patch"], start="start", parser="earley")
    try:
        parser.parse(case["patch"])
        accepted = True
    except LarkError:
        accepted = False
    assert accepted == case["grammar"], case["patch"]
    if case["parser"] != case["grammar"]:
        assert case.get("note"), "a case where grammar and parser differ says why"
        # the grammar may only be stricter than the parser, never take what it refuses
        assert case["parser"], "the grammar takes a patch the parser refuses"
