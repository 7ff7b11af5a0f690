"""The `mcp` low-level server on the generated host: `tools/list` answers with the tools of
our published MCP array exactly as frozen (the same objects `toolsurface serve` lists),
`tools/call` decides each call with `parse_call` and answers a refusal as an `isError`
result carrying Rust's refusal text.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

import toolsurface_standard as ts


def server(role: str, family: str) -> Server[Any]:
    listed = [
        types.Tool.model_validate(t)
        for t in json.loads(ts.published(role, family, "mcp"))
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            call = ts.parse_call(role, family, params.name, params.arguments or {})
        except ts.CallError as refused:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(refused))],
                isError=True,
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=repr(call))]
        )

    return Server(
        f"toolsurface-{role}-{family}", on_list_tools=list_tools, on_call_tool=call_tool
    )
