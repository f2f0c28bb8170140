"""Performance scores in results.db and ``tcab report``: per harness/model,
correct runs, best and median total fuel, and efficiency against the best."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from tcab.catalog.typetable import report_columns
from tcab.cli import cli
from tcab.errors import ResultsError
from tcab.results import (
    SCHEMA_VERSION,
    open_db,
    record_performance_score,
    record_run,
    schema_version,
)
from tcab.results.report import build_report, connect
from tests.support.results_rows import run_row

PERF = {"case_slug": "torus-life", "case_type": "performance"}


def _score(run_id: str, status: str, fuel: int | None) -> dict:
    return {"source": run_id, "case_slug": "torus-life", "case_version": "v1.0.0", "case_digest": "d" * 64,
            "status": status, "module_sha256": "m" * 64, "total_fuel": fuel, "score_key": "k",
            "cases": [{"name": "life", "status": "correct" if fuel else "mismatch", "fuel": fuel}],
            "detail": "", "duration_s": 0.5, "scored_at": "2026-12-02T07:00:00+00:00"}


@pytest.fixture
def filled(tmp_path):
    path = tmp_path / "results" / "results.db"
    db = open_db(path)
    assert schema_version(db) == SCHEMA_VERSION
    rows = {"ref-1": ("reference", None, "correct", 50_000_000),
            "cl-1": ("claude", "sonnet", "correct", 100_000_000),
            "cl-2": ("claude", "sonnet", "correct", 300_000_000),
            "cl-3": ("claude", "sonnet", "correct", 200_000_000),
            "cl-4": ("claude", "sonnet", "incorrect", None),
            "cx-1": ("codex", "gpt", "no_module", None)}
    for run_id, (harness, model, status, fuel) in rows.items():
        record_run(db, run_row(run_id, harness=harness, model=model, **PERF), [])
        record_performance_score(db, _score(run_id, status, fuel))
    record_performance_score(db, _score("cl-1", "correct", 100_000_000))  # idempotent
    db.close()
    return path


def test_the_report_groups_fuel_per_harness_and_model(filled) -> None:
    conn = connect(filled)
    try:
        (group,) = build_report(conn, database=str(filled), type_columns=report_columns).groups
    finally:
        conn.close()
    by = {s.harness: s for s in group.runs}
    claude = by["claude"]
    assert (claude.perf_correct, claude.perf_scored) == (3, 4)
    assert (claude.fuel_best, claude.fuel_median) == (100_000_000, 200_000_000)
    assert claude.efficiency == pytest.approx(0.5)
    assert by["reference"].efficiency == pytest.approx(1.0)
    assert (by["codex"].perf_correct, by["codex"].perf_scored, by["codex"].fuel_best) == (0, 1, None)
    assert {"perf_correct", "fuel_best", "fuel_median", "efficiency"} <= set(group.type_columns)


def test_terminal_csv_and_json_show_the_columns(filled) -> None:
    env = {"TCAB_RESULTS": str(filled.parent)}
    text = CliRunner().invoke(cli, ["report"], env=env, catch_exceptions=False).output
    assert "best fuel" in text and "efficiency" in text and "3/4" in text and "50%" in text
    rows = list(csv.DictReader(io.StringIO(CliRunner().invoke(cli, ["report", "--csv"], env=env).output)))
    claude = next(r for r in rows if r["harness"] == "claude")
    assert (claude["perf_correct"], claude["perf_scored"], claude["fuel_best"], claude["fuel_median"]) == \
        ("3", "4", "100000000", "200000000")
    data = json.loads(CliRunner().invoke(cli, ["report", "--json"], env=env).output)
    assert any(r.get("fuel_best") == 50_000_000 for r in data["groups"][0]["runs"])


def test_the_type_table_lists_each_run_with_its_efficiency(filled) -> None:
    env = {"TCAB_RESULTS": str(filled.parent)}
    text = CliRunner().invoke(cli, ["report"], env=env, catch_exceptions=False).output
    assert "Performance scores" in text and "first failing scenario" in text and "life: mismatch" in text
    out = CliRunner().invoke(cli, ["report", "--csv", "--table", "perf-scores"], env=env,
                             catch_exceptions=False).output
    rows = {r["run_id"]: r for r in csv.DictReader(io.StringIO(out))}
    assert float(rows["ref-1"]["efficiency"]) == 1.0 and float(rows["cl-2"]["efficiency"]) == pytest.approx(50 / 300, abs=1e-5)
    assert rows["cl-3"]["total_fuel"] == "200000000" and rows["cx-1"]["status"] == "no_module"
    assert list(rows)[:4] == ["ref-1", "cl-1", "cl-3", "cl-2"]  # cheapest first


def test_an_unknown_status_or_key_is_refused(tmp_path) -> None:
    db = open_db(tmp_path / "r.db")
    try:
        with pytest.raises(ResultsError, match="performance_scores.status: expected one of"):
            record_performance_score(db, _score("x", "fast", 1))
        with pytest.raises(ResultsError, match="unknown key 'fuel'"):
            record_performance_score(db, {**_score("x", "correct", 1), "fuel": 1})
    finally:
        db.close()
