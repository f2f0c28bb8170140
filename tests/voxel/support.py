"""Running the voxel tools as a harness would: a fresh process in the workspace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def make_workspace(root: Path, kind: str = "voxel-model", size=(16, 16, 16), **extra) -> Path:
    (root / ".tcab").mkdir(parents=True, exist_ok=True)
    config = {"kind": kind, "width": size[0], "height": size[1], "depth": size[2],
              "background": "#202020", **extra}
    (root / ".tcab" / "voxel.json").write_text(json.dumps(config))
    return root


def tool(root: Path, name: str, *args: str, timeout: int = 60) -> subprocess.CompletedProcess:
    """``voxel`` or ``voxel-anim`` with ``args``, run in ``root`` (the repository's tcab)."""
    code = f"import sys; from tcab.voxel.cli import main; sys.exit(main({name!r}, sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=root, capture_output=True, text=True,
                          timeout=timeout, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=False)


def ok(root: Path, name: str, *args: str) -> str:
    done = tool(root, name, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout
