"""SIGKILL in the middle of a sweep, then resume: only what was missing is done.

doit runs as a real process (``python -m doit -n 2``, process parallelism)
on the test project; each fake run takes a little while so the kill lands
while runs are in flight. Then: every target is complete JSON or absent,
the re-run does no finished run again, results.db has exactly one row per
run record and no row without one.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

from tests.tasks.test_incremental import ALL_TASKS


def _doit(project, *args, env=None):
    return subprocess.Popen(
        [sys.executable, "-m", "doit", "-f", str(project.path("dodo.py")), *args],
        cwd=project.root, env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,  # so the kill reaches doit's worker processes too
    )


def _records(project):
    return sorted(project.path("results/sweep/runs").rglob("*.json"))


def test_sigkill_mid_sweep_then_resume_finishes_only_what_was_missing(project):
    proc = _doit(project, "-n", "2", env={"TCAB_FAKE_RUN_SLEEP": "0.6"})
    deadline = time.monotonic() + 60
    # Kill once some runs are recorded and others are not.
    while time.monotonic() < deadline:
        done = len(_records(project)) if project.path("results/sweep/runs").exists() else 0
        if done >= 2:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _records(project)
    assert 2 <= len(before) < 6, "the kill must land mid-sweep"
    finished = {json.loads(p.read_text())["run_id"] for p in before}  # every record is whole JSON

    # No half-written target anywhere: every keyed target parses; temp files may remain.
    for path in list(project.path("build").rglob("*.json")) + list(project.path("results").rglob("*.json")):
        if not path.name.startswith("."):
            json.loads(path.read_text())

    calls_before = project.calls()
    resumed = _doit(project, "-n", "2")
    out, _ = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, out
    new_calls = project.calls()[len(calls_before):]
    new_runs = [c for c in new_calls if c.startswith("run ")]
    assert len(new_runs) == 6 - len(before), new_calls
    assert not {c.split(" ", 1)[1] for c in new_runs} & {
        p.relative_to(project.path("results/sweep/runs")).with_suffix("").as_posix() for p in before
    }, "a run recorded before the kill was done again"

    after = {json.loads(p.read_text())["run_id"] for p in _records(project)}
    assert finished <= after and len(after) == 6
    conn = sqlite3.connect(project.path("results/results.db"))
    try:
        rows = [r[0] for r in conn.execute("SELECT id FROM runs")]
    finally:
        conn.close()
    # Runs killed in flight never reached their single-transaction insert.
    assert sorted(rows) == sorted(after)

    code, ran, _ = project.doit()
    assert code == 0 and ran == set()
    assert ALL_TASKS  # the same project the incremental tests use


def test_kill_after_the_row_before_the_target_adopts_the_run_on_resume(project):
    victim = "mini/v1.0.0/one/reference/1"
    killed = _doit(project, env={"TCAB_FAKE_KILL_AFTER_RECORD": victim})
    killed.communicate(timeout=120)
    assert killed.returncode != 0, "the sweep must die in the victim run"
    assert not project.path(f"results/sweep/runs/{victim}.json").exists()
    assert project.calls().count(f"run {victim}") == 1

    resumed = _doit(project)
    out, _ = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, out
    assert project.calls().count(f"run {victim}") == 1, "the recorded run was done again"
    target = json.loads(project.path(f"results/sweep/runs/{victim}.json").read_text())
    conn = sqlite3.connect(project.path("results/results.db"))
    try:
        rows = conn.execute("SELECT id FROM runs WHERE plan_digest = ("
                            " SELECT plan_digest FROM runs WHERE id = ?)", [target["run_id"]]).fetchall()
    finally:
        conn.close()
    assert rows == [(target["run_id"],)]
    # Every plan entry's claim now names its recorded run (none is left pending).
    claims = {c: json.loads(c.read_text()) for c in project.path("results/sweep/runs").rglob("*.claim")}
    assert len(claims) == 6 and {c["state"] for c in claims.values()} == {"recorded"}
    assert claims[project.path(f"results/sweep/runs/{victim}.claim")]["run_id"] == target["run_id"]
