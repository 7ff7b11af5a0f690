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


# ---- every declared output, validated by the official MCP client --------------------------

GUARD_S = 60  # deadlock guard for one scenario, never a measured bound
SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / "sample.jsonl"


def _declared_outputs(tools: list) -> set[str]:
    """Every tool action whose tool publishes an `outputSchema` ("tool action", or the tool
    name for a plain tool), from the listed tools' `_meta` traits."""
    declared = set()
    for tool in tools:
        if tool.output_schema is None:
            continue
        traits = (tool.meta or {})[META + "traits"]
        if all(isinstance(v, dict) for v in traits.values()):
            declared |= {f"{tool.name} {action}" for action in traits}
        else:
            declared.add(tool.name)
    return declared


async def _serve(tmp_path: Path, family: str, calls, config: Path | None = None) -> tuple[set, set]:
    """Serve role main × `family` over stdio and run `calls(call)`; `call(name, args, action)`
    goes through the client's `call_tool`, which validates structuredContent against the
    listed outputSchema itself and raises on a non-conforming result. Returns the declared and
    the covered tool actions."""
    from mcp import Client, StdioServerParameters

    args = ["serve", "--role", "main", "--family", family, "--workdir", str(tmp_path)]
    if config is not None:
        args += ["--config", str(config)]
    params = StdioServerParameters(command=str(BIN), args=args, cwd=str(tmp_path))
    covered: set[str] = set()
    async with Client(params, read_timeout_seconds=GUARD_S) as client:

        async def call(name: str, arguments: dict, action: str | None = None,
                       is_error: bool = False):
            result = await client.call_tool(name, arguments)
            assert result.is_error is is_error, (name, arguments, result.content)
            assert result.structured_content is not None, (name, arguments)
            covered.add(f"{name} {action}" if action else name)
            return result

        await calls(call)
        declared = _declared_outputs((await client.list_tools()).tools)
    return declared, covered


def _files_and_framework_calls(tmp_path: Path):
    async def calls(call) -> None:
        (tmp_path / "a.txt").write_text("one\ntwo\n")
        (tmp_path / "blob.bin").write_bytes(b"\x00\x01")
        await call("read_file", {"path": "a.txt"})
        await call("read_file", {"path": "blob.bin"})
        await call("write_file", {"path": "new.txt", "content": "x\n"})
        (tmp_path / "unread.txt").write_text("mine\n")
        # Nothing written: an isError result that still carries its declared (staged) shape.
        staged = await call("write_file", {"path": "unread.txt", "content": "y\n"},
                            is_error=True)
        assert staged.structured_content["status"] == "staged"
        await call("file_edit", {"path": "new.txt", "old_text": "x", "new_text": "z"})
        await call(
            "apply_patch",
            {"patch": "*** Begin Patch\n*** Add File: p.txt\n+p\n*** End Patch"},
        )
        await call("grep_files", {"pattern": "one"})
        for view in ("transcript", "audit"):
            await call(
                "message_read",
                {"mode": "history", "session_id": "sess-review", "view": view},
                "history",
            )
        await call("message_read", {"mode": "turns", "session_id": "sess-review"}, "turns")
        await call("message_read", {"mode": "context", "message_id": "m-0008"}, "context")
        await call(
            "message_read",
            {"mode": "payload", "message_id": "m-0007", "field": "tool_result"},
            "payload",
        )
        await call("search_memory", {"query": "cores"})
        for target in ("tools", "skills", "hosts", "workdirs", "llm", "llm:openai", "models"):
            await call("introspect", {"target": target})
        (tmp_path / "proj").mkdir()
        await call("set_workdirs", {"dirs": ["proj"]})
        await call("set_workdirs", {"dirs": ["proj"], "mode": "remove"})
        started = await call("shell", {"command": "echo a; sleep 30", "yield_ms": 250})
        sid = started.structured_content["session_id"]
        for action, extra in (
            ("poll", {}),
            ("wait", {"timeout_s": 0.2}),
            ("list", None),
            ("unwatch", {}),
            ("kill", {}),
        ):
            arguments = {"action": action} if extra is None else {"action": action, "session_id": sid, **extra}
            await call("shell_session", arguments, action)
        tty = await call("shell", {"command": "sleep 30", "tty": True, "yield_ms": 250})
        tid = tty.structured_content["session_id"]
        await call("shell_session", {"action": "resize", "session_id": tid, "cols": 90, "rows": 20}, "resize")
        await call("shell_session", {"action": "kill", "session_id": tid}, "kill")
        await call("monitor_start", {"command": "sleep 30", "until_output": "x"})
        await call("activate_skill", {"name": "sqlite"})
        await call("shell", {"command": "python3 -c \"import sqlite3; c = sqlite3.connect('t.db'); c.execute('CREATE TABLE t(a)'); c.commit()\""})
        await call("sql_query", {"database": "t.db", "sql": "SELECT a FROM t"})

    return calls


