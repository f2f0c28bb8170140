"""Checklist decisions in results.db (migration 0012): a validation script's
decision per item with its outputs and log tail, a reviewer's override with a
required note, the history of both, each item's state, the weighted score,
and the material of a format-2 checklist (categories) recorded beside them."""

from __future__ import annotations

import sqlite3

import pytest
import sqlite_utils

from tcab.catalog import resolve_case
from tcab.errors import ResultsError
from tcab.results import MIGRATIONS, open_db, record_run
from tcab.results.decisions import (
    MAX_LOG_TAIL,
    DecisionOutput,
    checklist_score,
    item_states,
    record_decision,
    record_override,
)
from tcab.results.reviews import ReviewMaterial
from tcab.results.store import migrate
from tests.support.paths import CATALOG_FIXTURES
from tests.support.results_rows import run_row

RUN = "20260101-cascade-draw-one-1"


@pytest.fixture(scope="module")
def material():
    case = resolve_case(CATALOG_FIXTURES / "original", "cascade", "v2.0.0")
    return ReviewMaterial.of_case(case, "draw-one", "c" * 64)


@pytest.fixture
def run(db):
    record_run(db, run_row(RUN, case_slug="cascade", case_version="v2.0.0", case_type="end-to-end",
                           variant="draw-one"), [])
    return RUN


def _clock():
    ticks = iter(range(10, 60))
    return lambda: f"2026-01-01T00:00:{next(ticks)}+00:00"


def test_script_decisions_and_overrides_keep_their_history(db, run, material):
    now = _clock()
    layout = DecisionOutput("layout", "image", "validation/deal.columns__layout.png", "a" * 64, 120)
    first = record_decision(db, run, "deal.columns", "fail", [layout], "dealt 6 columns\n", material=material,
                            now=now)
    second = record_decision(db, run, "deal.columns", "pass", [layout], "x" * (MAX_LOG_TAIL + 50) + "END",
                             material=material, now=now)
    assert second > first
    state = item_states(db, run)["deal.columns"]
    assert (state.state, state.script["id"], state.override) == ("pass", second, None)
    assert state.script["outputs"] == [{"id": "layout", "kind": "image", "path": "validation/deal.columns__layout.png",
                                        "sha256": "a" * 64, "size": 120}]
    assert len(state.script["log_tail"]) == MAX_LOG_TAIL and state.script["log_tail"].endswith("END")
    # the reviewer overrides, then changes their mind: the newest override decides, all are kept
    record_override(db, run, "deal.columns", "fail", author="ada", note="Columns overlap the stock.",
                    material=material, now=now)
    record_override(db, run, "deal.columns", "pass", author="grace", note="Overlap is by design.",
                    material=material, now=now)
    state = item_states(db, run)["deal.columns"]
    assert (state.state, state.override["author"], state.override["note"]) == ("pass", "grace", "Overlap is by design.")
    assert [(h["source"], h["verdict"], h["current"]) for h in state.history] == [
        ("override", "pass", 1), ("override", "fail", 0), ("script", "pass", 1), ("script", "fail", 0)]
    # an override decides an item no script decides, too
    record_override(db, run, "ui.fits-window", "fail", author="ada", note="Scrolls at 1280x720.",
                    material=material, now=now)
    assert item_states(db, run)["ui.fits-window"].state == "fail"


def test_material_with_categories_is_recorded_beside_the_decisions(db, run, material):
    record_decision(db, run, "stock.turn-count", "undecided", [], "TypeError: snapshot is not a function",
                    material=material, detail="the script threw: TypeError")
    cats = db.execute("SELECT category_id, title FROM review_categories WHERE variant = 'draw-one' ORDER BY seq")
    assert cats.fetchall() == [("deal", "Deal"), ("foundations", "Foundations"), ("stock", "Stock and waste"),
                               ("ui", "UI")]
    row = db.execute("SELECT category, validation FROM review_items WHERE item_id = 'stock.turn-count'").fetchone()
    assert row[0] == "stock" and '"script": "validation/stock/turn-count.mjs"' in row[1]
    state = item_states(db, run)["stock.turn-count"]
    assert (state.state, state.script["detail"]) == ("undecided", "the script threw: TypeError")


def test_weighted_checklist_score(db, run, material):
    for item, verdict in (("deal.columns", "pass"), ("deal.stock-count", "fail"), ("stock.recycle", "undecided")):
        record_decision(db, run, item, verdict, material=material, detail="hung" if verdict == "undecided" else None)
    record_override(db, run, "ui.victory", "pass", author="ada", note="Bounces nicely.", material=material)
    weights = {i.id: i.weight for i in material.items}
    # columns (1) + victory (2) passed, of 9 points; three items decided pass or fail
    assert checklist_score(weights, item_states(db, run)) == (3, 9, 3)


