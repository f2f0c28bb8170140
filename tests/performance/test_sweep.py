"""A performance sweep for real (Podman, the performance image, Zig, wasmtime):
the reference harness (the fast engine) and a starter harness (the naive
workspace engine) on torus-life; each run's engine is built (``build:<run>``)
and scored (``score:<run>``); results.db and ``tcab report`` carry the fuel;
a second sweep does nothing."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from tests.support.paths import REPO
from tests.support.sweep import plan_sweep, sweep_env

PLAN = """name: perf
runtime:
  backend: docker
parallelism: 1
runs:
  - cases:
      - case: torus-life
    harnesses:
      - reference
      - starter
    repeats: 1
report: no
"""


@pytest.mark.podman
@pytest.mark.timeout(900)
def test_a_performance_sweep_builds_scores_and_then_does_nothing(podman_runtime, tmp_path) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN)
    first = plan_sweep(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "sweep perf: 9 ran, 0 up to date, 0 failed" in first.stdout
    conn = sqlite3.connect(tmp_path / "results" / "results.db")
    try:
        scores = dict(conn.execute(
            "SELECT r.harness, p.total_fuel FROM performance_scores p JOIN runs r ON r.id = p.source "
            "WHERE p.status = 'correct'").fetchall())
        images = {row[0] for row in conn.execute("SELECT image FROM builds")}
    finally:
        conn.close()
    assert set(scores) == {"reference", "starter"}
    assert scores["starter"] >= 5 * scores["reference"]
    assert images == {"ghcr.io/theclockwyrks/test-cabinet-performance:latest"}
    record = json.loads(next((tmp_path / "results/sweep/scores").rglob("reference/1.json")).read_text())
    assert record["status"] == "correct" and [c["status"] for c in record["cases"]] == ["correct"] * 6

    report = subprocess.run([sys.executable, "-m", "tcab", "report", "--csv"], cwd=REPO, env=sweep_env(tmp_path),
                            capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr
    assert f",{scores['reference']}," in report.stdout and "perf_correct" in report.stdout

    second = plan_sweep(tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "sweep perf: nothing to do, all 9 tasks up to date" in second.stdout
