"""tcab/arena/store.py: arena outcomes shaped into results.db rows and
recorded through tcab.results, on real matches and a real SQLite file."""

from __future__ import annotations

import json

import pytest

from tcab.arena.engine import sha256_hex
from tcab.arena.jobs import make_job, run_job, spec_digest
from tcab.arena.store import match_rows, record_summary, record_tournament_result
from tcab.arena.tournament import Contestant, run_tournament
from tcab.results import open_db
from tests.support.arena_corpus import hostile


def _contestant(path, label):
    return Contestant(label, path, sha256_hex(path.read_bytes()))


@pytest.fixture
def db(settings):
    database = open_db(settings.results_db)
    yield database
    database.close()


@pytest.fixture
def forfeit_summary(tally, settings, wasm_dir, tmp_path):
    """A real match: dir3 against a controller that spins until out of fuel."""
    spin = tmp_path / "spin.wasm"
    spin.write_bytes(hostile()["infinite_loop"][0])
    job = make_job(tally, [_contestant(wasm_dir / "dir3.wasm", "dir3"), _contestant(spin, "spin")], 3,
                   settings.results_dir, settings.build_dir / "modules")
    return run_job(job)


def test_match_rows_shape_a_forfeit_into_the_match_and_its_seats(tally, forfeit_summary):
    s = forfeit_summary
    match, seats = match_rows(tally, s)
    assert {k: v for k, v in match.items() if k != "played_at"} == {
        "key": s["key"], "case_slug": "tally", "case_version": "v0.1.0", "case_digest": spec_digest(tally),
        "variant": "base", "seed": 3, "ticks": s["result"]["ticks"], "winner_seat": 0, "reason": "forfeit",
        "final_digest": s["final_digest"], "replay_path": s["replay"], "replay_sha256": s["replay_sha256"],
        "duration_s": s["duration_s"]}
    assert match["played_at"].endswith("+00:00")
    forfeit = s["result"]["seats"][1]["forfeit"]
    assert forfeit["reason"] == "fuel"
    assert seats == [
        {"seat": 0, "module_sha256": s["shas"][0], "label": "dir3", "outcome": "win",
         "score": s["result"]["seats"][0]["score"], "forfeit_reason": None, "forfeit_tick": None,
         "fuel_total": s["fuel"][0]["total"], "fuel_peak": s["fuel"][0]["peak"]},
        {"seat": 1, "module_sha256": s["shas"][1], "label": "spin", "outcome": "forfeit",
         "score": s["result"]["seats"][1]["score"], "forfeit_reason": "fuel", "forfeit_tick": forfeit["tick"],
         "fuel_total": s["fuel"][1]["total"], "fuel_peak": s["fuel"][1]["peak"]},
    ]


def test_a_summary_whose_seats_and_fuel_disagree_is_refused(tally, forfeit_summary):
    with pytest.raises(ValueError):
        match_rows(tally, {**forfeit_summary, "fuel": forfeit_summary["fuel"][:1]})


def test_record_summary_writes_one_match_however_often_it_is_recorded(db, tally, forfeit_summary):
    key = record_summary(db, tally, forfeit_summary)
    assert key == forfeit_summary["key"]
    assert record_summary(db, tally, forfeit_summary) == key
    rows = list(db.query("select key, winner_seat, reason from matches"))
    assert rows == [{"key": key, "winner_seat": 0, "reason": "forfeit"}]
    seats = list(db.query("select seat, label, outcome, forfeit_reason from match_seats "
                          "where match_key = ? order by seat", [key]))
    assert seats == [{"seat": 0, "label": "dir3", "outcome": "win", "forfeit_reason": None},
                     {"seat": 1, "label": "spin", "outcome": "forfeit", "forfeit_reason": "fuel"}]


def test_a_tournament_is_recorded_with_its_matches_and_ratings_in_rank_order(db, tally, settings, wasm_dir):
    # "twin" shares dir3's module: the two meet in identical matches, listed once per round.
    cs = [_contestant(wasm_dir / "dir3.wasm", "dir3"), _contestant(wasm_dir / "dir1.wasm", "dir1"),
          _contestant(wasm_dir / "dir3.wasm", "twin")]
    result = run_tournament(tally, cs, seed=2, rounds=2, structure="round-robin", jobs=1,
                            results_dir=settings.results_dir, modules_dir=settings.build_dir / "modules")
    record_tournament_result(db, tally, "t-1", result, "2026-01-01T00:00:00+00:00")

    (t,) = db.query("select * from tournaments")
    assert (t["id"], t["case_slug"], t["case_digest"], t["structure"], t["rounds"], t["seed"]) == (
        "t-1", "tally", spec_digest(tally), "round-robin", 2, 2)
    assert json.loads(t["participants"]) == [{"label": c.label, "module_sha256": c.sha256} for c in cs]
    entries = {(r["match_key"], r["round"]) for r in db.query("select * from tournament_matches")}
    assert entries == {(m["key"], m["round"]) for m in result.matches}
    assert db.execute("select count(*) from tournament_matches").fetchone()[0] == len(entries)
    assert db.execute("select count(*) from matches").fetchone()[0] == len({m["key"] for m in result.matches})
    ratings = list(db.query("select label, rank, wins, losses from ratings order by rank"))
    assert [r["rank"] for r in ratings] == [1, 2, 3]
    assert [r["label"] for r in ratings] == [cs[s.player].label for s in result.standings]
    assert ratings[-1]["label"] == "dir1" and ratings[-1]["wins"] == 0
    # Recording the same tournament again replaces it: still one of everything.
    record_tournament_result(db, tally, "t-1", result, "2026-01-01T00:00:00+00:00")
    assert db.execute("select count(*) from tournaments").fetchone()[0] == 1
    assert db.execute("select count(*) from ratings").fetchone()[0] == 3
