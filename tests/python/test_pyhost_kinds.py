"""The Python host on the field kinds whose typed value is JSON (any, null, const, unions,
open objects and maps, a tool's other keys): the package `toolsurface gen python` writes for
tests/data/kinds must answer every case of that folder's conformance corpus (`toolsurface
conformance`, the plan interpreter's verdicts) with the same verdict, kind, message bytes
and call bytes (`5.0` stays `5.0` inside `any`, a const is its declared value, other keys
follow the fields in input order). Its pydantic façade takes every example of the folder
(other keys included) and refuses what no union branch takes.
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
from pydantic import ValidationError

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
    # A fresh import of this run's package (and its façade, while its folder is on the path).
    for name in [m for m in sys.modules if m.split(".")[0] == "toolsurface_kinds"]:
        del sys.modules[name]
    sys.path.insert(0, str(tmp))
    try:
        module = importlib.import_module("toolsurface_kinds")
        importlib.import_module("toolsurface_kinds.pydantic_models")
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
                    case["role"],
                    case["family"],
                    case["name"],
                    case["raw"],
                    case["skills"],
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
        assert not bad, f"{len(bad)} of {len(cases)} cases differ:\n" + "\n".join(
            bad[:20]
        )


def test_kinds_pydantic_facade_takes_the_examples() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ts, _ = _generate(Path(tmp))
        pm = ts.pydantic_models
        plan = json.loads(
            (Path(tmp) / "toolsurface_kinds" / "_plan.json").read_text("utf-8")
        )
        examples = [
            (t["name"], e)
            for t in plan["tools"]
            for a in t["actions"]
            for e in a["examples"]
        ]
        assert len(examples) == 6
        for tool, example in examples:
            text = json.dumps(example)
            ts.parse_call("worker", "chat", tool, text)
            pm.ADAPTERS[tool].validate_json(text)
        note = pm.ADAPTERS["open_note"].validate_json('{"text":"a","tag":[1]}')
        assert note.model_extra == {"tag": [1]}
        for bad in (
            '{"choice":3,"flag":"yes"}',
            '{"choice":3,"label":"other"}',
            '{"choice":3,"zzz":1}',
        ):
            try:
                pm.ADAPTERS["shape"].validate_json(bad)
            except ValidationError:
                continue
            raise AssertionError(f"the façade took {bad}")
