"""Point reads of results.db that need neither sqlite-utils nor migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def recorded_run(db_path: Path | str, run_id: str) -> dict[str, Any] | None:
    """The ``runs`` row of ``run_id`` as a dict, or None when it (or the database) is absent."""
    path = Path(db_path)
    if not path.exists():
        return None
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)
    try:
        conn.row_factory = sqlite3.Row
        row = conn.execute("SELECT * FROM runs WHERE id = ?", [run_id]).fetchone()
    except sqlite3.OperationalError:  # a database without the runs table yet
        return None
    finally:
        conn.close()
    return dict(row) if row is not None else None
