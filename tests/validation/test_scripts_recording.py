"""Recording what the validation scripts decided (record_item_decisions):
what a hostile build leaves in an assertion, the case digest beside the
material, and a log tail that keeps the failures within results.db's cap."""

from __future__ import annotations

import dataclasses

import pytest

from tcab.results import open_db, record_run
from tcab.results.decisions import item_states
from tcab.validation.scripts import ScriptItem, record_item_decisions, run_scripts
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
