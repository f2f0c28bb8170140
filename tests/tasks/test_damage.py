"""Damaged sweep targets: reported, their task redone, no duplicated row, no traceback.

After one complete sweep, each case damages what a sweep left behind
(truncates or garbles a target, deletes a run's folder or a module, truncates
a replay or swaps it for a gzip bomb) and asserts the EXACT set of tasks the
next sweep redoes, which work was really done again (calls.log), the rows in
results.db, the report's count, the one line naming the damaged file, and
that a third sweep has nothing to do.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3

import pytest

RUNS = "results/sweep/runs"
DUEL_REF = "duel/v1.0.0/base/reference/1"
MINI_REF = "mini/v1.0.0/one/reference/1"
MINI_SCRIPTED = "mini/v1.0.0/two/scripted/1"
REPLAY = "results/replays/duel-cup-0.json"


def _truncate(path, keep: float = 0.5) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def _garble(path) -> None:
    """Still JSON, and still a keyed target to the eye: only its stamp can tell."""
    text = path.read_text()
    assert '"completed"' in text
    path.write_text(text.replace('"completed"', '"completes"'))


def _bomb(path) -> None:
    """A replay swapped for a gzip bomb: 1 GiB of zeros in about 1 MB."""
    member = gzip.compress(bytes(16 << 20), compresslevel=9, mtime=0)
    path.write_bytes(member * 64)


def _run_folder(project, name: str):
    doc = json.loads(project.path(f"{RUNS}/{name}.json").read_text())
    return project.path(doc["run_dir"])


def _module_file(project, name: str):
    doc = json.loads(project.path(f"build/modules/{name}.json").read_text())
    return project.path(doc["module"])


# name -> (damage, tasks redone, work done again (calls.log), what the report line names)
DAMAGE = {
    "truncated run target": (
        lambda p: _truncate(p.path(f"{RUNS}/{DUEL_REF}.json")),
        {f"run:{DUEL_REF}"}, [], f"{RUNS}/{DUEL_REF}.json: damaged: not JSON",
    ),
    "garbled run target": (
        lambda p: _garble(p.path(f"{RUNS}/{MINI_SCRIPTED}.json")),
        {f"run:{MINI_SCRIPTED}"}, [], f"{RUNS}/{MINI_SCRIPTED}.json: damaged: its content does not match",
    ),
    # The run is redone under its own id (its row replaced), and so is the
    # validation whose validation.json lived in that folder.
    "deleted run folder": (
        lambda p: shutil.rmtree(_run_folder(p, MINI_REF)),
        {f"run:{MINI_REF}", f"validate:{MINI_REF}"}, [f"run {MINI_REF}", "validate"], "/run.json is missing",
    ),
    "deleted run folder of an adversarial run": (
        lambda p: shutil.rmtree(_run_folder(p, DUEL_REF)),
        {f"run:{DUEL_REF}"}, [f"run {DUEL_REF}"], "/run.json is missing",
    ),
    "truncated replay": (
        lambda p: _truncate(p.path(REPLAY), 0.3),
        {"tournament:duel-cup"}, ["tournament duel-cup"], f"{REPLAY} changed since it was recorded (damaged",
    ),
    "gzip-bombed replay": (
        lambda p: _bomb(p.path(REPLAY)),
        {"tournament:duel-cup"}, ["tournament duel-cup"], f"{REPLAY} changed since it was recorded (damaged",
    ),
    "truncated standings": (
        lambda p: _truncate(p.path("results/sweep/tournaments/duel-cup/standings.json")),
        {"tournament:duel-cup"}, ["tournament duel-cup"], "standings.json: damaged: not JSON",
    ),
    "truncated module record": (
        lambda p: _truncate(p.path("build/modules/duel/v1.0.0/baseline/left.json")),
        {"build:duel/v1.0.0/baseline/left"}, ["baseline duel/left"], "left.json: damaged: not JSON",
    ),
    "deleted module": (
        lambda p: _module_file(p, "duel/v1.0.0/baseline/right").unlink(),
        {"build:duel/v1.0.0/baseline/right"}, ["baseline duel/right"], ".wasm is missing",
    ),
    "truncated validation record": (
        lambda p: _truncate(p.path(f"results/sweep/validations/{MINI_REF}.json")),
        {f"validate:{MINI_REF}"}, ["validate"], f"{MINI_REF}.json: damaged: not JSON",
    ),
    "garbled manifest": (
        lambda p: p.path("results/sweep/manifest.json").write_text("{\"key\": \"x\"}"),
        {"manifest"}, [], "manifest.json: damaged: not a keyed target",
    ),
    # The report is made again from results.db: its count is the rows', one per plan entry.
    "truncated report target": (
        lambda p: _truncate(p.path("results/report/report.json")),
        {"report"}, ["report"], "report.json: damaged: not JSON",
    ),
}


def _rows(project) -> list[tuple[str, str]]:
    with sqlite3.connect(project.path("results/results.db")) as conn:
        return conn.execute("SELECT id, plan_digest FROM runs ORDER BY id").fetchall()


def _report_count(project) -> str:
    return project.path("results/report/index.html").read_text().strip()


def _target_run_ids(project) -> set[str]:
    return {json.loads(p.read_text())["run_id"] for p in project.path(RUNS).rglob("*.json")}


def _sweep_after(project, capfd, damage):
    code, ran, _ = project.doit()
    assert code == 0 and len(_rows(project)) == 6
    ids, calls = _target_run_ids(project), len(project.calls())
    capfd.readouterr()
    damage(project)
    code, ran, out = project.doit()
    err = capfd.readouterr().err
    return code, ran, out, err, ids, project.calls()[calls:]


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_a_damaged_target_is_reported_and_its_task_redone_without_a_second_row(project, capfd, case):
    damage, expected, work, line = DAMAGE[case]
    code, ran, out, err, ids, calls = _sweep_after(project, capfd, damage)
    assert code == 0, out + err
    assert ran == expected, f"unexpected: {sorted(ran - expected)}; missing: {sorted(expected - ran)}"
    assert [c.split(" ", 1)[0] if c.startswith("validate ") else c for c in calls] == work
    # One clear line names the damaged file; nothing else is said, no traceback.
    said = [x for x in err.splitlines() if x.startswith("tcab: ")]
    assert said and line in said[0], err
    assert "Traceback" not in out + err
    # One row per plan entry, and it is the entry's run (adopted or redone under its id).
    rows = _rows(project)
    assert len(rows) == 6 and len({d for _, d in rows}) == 6
    assert _target_run_ids(project) == ids == {i for i, _ in rows}
    assert _report_count(project) == "<p>6 runs</p>"
    code, ran, _ = project.doit()
    assert code == 0 and ran == set(), "the sweep after the repair must do nothing"


def test_a_damaged_run_target_adopts_the_run_its_claim_names(project, capfd):
    _, _, _, err, ids, calls = _sweep_after(project, capfd, DAMAGE["truncated run target"][0])
    assert calls == [], "the recorded run was done again"
    target = json.loads(project.path(f"{RUNS}/{DUEL_REF}.json").read_text())
    assert f"tcab: run:{DUEL_REF}: adopted the recorded run {target['run_id']} (not run again)" in err


def test_a_run_whose_folder_is_gone_is_redone_under_its_id_and_its_row_replaced(project, capfd):
    code, _, _ = project.doit()
    before = json.loads(project.path(f"{RUNS}/{MINI_REF}.json").read_text())
    shutil.rmtree(project.path(before["run_dir"]))
    code, ran, out = project.doit()
    err = capfd.readouterr().err
    after = json.loads(project.path(f"{RUNS}/{MINI_REF}.json").read_text())
    assert after["run_id"] == before["run_id"] and project.path(after["run_dir"], ).is_dir()
    assert f"redoing the run under its id {before['run_id']} (its results.db row is replaced)" in err
    assert project.path(f"{after['run_dir']}/validation/validation.json").is_file()
    assert len(_rows(project)) == 6


def test_every_damage_at_once(project, capfd):
    """Truncated, garbled, a run folder gone, a truncated replay and a bomb in one sweep."""
    cases = ["truncated run target", "garbled run target", "deleted run folder", "truncated replay",
             "truncated report target"]

    def damage_all(p):
        for case in cases:
            DAMAGE[case][0](p)
        _bomb(p.path("results/replays/duel-cup-1.json"))

    code, ran, out, err, ids, calls = _sweep_after(project, capfd, damage_all)
    assert code == 0, out + err
    expected = set().union(*(DAMAGE[c][1] for c in cases))
    assert ran == expected, f"unexpected: {sorted(ran - expected)}; missing: {sorted(expected - ran)}"
    assert sorted(c.split(" ", 1)[0] for c in calls) == ["report", "run", "tournament", "validate"]
    said = [x for x in err.splitlines() if x.startswith("tcab: tournament:duel-cup: ")]
    assert len(said) == 1 and "duel-cup-0.json changed" in said[0] and "duel-cup-1.json changed" in said[0], err
    assert "Traceback" not in out + err
    rows = _rows(project)
    assert len(rows) == 6 and {i for i, _ in rows} == _target_run_ids(project) == ids
    assert _report_count(project) == "<p>6 runs</p>"
    assert f"sweep small: {len(expected)} ran, {25 - len(expected)} up to date, 0 failed" in out
    code, ran, _ = project.doit()
    assert code == 0 and ran == set()


def test_the_real_replay_check_reads_damaged_replays_as_failed_verifications(tmp_path):
    """What the replay task of a real sweep does with a truncated, bombed or missing
    replay: a failed verification naming the file (the task fails with it), no traceback."""
    from tcab.catalog import load_catalog
    from tcab.tasks.real import verify_replays
    from tests.tasks.sweep_project import FIXTURES

    case = load_catalog(FIXTURES / "catalog").resolve("duel", "v1.0.0")
    truncated, bomb = tmp_path / "truncated.json.gz", tmp_path / "bomb.json.gz"
    whole = gzip.compress(b'{"format": "tcab-replay/1"}' * 100, mtime=0)
    truncated.write_bytes(whole[: len(whole) // 2])
    _bomb(bomb)
    verdicts = verify_replays(case, "base", [truncated, bomb, tmp_path / "gone.json.gz"])
    assert [v["ok"] for v in verdicts] == [False, False, False]
    assert "truncated" in verdicts[0]["problems"][0] and str(truncated) in verdicts[0]["problems"][0]
    assert "decompresses to more than" in verdicts[1]["problems"][0]
    assert "cannot read" in verdicts[2]["problems"][0]


def test_the_validation_folder_is_where_validation_writes():
    from tcab.tasks.validate import VALIDATION_DIR
    from tcab.validation.validate import VALIDATION_DIR as WRITTEN

    assert VALIDATION_DIR == WRITTEN
