"""Ctrl-C in the middle of a real sweep (Podman): the run's container goes away,
no record is written, and the next sweep does the run.

The harness sleeps through its session (an agent's session lasts minutes), so
the interrupt lands where it does in practice: while the harness works.
"""

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
      - sleeper
report: no
"""

SLEEPER = """\
slug = "sleeper"
name = "Sleeper"
binary = "sh"
version_args = ["-c", "echo sleeper 1"]
install = ""
args = ["-c", "echo working; sleep {seconds}; echo done"]
adapter = "plain"
"""


def _doit(tmp: Path, seconds: int):
    (tmp / "harnesses").mkdir(exist_ok=True)
    (tmp / "harnesses" / "sleeper.toml").write_text(SLEEPER.replace("{seconds}", str(seconds)))
    env = {**os.environ, "TCAB_CATALOG": str(ROOT / "test-cases"), "TCAB_HARNESSES": str(tmp / "harnesses")}
    return subprocess.Popen(
        [sys.executable, "-m", "doit", "-f", str(ROOT / "dodo.py"), "-d", str(tmp), f"plan={tmp / 'plan.yaml'}"],
        cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        # A background process would otherwise start with SIGINT ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _session_started(runs: Path) -> str | None:
    for events in runs.glob("*/events.jsonl"):
        if '"session started"' in events.read_text():
            return events.parent.name
    return None


@pytest.mark.podman
def test_ctrl_c_removes_the_container_and_the_next_sweep_does_the_run(podman_runtime, tmp_path):
    (tmp_path / "plan.yaml").write_text(PLAN)
    proc = _doit(tmp_path, seconds=60)
    runs = tmp_path / "results" / "runs"
    deadline, run_id = time.monotonic() + 120, None
    while time.monotonic() < deadline and run_id is None:
        assert proc.poll() is None, proc.communicate()[0]
        run_id = _session_started(runs) if runs.is_dir() else None
        time.sleep(0.05)
    assert run_id, "the session never started"
    assert podman_runtime.list_run_containers(run_id), "the run's container is not there"
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode != 0
    left = podman_runtime.list_run_containers(run_id)
    for container in left:  # ours: remove it, so no other test sees it
        podman_runtime.remove(container)
    assert not left, f"Ctrl-C left the run's container; doit said:\n{out[-3000:]}"
    assert json.loads((runs / run_id / "run.json").read_text())["status"] == "canceled"
    record = tmp_path / "results/sweep/runs/lights-out/v1.0.0/classic/sleeper/1.json"
    assert not record.exists(), "a canceled run is not a result"

    again = _doit(tmp_path, seconds=1)
    out, _ = again.communicate(timeout=300)
    assert again.returncode == 0, out
    assert json.loads(record.read_text())["status"] == "completed"
