"""results.db and ``internal_error``: migration 0009 lets a run say that a
bug in tcab stopped it, and keeps every run and stage recorded before."""

from __future__ import annotations

import sqlite3

import pytest

from tcab.results import MIGRATIONS, SCHEMA_VERSION, open_db, record_run, schema_version
from tests.support.results_rows import run_row

_INSERT = ("INSERT INTO runs (id, case_slug, case_version, variant, harness, status) "
           "VALUES (?, 'c', 'v1.0.0', 'base', 'h', ?)")


def test_migration_0009_accepts_internal_error_and_keeps_every_run_and_stage(db_path) -> None:
    before = next(i for i, m in enumerate(MIGRATIONS) if m.name == "0009_run_internal_error")
    old = open_db(db_path, migrations=MIGRATIONS[:before])
    try:
        record_run(old, run_row("r-old", status="catastrophic"),
                   [{"stage": "pull", "status": "ok", "duration_s": 1.0},
                    {"stage": "session", "status": "ok", "duration_s": 9.0}])
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            old.execute(_INSERT, ["r-x", "internal_error"])
        columns = [c.name for c in old["runs"].columns]
    finally:
        old.close()
    db = open_db(db_path)
    try:
        assert schema_version(db) == SCHEMA_VERSION
        assert [c.name for c in db["runs"].columns] == columns  # same columns, same order
        assert db.execute("SELECT id, status FROM runs").fetchall() == [("r-old", "catastrophic")]
        assert db.execute("SELECT stage FROM stages WHERE run_id = 'r-old' ORDER BY seq").fetchall() == [
            ("pull",), ("session",)]
        record_run(db, run_row("r-bug", status="internal_error", status_detail="a bug in tcab"), [])
        assert dict(db.execute("SELECT id, status FROM runs").fetchall())["r-bug"] == "internal_error"
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            db.execute(_INSERT, ["r-y", "bogus"])
        assert {i.name for i in db["runs"].indexes} >= {"idx_runs_report", "idx_runs_started"}
        db.execute("DELETE FROM runs WHERE id = 'r-old'")  # the foreign key holds after the rebuild
        assert db.execute("SELECT count(*) FROM stages").fetchone()[0] == 0
    finally:
        db.close()
