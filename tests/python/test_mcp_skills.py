"""Skills over MCP, driven by the official Python MCP client (pinned in
scripts/requirements.txt), over stdio and streamable HTTP.

The decision this pins (README "Use it from an MCP client", MCP 2026-07-28: `tools/list`
must not change as a side effect of other requests): every skill tool the role offers is
listed from the first `tools/list`, marked `_meta["io.toolsurface/skill"]` with its skill;
a call to it before `activate_skill` is refused (`isError`) with a message naming
`activate_skill` and the skill; after activation it runs; the list is the same before and
after, and no `notifications/tools/list_changed` is sent. A client that lists once and
never again (Codex #33266) reaches the activated tools.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from mcp.types import Tool as McpTool
from pydantic import TypeAdapter

from conftest import SKILL_META, mcp_listing, offered_skills, skill_tool_names, surfaces
from test_mcp import TRANSPORTS, assert_same_tools, connect, dump, run, text


def make_db(workdir: Path) -> None:
    with sqlite3.connect(workdir / "people.db") as db:
        db.execute("create table people(name text)")
        db.executemany("insert into people values (?)", [("ada",), ("grace",)])


QUERY = {"database": "people.db", "sql": "select name from people order by name"}


def test_the_listing_validates_as_mcp_tools_with_skill_marks() -> None:
    """Every role × family's listing (as the server must answer it) is accepted by the MCP
    SDK's `Tool`, unchanged, and every offered skill tool carries its skill's mark while no
    resident tool does."""
    adapter = TypeAdapter(McpTool)
    marked_somewhere = 0
    for role, family in surfaces():
        listing = mcp_listing(role, family)
        skill_tools = {
            name: skill for skill in offered_skills(role, family)
            for name in skill_tool_names(skill)
        }
        for tool in listing:
            validated = adapter.validate_python(tool)
            assert validated.model_dump(by_alias=True, exclude_none=True, mode="json") == tool, (
                role, family, tool["name"])
            mark = (tool.get("_meta") or {}).get(SKILL_META)
            assert mark == skill_tools.get(tool["name"]), (role, family, tool["name"], mark)
            marked_somewhere += mark is not None
    assert marked_somewhere > 0, "no surface offers a skill tool"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_skill_tools_are_listed_gated_then_callable_and_the_list_never_changes(
    transport: str, tmp_path: Path
) -> None:
    make_db(tmp_path)

    async def scenario() -> None:
        async with connect(transport, tmp_path, "main", "chat") as (client, events):
            before = (await client.list_tools()).tools
            assert_same_tools(before, mcp_listing("main", "chat"))
            sql = next(t for t in before if t.name == "sql_query")
            assert (sql.meta or {}).get(SKILL_META) == "sqlite", dump(sql)
            # Other `_meta` keys of the emitter stay beside the mark.
            assert "io.toolsurface/sha256" in (sql.meta or {}), dump(sql)

            refused = await client.call_tool("sql_query", QUERY)
            assert refused.is_error is True, text(refused)
            assert text(refused).startswith(
                "sql_query belongs to skill sqlite, which is not active in this conversation; "
                "call activate_skill with name sqlite first"
            ), text(refused)

            activated = await client.call_tool("activate_skill", {"name": "sqlite"})
            assert activated.is_error is False, text(activated)
            assert "sql_query" in text(activated), text(activated)

            rows = await client.call_tool("sql_query", QUERY)
            assert rows.is_error is False, text(rows)
            assert (rows.structured_content or {}).get("rows") == [["ada"], ["grace"]], text(rows)

            after = (await client.list_tools(cache_mode="refresh")).tools
            assert [dump(t) for t in after] == [dump(t) for t in before]
            assert events.list_changed == 0

    run(scenario())


def test_a_client_that_never_relists_reaches_the_activated_tools(tmp_path: Path) -> None:
    """Codex #33266: a client lists once, then only calls. Everything it needs was in that
    one list."""
    make_db(tmp_path)

    async def scenario() -> None:
        async with connect("stdio", tmp_path, "main", "chat") as (client, events):
            listed = {t.name for t in (await client.list_tools()).tools}
            assert "sql_query" in listed
            activated = await client.call_tool("activate_skill", {"name": "sqlite"})
            assert activated.is_error is False, text(activated)
            rows = await client.call_tool("sql_query", QUERY)
            assert rows.is_error is False, text(rows)
            assert events.list_changed == 0

    run(scenario())


def test_a_role_without_the_skill_neither_lists_nor_runs_it(tmp_path: Path) -> None:
    make_db(tmp_path)

    async def scenario() -> None:
        async with connect("stdio", tmp_path, "side_chat", "chat") as (client, _):
            names = [t.name for t in (await client.list_tools()).tools]
            assert "sql_query" not in names
            assert all(SKILL_META not in (t.meta or {}) for t in (await client.list_tools()).tools)
            refused = await client.call_tool("sql_query", QUERY)
            assert refused.is_error is True
            assert text(refused).startswith(
                "tool sql_query is not offered to role side_chat on family chat"
            ), text(refused)

    run(scenario())
