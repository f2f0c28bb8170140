"""The record_* API: idempotence, strict keys, match keys, transactions."""

from __future__ import annotations

import multiprocessing

import pytest

from tcab.errors import ResultsError
from tcab.results import (
    match_key,
    open_db,
    record_build,
    record_match,
    record_run,
    record_tournament,
)
from tests.support.results_rows import match_row, run_row, seat


def _counts(db) -> dict[str, int]:
    return {t: db[t].count for t in ("runs", "stages", "builds", "matches", "match_seats",
                                     "tournaments", "tournament_matches", "ratings")}


def _fill(db) -> str:
    record_run(db, run_row("r1", refused=["secret.txt"]),
               [{"stage": "pull", "status": "ok"}, {"stage": "session", "exit_code": 0}])
    record_build(db, {"source": "r1", "case_slug": "capture", "case_version": "v1.0.0",
                      "status": "ok", "module_sha256": "m1", "module_size": 123})
    key = record_match(db, match_row(7), [seat(0, "m1", "win"), seat(1, "m2", "loss")])
    record_tournament(
        db,
        {"id": "t1", "case_slug": "capture", "case_version": "v1.0.0", "variant": "base",
         "participants": ["m1", "m2"], "rounds": 1},
        [{"match_key": key, "round": 1, "pairing": "m1 vs m2"}],
        [{"module_sha256": "m1", "label": "m1", "rank": 1, "rating": 1.0},
         {"module_sha256": "m2", "label": "m2", "rank": 2, "rating": -1.0}],
    )
    return key


def test_recording_twice_replaces_and_never_duplicates(db):
    _fill(db)
    first = _counts(db)
    assert first == {"runs": 1, "stages": 2, "builds": 1, "matches": 1, "match_seats": 2,
                     "tournaments": 1, "tournament_matches": 1, "ratings": 2}
    _fill(db)
    assert _counts(db) == first


def test_re_recording_a_run_replaces_every_column_and_its_stages(db):
    record_run(db, run_row("r1", tokens_input=5, status_detail="first"),
               [{"stage": "pull"}, {"stage": "start"}, {"stage": "session"}])
    record_run(db, run_row("r1", status="timed_out"), [{"stage": "pull"}])
    row = db["runs"].get("r1")
    assert row["status"] == "timed_out"
    assert row["status_detail"] is None  # a left-out column does not keep the old value
    assert row["tokens_input"] == 100
    assert [(s["stage"], s["seq"]) for s in db["stages"].rows] == [("pull", 0)]


def test_json_columns_are_stored_as_json(db):
    _fill(db)
    assert db["runs"].get("r1")["refused"] == '["secret.txt"]'
    assert db["tournaments"].get("t1")["participants"] == '["m1", "m2"]'


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda db: record_run(db, run_row("r1", tokens_in=3), []),
         "runs: unknown key 'tokens_in'"),
        (lambda db: record_run(db, run_row("r1"), [{"stage": "pull", "exitcode": 1}]),
         "stages: unknown key 'exitcode'"),
        (lambda db: record_run(db, run_row("r1", status="done"), []),
         "runs.status: expected one of completed|"),
        (lambda db: record_run(db, {k: v for k, v in run_row("r1").items() if k != "harness"}, []),
         "runs: missing required key 'harness'"),
        (lambda db: record_build(db, {"source": "x", "case_slug": "c", "case_version": "v1",
                                      "status": "ok", "sha": "m"}),
         "builds: unknown key 'sha'"),
        (lambda db: record_match(db, match_row(1, winner=0), [seat(0, "a", "win")]),
         "matches: unknown key 'winner'"),
        (lambda db: record_match(db, match_row(1), [seat(0, "a", "won")]),
         "match_seats.outcome: expected one of win|draw|loss|forfeit"),
        (lambda db: record_match(db, match_row(1), [seat(0, "a", "win", fuel=1)]),
         "match_seats: unknown key 'fuel'"),
        (lambda db: record_match(db, match_row(1), [seat(0, "a", "win"), seat(0, "b", "loss")]),
         "match_seats: duplicate seat"),
        (lambda db: record_match(db, match_row(1, key="nope"), [seat(0, "a", "win")]),
         "matches: key 'nope' is not match_key"),
        (lambda db: record_tournament(db, {"id": "t", "case_slug": "c", "case_version": "v",
                                           "variant": "b", "sructure": "x"}, [], []),
         "tournaments: unknown key 'sructure'"),
        (lambda db: record_tournament(db, {"id": "t", "case_slug": "c", "case_version": "v",
                                           "variant": "b"}, [],
                                      [{"module_sha256": "m", "label": "a", "ci": 1}]),
         "ratings: unknown key 'ci'"),
    ],
)
def test_bad_records_name_the_table_and_key_and_write_nothing(db, call, message):
    with pytest.raises(ResultsError, match=message.replace("|", r"\|")):
        call(db)
    assert sum(_counts(db).values()) == 0


def test_match_key_is_computed_from_inputs_in_seat_order(db):
    seats = [seat(1, "m2", "loss"), seat(0, "m1", "win")]  # given out of order
    key = record_match(db, match_row(3), seats)
    assert key == match_key("c" * 64, "base", 3, ["m1", "m2"])
    assert key != match_key("c" * 64, "base", 3, ["m2", "m1"])
    assert key != match_key("c" * 64, "base", 4, ["m1", "m2"])
    assert record_match(db, match_row(3, key=key), seats) == key
    assert [s["seat"] for s in db["match_seats"].rows_where(order_by="seat")] == [0, 1]


def test_a_failure_inside_the_transaction_leaves_the_old_record(db):
    record_run(db, run_row("r1"), [{"stage": "pull"}, {"stage": "session"}])
    # A trigger makes the stage INSERT fail after the old stages were deleted
    # and the run row updated: the whole record must roll back.
    db.execute("CREATE TRIGGER no_bad_stage BEFORE INSERT ON stages WHEN NEW.stage = 'bad' "
               "BEGIN SELECT RAISE(ABORT, 'bad stage'); END")
    with pytest.raises(Exception, match="bad stage"):
        record_run(db, run_row("r1", status="hung"), [{"stage": "bad"}])
    assert db["runs"].get("r1")["status"] == "completed"
    assert [s["stage"] for s in db["stages"].rows] == ["pull", "session"]
    assert not db.conn.in_transaction


def _writer(path: str, start: int) -> None:
    db = open_db(path)
    for i in range(start, start + 30):
        record_run(db, run_row(f"r{i}"), [{"stage": "pull"}])
    db.close()


def test_concurrent_writers_from_two_processes_all_land(db_path):
    open_db(db_path).close()
    procs = [multiprocessing.get_context("spawn").Process(target=_writer, args=(str(db_path), n))
             for n in (0, 30)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    db = open_db(db_path)
    assert db["runs"].count == 60 and db["stages"].count == 60
    db.close()