BAD = [
    (dict(item_id="deal.nope"), "item 'deal.nope': no such review item in cascade@v2.0.0 (draw-one)"),
    (dict(item_id="ui.fits-window"), "item 'ui.fits-window': it has no validation script"),
    (dict(verdict="maybe"), "verdict: expected one of pass|fail|undecided, got 'maybe'"),
    (dict(verdict="undecided"), "detail: required for an undecided item"),
    (dict(outputs=[DecisionOutput("secret", "image", "a.png")]),
     "outputs: 'secret' is not an output item 'deal.columns' declares (declared: layout)"),
    (dict(outputs=[DecisionOutput("layout", "video", "a.webm")]), "outputs: 'layout' is declared image, got 'video'"),
    (dict(outputs=[DecisionOutput("layout", "image", "../../etc/passwd")]),
     "outputs: 'layout': expected a relative path without '..', got '../../etc/passwd'"),
    (dict(outputs=[DecisionOutput("layout", "image", "/etc/passwd")]),
     "outputs: 'layout': expected a relative path without '..', got '/etc/passwd'"),
    (dict(run_id="nope"), "no run 'nope' in results.db"),
]


@pytest.mark.parametrize("change,message", BAD, ids=[m[:40] for _, m in BAD])
def test_bad_decisions_are_refused_and_write_nothing(db, run, material, change, message):
    args = {"run_id": run, "item_id": "deal.columns", "verdict": "pass", "outputs": [], **change}
    with pytest.raises(ResultsError) as err:
        record_decision(db, args["run_id"], args["item_id"], args["verdict"], args["outputs"], "",
                        material=material)
    assert str(err.value).startswith(message)
    assert db.execute("SELECT count(*) FROM item_decisions").fetchone()[0] == 0
    assert not db.conn.in_transaction


@pytest.mark.parametrize("kwargs,message", [
    (dict(note=" "), "note: required"), (dict(author=""), "author: required"),
    (dict(author="a\x1bb"), "author: control characters are not allowed"),
    (dict(verdict="undecided"), "verdict: expected pass|fail, got 'undecided'"),
])
def test_an_override_needs_a_verdict_an_author_and_a_note(db, run, material, kwargs, message):
    args = {"verdict": "fail", "author": "ada", "note": "why", **kwargs}
    with pytest.raises(ResultsError, match=message.replace("|", r"\|")):
        record_override(db, run, "deal.columns", args["verdict"], author=args["author"], note=args["note"],
                        material=material)
    assert db.execute("SELECT count(*) FROM item_decisions").fetchone()[0] == 0


def test_an_override_row_without_a_note_is_refused_by_the_schema(db, run):
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("INSERT INTO item_decisions (run_id, item_id, source, current, verdict, decided_at) "
                   "VALUES (?, 'deal.columns', 'override', 1, 'pass', 'now')", [run])


def test_migration_0012_upgrades_a_database_with_reviews(tmp_path):
    path = tmp_path / "results.db"
    old = sqlite_utils.Database(path)
    assert migrate(old, MIGRATIONS[:11]) == 11
    old.execute("INSERT INTO review_items (case_slug, case_version, variant, item_id, seq, title, text, weight) "
                "VALUES ('glint', 'v1.0.0', 'base', 'tile-lights', 0, 'T', 'x', 2)")
    old.conn.commit()
    old.close()
    db = open_db(path)
    assert MIGRATIONS[11].name == "0012_review_categories"
    assert db.execute("SELECT item_id, category, validation FROM review_items").fetchall() == [
        ("tile-lights", None, None)]
    assert db.execute("SELECT count(*) FROM item_decisions").fetchone()[0] == 0
    db.close()


def test_the_report_shows_the_weighted_checklist_of_decided_runs(db, run, material, tmp_path):
    from tcab.results.columns import group_tables
    from tcab.results.export import report_csv
    from tcab.results.report import build_report
    from tcab.results.terminal import print_report

    for item, verdict in (("deal.columns", "pass"), ("deal.stock-count", "fail"), ("stock.recycle", "undecided")):
        record_decision(db, run, item, verdict, material=material, detail="hung" if verdict == "undecided" else None)
    record_override(db, run, "deal.stock-count", "pass", author="ada", note="It is 24.", material=material)
    report = build_report(db.conn)
    group, = [g for g in report.groups if g.case_slug == "cascade"]
    c, = group.checklists
    assert (c.run_id, c.score, c.max_score, c.decided, c.items, c.undecided, c.overrides) == (RUN, 2, 9, 2, 8, 1, 1)
    table, = [t for t in group_tables(group) if t.key == "checklists"]
    assert [col.text(c) for col in table.columns][3:] == ["2/9", "2/8", "1", "1"]
    assert f"{RUN}" in report_csv(report, "checklists") and ",2,9,2,8,1,1" in report_csv(report, "checklists")
    from rich.console import Console
    console = Console(record=True, width=200)
    print_report(report, console)
    text = console.export_text()
    assert "Checklist (validation scripts and overrides)" in text and "2/9" in text
