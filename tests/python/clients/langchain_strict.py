"""langchain-mcp-adapters (pinned in requirements-langchain.txt, its own venv) against
`toolsurface serve`, as a LangChain agent uses it: the MCP tools loaded as LangChain tools in
the session-holding form (`async with client.session(name)` + `load_mcp_tools(session)`, one
MCP session for the whole run), each converted with `convert_to_openai_tool(strict=True)` for
a strict model, then a scripted strict model's calls (strict_model.CALLS, every key sent)
invoked as LangChain's ToolNode does (`tool.ainvoke(tool_call)`). Then read-then-write in the
held session (one conversation: the write sees the read) and, as the control, through the
quick-start `client.get_tools()` tools (a new MCP session per call: the write never saw the
read, and a command left running is told it dies with the session instead of being promised
a wake-up). Prints one JSON object for tests/python/test_clients_strict.py.

    python langchain_strict.py stdio BIN ROLE FAMILY WORKDIR
    python langchain_strict.py http URL ROLE FAMILY WORKDIR
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from langchain_mcp_adapters.client import MultiServerMCPClient  # noqa: E402
from langchain_mcp_adapters.tools import load_mcp_tools  # noqa: E402

from strict_model import CALLS, strict_arguments  # noqa: E402


# A command that outlives its call: shell hands back a session id after 250 ms.
BACKGROUND = {"command": "sleep 30", "yield_ms": 250}


def connection(kind: str, target: str, role: str, family: str, workdir: str) -> dict[str, Any]:
    if kind == "stdio":
        return {"transport": "stdio", "command": target, "cwd": workdir,
                "args": ["serve", "--role", role, "--family", family, "--workdir", workdir]}
    return {"transport": "streamable_http", "url": target}


async def invoke(tool: Any, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    message = await tool.ainvoke({"type": "tool_call", "id": call_id, "name": tool.name,
                                  "args": args})
    content = message.content
    text = content if isinstance(content, str) else "".join(
        block.get("text", "") if isinstance(block, dict) else str(block) for block in content
    )
    return {"is_error": message.status == "error", "text": text}


async def read_then_write(tools: dict[str, Any], path: str) -> dict[str, Any]:
    read = await invoke(tools["read_file"], {"path": path}, "r")
    write = await invoke(tools["write_file"], {"path": path, "content": "rewritten\n"}, "w")
    return {"read": read, "write": write}


async def main() -> None:
    kind, target, role, family, workdir = sys.argv[1:6]
    client = MultiServerMCPClient({"toolsurface": connection(kind, target, role, family, workdir)})
    out: dict[str, Any] = {"converted": {}, "sent": [], "outputs": []}
    async with client.session("toolsurface") as session:
        tools = {t.name: t for t in await load_mcp_tools(session)}
        for name, tool in tools.items():
            out["converted"][name] = convert_to_openai_tool(tool, strict=True)["function"][
                "parameters"
            ]
        for i, (name, intended) in enumerate(CALLS):
            args = strict_arguments(out["converted"][name], intended)
            out["sent"].append(args)
            out["outputs"].append(await invoke(tools[name], args, f"call_{i}"))
        held = await read_then_write(tools, "note.txt")
        out["held_background"] = await invoke(tools["shell"], BACKGROUND, "bg")
    out["held"] = held
    out["same_session_read"] = not held["read"]["is_error"] and not held["write"]["is_error"]
    per_call = {t.name: t for t in await client.get_tools()}
    (Path(workdir) / "other.txt").write_text("other\n")
    out["per_call"] = await read_then_write(per_call, "other.txt")
    out["per_call_background"] = await invoke(per_call["shell"], BACKGROUND, "bg")
    print(json.dumps(out))


asyncio.run(main())
