"""results.db and ``catastrophic``: migration 0006 lets validations say it,
and recording such a validation moves the run's row as run.json moves."""

from __future__ import annotations

import sqlite3

import pytest

from tcab.errors import ResultsError
from tcab.results import (
    MIGRATIONS,
    SCHEMA_VERSION,
    open_db,
    record_run,
    record_validation,
    schema_version,
)
from tests.support.results_rows import run_row


def _validation(run_id: str, status: str, detail: str = "") -> dict:
    return {"run_id": run_id, "case_slug": "capture", "case_version": "v1.0.0", "variant": "base",
            "status": status, "checks": [], "detail": detail, "screenshots": []}


def _status(db, run_id: str) -> tuple[str, str | None]:
    return db.execute("SELECT status, status_detail FROM runs WHERE id = ?", [run_id]).fetchone()


def test_migration_0006_keeps_every_validation_and_accepts_catastrophic(db_path) -> None:
    old = open_db(db_path, migrations=MIGRATIONS[:5])  # a results.db written before 0006
    try:
        record_run(old, run_row("r-old"), [])
        record_validation(old, _validation("r-old", "failed", "errors: uncaught boom"))
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            old.execute("INSERT INTO validations (run_id, case_slug, case_version, variant, status) "
                        "VALUES ('r-x', 'c', 'v1.0.0', 'base', 'catastrophic')")
    finally:
        old.close()
    db = open_db(db_path)
    try:
        assert schema_version(db) == SCHEMA_VERSION and MIGRATIONS[5].name == "0006_validation_catastrophic"
        assert db.execute("SELECT run_id, status, detail FROM validations").fetchall() == [
            ("r-old", "failed", "errors: uncaught boom")]
        record_run(db, run_row("r-new"), [])
        record_validation(db, _validation("r-new", "catastrophic", "build: exited 1"))
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):  # the CHECK is still there
            db.execute("INSERT INTO validations (run_id, case_slug, case_version, variant, status) "
                       "VALUES ('r-y', 'c', 'v1.0.0', 'base', 'bogus')")
        assert "idx_validations_group" in {i.name for i in db["validations"].indexes}
    finally:
        db.close()


def test_a_catastrophic_validation_moves_a_completed_run_and_back(db) -> None:
    record_run(db, run_row("r1"), [])
    record_validation(db, _validation("r1", "catastrophic", "output: dist/ was not produced"))
    assert _status(db, "r1") == ("catastrophic", "validation: output: dist/ was not produced")
    record_validation(db, _validation("r1", "catastrophic", "output: dist/ was not produced"))  # idempotent
    assert _status(db, "r1")[0] == "catastrophic"
    # The engine failing says nothing about the page: the run stays as it was.
    record_validation(db, _validation("r1", "error", "runtime: daemon gone"))
    assert _status(db, "r1")[0] == "catastrophic"
    # Validated again and the page loads (even with a failing check): completed again.
    record_validation(db, _validation("r1", "failed", "errors: console error"))
    assert _status(db, "r1") == ("completed", "")


@pytest.mark.parametrize("status", ["timed_out", "hung", "harness_error", "limit_exceeded"])
def test_a_run_that_ended_otherwise_keeps_its_status(db, status) -> None:
    record_run(db, run_row("r2", status=status, status_detail="the session's own"), [])
    record_validation(db, _validation("r2", "catastrophic", "build: exited 1"))
    assert _status(db, "r2") == (status, "the session's own")
    assert db.execute("SELECT status FROM validations").fetchone() == ("catastrophic",)


def test_a_validation_of_an_unrecorded_run_is_still_recorded(db) -> None:
    record_validation(db, _validation("ghost", "catastrophic"))
    assert db.execute("SELECT count(*) FROM runs").fetchone() == (0,)
    assert db.execute("SELECT status FROM validations").fetchone() == ("catastrophic",)


def test_an_unknown_validation_status_is_refused_before_anything_is_written(db) -> None:
    record_run(db, run_row("r3"), [])
    with pytest.raises(ResultsError, match="validations.status: expected one of passed|failed"):
        record_validation(db, _validation("r3", "broken"))
    assert _status(db, "r3")[0] == "completed"
    assert db.execute("SELECT count(*) FROM validations").fetchone() == (0,)
