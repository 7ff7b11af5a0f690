"""The Python host on the field kinds whose typed value is JSON (any, null, const, unions,
open objects and maps, a tool's other keys): the package `toolsurface gen python` writes for
tests/data/kinds must answer every case of that folder's conformance corpus (`toolsurface
conformance`, the plan interpreter's verdicts) with the same verdict, kind, message bytes
and call bytes (`5.0` stays `5.0` inside `any`, a const is its declared value, other keys
follow the fields in input order).
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from conftest import BIN, ROOT

KINDS = ROOT / "tests" / "data" / "kinds"


def _generate(tmp: Path) -> tuple[ModuleType, list[dict[str, Any]]]:
    pkg = tmp / "toolsurface_kinds"
    subprocess.run(
        [str(BIN), "gen", "python", str(KINDS), "--out", str(pkg)],
        check=True,
        capture_output=True,
    )
    corpus = tmp / "corpus"
    subprocess.run(
        [str(BIN), "conformance", str(KINDS), "--out", str(corpus)],
        check=True,
        capture_output=True,
    )
    sys.path.insert(0, str(tmp))
    try:
        module = importlib.import_module("toolsurface_kinds")
    finally:
        sys.path.remove(str(tmp))
    cases: list[dict[str, Any]] = []
    for path in sorted(corpus.glob("*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                cases.append(json.loads(line))
    return module, cases


def test_kinds_corpus_byte_for_byte() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ts, cases = _generate(Path(tmp))
        kernel = ts._kernel
        bad: list[str] = []
        accepted = 0
        for case in cases:
            try:
                call = ts.parse_call(
                    case["role"], case["family"], case["name"], case["raw"], case["skills"]
                )
                got = {"ok": True, "call": ts.call_json(call)}
            except ts.CallError as e:
                got = {"ok": False, "kind": e.kind, "message": str(e)}
            except ts.ScopeError as e:
                got = {"ok": False, "kind": "Scope", "message": str(e)}
            if case["verdict"] == "accept":
                accepted += 1
                want = {"ok": True, "call": kernel.to_json(case["call"])}
            else:
                want = {"ok": False, "kind": case["kind"], "message": case["message"]}
            if got != want:
                bad.append(f"{json.dumps(case)}\n  got  {got}\n  want {want}")
        assert len(cases) > 300 and accepted > 80, (len(cases), accepted)
        assert not bad, f"{len(bad)} of {len(cases)} cases differ:\n" + "\n".join(bad[:20])
