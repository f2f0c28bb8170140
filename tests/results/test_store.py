"""open_db and migrations on real SQLite files."""

from __future__ import annotations

import sqlite3

import pytest

from tcab.errors import ResultsError
from tcab.results import MIGRATIONS, SCHEMA_VERSION, TABLES, Migration, open_db, schema_version


def test_fresh_database_is_created_with_parents_wal_and_every_table(db_path):
    db = open_db(db_path)
    try:
        assert db_path.exists()
        assert db.journal_mode == "wal"
        assert schema_version(db) == SCHEMA_VERSION == len(MIGRATIONS)
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        names = [r[0] for r in db.execute("SELECT name FROM schema_migrations ORDER BY version")]
        assert names == [m.name for m in MIGRATIONS]
        for table, spec in TABLES.items():
            # The record API's column lists and the migrated tables agree.
            assert tuple(db[table].columns_dict) == spec.columns, table
            assert tuple(db[table].pks) == spec.pk, table
        indexed = {i.name: tuple(i.columns) for i in db["runs"].indexes}
        assert indexed["idx_runs_report"][:6] == (
            "case_slug", "case_version", "variant", "harness", "model", "status")
    finally:
        db.close()


def test_reopening_is_a_no_op(db_path):
    open_db(db_path).close()
    conn = sqlite3.connect(db_path)
    before = conn.execute("SELECT version, name, applied_at FROM schema_migrations").fetchall()
    schema_before = conn.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    conn.close()
    open_db(db_path).close()
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT version, name, applied_at FROM schema_migrations").fetchall() == before
    assert conn.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == schema_before
    conn.close()


def test_a_failing_migration_rolls_back_with_its_record(db_path):
    broken = Migration("0099_broken", (
        "CREATE TABLE half_done (x INTEGER)",
        "INSERT INTO half_done VALUES (1)",
        "ALTER TABLE no_such_table ADD COLUMN y TEXT",
    ))
    open_db(db_path).close()
    with pytest.raises(ResultsError, match=r"migration \d+ 0099_broken failed"):
        open_db(db_path, migrations=(*MIGRATIONS, broken))
    db = open_db(db_path)
    try:
        assert schema_version(db) == SCHEMA_VERSION
        assert not db["half_done"].exists()
    finally:
        db.close()


def test_a_new_migration_is_applied_once_on_reopen(db_path):
    open_db(db_path).close()
    extra = Migration("0099_notes", ("ALTER TABLE runs ADD COLUMN note TEXT",))
    db = open_db(db_path, migrations=(*MIGRATIONS, extra))
    assert schema_version(db) == SCHEMA_VERSION + 1
    assert "note" in db["runs"].columns_dict
    db.close()
    open_db(db_path, migrations=(*MIGRATIONS, extra)).close()


def test_a_newer_schema_is_refused(db_path):
    extra = Migration("0099_future", ("CREATE TABLE future (x INTEGER)",))
    open_db(db_path, migrations=(*MIGRATIONS, extra)).close()
    with pytest.raises(ResultsError, match=rf"schema version {SCHEMA_VERSION + 1} is newer than this tcab knows \({SCHEMA_VERSION}\)"):
        open_db(db_path)


def test_a_diverged_migration_name_is_refused(db_path):
    open_db(db_path).close()
    renamed = (MIGRATIONS[0], Migration("0002_something_else", MIGRATIONS[1].statements),
               *MIGRATIONS[2:])
    with pytest.raises(ResultsError, match="version 2 is '0002_report_indexes'"):
        open_db(db_path, migrations=renamed)


def test_a_file_that_is_not_sqlite_is_a_clear_error(tmp_path):
    path = tmp_path / "results.db"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(ResultsError, match=str(path)):
        open_db(path)


def test_migration_0005_adds_limit_exceeded_and_keeps_every_run_and_stage(db_path):
    from tcab.results import record_run
    from tests.support.results_rows import run_row

    old = open_db(db_path, migrations=MIGRATIONS[:4])  # a results.db written before 0005
    try:
        record_run(old, run_row("r-old"), [{"stage": "pull", "status": "ok", "duration_s": 1.0},
                                            {"stage": "session", "status": "ok", "duration_s": 9.0}])
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            old.execute("INSERT INTO runs (id, case_slug, case_version, variant, harness, status) "
                        "VALUES ('r-x', 'c', 'v1.0.0', 'base', 'h', 'limit_exceeded')")
    finally:
        old.close()
    db = open_db(db_path)
    try:
        assert schema_version(db) == SCHEMA_VERSION
        assert db.execute("SELECT id, status FROM runs").fetchall() == [("r-old", "completed")]
        assert db.execute("SELECT stage FROM stages WHERE run_id = 'r-old' ORDER BY seq").fetchall() == [
            ("pull",), ("session",)]
        record_run(db, run_row("r-ceiling", status="limit_exceeded"), [])
        record_run(db, run_row("r-broken", status="catastrophic"), [])
        assert dict(db.execute("SELECT id, status FROM runs").fetchall())["r-ceiling"] == "limit_exceeded"
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            db.execute("INSERT INTO runs (id, case_slug, case_version, variant, harness, status) "
                       "VALUES ('r-y', 'c', 'v1.0.0', 'base', 'h', 'bogus')")
        # The foreign key still holds after the rebuild: deleting a run deletes its stages.
        db.execute("DELETE FROM runs WHERE id = 'r-old'")
        assert db.execute("SELECT count(*) FROM stages").fetchone()[0] == 0
        assert {i.name for i in db["runs"].indexes} >= {"idx_runs_report", "idx_runs_started"}
        assert 'REFERENCES "runs"' in db.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'stages'").fetchone()[0]
    finally:
        db.close()
