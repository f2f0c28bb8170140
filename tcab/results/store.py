"""Opening results.db: connection settings, migrations, write transactions.

One ``sqlite_utils.Database`` per caller, passed explicitly; nothing here
keeps a module-level connection or registers process-wide adapters.
"""

from __future__ import annotations

import contextlib
import datetime
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from tcab.errors import ResultsError
from tcab.results.schema import MIGRATIONS, Migration
from tcab.results.sqlite import sqlite_utils

MIGRATIONS_TABLE = "schema_migrations"
# doit -n N runs several writers at once; a writer waits this long for the lock.
BUSY_TIMEOUT_MS = 60_000


def open_db(path: Path | str, *, migrations: Sequence[Migration] = MIGRATIONS) -> sqlite_utils.Database:
    """Open (creating it and its parent folders if needed) and migrate ``path``.

    The database is put in WAL mode (readers never block the writer) with
    foreign keys on, and every pending migration is applied.

    Raises ResultsError if the file is not a SQLite database or its schema is
    newer than this tcab knows.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = sqlite_utils.Database(path, execute_plugins=False)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _enable_wal(db)
        # With WAL, NORMAL loses no committed data on a process crash (SIGKILL);
        # only a power loss may drop the last transactions, never corrupt.
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise ResultsError(f"{path}: not a usable SQLite database: {exc}") from exc
    try:
        migrate(db, migrations, where=str(path))
    except BaseException:
        db.close()
        raise
    return db


def _enable_wal(db: sqlite_utils.Database) -> None:
    # Two processes creating the file at once: switching the journal mode needs
    # an exclusive lock, and SQLite answers "locked" at once (no busy handler)
    # when waiting could deadlock. Retry within the busy timeout.
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            db.enable_wal()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@contextlib.contextmanager
def write_transaction(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """One ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on any error.

    IMMEDIATE takes the write lock up front, so two processes never both read
    and then fail to upgrade to a writer (WAL's SQLITE_BUSY_SNAPSHOT).
    """
    if db.conn.in_transaction:
        raise ResultsError("results.db: a write transaction is already open on this connection")
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise
    else:
        db.conn.execute("COMMIT")


def applied_migrations(db: sqlite_utils.Database) -> list[tuple[int, str]]:
    """The (version, name) rows of ``schema_migrations``, in order; empty for a new file."""
    if not db[MIGRATIONS_TABLE].exists():
        return []
    return [
        (row[0], row[1])
        for row in db.execute(f"SELECT version, name FROM {MIGRATIONS_TABLE} ORDER BY version")
    ]


def schema_version(db: sqlite_utils.Database) -> int:
    """The number of migrations applied to ``db`` (0 for an empty file)."""
    rows = applied_migrations(db)
    return rows[-1][0] if rows else 0


def migrate(db: sqlite_utils.Database, migrations: Sequence[Migration] = MIGRATIONS,
            *, where: str = "results.db") -> int:
    """Apply the pending ``migrations`` in order; return the resulting version.

    Each migration and the row recording it commit together or not at all, so
    a failure leaves the database at the previous version. Running it again on
    an up-to-date database changes nothing.

    Raises ResultsError if the database records a version above
    ``len(migrations)`` or a migration under a different name (written by a
    newer or a diverged tcab); the exception a failing migration raised is
    re-raised after rollback as ResultsError.
    """
    known = len(migrations)
    db.execute(
        f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)"
    )
    _check_known(applied_migrations(db), migrations, where)
    if schema_version(db) == known:
        return known
    for version, migration in enumerate(migrations, start=1):
        with write_transaction(db):
            # Re-read under the write lock: another process may have migrated meanwhile.
            done = applied_migrations(db)
            _check_known(done, migrations, where)
            if version <= len(done):
                continue
            try:
                for statement in migration.statements:
                    db.execute(statement)
            except sqlite3.Error as exc:
                raise ResultsError(
                    f"{where}: migration {version} {migration.name} failed: {exc}"
                ) from exc
            db.execute(
                f"INSERT INTO {MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, ?, ?)",
                [version, migration.name, _now()],
            )
            db.execute(f"PRAGMA user_version = {version}")
    return known


def _check_known(done: list[tuple[int, str]], migrations: Sequence[Migration], where: str) -> None:
    if done and done[-1][0] > len(migrations):
        raise ResultsError(
            f"{where}: schema version {done[-1][0]} is newer than this tcab knows "
            f"({len(migrations)}); upgrade tcab or use another results folder"
        )
    for version, name in done:
        expected = migrations[version - 1].name
        if name != expected:
            raise ResultsError(
                f"{where}: schema_migrations: version {version} is {name!r}, "
                f"this tcab expects {expected!r}"
            )


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
