"""The demo plan for real: Podman runs, zig builds, wasmtime matches, the report.

The same sweep as ``make demo`` (benchmark.yaml), into temporary build and
results folders (the torus-life references scored, the asset cases drawn and
regenerated too); then a second sweep
that must do nothing and say so.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _doit(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TCAB_BUILD": str(tmp / "build"), "TCAB_RESULTS": str(tmp / "results"),
           "TCAB_TMP": str(tmp / "tmp")}
    return subprocess.run([sys.executable, "-m", "doit", "-f", str(ROOT / "dodo.py"), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.podman
def test_the_demo_sweep_runs_for_real_and_then_has_nothing_to_do(podman_runtime, tmp_path):
    first = _doit(tmp_path, "-n", "2")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "sweep demo: 44 ran, 0 up to date, 0 failed" in first.stdout
    results = tmp_path / "results"

    conn = sqlite3.connect(results / "results.db")
    try:
        runs = conn.execute("SELECT case_slug, status, plan_digest FROM runs ORDER BY case_slug").fetchall()
        ratings = conn.execute("SELECT count(*) FROM ratings").fetchone()[0]
        builds = conn.execute("SELECT count(*) FROM builds WHERE status = 'ok'").fetchone()[0]
        validations = conn.execute("SELECT case_slug, status FROM validations").fetchall()
    finally:
        conn.close()
    assert [(c, s) for c, s, _ in runs] == [("beacon-lamp", "completed"), ("candle-flicker", "completed"),
                                            ("capture", "completed"), ("ember-gem", "completed"),
                                            ("lights-out", "completed"), ("tin-scout", "completed"),
                                            ("torus-life", "completed"), ("torus-life", "completed"),
                                            ("valve-wheel", "completed")]
    assert all(d for _, _, d in runs), "each run row carries its plan entry digest"
    # three baselines and the reference controller; the two torus-life engines
    assert ratings == 4 and builds == 6
    # The end-to-end reference run, built in a container and checked in Chromium.
    assert validations == [("lights-out", "passed")]
    conn = sqlite3.connect(results / "results.db")
    try:
        scores = conn.execute("SELECT status FROM performance_scores").fetchall()
    finally:
        conn.close()
    # Both Torus Life references, correct on every held-out scenario.
    assert scores == [("correct",), ("correct",)]
    conn = sqlite3.connect(results / "results.db")
    try:
        assets = conn.execute("SELECT case_slug, status, flagged FROM asset_regenerations ORDER BY case_slug").fetchall()
    finally:
        conn.close()
    # The asset cases drawn or sculpted by their reference scripts and regenerated from the logs,
    # and the Blender character built by its build.py and re-built for provenance: nothing flagged.
    assert assets == [("beacon-lamp", "regenerated", 0), ("candle-flicker", "regenerated", 0),
                      ("ember-gem", "regenerated", 0), ("tin-scout", "regenerated", 0),
                      ("valve-wheel", "regenerated", 0)]

    standings = json.loads((results / "sweep/tournaments/capture-demo/standings.json").read_text())
    assert {s["label"] for s in standings["standings"]} == {
        "baseline/random", "baseline/rush", "baseline/guard", "reference/1"}
    verified = json.loads((results / "sweep/tournaments/capture-demo/replays.json").read_text())
    assert verified["verified"] == len(standings["match_replays"]) > 0
    assert (results / "report/index.html").is_file()

    second = _doit(tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "sweep demo: nothing to do, all 44 tasks up to date" in second.stdout
    assert "standings of capture-demo" in second.stdout
