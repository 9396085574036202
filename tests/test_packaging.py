"""The wheel carries hardware/, models/ and validation/; an installed llmcost works from any directory."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_ships_catalogs_and_runs_elsewhere(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(dist),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next(dist.glob("llmcost-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "llmcost/_data/hardware/h100-sxm.yaml" in names
    assert any(n.startswith("llmcost/_data/models/") for n in names)
    assert any(n.startswith("llmcost/_data/validation/") for n in names)

    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    env = dict(os.environ, PYTHONPATH=str(site))
    env.pop("LLMCOST_CATALOG", None)
    code = (
        "import llmcost, sys; from llmcost.cli import main; print(llmcost.__file__, file=sys.stderr); main()"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, "hw", "list", "--format", "json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert str(site) in p.stderr  # the installed copy ran, not the checkout
    assert '"h100-sxm"' in p.stdout
