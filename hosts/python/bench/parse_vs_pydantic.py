"""`py_parse_vs_pydantic` (scripts/bench): the time of `parse_call` over a fixed mix of
accepted and refused calls, against pydantic's `TypeAdapter(...).validate_json` of the same
tools' strict discriminated unions (`pydantic_models.ADAPTERS`) on the same texts. Prints
the ratio of medians over interleaved rounds and writes the bench row.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import toolsurface_standard as ts  # noqa: E402
from pydantic import ValidationError  # noqa: E402
from toolsurface_standard import pydantic_models as pm  # noqa: E402

ROLE, FAMILY = "main", "chat"
# exec_command is offered on the responses family only: parsed there, it is walked as
# pydantic validates it (on chat it would be refused at once, as not offered).
FAMILY_OF = {"exec_command": "responses"}
MIX = [
    ("shell_session", '{"action":"kill","session_id":4242}'),
    ("shell_session", '{"action":"wait","session_id":7,"timeout_s":30}'),
    ("shell_session", '{"action":"poll","session_id":3,"keys":["C-c","Enter"]}'),
    ("read_file", '{"path":"src/main.rs","offset":10,"limit":200}'),
    ("exec_command", '{"cmd":"cargo test -j2","workdir":"/work","yield_time_ms":1000}'),
    ("file_edit", '{"path":"a.py","old_text":"x = 1","new_text":"x = 2"}'),
    ("grep_files", '{"pattern":"fn main","path":"src","max_results":50}'),
    ("message_read", '{"mode":"payload","message_id":"m-1042","field":"tool_result"}'),
    # refused
    ("shell_session", '{"action":"kill","session_id":4242,"timeout_s":3}'),
    ("shell_session", '{"action":"wait","session_id":"5"}'),
    ("read_file", '{"path":"","limit":0}'),
    ("exec_command", '{"cmd":"ls","yield_time_ms":-1}'),
    ("grep_files", '{"patern":"x"}'),
    ("message_read", '{"mode":"bogus"}'),
]
ROUNDS = int(os.environ.get("PY_BENCH_ROUNDS", "7"))
LOOPS = int(os.environ.get("PY_BENCH_LOOPS", "300"))


def ours() -> int:
    """One pass over the mix with parse_call; the number it accepts."""
    accepted = 0
    for name, raw in MIX:
        try:
            ts.parse_call(ROLE, FAMILY_OF.get(name, FAMILY), name, raw)
            accepted += 1
        except ts.CallError:
            pass
    return accepted


def theirs() -> int:
    """One pass over the mix with pydantic; the number it accepts."""
    accepted = 0
    for name, raw in MIX:
        try:
            pm.ADAPTERS[name].validate_json(raw)
            accepted += 1
        except ValidationError:
            pass
    return accepted


def timed(f: object) -> float:
    assert callable(f)
    t = time.process_time()
    for _ in range(LOOPS):
        f()
    return (time.process_time() - t) / (LOOPS * len(MIX))


def main() -> None:
    accepted = (ours(), theirs())
    if accepted != (8, 8):
        sys.exit(f"the mix is not 8 accepted and 6 refused on both sides: {accepted}")
    ratios: list[float] = []
    per_call: list[tuple[float, float]] = []
    for _ in range(ROUNDS):
        a, b = timed(ours), timed(theirs)
        ratios.append(a / b)
        per_call.append((a, b))
    value = statistics.median(ratios)
    spread = (max(ratios) - min(ratios)) / 2
    a = statistics.median(x for x, _ in per_call) * 1e6
    b = statistics.median(y for _, y in per_call) * 1e6
    print(
        f"parse_call {a:.2f} µs/call, pydantic validate_json {b:.2f} µs/call",
        file=sys.stderr,
    )
    row = {
        "py_parse_vs_pydantic": {
            "value": round(value, 2),
            "spread": round(spread, 2),
            "target": "<= 3",
        }
    }
    out = os.environ.get("ROWS_DIR")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        Path(out, "py_parse_vs_pydantic.json").write_text(json.dumps(row))
    print(json.dumps(row))


if __name__ == "__main__":
    main()
