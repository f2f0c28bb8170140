"""player_totals (kept by triggers) always equals a fresh count over the seats."""

from __future__ import annotations

import random

from tcab.results import MIGRATIONS, open_db, record_match
from tests.support.results_rows import match_row, seat

FRESH = """
    SELECT m.case_slug, m.case_version, m.variant, coalesce(s.label, s.module_sha256), count(*),
           sum(s.outcome = 'win'), sum(s.outcome = 'draw'), sum(s.outcome = 'loss'),
           sum(s.outcome = 'forfeit')
    FROM match_seats s JOIN matches m ON m.key = s.match_key GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"""
KEPT = "SELECT * FROM player_totals ORDER BY 1, 2, 3, 4"


def _play(db, rnd: random.Random, seed: int) -> None:
    a, b = rnd.sample(["greedy", "random", "ref", None], 2)
    outcome = rnd.choice([("win", "loss"), ("loss", "win"), ("draw", "draw"), ("win", "forfeit")])
    seats = [seat(0, f"mod-{a}", outcome[0], a), seat(1, f"mod-{b}", outcome[1], b)]
    for s in seats:
        if s["label"].startswith("mod-"):
            del s["label"]  # no label: the totals fall back to the module digest
    record_match(db, match_row(seed, variant=rnd.choice(["base", "fog"]),
                               case_version=rnd.choice(["v1.0.0", "v1.1.0"])), seats)


def test_totals_follow_inserts_re_records_updates_and_deletes(db):
    rnd = random.Random(5)
    for _ in range(60):
        _play(db, rnd, seed=rnd.randrange(25))  # repeated seeds re-record (replace) matches
        assert db.execute(KEPT).fetchall() == db.execute(FRESH).fetchall()
    assert db.execute("SELECT count(*) FROM player_totals WHERE label = 'mod-None'").fetchone()[0]
    with db.conn:
        db.execute("UPDATE match_seats SET outcome = 'forfeit' WHERE seat = 1 AND outcome = 'loss'")
    assert db.execute(KEPT).fetchall() == db.execute(FRESH).fetchall()
    with db.conn:
        db.execute("UPDATE matches SET variant = 'renamed' WHERE seed % 3 = 0")
    assert db.execute(KEPT).fetchall() == db.execute(FRESH).fetchall()
    with db.conn:
        db.execute("DELETE FROM matches WHERE seed % 2 = 0")  # cascades to the seats
    assert db.execute(KEPT).fetchall() == db.execute(FRESH).fetchall()
    with db.conn:
        db.execute("DELETE FROM matches")
    assert db.execute(KEPT).fetchall() == []


def test_the_totals_migration_backfills_an_existing_database(db_path):
    db = open_db(db_path, migrations=MIGRATIONS[:2])
    rnd = random.Random(9)
    for n in range(20):
        _play(db, rnd, seed=n)
    db.close()
    db = open_db(db_path)
    rows = db.execute(KEPT).fetchall()
    assert rows and rows == db.execute(FRESH).fetchall()
    db.close()
