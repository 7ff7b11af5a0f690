"""What a strict-mode model sends for a JSON Schema it was given: every property present (strict
mode requires every key), the intended arguments as meant, every other property `null` when the
schema allows it, else the first value of its type the schema admits (a strict model must invent
one). Shared by the strict-converter suites (openai-agents in .venv, langchain in its own venv),
so both script the same model. Plain Python, no dependencies.
"""

from __future__ import annotations

from typing import Any


def allows_null(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(allows_null(s) for s in schema.get("anyOf", []))


def filler(schema: dict[str, Any]) -> Any:
    """A value of the schema's (first non-null) type that a strict model could send."""
    if "enum" in schema:
        return next(v for v in schema["enum"] if v is not None)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if kind is None and schema.get("anyOf"):
        return filler(schema["anyOf"][0])
    return {
        "string": "x",
        "integer": max(1, schema.get("minimum", 1)),
        "number": max(1, schema.get("minimum", 1)),
        "boolean": False,
        "array": [],
        "object": {},
    }[kind]


def strict_arguments(schema: dict[str, Any], intended: dict[str, Any]) -> dict[str, Any]:
    """The arguments a strict model sends for `intended` under `schema` (every key of
    `schema.properties`, in its order)."""
    out: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        if name in intended:
            out[name] = intended[name]
        elif allows_null(prop):
            out[name] = None
        else:
            out[name] = filler(prop)
    return out


# The calls every client suite makes: (tool, intended arguments).
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("shell", {"command": "printf 'strict\\n' > note.txt && cat note.txt"}),
    ("read_file", {"path": "note.txt"}),
    ("shell_session", {"action": "list"}),
    ("shell_session", {"action": "kill", "session_id": 1, "timeout_s": 5}),
]
WRONG_CALL_TEXT = "action=kill: unexpected field timeout_s (it belongs to wait)"
