"""The sweep's doit backend: doit's sqlite3 table, read in one query."""

from __future__ import annotations

from doit.dependency import JSONCodec, SqliteDB

from tcab.tasks.doitdb import BACKEND, PreloadedSqliteDB, backend_name


def _written_by_doit(path, rows):
    db = SqliteDB(str(path), codec=JSONCodec())
    for task, values in rows.items():
        for key, value in values.items():
            db.set(task, key, value)
    db.dump()


def test_reads_what_doits_own_backend_wrote(tmp_path):
    path = tmp_path / ".doit.db"
    _written_by_doit(path, {"runs:a": {"_values_:": {"x": 1}, "result:": "r"}, "seed:b": {"checker:": "MD5Checker"}})
    db = PreloadedSqliteDB(str(path), codec=JSONCodec())
    assert db.in_("seed:b") and not db.in_("never:ran")
    assert db.get("runs:a", "_values_:") == {"x": 1}
    assert db.get("runs:a", "result:") == "r"
    assert db.get("seed:b", "checker:") == "MD5Checker"
    assert db.get("never:ran", "result:") is None


def test_one_query_serves_every_lookup(tmp_path):
    path = tmp_path / ".doit.db"
    _written_by_doit(path, {f"runs:{i}": {"result:": i} for i in range(50)})
    db = PreloadedSqliteDB(str(path), codec=JSONCodec())
    statements = []
    db._conn.set_trace_callback(statements.append)
    assert [db.get(f"runs:{i}", "result:") for i in range(50)] == list(range(50))
    assert len([s for s in statements if s.lower().startswith("select")]) == 1


def test_writes_and_removals_persist_for_doits_backend(tmp_path):
    path = tmp_path / ".doit.db"
    _written_by_doit(path, {"old": {"result:": 1}, "gone": {"result:": 2}})
    db = PreloadedSqliteDB(str(path), codec=JSONCodec())
    db.set("new", "result:", 3)
    db.remove("gone")
    assert not db.in_("gone") and db.get("gone", "result:") is None
    db.dump()
    back = SqliteDB(str(path), codec=JSONCodec())
    assert back.get("new", "result:") == 3
    assert back.get("old", "result:") == 1
    assert back.get("gone", "result:") is None


def test_remove_all_empties_it(tmp_path):
    path = tmp_path / ".doit.db"
    _written_by_doit(path, {"a": {"result:": 1}})
    db = PreloadedSqliteDB(str(path), codec=JSONCodec())
    db.remove_all()
    assert not db.in_("a") and db.get("a", "result:") is None


def test_the_installed_package_registers_it_for_doit():
    # make setup installs tcab; doit finds the backend through its entry point.
    assert backend_name() == BACKEND
