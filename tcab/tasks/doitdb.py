"""doit's state of a sweep (``.doit.db``), read in one query.

doit asks its backend for the state of every task it selects, up to date or
not; its ``sqlite3`` backend answers each with its own ``SELECT`` and JSON
decode, a fifth of a 20,000-task no-op sweep. This backend is the same
table (a ``.doit.db`` written by either reads in the other) read whole on
first use, each row decoded when asked for.

doit finds backends through the ``doit.BACKEND`` entry point, which exists
only once tcab is installed (``make setup``); :func:`backend_name` falls back
to doit's own ``sqlite3`` otherwise.
"""

from __future__ import annotations

from importlib import metadata

from doit.dependency import SqliteDB

BACKEND = "tcab-sqlite3"
FALLBACK = "sqlite3"


class PreloadedSqliteDB(SqliteDB):
    """doit's ``SqliteDB`` with every row fetched by the first lookup."""

    desc = "doit's sqlite3 backend, read in one query (tcab sweeps)"

    def __init__(self, name, codec, *, module_name=None):
        super().__init__(name, codec, module_name=module_name)
        self._raw: dict[str, str] | None = None

    def _rows(self) -> dict[str, str]:
        if self._raw is None:
            cursor = self._conn.cursor()
            # Plain tuples, and CAST so the column's "json" converter does not
            # decode 20,000 documents of which most are asked for once.
            cursor.row_factory = None
            self._raw = dict(cursor.execute("select task_id, cast(task_data as text) from doit"))
        return self._raw

    def _get_task_data(self, task_id):
        raw = self._rows().get(task_id)
        return {} if raw is None else self.codec.decode(raw)

    def in_(self, task_id):
        return task_id in self._cache or task_id in self._rows()

    def remove(self, task_id):
        super().remove(task_id)
        self._rows().pop(task_id, None)

    def remove_all(self):
        super().remove_all()
        self._raw = {}


def backend_name() -> str:
    """The ``backend`` of a sweep's doit config: ours when doit can find it."""
    try:
        points = metadata.distribution("tcab").entry_points
    except metadata.PackageNotFoundError:
        return FALLBACK
    registered = any(p.group == "doit.BACKEND" and p.name == BACKEND for p in points)
    return BACKEND if registered else FALLBACK
