"""Run ``tcab`` in a fresh interpreter and report its exit code and every module it imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, os, sys
sys.argv = ["tcab", *sys.argv[1:]]
try:
    from tcab.cli import main
    main()
except SystemExit as exc:
    code = exc.code
with open(os.environ["PROBE_OUT"], "w") as f:
    json.dump({"code": code, "modules": sorted(sys.modules)}, f)
"""


def probe(args: tuple[str, ...] | list[str], env: dict[str, str], out: Path,
          cwd: Path) -> tuple[int, set[str], subprocess.CompletedProcess[str]]:
    """(exit code, imported module names, the process) of ``tcab *args``;
    ``out`` is a scratch file for the report."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=cwd,
                          env={**env, "PROBE_OUT": str(out)}, capture_output=True, text=True, timeout=120)
    report = json.loads(out.read_text())
    return report["code"], set(report["modules"]), done
