"""Recording what the validation scripts decided (record_item_decisions):
what a hostile build leaves in an assertion, the case digest beside the
material, and a log tail that keeps the failures within results.db's cap."""

from __future__ import annotations

import dataclasses

import pytest

from tcab.catalog import case_digest
from tcab.results import open_db, record_run
from tcab.results.decisions import MAX_LOG_TAIL, item_states
from tcab.validation.scripts import ItemDecision, ScriptItem, record_item_decisions, run_scripts
from tests.support.original import ORIGINAL, load
from tests.support.results_rows import run_row
from tests.support.scripted_builds import SCRIPTS, build

CASCADE = ORIGINAL / "end-to-end/easy/cascade/v2.0.0"
RUN = "20260101-cascade-draw-one-1"


@pytest.fixture
def db(tmp_path):
    database = open_db(tmp_path / "results" / "results.db")
    record_run(database, run_row(RUN, case_slug="cascade", case_version="v2.0.0", case_type="end-to-end",
                                 variant="draw-one"), [])
    yield database
    database.close()


def test_an_answer_of_undefined_is_recorded_as_undefined(tmp_path, db):
    # The build's bump answers undefined: the runner's JSON has "expected" and no "actual".
    [decision] = run_scripts(build(tmp_path, "bump-undefined"),
                             [ScriptItem("tally.bump-answers", SCRIPTS / "bump-answers.mjs")], tmp_path / "out",
                             handle="__tally", tick_hz=60)
    assert decision.passed is False, decision
    assert decision.assertions == ({"label": "a bump answers the count", "pass": False, "expected": "2"},)
    # Recorded as the (scripted) item of a case that has one.
    decision = dataclasses.replace(decision, item="deal.stock-count")
    assert record_item_decisions(db, load(CASCADE), RUN, "draw-one", tmp_path, (decision,)) == 1
    tail = item_states(db, RUN)["deal.stock-count"].script["log_tail"]
    assert "FAILED a bump answers the count: expected 2, got undefined" in tail


def _digests(db) -> set:
    return {r[0] for r in db.conn.execute("SELECT case_digest FROM review_items WHERE case_slug = 'cascade'")}


def test_the_material_is_recorded_with_the_case_digest(tmp_path, db):
    case = load(CASCADE)
    decision = ItemDecision("deal.columns", True, None, ({"label": "seven columns", "pass": True},))
    record_item_decisions(db, case, RUN, "draw-one", tmp_path, (decision,))
    assert _digests(db) == {case_digest(case)}
    # The validation record's own digest, when the caller hands it over.
    record_item_decisions(db, case, RUN, "draw-one", tmp_path, (decision,), digest="d" * 64)
    assert _digests(db) == {"d" * 64}


def test_the_failures_survive_the_log_tail_cap(tmp_path, db):
    # A flooded log fills results.db's cap (the tail is kept): the failures come last.
    log = tuple(f"console.log: line {i} " + "#" * 480 for i in range(40))
    assert sum(map(len, log)) > MAX_LOG_TAIL
    decision = ItemDecision("deal.stock-count", False, None,
                            ({"label": "the stock holds 24 cards", "pass": False, "expected": "24", "actual": "23"},
                             {"label": "the waste is empty", "pass": True}), log=log)
    record_item_decisions(db, load(CASCADE), RUN, "draw-one", tmp_path, (decision,))
    tail = item_states(db, RUN)["deal.stock-count"].script["log_tail"]
    assert len(tail) == MAX_LOG_TAIL
    assert tail.endswith("line 39 " + "#" * 480 + "\nFAILED the stock holds 24 cards: expected 24, got 23")
