"""``run_attempts``: every attempt of a sweep's plan entry (issue 26, docs/results.md).

A sweep retries an ``infrastructure`` run under a new run id
(:mod:`tcab.tasks.retries`); each attempt is one row (entry, attempt number,
run id, status, detail), and the entry's result is its last attempt. The
report reads them with plain sqlite3 (:func:`attempts_summary`).

Attempts are numbered per entry across sweeps: the next sweep after one
that gave up goes on at the next number, never at 1 again, so the last
attempt is always the entry's result (the newest run), and the report lists
an entry as retried only when an attempt before its last was retried
(``infrastructure``), within one sweep or by the next one.
"""

from __future__ import annotations

import datetime
import sqlite3
from pathlib import Path
from typing import Any

from tcab.errors import ResultsError
from tcab.outcomes import RETRIED_STATUSES, RUN_STATUSES

#: A detail is a message, not a log: longer ones are cut.
MAX_DETAIL = 2000


def record_attempt(db_path: Path, entry: str, attempt: int | None, run_id: str, status: str,
                   detail: str = "") -> None:
    """Insert or replace attempt ``attempt`` of plan entry ``entry`` (one transaction);
    ``None``: the entry's next number (its other runs' highest plus one, so a run
    redone under its own id keeps its place).

    Raises ResultsError for an unknown status or an attempt below 1.
    """
    if status not in RUN_STATUSES:
        raise ResultsError(f"run_attempts: status: expected one of {', '.join(RUN_STATUSES)}, got {status!r}")
    if attempt is not None and (not isinstance(attempt, int) or attempt < 1):
        raise ResultsError(f"run_attempts: attempt: expected an integer from 1, got {attempt!r}")
    row = (entry, attempt, run_id, status, (detail or "")[:MAX_DETAIL],
           datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"))
    # Plain sqlite3: once per run, and the run's own row has already migrated
    # the database (sqlite-utils' open_db costs ~30 ms); open_db only when not.
    if not _insert(db_path, row):
        from tcab.results.store import open_db

        open_db(db_path).close()
        if not _insert(db_path, row):
            raise ResultsError(f"{db_path}: run_attempts: the table is missing after migrating")


def _insert(db_path: Path, row: tuple) -> bool:
    """Write ``row``; False when the database has no run_attempts table yet."""
    try:
        conn = sqlite3.connect(db_path, timeout=30, isolation_level=None)
    except sqlite3.Error as exc:
        raise ResultsError(f"{db_path}: cannot open results.db: {exc}") from exc
    try:
        # As open_db does: with WAL, NORMAL loses nothing on a crash, and skips
        # an fsync per commit (~30 ms here).
        conn.execute("PRAGMA synchronous = NORMAL")
        if not _has_table(conn):
            return False
        conn.execute("BEGIN IMMEDIATE")
        entry, attempt, run_id, *rest = row
        if attempt is None:  # numbered inside the transaction: two writers never take the same number
            attempt = conn.execute("SELECT coalesce(max(attempt), 0) + 1 FROM run_attempts "
                                   "WHERE entry = ? AND run_id != ?", [entry, run_id]).fetchone()[0]
        conn.execute("INSERT OR REPLACE INTO run_attempts (entry, attempt, run_id, status, detail, recorded_at) "
                     "VALUES (?, ?, ?, ?, ?, ?)", (entry, attempt, run_id, *rest))
        conn.execute("COMMIT")
        return True
    except sqlite3.Error as exc:
        raise ResultsError(f"{db_path}: run_attempts: cannot record the attempt: {exc}") from exc
    finally:
        conn.close()


def attempts_of(conn: sqlite3.Connection, entry: str) -> list[dict[str, Any]]:
    """The attempts of one plan entry, in order."""
    if not _has_table(conn):
        return []
    # recorded_at second: databases from before the numbering went on across sweeps repeat numbers.
    rows = conn.execute("SELECT attempt, run_id, status, detail FROM run_attempts WHERE entry = ? "
                        "ORDER BY attempt, recorded_at", [entry]).fetchall()
    return [{"attempt": a, "run_id": r, "status": s, "detail": d or ""} for a, r, s, d in rows]


def attempts_summary(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Plan entries retried: an attempt before the last ended ``infrastructure``
    (an entry redone only after ``doit clean`` or a change of its inputs was
    not retried). Entry, attempts, each attempt's status, the last status."""
    if not _has_table(conn):
        return []
    rows = conn.execute(
        "SELECT entry, attempt, status, detail FROM run_attempts WHERE entry IN "
        "(SELECT entry FROM run_attempts GROUP BY entry HAVING count(*) > 1) ORDER BY entry, attempt, recorded_at"
    ).fetchall()
    found: dict[str, dict[str, Any]] = {}
    for entry, _attempt, status, detail in rows:
        item = found.setdefault(entry, {"entry": entry, "attempts": 0, "statuses": [], "last": "", "detail": ""})
        item["attempts"] += 1
        item["statuses"].append(status)
        item["last"], item["detail"] = status, detail or ""
    return [item for item in found.values() if set(item["statuses"][:-1]) & RETRIED_STATUSES]


def _has_table(conn: sqlite3.Connection) -> bool:
    # A database of an older tcab, opened read-only by the report, has no such table.
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run_attempts'").fetchone() is not None
