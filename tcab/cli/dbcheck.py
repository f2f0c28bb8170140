"""``results.db`` checked before any work starts.

A run, build, validation or match writes its row at the end; a results.db
that is a folder, garbage, another program's SQLite database or one from a
newer tcab would only be found then, after the container ran, leaving a
run folder without a row. This check opens it read-only first (nothing is
created or migrated here) and refuses it with a message naming the path.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tcab.errors import ResultsError

SQLITE_MAGIC = b"SQLite format 3\x00"


def check_results_db(path: Path) -> None:
    """Raise ``ResultsError`` unless ``path`` is absent, empty or a tcab results database
    this tcab can migrate. Writes nothing."""
    from tcab.results.schema import SCHEMA_VERSION
    from tcab.results.store import MIGRATIONS_TABLE

    for parent in path.parents:
        if parent.exists() or parent.is_symlink():
            if not parent.is_dir():
                raise ResultsError(f"{path}: cannot create the results database: {parent} is not a folder")
            break
    if not path.exists() and not path.is_symlink():
        return
    if not path.is_file():
        raise ResultsError(f"{path}: not a results database: it is "
                           f"{'a folder' if path.is_dir() else 'not a regular file'}")
    try:
        with path.open("rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read the results database: {exc.strerror or exc}") from None
    if not head:
        return  # an empty file is a new database
    if head != SQLITE_MAGIC:
        raise ResultsError(f"{path}: not a results database: not a SQLite file")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise ResultsError(f"{path}: not a usable SQLite database: {exc}") from None
    if tables and MIGRATIONS_TABLE not in tables:
        shown = ", ".join(sorted(tables)[:5])
        raise ResultsError(f"{path}: a SQLite database, but not a tcab results database "
                           f"(tables: {shown}); move it away or set TCAB_RESULTS")
    if version > SCHEMA_VERSION:
        raise ResultsError(f"{path}: schema version {version} is newer than this tcab knows "
                           f"({SCHEMA_VERSION}); upgrade tcab")