def test_every_declared_output_is_validated_by_the_mcp_client(tmp_path: Path) -> None:
    """Every tool action of role main (chat, then responses for its own shell tools) with a
    published outputSchema is called once or more over MCP; the official client validates each
    structuredContent against the listed schema on its own (`call_tool` raises otherwise)."""
    import asyncio

    run_toolsurface("messages", "import", "--db", str(tmp_path / ".toolsurface" / "messages.sqlite3"), str(SAMPLE))
    run_toolsurface(
        "facts", "add", "--db", str(tmp_path / ".toolsurface" / "facts.sqlite3"),
        "--source", "sess-build/m-0018", "Build with -j2: the machine has 2 cores",
    )
    config = tmp_path / "serve.yaml"
    config.write_text(
        "llm:\n  - name: openai\n    base_url: https://api.example.invalid/v1\n"
        "    models: [gpt-5]\n    default_model: gpt-5\n    api_key: sk-never-shown\n"
    )
    declared, covered = asyncio.run(
        asyncio.wait_for(_serve(tmp_path, "chat", _files_and_framework_calls(tmp_path), config), GUARD_S * 2)
    )
    assert covered == declared, (sorted(declared - covered), sorted(covered - declared))

    async def responses(call) -> None:
        started = await call("exec_command", {"cmd": "read line; echo got-$line", "yield_time_ms": 250})
        sid = started.structured_content["session_id"]
        await call("write_stdin", {"session_id": sid, "chars": "x\n", "yield_time_ms": 2000})

    declared, covered = asyncio.run(
        asyncio.wait_for(_serve(tmp_path / "proj", "responses", responses), GUARD_S * 2)
    )
    assert {"exec_command", "write_stdin"} <= covered <= declared


def test_the_mcp_client_refuses_a_result_its_schema_does_not_allow(tmp_path: Path) -> None:
    """The check above is real: the same client's validation refuses a tampered result (a
    missing required field, a wrong type, an undeclared key, no structured content)."""
    import asyncio

    import mcp_types as types
    from mcp import Client, StdioServerParameters

    async def scenario() -> None:
        (tmp_path / "a.txt").write_text("x\n")
        params = StdioServerParameters(
            command=str(BIN), args=["serve", "--role", "side_chat", "--workdir", str(tmp_path)],
            cwd=str(tmp_path),
        )
        async with Client(params, read_timeout_seconds=GUARD_S) as client:
            real = await client.call_tool("read_file", {"path": "a.txt"})
            await client.session.validate_tool_result("read_file", real)
            good = dict(real.structured_content)
            no_content = {k: v for k, v in good.items() if k != "content"}
            for bad in (no_content, {**good, "bytes": "two"}, {**good, "undeclared": 1}):
                tampered = types.CallToolResult(content=real.content, structured_content=bad)
                with pytest.raises(RuntimeError, match="Invalid structured content"):
                    await client.session.validate_tool_result("read_file", tampered)
            with pytest.raises(RuntimeError, match="did not return structured content"):
                await client.session.validate_tool_result(
                    "read_file", types.CallToolResult(content=real.content)
                )

    asyncio.run(asyncio.wait_for(scenario(), GUARD_S * 2))
