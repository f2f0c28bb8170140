"""Concurrency caps across real doit worker processes (``doit -n``), across two
sweeps on one results folder, and after a worker is killed with SIGKILL.

The runs are the fast fake (tests/tasks/sweep_fakes.py, above the runtime);
the workers, the processes and the locks are real. Each run appends when it
was in its session (TCAB_FAKE_SPANS), so the test reads the overlap."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tcab.tasks import slots

ROOT = Path(__file__).resolve().parents[2]


def _plan(name: str, cases: str, cap: int, repeats: int) -> str:
    return (f"name: {name}\nruns:\n  - cases:\n{cases}    harnesses:\n      - scripted\n      - reference\n"
            f"    repeats: {repeats}\nreport: no\nconcurrency:\n  harness:\n    scripted: {cap}\n")


MINI = "      - case: mini\n        variants: all\n"
DUEL = "      - case: duel\n"


def _start(project, plan: str, db: str, env: dict, workers: int = 4) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "doit", "-n", str(workers), "--db-file", db, f"plan={plan}"],
        cwd=project.root, env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )


def _finish(proc: subprocess.Popen, timeout: float = 240) -> str:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"the sweep did not end within {timeout}s:\n{out}")
    return out


def _spans(path: Path, harness: str) -> list[tuple[float, float]]:
    found = []
    for line in path.read_text().splitlines():
        name, start, end, _pid = line.split()
        if f"/{harness}/" in name:
            found.append((float(start), float(end)))
    return found


def _most_at_once(spans: list[tuple[float, float]]) -> int:
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans], key=lambda x: (x[0], x[1]))
    now = most = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def test_a_cap_holds_across_doit_worker_processes(project, tmp_path):
    project.path("capped.yaml").write_text(_plan("capped", MINI + DUEL, 2, 3))
    spans = tmp_path / "spans"
    proc = _start(project, "capped.yaml", ".doit-a.db", {"TCAB_FAKE_RUN_SLEEP": "0.4", "TCAB_FAKE_SPANS": str(spans)})
    out = _finish(proc)
    assert proc.returncode == 0, out
    scripted = _spans(spans, "scripted")
    assert len(scripted) == 9
    assert _most_at_once(scripted) <= 2, scripted
    assert "failed" not in out.split("sweep capped:")[1].split("\n")[0].replace("0 failed", "")


def test_a_cap_holds_across_two_sweeps_on_one_results_folder(project, tmp_path):
    project.path("a.yaml").write_text(_plan("a", MINI, 1, 2))
    project.path("b.yaml").write_text(_plan("b", DUEL, 1, 3))
    spans = tmp_path / "spans"
    env = {"TCAB_FAKE_RUN_SLEEP": "0.3", "TCAB_FAKE_SPANS": str(spans)}
    a = _start(project, "a.yaml", ".doit-a.db", env, workers=3)
    b = _start(project, "b.yaml", ".doit-b.db", env, workers=3)
    out_a, out_b = _finish(a), _finish(b)
    assert a.returncode == 0, out_a
    assert b.returncode == 0, out_b
    scripted = _spans(spans, "scripted")
    assert len(scripted) == 7
    assert _most_at_once(scripted) == 1, scripted


def _wait_for(check, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    return None


def test_a_worker_killed_with_sigkill_leaks_no_slot(project, tmp_path):
    project.path("killed.yaml").write_text(_plan("killed", DUEL, 1, 3).replace("      - reference\n", ""))
    proc = _start(project, "killed.yaml", ".doit-k.db", {"TCAB_FAKE_RUN_SLEEP": "30"}, workers=3)
    try:
        folder = slots.slots_dir(project.root / "results")

        def holder() -> int | None:
            runs = [c for c in project.calls() if c.startswith("run ")]
            files = list(folder.glob("harness-scripted-*.0")) if folder.is_dir() else []
            text = files[0].read_text().split("\n")[0].strip() if files and len(runs) == 1 else ""
            return int(text) if text.isdigit() else None

        pid = _wait_for(holder, 60)
        assert pid is not None, "the first run did not start"
        assert pid != proc.pid, "the run is in a worker process"
        time.sleep(0.5)
        assert len([c for c in project.calls() if c.startswith("run ")]) == 1, "the cap of one holds"
        os.kill(pid, signal.SIGKILL)
        started = _wait_for(lambda: len([c for c in project.calls() if c.startswith("run ")]) >= 2, 20)
        assert started, "after the SIGKILL the next run got the slot"
    finally:
        # doit's process runner may wait forever for the killed worker: end the sweep here.
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
