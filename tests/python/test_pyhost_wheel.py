"""The CLI as a wheel (pyproject.toml, maturin `bindings = "bin"`): built for this platform
from the suite's own dev build (same target dir and environment, so cargo reuses the binary
instead of compiling a second one), installed into a fresh venv, and run from there:
`toolsurface check` on the standard surface and `gen python` matching the checked-in package.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import venv
from pathlib import Path

from conftest import BIN, ROOT, TOOL_DEFS

VENV_BIN = Path(sys.executable).parent


def test_wheel_installs_and_runs(tmp_path: Path) -> None:
    env = dict(os.environ)
    # BIN is <target>/debug/toolsurface: build into that target dir, dev profile.
    env["CARGO_TARGET_DIR"] = str(BIN.parent.parent)
    started = time.monotonic()
    subprocess.run(
        [
            str(VENV_BIN / "maturin"),
            "build",
            "--profile",
            "dev",
            "--out",
            str(tmp_path / "dist"),
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    built = time.monotonic() - started
    wheels = list((tmp_path / "dist").glob("toolsurface-*.whl"))
    assert len(wheels) == 1, wheels
    fresh = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(fresh)
    subprocess.run(
        [
            str(fresh / "bin" / "pip"),
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            str(wheels[0]),
        ],
        check=True,
        capture_output=True,
    )
    cli = fresh / "bin" / "toolsurface"
    assert cli.is_file()
    check = subprocess.run(
        [str(cli), "check", str(TOOL_DEFS)], cwd=ROOT, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    out = tmp_path / "pkg"
    subprocess.run(
        [str(cli), "gen", "python", str(TOOL_DEFS), "--out", str(out)],
        check=True,
        capture_output=True,
    )
    package = ROOT / "hosts" / "python" / "toolsurface_standard"
    for f in sorted(out.iterdir()):
        assert (package / f.name).read_bytes() == f.read_bytes(), f.name
    print(f"wheel built in {built:.1f} s ({wheels[0].stat().st_size // 1_000_000} MB)")
