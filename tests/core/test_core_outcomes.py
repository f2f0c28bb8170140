"""The one vocabulary of outcomes (tcab/outcomes.py) and where it is used."""

from __future__ import annotations

import json

import pytest

from tcab.outcomes import KEPT_STATUSES, RUN_STATUSES, SEAT_OUTCOMES, RunStatus, SeatOutcome


def test_what_counts_as_a_result():
    assert KEPT_STATUSES == {"completed", "timed_out", "hung", "harness_error", "limit_exceeded",
                             "catastrophic"}
    assert not RunStatus.INFRASTRUCTURE.is_result and not RunStatus.CANCELED.is_result
    assert RunStatus.LIMIT_EXCEEDED.is_result  # the harness's own ceiling: never retried


def test_statuses_are_their_strings_in_json_and_compare_equal():
    assert json.dumps({"status": RunStatus.LIMIT_EXCEEDED}) == '{"status": "limit_exceeded"}'
    assert RunStatus("canceled") is RunStatus.CANCELED and RunStatus.CANCELED == "canceled"
    assert RUN_STATUSES == tuple(s.value for s in RunStatus)
    with pytest.raises(ValueError):
        RunStatus("done")


def test_every_status_has_a_distinct_label_and_colour():
    assert len({s.label for s in RunStatus}) == len(RunStatus)
    assert len({s.colour for s in RunStatus}) == len(RunStatus)


def test_a_seat_with_a_forfeit_is_a_forfeit_whatever_its_outcome_says():
    assert SeatOutcome.of({"outcome": "loss", "forfeit": {"reason": "fuel", "tick": 3}}) is SeatOutcome.FORFEIT
    assert SeatOutcome.of({"outcome": "win", "forfeit": None}) is SeatOutcome.WIN
    assert SEAT_OUTCOMES == ("win", "draw", "loss", "forfeit")
    with pytest.raises(ValueError):
        SeatOutcome.of({"outcome": "victory"})


def test_the_database_and_the_sweep_use_the_same_vocabulary():
    from tcab.results.schema import RUN_STATUSES as DB_STATUSES
    from tcab.runs.record import RunRecord  # noqa: F401  (imports cleanly with the enum)

    assert DB_STATUSES == RUN_STATUSES


def test_the_report_shows_every_status_with_its_label(tmp_path):
    from tcab.results import open_db, record_run
    from tcab.results.html import write_html
    from tcab.results.report import Filters, build_report, connect
    from tests.support.results_rows import run_row

    db = open_db(tmp_path / "results.db")
    record_run(db, run_row("r1", status="limit_exceeded"), [])
    db.close()
    conn = connect(tmp_path / "results.db")
    report = build_report(conn, Filters(), database=str(tmp_path / "results.db"))
    (group,) = report.groups
    assert group.runs[0].outcomes["limit_exceeded"] == 1
    write_html(report, conn, tmp_path / "html", tmp_path)
    conn.close()
    page = (tmp_path / "html" / "index.html").read_text()
    for status in RunStatus:
        assert f'<abbr title="{status}">{status.label}</abbr>' in page


def test_validated_run_is_the_one_owner_of_completed_and_catastrophic() -> None:
    from tcab.outcomes import RunStatus, validated_run

    assert validated_run("completed", "catastrophic", "build: exit 2") == (RunStatus.CATASTROPHIC,
                                                                           "validation: build: exit 2")
    assert validated_run("catastrophic", "passed", "", "validation: old") == (RunStatus.COMPLETED, "")
    assert validated_run("timed_out", "catastrophic", "x", "max runtime") == (RunStatus.TIMED_OUT, "max runtime")
    assert validated_run("completed", "error", "browser gone") == (RunStatus.COMPLETED, "")
