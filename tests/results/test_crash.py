"""A writer killed with SIGKILL leaves whole records only; fresh concurrent opens agree."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

from tcab.results import SCHEMA_VERSION, open_db, record_match, record_run, schema_version
from tests.support.results_rows import match_row, run_row, seat


def _write_forever(path: str, ready) -> None:
    db = open_db(path)
    ready.set()
    n = 0
    while True:
        record_run(db, run_row(f"r{n % 500}", tokens_input=n),
                   [{"stage": "pull"}, {"stage": "session"}, {"stage": "collect"}])
        record_match(db, match_row(n % 300), [seat(0, "a", "win"), seat(1, "b", "loss")])
        n += 1


def test_sigkill_mid_sweep_leaves_no_half_written_record(db_path):
    open_db(db_path).close()
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    proc = ctx.Process(target=_write_forever, args=(str(db_path), ready))
    proc.start()
    assert ready.wait(60)
    time.sleep(1.0)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(10)
    assert proc.exitcode == -signal.SIGKILL

    db = open_db(db_path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db["runs"].count > 0
        # Every run has exactly its three stages, every match its two seats.
        assert db.execute("SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM stages s "
                          "WHERE s.run_id = r.id) != 3").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM matches m WHERE (SELECT count(*) FROM match_seats "
                          "s WHERE s.match_key = m.key) != 2").fetchone()[0] == 0
        matches = db["matches"].count
        assert db.execute("SELECT sum(matches) FROM player_totals").fetchone()[0] == 2 * matches
        # And the database takes writes again.
        record_run(db, run_row("after"), [])
    finally:
        db.close()


def _open_fresh(path: str, barrier) -> None:
    barrier.wait(30)
    db = open_db(path)
    record_run(db, run_row(f"r{os.getpid()}"), [])
    db.close()


def test_two_processes_creating_the_same_database_at_once(db_path):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_open_fresh, args=(str(db_path), barrier)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    db = open_db(db_path)
    assert schema_version(db) == SCHEMA_VERSION
    assert db["runs"].count == 2
    assert db.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == SCHEMA_VERSION
    db.close()
