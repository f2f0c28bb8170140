"""run_cost_totals (migration 0016): the report's cost per group, kept by
run_costs' triggers, always equals a fresh sum over run_costs."""

from __future__ import annotations

import random
import sqlite3

import pytest

from tcab.results import open_db
from tcab.results.costs import group_costs

FRESH = """SELECT case_slug, case_version, variant, harness, model, currency, total(priced = 1),
                  total(priced = 0), total(cost)
           FROM run_costs GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6"""
KEPT = """SELECT case_slug, case_version, variant, harness, model, currency, priced, unpriced, cost
          FROM run_cost_totals ORDER BY 1, 2, 3, 4, 5, 6"""
INSERT = ("INSERT {verb} INTO run_costs (run_id, case_slug, case_version, variant, harness, model, currency, "
          "priced, cost, priced_at) VALUES (?, 'capture', 'v1.0.0', ?, ?, ?, ?, ?, ?, 'now')")


def _same(conn: sqlite3.Connection) -> None:
    fresh, kept = conn.execute(FRESH).fetchall(), conn.execute(KEPT).fetchall()
    assert [r[:8] for r in kept] == [tuple(float(v) if i in (6, 7) else v for i, v in enumerate(r[:8]))
                                     for r in fresh]
    assert [r[8] for r in kept] == pytest.approx([r[8] for r in fresh], abs=1e-9)


@pytest.fixture
def conn(tmp_path):
    open_db(tmp_path / "results.db").close()
    with sqlite3.connect(tmp_path / "results.db") as c:
        yield c


def _row(rng: random.Random, run_id: str) -> tuple:
    priced = rng.random() < 0.8
    return (run_id, rng.choice(["base", "hard"]), rng.choice(["claude", "codex"]),
            rng.choice(["sonnet", None, "gpt"]), rng.choice(["USD", None]), int(priced),
            rng.uniform(0, 5) if priced else None)


def test_totals_follow_inserts_replaces_updates_and_deletes(conn):
    rng = random.Random(1)
    conn.executemany(INSERT.format(verb=""), [_row(rng, f"r{i}") for i in range(300)])
    _same(conn)
    # Pricing again replaces rows (INSERT OR REPLACE): each old row leaves its group first.
    conn.executemany(INSERT.format(verb="OR REPLACE"), [_row(rng, f"r{i}") for i in range(0, 300, 2)])
    assert conn.execute("SELECT sum(priced + unpriced) FROM run_cost_totals").fetchone()[0] == 300
    _same(conn)
    conn.execute("UPDATE run_costs SET harness = 'aider', cost = 1.5, priced = 1 WHERE run_id IN ('r1', 'r3')")
    conn.execute("UPDATE run_costs SET model = NULL WHERE run_id = 'r5'")
    _same(conn)
    conn.execute("DELETE FROM run_costs WHERE run_id LIKE 'r1%'")
    _same(conn)
    conn.execute("DELETE FROM run_costs")
    assert conn.execute(KEPT).fetchall() == []


def test_recursive_triggers_do_not_count_a_replaced_row_twice(conn):
    conn.execute("PRAGMA recursive_triggers = ON")
    conn.execute(INSERT.format(verb=""), ("a", "base", "claude", "sonnet", "USD", 1, 2.0))
    conn.execute(INSERT.format(verb="OR REPLACE"), ("a", "base", "claude", "sonnet", "USD", 1, 3.0))
    assert conn.execute(KEPT).fetchall() == [("capture", "v1.0.0", "base", "claude", "sonnet", "USD", 1, 0, 3.0)]


def test_a_group_left_with_no_priced_run_costs_exactly_zero(conn):
    conn.execute(INSERT.format(verb=""), ("a", "base", "claude", "sonnet", "USD", 1, 0.1))
    conn.execute(INSERT.format(verb=""), ("b", "base", "claude", "sonnet", "USD", 1, 0.2))
    conn.execute(INSERT.format(verb=""), ("c", "base", "claude", "sonnet", "USD", 0, None))
    conn.execute("DELETE FROM run_costs WHERE run_id IN ('a', 'b')")
    cost = group_costs(conn)[("capture", "v1.0.0", "base", "claude", "sonnet")]
    assert (cost.total, cost.priced, cost.unpriced) == (0.0, 0, 1)


def test_the_migration_fills_totals_from_costs_already_recorded(tmp_path):
    """A database priced before 0016 gets its totals when it is migrated."""
    from tcab.results.schema import MIGRATIONS

    path = tmp_path / "old.db"
    open_db(path, migrations=MIGRATIONS[:-1]).close()
    with sqlite3.connect(path) as c:
        assert c.execute("SELECT 1 FROM sqlite_master WHERE name = 'run_cost_totals'").fetchone() is None
        rng = random.Random(2)
        c.executemany(INSERT.format(verb=""), [_row(rng, f"r{i}") for i in range(50)])
    open_db(path).close()
    with sqlite3.connect(path) as c:
        _same(c)
        assert c.execute("SELECT sum(priced + unpriced) FROM run_cost_totals").fetchone()[0] == 50
