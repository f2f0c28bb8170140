"""The capture sample case (test-cases/adversarial/hard/capture): its rules
module loaded once, hand-built states, and builds of its controllers the
way a submission is built."""

from __future__ import annotations

import importlib.util
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

from tests.support.paths import CAPTURE as CASE

MANIFEST = tomllib.loads((CASE / "test-case.toml").read_text())
CONTROLLERS = ("random", "rush", "guard")


def load_rules():
    spec = importlib.util.spec_from_file_location("capture_rules_under_test", CASE / "game/rules.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # dataclasses look the module up while it executes
    spec.loader.exec_module(module)
    return module


R = load_rules()


def open_state(agents, flags=None, **params):
    """A 14x9 arena with no inner walls, bases (1,4)/(12,4), spawns (3,4)/(10,4).

    ``agents``: tuples (id, team, x, y[, carrying[, respawn]]), ids 0..2n-1 in order.
    """
    n = len(agents) // 2
    p = {"width": 14, "height": 9, "agents": n, **params}
    state = R.init(p, 1, 2)
    grid = tuple("#" * 14 if y in (0, 8) else "#" + "." * 12 + "#" for y in range(9))
    built = tuple(R.Agent(a[0], a[1], a[2], a[3], bool(a[4]) if len(a) > 4 else False,
                          a[5] if len(a) > 5 else 0) for a in agents)
    flags = flags or (R.Flag(0, 1, 4, -1, 0), R.Flag(1, 12, 4, -1, 0))
    return replace(state, grid=grid, bases=((1, 4), (12, 4)), spawns=((3, 4), (10, 4)),
                   agents=built, flags=tuple(flags))


def orders(*pairs):
    return {"orders": [{"agent": a, "move": m} for a, m in pairs]}


def over_workspace(tree: Path, dest: Path) -> Path:
    """``tree`` laid over the starter workspace, as a submission's tree would be."""
    shutil.copytree(CASE / MANIFEST["workspace"], dest)
    shutil.copytree(tree, dest, dirs_exist_ok=True)
    return dest


def build_tree(tree: Path, out: Path) -> Path:
    """Run the manifest's [build] install and build in a copy of ``tree``; return the module."""
    work = out / tree.name
    shutil.copytree(tree, work)
    for key in ("install", "build"):
        subprocess.run(shlex.split(MANIFEST["build"][key]), cwd=work, check=True,
                       capture_output=True, timeout=300)
    return work / MANIFEST["build"]["module"]


