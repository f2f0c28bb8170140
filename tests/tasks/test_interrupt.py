"""Ctrl-C in the middle of a real sweep (Podman, the reference harness): the
container goes away, no record is written, and the next sweep does the run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PLAN = """\
name: interrupt
runs:
  - cases:
      - lights-out
    harnesses:
      - reference
report: no
"""


def _doit(tmp: Path):
    env = {**os.environ, "TCAB_CATALOG": str(ROOT / "test-cases"), "TCAB_HARNESSES": str(ROOT / "harnesses")}
    return subprocess.Popen(
        [sys.executable, "-m", "doit", "-f", str(ROOT / "dodo.py"), "-d", str(tmp), f"plan={tmp / 'plan.yaml'}"],
        cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        # A background process would otherwise start with SIGINT ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


@pytest.mark.podman
def test_ctrl_c_removes_the_container_and_the_next_sweep_does_the_run(podman_runtime, tmp_path):
    (tmp_path / "plan.yaml").write_text(PLAN)
    proc = _doit(tmp_path)
    runs = tmp_path / "results" / "runs"
    # Our run's id is its folder's name; other tests may run containers too.
    deadline, ours = time.monotonic() + 120, []
    while time.monotonic() < deadline and not ours:
        assert proc.poll() is None, proc.communicate()[0]
        ids = [p.name for p in runs.iterdir()] if runs.is_dir() else []
        ours = [c for i in ids for c in podman_runtime.list_run_containers(i)]
        time.sleep(0.05)
    assert ours, "no run container appeared"
    (run_id,) = [p.name for p in runs.iterdir()]
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode != 0
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and podman_runtime.list_run_containers(run_id):
        time.sleep(0.2)
    assert not podman_runtime.list_run_containers(run_id), "Ctrl-C left the run's container"
    record = tmp_path / "results/sweep/runs/lights-out/v1.0.0/classic/reference/1.json"
    assert not record.exists()

    again = _doit(tmp_path)
    out, _ = again.communicate(timeout=300)
    assert again.returncode == 0, out
    assert json.loads(record.read_text())["status"] == "completed"
