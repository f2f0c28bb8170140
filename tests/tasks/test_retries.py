"""Retries inside the sweep: infrastructure runs are tried again, each attempt is
recorded in run_attempts, the entry's result is the last attempt; the model's
outcomes are never retried."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tcab.errors import ResultsError
from tcab.results.attempts import attempts_summary, record_attempt

RETRIES = "retries:\n  infrastructure: 2\n  backoff_s: 0\n"
ENTRY = "mini/v1.0.0/one/scripted/1"


def _attempts(project, entry: str = ENTRY) -> list[tuple]:
    conn = sqlite3.connect(project.path("results/results.db"))
    try:
        return conn.execute("SELECT attempt, run_id, status, detail FROM run_attempts WHERE entry = ? "
                            "ORDER BY attempt", [entry]).fetchall()
    finally:
        conn.close()


def test_an_infrastructure_run_is_retried_and_its_last_attempt_is_the_result(project, monkeypatch):
    project.edit("benchmark.yaml", RETRIES)
    monkeypatch.setenv("TCAB_FAKE_FLAKY", "scripted:1")
    code, _, out = project.doit()
    assert code == 0, out
    rows = _attempts(project)
    assert [(a, s) for a, _, s, _ in rows] == [(1, "infrastructure"), (2, "completed")]
    assert rows[0][3] == "flaky attempt 1"
    assert rows[0][1] != rows[1][1], "each attempt is its own run"
    target = json.loads(project.path(f"results/sweep/runs/{ENTRY}.json").read_text())
    assert target["run_id"] == rows[1][1] and target["status"] == "completed"
    assert [s for _, _, s, _ in _attempts(project, "mini/v1.0.0/one/reference/1")] == ["completed"]
    assert project.calls().count(f"run {ENTRY}") == 2


def test_retries_stop_after_the_plan_number_and_the_task_fails(project, monkeypatch):
    project.edit("benchmark.yaml", RETRIES)
    monkeypatch.setenv("TCAB_FAKE_STATUS", "scripted:infrastructure")
    code, _, out = project.doit()
    assert code != 0
    assert [(a, s) for a, _, s, _ in _attempts(project)] == [(1, "infrastructure"), (2, "infrastructure"),
                                                             (3, "infrastructure")]
    assert "attempt 3 of 3" in out or project.calls().count(f"run {ENTRY}") == 3
    assert not project.path(f"results/sweep/runs/{ENTRY}.json").exists()


@pytest.mark.parametrize("status", ["harness_error", "timed_out", "hung", "limit_exceeded", "completed"])
def test_the_models_outcome_is_never_retried(project, monkeypatch, status):
    project.edit("benchmark.yaml", RETRIES)
    monkeypatch.setenv("TCAB_FAKE_STATUS", f"scripted:{status}")
    code, _, _ = project.doit()
    assert code == 0
    assert [(a, s) for a, _, s, _ in _attempts(project)] == [(1, status)]
    assert project.calls().count(f"run {ENTRY}") == 1


def test_without_retries_an_infrastructure_run_is_tried_once(project, monkeypatch):
    monkeypatch.setenv("TCAB_FAKE_FLAKY", "scripted:1")
    code, _, _ = project.doit()
    assert code != 0
    assert project.calls().count(f"run {ENTRY}") == 1
    assert _attempts(project) == [], "no retries: no attempt rows (the run is the one attempt)"


def test_the_backoff_is_waited_between_attempts(project, monkeypatch):
    project.edit("benchmark.yaml", "retries:\n  infrastructure: 1\n  backoff_s: 1\n")
    monkeypatch.setenv("TCAB_FAKE_FLAKY", "scripted:1")
    waits = []
    monkeypatch.setattr("tcab.tasks.retries._sleep", waits.append)
    code, _, _ = project.doit()
    assert code == 0
    assert waits == [1.0] * 3, "one wait of backoff_s per retried scripted run"


def test_attempts_refuse_a_bad_row_and_the_summary_lists_retried_entries(tmp_path):
    db = tmp_path / "results.db"
    with pytest.raises(ResultsError, match="run_attempts: status"):
        record_attempt(db, "e", 1, "r1", "exploded")
    with pytest.raises(ResultsError, match="run_attempts: attempt"):
        record_attempt(db, "e", 0, "r1", "completed")
    record_attempt(db, "e", 1, "r1", "infrastructure", "daemon gone " * 1000)
    record_attempt(db, "e", 2, "r2", "completed")
    record_attempt(db, "f", 1, "r3", "completed")
    conn = sqlite3.connect(db)
    try:
        (summary,) = attempts_summary(conn)
        assert summary["entry"] == "e" and summary["statuses"] == ["infrastructure", "completed"]
        assert summary["last"] == "completed"
        assert len(conn.execute("SELECT detail FROM run_attempts WHERE run_id = 'r1'").fetchone()[0]) == 2000
    finally:
        conn.close()


def test_tcab_report_shows_the_attempts(project, monkeypatch):
    import subprocess
    import sys
    from pathlib import Path

    project.edit("benchmark.yaml", RETRIES)
    monkeypatch.setenv("TCAB_FAKE_FLAKY", "scripted:1")
    assert project.doit()[0] == 0
    db = str(project.path("results/results.db"))
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[2]), "PATH": "/usr/bin:/bin", "COLUMNS": "200"}
    shown = subprocess.run([sys.executable, "-m", "tcab", "report", "--db", db], capture_output=True, text=True,
                           env=env, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "retried runs" in shown.stdout
    assert f"{ENTRY}" in shown.stdout and "infrastructure → completed" in shown.stdout
    as_json = subprocess.run([sys.executable, "-m", "tcab", "report", "--db", db, "--json", "--harness", "scripted"],
                             capture_output=True, text=True, env=env, timeout=120)
    retried = json.loads(as_json.stdout)["retried"]
    assert {r["entry"] for r in retried} == {ENTRY, "mini/v1.0.0/two/scripted/1", "duel/v1.0.0/base/scripted/1"}
    assert all(r["statuses"] == ["infrastructure", "completed"] for r in retried)
    only_reference = subprocess.run([sys.executable, "-m", "tcab", "report", "--db", db, "--json", "--harness",
                                     "reference"], capture_output=True, text=True, env=env, timeout=120)
    assert json.loads(only_reference.stdout)["retried"] == []


def test_no_retry_once_the_budget_is_reached_and_the_end_says_why(project, monkeypatch):
    # The first attempt ends infrastructure but recorded its tokens: $0.60 of a $0.50 budget.
    project.path("prices.toml").write_text('currency = "USD"\n[models."m1"]\ninput = 0.6\noutput = 2.0\n')
    project.path("paid.yaml").write_text(
        "name: paid\nruns:\n  - cases:\n      - mini\n    harnesses:\n      - harness: scripted\n"
        "        models: m1\nprices: prices.toml\nbudget: 0.5\nreport: no\n" + RETRIES)
    monkeypatch.setenv("TCAB_FAKE_TOKENS", "1000000")
    monkeypatch.setenv("TCAB_FAKE_FLAKY", "scripted:1")
    code, _, out = project.doit("plan=paid.yaml")
    assert code != 0
    entry = "mini/v1.0.0/one/scripted@m1/1"
    assert project.calls().count(f"run {entry}") == 1, "the retry is a new run: the budget holds for it too"
    assert [(a, s) for a, _, s, _ in _attempts(project, entry)] == [(1, "infrastructure")]
    assert not project.path(f"results/sweep/runs/{entry}.json").exists()
    tail = out[out.index("sweep paid:"):]
    assert (f"  run:{entry}: run {entry} ended infrastructure (") in tail
    assert "not retried: budget reached: $0.6000 spent of $0.5000 (plan key budget)" in tail


def test_attempts_are_numbered_per_entry_across_sweeps_and_only_real_retries_are_reported(project, monkeypatch):
    """A sweep that gave up on an entry, then the next sweep: its attempts go on (3, not 1 again),
    so the report's last status is the entry's result; a run redone after ``doit clean`` is an
    attempt too, but an entry never retried is not reported as retried."""
    project.edit("benchmark.yaml", "retries:\n  infrastructure: 1\n  backoff_s: 0\n")
    monkeypatch.setenv("TCAB_FAKE_FLAKY", "scripted:2")
    assert project.doit()[0] != 0
    assert project.doit()[0] == 0
    assert [(a, s) for a, _, s, _ in _attempts(project)] == [(1, "infrastructure"), (2, "infrastructure"),
                                                             (3, "completed")]
    reference = "mini/v1.0.0/one/reference/1"
    project.doit("clean", f"run:{ENTRY}", f"run:{reference}")
    assert not project.path(f"results/sweep/runs/{reference}.json").exists()
    assert project.doit()[0] == 0
    assert [a for a, _, _, _ in _attempts(project)] == [1, 2, 3, 4]
    assert [(a, s) for a, _, s, _ in _attempts(project, reference)] == [(1, "completed"), (2, "completed")]
    conn = sqlite3.connect(project.path("results/results.db"))
    try:
        summary = {item["entry"]: item for item in attempts_summary(conn)}
    finally:
        conn.close()
    assert summary[ENTRY]["statuses"] == ["infrastructure", "infrastructure", "completed", "completed"]
    assert summary[ENTRY]["last"] == "completed"
    assert reference not in summary, "tried twice, never retried"
