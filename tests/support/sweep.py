"""One real sweep of a test's own plan: `doit -f dodo.py` with TCAB_PLAN at
``tmp/plan.yaml`` and the build, results and tmp folders under ``tmp``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO


def sweep_env(tmp: Path) -> dict[str, str]:
    """The environment of a sweep (and of `tcab` commands on its results) under ``tmp``."""
    return {**os.environ, "TCAB_BUILD": str(tmp / "build"), "TCAB_RESULTS": str(tmp / "results"),
            "TCAB_TMP": str(tmp / "tmp"), "TCAB_HARNESSES": str(REPO / "harnesses"),
            "TCAB_PLAN": str(tmp / "plan.yaml")}


def plan_sweep(tmp: Path) -> subprocess.CompletedProcess:
    """Run the sweep of ``tmp/plan.yaml`` with the shipped harnesses (output captured)."""
    return subprocess.run([sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py")], cwd=REPO,
                          env=sweep_env(tmp), capture_output=True, text=True, timeout=900)
