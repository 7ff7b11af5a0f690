"""Examples, output schemas and the MCP extras (issue 16), fed to the providers' own SDK types.

- The standard surface: every Anthropic tool's `input_examples` is accepted by `ToolParam`
  and each example is accepted by the tool's own `input_schema` (jsonschema); every MCP
  `outputSchema` is a valid Draft 2020-12 schema with an object root; `annotations.title`
  equals `title`; `_meta` carries the tool's sha256 in its family's own dialect (the bytes
  `toolsurface emit --tool` prints) and every action's traits under `io.toolsurface/`.
- A copy of tool-defs with every switch on (Responses and Gemini output schemas, examples in
  chat / responses descriptions, an icon): openai's `FunctionToolParam` (with
  `output_schema`), google-genai's `FunctionDeclaration` (with `responseJsonSchema`) and
  mcp's `Tool` (with `icons`) accept every tool unchanged.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest
from anthropic.types import ToolParam
from google.genai import types as gtypes
from jsonschema import Draft202012Validator
from mcp.types import Tool as McpTool
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

from conftest import BIN, TOOL_DEFS, emit, run_toolsurface, surfaces

SURFACES = surfaces()
META = "io.toolsurface/"


def _materialized(validated: dict) -> dict:
    """ToolParam's `input_examples` is an Iterable: pydantic hands back a lazy iterator."""
    out = dict(validated)
    if "input_examples" in out:
        out["input_examples"] = [dict(e) for e in out["input_examples"]]
    return out


def test_anthropic_input_examples_are_valid_calls():
    adapter = TypeAdapter(ToolParam)
    seen = 0
    for role, family in SURFACES:
        for tool in emit(role, family):
            if "input_schema" not in tool:
                continue
            where = f"{role} × {family} {tool['name']}"
            examples = tool.get("input_examples")
            assert examples, f"{where}: no input_examples"
            assert _materialized(adapter.validate_python(tool)) == tool, where
            validator = Draft202012Validator(tool["input_schema"])
            for ex in examples:
                errors = [e.message for e in validator.iter_errors(ex)]
                assert not errors, (where, ex, errors)
                seen += 1
    assert seen > 0


@pytest.mark.parametrize(("role", "family"), SURFACES, ids=[f"{r}-{f}" for r, f in SURFACES])
def test_mcp_extras_on_the_standard_surface(role, family):
    outputs = 0
    for tool in emit(role, family, "mcp"):
        where = f"{role} × {family} {tool['name']}"
        parsed = McpTool.model_validate(tool)
        assert parsed.model_dump(mode="json", by_alias=True, exclude_none=True) == tool, where
        assert parsed.annotations.title == parsed.title, where
        meta = tool["_meta"]
        own = run_toolsurface(
            "emit", "--role", role, "--family", family, "--tool", tool["name"], str(TOOL_DEFS)
        )
        assert meta[META + "sha256"] == hashlib.sha256(own.encode()).hexdigest(), where
        traits = meta[META + "traits"]
        enums = [p.get("enum") for p in tool["inputSchema"]["properties"].values()]
        if all(isinstance(v, dict) for v in traits.values()):
            # A tool with actions: one traits object per action, in the selector's order.
            assert list(traits) in enums, where
            assert all("read_only" in v for v in traits.values()), where
        else:
            assert "read_only" in traits, where
        if "outputSchema" in tool:
            Draft202012Validator.check_schema(tool["outputSchema"])
            assert tool["outputSchema"]["type"] == "object", where
            outputs += 1
    # shell (or exec_command + write_stdin), shell_session, monitor_start at least.
    assert outputs >= 3, f"{role} × {family}: only {outputs} tools declare an output"


@pytest.fixture(scope="module")
def everything_on(tmp_path_factory) -> Path:
    """tool-defs with every publishing switch on and an icon on shell_session."""
    root = tmp_path_factory.mktemp("defs") / "defs"
    shutil.copytree(TOOL_DEFS, root)
    surface = (root / "surface.yaml").read_text()
    surface = surface.replace(
        "chat:        { dialect: openai-chat }",
        "chat:        { dialect: openai-chat, examples_in_description: true }",
    ).replace(
        "responses:   { dialect: openai-responses }",
        "responses:   { dialect: openai-responses, output_schema: true, examples_in_description: true }",
    ).replace(
        "gemini:      { dialect: gemini }",
        "gemini:      { dialect: gemini, output_schema: true }",
    )
    assert surface.count("output_schema: true") == 2
    (root / "surface.yaml").write_text(surface)
    session = root / "tools" / "shell_session.yaml"
    session.write_text(
        session.read_text()
        + "icon: { src: 'data:image/svg+xml;base64,PHN2Zy8+', mime_type: image/svg+xml, sizes: [any], theme: dark }\n"
    )
    # Output schemas in the Responses array cost tokens; the budgets are the standard
    # surface's, so lift them for this copy.
    roles = root / "roles.yaml"
    roles.write_text(re.sub(r"token_budget: \d+", "token_budget: 20000", roles.read_text()))
    (root / "surface.lock").unlink()
    check = subprocess.run([str(BIN), "check", str(root)], capture_output=True, text=True)
    # Exit 3 ("not locked", compatible drift) and nothing else: every example is still
    # accepted and no budget is exceeded.
    assert check.returncode == 3, check.stderr
    assert "error" not in check.stderr, check.stderr
    return root


def _emit(root: Path, role: str, family: str, dialect: str | None = None) -> list[dict]:
    args = ["emit", "--role", role, "--family", family]
    if dialect:
        args += ["--dialect", dialect]
    return json.loads(run_toolsurface(*args, str(root)))


def test_every_switch_on_is_accepted_by_the_sdks(everything_on: Path):
    function = TypeAdapter(FunctionToolParam)
    seen = {"output_schema": 0, "responseJsonSchema": 0, "icons": 0, "Examples:": 0}
    for role, family in SURFACES:
        for tool in _emit(everything_on, role, family):
            where = f"{role} × {family} {tool.get('name')}"
            if "output_schema" in tool:
                assert function.validate_python(tool) == tool, where
                Draft202012Validator.check_schema(tool["output_schema"])
                seen["output_schema"] += 1
            if "responseJsonSchema" in tool:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    decl = gtypes.FunctionDeclaration.model_validate(tool)
                dumped = decl.model_dump(mode="json", by_alias=True, exclude_none=True)
                assert dumped == tool, where
                seen["responseJsonSchema"] += 1
            if "Examples:\n{" in tool.get("description", "") or "Examples:\n{" in tool.get(
                "function", {}
            ).get("description", ""):
                seen["Examples:"] += 1
        for tool in _emit(everything_on, role, family, "mcp"):
            parsed = McpTool.model_validate(tool)
            assert parsed.model_dump(mode="json", by_alias=True, exclude_none=True) == tool
            if tool.get("icons"):
                assert parsed.icons[0].theme == "dark"
                seen["icons"] += 1
    assert all(n > 0 for n in seen.values()), seen
