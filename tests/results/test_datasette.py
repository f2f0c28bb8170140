"""results.db in the real Datasette with tcab's metadata: descriptions and canned queries."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from datasette import app as datasette_app

from tcab.results import open_db, record_match, record_run, record_tournament
from tcab.results.costs import price_runs
from tcab.results.datasette import METADATA
from tcab.results.prices import load_prices
from tests.results.test_groupstats import _fill
from tests.support.results_rows import match_row, run_row, seat


@pytest.fixture
def results_db(db, db_path, tmp_path):
    _fill(db)
    record_run(db, run_row("slow", harness="aider", model="mystery", duration_s=99_999.0), [])
    keys = [record_match(db, match_row(n, winner_seat=0 if n < 2 else None),
                         [seat(0, "ma", "win" if n < 2 else "draw", "alpha"),
                          seat(1, "mb", "loss" if n < 2 else "draw", "beta")]) for n in range(3)]
    record_tournament(db, {"id": "cup", "case_slug": "capture", "case_version": "v1.0.0", "variant": "base",
                           "structure": "round-robin", "rounds": 3, "seed": 1},
                      [{"match_key": k, "round": i + 1} for i, k in enumerate(keys)], [])
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."sonnet"]\ninput = 1.0\noutput = 10.0\n')
    with sqlite3.connect(db_path) as conn:
        price_runs(conn, load_prices(prices))
    return db_path


def _get(path, *urls):
    ds = datasette_app.Datasette([str(path)], metadata=json.loads(METADATA.read_text()))

    async def fetch():
        out = []
        for url in urls:
            response = await ds.client.get(url)
            assert response.status_code == 200, (url, response.text[:500])
            out.append(response)
        return out

    return asyncio.run(fetch())


def test_tables_and_columns_carry_descriptions(results_db):
    runs, costs = _get(results_db, "/results/runs", "/results/run_costs")
    assert "One row per harness run" in runs.text
    assert "Input tokens the harness reported" in runs.text
    assert "1: priced; 0: no price for its model" in costs.text


def test_success_table(results_db):
    (response,) = _get(results_db, "/results/success_table.json?_shape=array")
    rows = {(r["case_slug"], r["harness"]): r for r in response.json()}
    # the same counts as tcab report's statistics (tests/results/test_groupstats.py)
    assert (rows["capture", "claude"]["successes"], rows["capture", "claude"]["runs"]) == (4, 5)
    assert (rows["snake", "claude"]["successes"], rows["snake", "claude"]["runs"]) == (2, 5)
    assert rows["capture", "claude"]["success_rate"] == 0.8


def test_cost_per_model(results_db):
    (response,) = _get(results_db, "/results/cost_per_model.json?_shape=array")
    rows = {r["model"]: r for r in response.json()}
    assert rows["sonnet"]["runs"] == 18 and rows["sonnet"]["runs_without_price"] == 0
    assert rows["sonnet"]["cost"] == pytest.approx(18 * 2.0)  # 1M in at $1, 100k out at $10
    assert rows["gpt"]["runs_without_price"] == 15 and rows["gpt"]["cost"] == 0


def test_slowest_runs(results_db):
    (response,) = _get(results_db, "/results/slowest_runs.json?_shape=array")
    assert response.json()[0]["id"] == "slow"


def test_tournament_cross_table(results_db):
    (response,) = _get(results_db, "/results/tournament_cross_table.json?_shape=array&tournament=cup")
    rows = {(r["participant"], r["opponent"]): r for r in response.json()}
    assert rows["alpha", "beta"] == {"participant": "alpha", "opponent": "beta", "matches": 3, "wins": 2,
                                     "draws": 1, "losses": 0}
    assert rows["beta", "alpha"]["losses"] == 2


def test_metadata_names_only_real_tables_and_columns(db_path):
    open_db(db_path).close()
    meta = json.loads(METADATA.read_text())
    with sqlite3.connect(db_path) as conn:
        for table, spec in meta["databases"]["results"]["tables"].items():
            real = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
            assert real, f"no table {table}"
            assert set(spec.get("columns", {})) <= real, table
        for core in ("runs", "builds", "validations", "matches", "tournaments", "run_costs"):
            assert meta["databases"]["results"]["tables"][core]["description"]
