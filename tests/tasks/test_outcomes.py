"""Which run outcomes are kept (the harness's doing) and which are retried (ours)."""

from __future__ import annotations

import json

import pytest

from tests.tasks.test_incremental import ALL_TASKS

SCRIPTED = {t for t in ALL_TASKS if t.startswith("run:") and t.endswith("/scripted/1")}


def test_an_infrastructure_failure_is_not_a_result_and_is_retried(project, monkeypatch):
    monkeypatch.setenv("TCAB_FAKE_STATUS", "scripted:infrastructure")
    code, ran, out = project.doit("--continue")
    assert code != 0
    assert "ended infrastructure" in out
    records = project.path("results/sweep/runs")
    assert not list(records.rglob("scripted/1.json")), "no record for a failed run"
    assert len(list(records.rglob("reference/1.json"))) == 3
    monkeypatch.delenv("TCAB_FAKE_STATUS")
    code, ran, _ = project.doit()
    assert code == 0
    # Only the failed runs, what depends on them, and the aggregates they block.
    assert ran == SCRIPTED | {"build:duel/v1.0.0/base/scripted/1", "validate:mini/v1.0.0/one/scripted/1",
                              "validate:mini/v1.0.0/two/scripted/1", "manifest", "report"}


@pytest.mark.parametrize("status", ["harness_error", "limit_exceeded"])
def test_a_harness_outcome_is_a_result_and_is_kept(project, monkeypatch, status):
    monkeypatch.setenv("TCAB_FAKE_STATUS", f"scripted:{status}")
    code, ran, _ = project.doit()
    assert code == 0 and ran == ALL_TASKS
    doc = json.loads(project.path("results/sweep/runs/mini/v1.0.0/one/scripted/1.json").read_text())
    assert doc["status"] == status
    monkeypatch.delenv("TCAB_FAKE_STATUS")
    code, ran, _ = project.doit()
    assert code == 0 and ran == set(), "a kept outcome is not redone"


def test_bad_input_fails_the_task_with_a_message_not_a_traceback(project, monkeypatch):
    monkeypatch.setenv("TCAB_FAKE_STATUS", "scripted:raise")
    code, ran, out = project.doit("--continue")
    assert code != 0
    assert "HarnessError: secret API_KEY is not set (needed by harness scripted)" in out
    assert "Traceback" not in out


def test_a_replay_that_does_not_reproduce_fails_every_sweep_until_it_does(project, monkeypatch):
    monkeypatch.setenv("TCAB_FAKE_STATUS", "replay:diverge")
    code, ran, out = project.doit()
    assert code != 0 and "2 of 2 replays of duel-cup do not reproduce" in out
    assert not project.path("results/sweep/tournaments/duel-cup/replays.json").exists()
    code, ran, _ = project.doit()
    assert code != 0 and ran == {"replay:duel-cup"}
    monkeypatch.delenv("TCAB_FAKE_STATUS")
    code, ran, _ = project.doit()
    assert code == 0 and ran == {"replay:duel-cup", "manifest", "report"}


VALIDATIONS = {t for t in ALL_TASKS if t.startswith("validate:")}


def test_a_failed_validation_is_a_result_and_is_kept(project, monkeypatch):
    import sqlite3

    monkeypatch.setenv("TCAB_FAKE_STATUS", "validate:failed")
    code, ran, _ = project.doit()
    assert code == 0 and ran == ALL_TASKS
    doc = json.loads(project.path("results/sweep/validations/mini/v1.0.0/two/scripted/1.json").read_text())
    assert doc["status"] == "failed"
    manifest = json.loads(project.path("results/sweep/manifest.json").read_text())
    assert manifest["entries"]["validate:mini/v1.0.0/two/scripted/1"]["status"] == "failed"
    with sqlite3.connect(project.path("results/results.db")) as conn:
        assert conn.execute("SELECT count(*) FROM validations WHERE status = 'failed'").fetchone()[0] == 4
    monkeypatch.delenv("TCAB_FAKE_STATUS")
    code, ran, _ = project.doit()
    assert code == 0 and ran == set(), "a kept validation is not redone"


def test_a_validation_that_could_not_run_is_retried(project, monkeypatch):
    monkeypatch.setenv("TCAB_FAKE_STATUS", "validate:error")
    code, ran, out = project.doit("--continue")
    assert code != 0 and "could not run: fake error" in out
    assert not project.path("results/sweep/validations").exists()
    monkeypatch.delenv("TCAB_FAKE_STATUS")
    code, ran, _ = project.doit()
    assert code == 0 and ran == VALIDATIONS | {"manifest", "report"}
    assert [c for c in project.calls() if c.startswith("validate")].__len__() == 8


def test_the_tournament_plays_with_the_plans_parallelism(project):
    plan = project.path("benchmark.yaml")
    plan.write_text(plan.read_text().replace("name: small\n", "name: small\nparallelism: 3\n"))
    code, ran, out = project.doit("-n", "1")
    assert code == 0, out
    standings = json.loads(project.path("results/sweep/tournaments/duel-cup/standings.json").read_text())
    assert standings["jobs"] == 3


def test_a_bug_in_tcab_is_not_retried_and_fails_every_sweep_until_the_claim_goes(project, monkeypatch):
    monkeypatch.setenv("TCAB_FAKE_STATUS", "scripted:internal_error")
    code, ran, out = project.doit("--continue")
    assert code != 0 and "hit a bug in tcab" in out and "internal-error.txt" in out
    runs = [c for c in project.calls() if c.startswith("run ") and "/scripted/" in c]
    assert len(runs) == 3
    claims = sorted(project.path("results/sweep/runs").rglob("scripted/1.claim"))
    assert len(claims) == 3
    monkeypatch.delenv("TCAB_FAKE_STATUS")  # tcab "fixed": still not run again by itself
    code, ran, out = project.doit("--continue")
    assert code != 0 and "not run again" in out and f"delete {claims[0]}" in out
    assert [c for c in project.calls() if c.startswith("run ") and "/scripted/" in c] == runs
    for claim in claims:
        claim.unlink()  # the operator asks for new runs
    code, ran, _ = project.doit()
    assert code == 0
    assert len([c for c in project.calls() if c.startswith("run ") and "/scripted/" in c]) == 6
