"""Reviews in results.db: material, verdicts, ratings, history, review.json,
the report; proofs with validations; migration 0007 of an existing database."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tcab.catalog import resolve_case
from tcab.errors import ResultsError
from tcab.results import (
    MIGRATIONS,
    SCHEMA_VERSION,
    open_db,
    record_run,
    record_validation,
    schema_version,
)
from tcab.results.report import build_report, connect
from tcab.results.reviews import Review, ReviewMaterial, record_review, worst_rating
from tcab.results.terminal import print_report
from tests.support.paths import CATALOG_FIXTURES
from tests.support.results_rows import run_row

ORIGINAL = CATALOG_FIXTURES / "original"
RUN = "20260101-glint-night-1"


@pytest.fixture(scope="module")
def glint():
    return resolve_case(ORIGINAL, "glint", "v1.0.0")


@pytest.fixture
def night(glint):
    return ReviewMaterial.of_case(glint, "night", "d" * 64)


@pytest.fixture
def run_dir(tmp_path, db):
    folder = tmp_path / "results" / "runs" / RUN
    folder.mkdir(parents=True)
    record_run(db, run_row(RUN, case_slug="glint", case_type="end-to-end", variant="night",
                           run_dir=str(folder)), [])
    return folder


def _review(reviewer="ada", **over) -> Review:
    values = {"verdicts": {"tile-lights": "pass", "title-shows": "fail", "moon-shows": "pass"},
              "ratings": {"play": "great", "mood": "scuffed"}, "note": "Lights work; the title is wrong."}
    values.update(over)
    return Review(RUN, reviewer, values["note"], values["verdicts"], values["ratings"])


def _count(db, table):
    return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_a_review_lands_with_score_rating_material_and_review_json(db, run_dir, night):
    assert [i.id for i in night.items] == ["tile-lights", "title-shows", "moon-shows"]
    outcome = record_review(db, _review(), night, run_dir=run_dir)
    # tile-lights (2) + moon-shows (1) passed out of 2 + 1 + 1; worst of great and scuffed.
    assert (outcome.score, outcome.max_score, outcome.rating) == (3, 4, "scuffed")
    row = db.execute("SELECT reviewer, note, score, max_score, rating, current FROM reviews").fetchone()
    assert row == ("ada", "Lights work; the title is wrong.", 3, 4, "scuffed", 1)
    assert dict(db.execute("SELECT item_id, verdict FROM review_verdicts").fetchall()) == _review().verdicts
    assert _count(db, "review_items") == 3 and _count(db, "review_domains") == 2
    doc = json.loads((run_dir / "review.json").read_text())
    assert doc["review"]["reviewer"] == "ada" and doc["review"]["rating"] == "scuffed"
    assert doc["case"] == {"slug": "glint", "version": "v1.0.0", "variant": "night", "digest": "d" * 64}
    assert {v["item"]: v["verdict"] for v in doc["review"]["verdicts"]} == _review().verdicts
    assert doc["history"] == []


def test_a_second_review_replaces_the_first_and_keeps_the_history(db, run_dir, night):
    first = record_review(db, _review(), night, run_dir=run_dir)
    second = record_review(db, _review("grace", ratings={"play": "flawless", "mood": "broken"},
                                       verdicts={"tile-lights": "fail", "title-shows": "pass",
                                                 "moon-shows": "pass"}), night, run_dir=run_dir)
    assert (second.score, second.rating) == (2, "broken")
    rows = db.execute("SELECT id, reviewer, current FROM reviews ORDER BY id").fetchall()
    assert rows == [(first.id, "ada", 0), (second.id, "grace", 1)]
    assert _count(db, "review_items") == 3  # material replaced, not duplicated
    doc = json.loads((run_dir / "review.json").read_text())
    assert doc["review"]["reviewer"] == "grace"
    assert [h["reviewer"] for h in doc["history"]] == ["ada"]
    with pytest.raises(sqlite3.IntegrityError):  # at most one current review per run
        db.execute("UPDATE reviews SET current = 1")


@pytest.mark.parametrize("over, message", [
    ({"verdicts": {"tile-lights": "pass", "title-shows": "fail"}}, "verdict missing for moon-shows"),
    ({"verdicts": {"tile-lights": "pass", "title-shows": "fail", "moon-shows": "meh"}}, "expected one of pass|fail"),
    ({"verdicts": {**_review().verdicts, "ghost": "pass"}}, "no such review item"),
    ({"ratings": {"play": "great"}}, "rating missing for mood"),
    ({"ratings": {"play": "great", "mood": "awful"}}, "expected one of flawless|great|passable|scuffed|broken"),
    ({"note": "  "}, "note: required"),
    ({"note": "x" * 4001}, "note: at most 4000"),
])
def test_incomplete_or_bad_reviews_are_refused_and_write_nothing(db, run_dir, night, over, message):
    with pytest.raises(ResultsError, match=message):
        record_review(db, _review(**over), night, run_dir=run_dir)
    assert _count(db, "reviews") == _count(db, "review_items") == 0
    assert not (run_dir / "review.json").exists()


@pytest.mark.parametrize("reviewer, message", [("", "reviewer: required"), ("a\x1b[31m", "control"),
                                               ("x" * 101, "at most 100")])
def test_a_bad_reviewer_name_is_refused(db, run_dir, night, reviewer, message):
    with pytest.raises(ResultsError, match=message):
        record_review(db, _review(reviewer), night, run_dir=run_dir)


def test_a_review_of_another_case_or_an_unknown_run_is_refused(db, run_dir, glint):
    base = ReviewMaterial.of_case(glint, "base")
    with pytest.raises(ResultsError, match="not of glint@v1.0.0 \\(base\\)"):
        record_review(db, _review(verdicts={"tile-lights": "pass", "title-shows": "pass"},
                                  ratings={"play": "great"}), base, run_dir=run_dir)
    assert _count(db, "reviews") == 0 and _count(db, "review_items") == 0


def test_review_json_that_cannot_be_written_rolls_the_review_back(db, run_dir, night, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(OSError):
        record_review(db, _review(), night, run_dir=blocker)
    assert _count(db, "reviews") == _count(db, "review_verdicts") == _count(db, "review_items") == 0


def test_worst_rating_follows_the_originals_scale():
    assert worst_rating({"a": "flawless", "b": "passable", "c": "great"}) == "passable"
    assert worst_rating(["broken", "flawless"]) == "broken"
    assert worst_rating({}) is None


def test_report_shows_the_current_review_score_and_rating(db, db_path, run_dir, night, tmp_path):
    record_review(db, _review(), night, run_dir=run_dir)
    record_review(db, _review("grace", ratings={"play": "great", "mood": "broken"}), night, run_dir=run_dir)
    conn = connect(db_path)
    report = build_report(conn)
    group, = [g for g in report.groups if g.case_slug == "glint"]
    review, = group.reviews
    assert (review.run_id, review.reviewer, review.score, review.max_score, review.rating, review.reviews) == \
        (RUN, "grace", 3, 4, "broken", 2)
    from rich.console import Console
    console = Console(record=True, width=200)
    print_report(report, console)
    text = console.export_text()
    assert "Human reviews" in text and "grace" in text and "3/4" in text and "broken" in text
    from tcab.results.html import write_html
    page = write_html(report, conn, tmp_path / "html", tmp_path / "results").read_text()
    assert "<h3>Human reviews</h3>" in page and "3/4" in page and "broken" in page
    conn.close()


def test_proofs_ride_with_the_validation_and_are_replaced(db, run_dir):
    base = {"run_id": RUN, "case_slug": "glint", "case_version": "v1.0.0", "variant": "night", "status": "passed"}
    proofs = [{"id": "board", "name": "Board", "dest": "proof/board.png", "kind": "image", "status": "present",
               "size": 10, "sha256": "a" * 64, "detail": ""},
              {"id": "moon", "name": "Moon", "dest": "proof/moon.png", "kind": "image", "status": "refused",
               "size": None, "sha256": None, "detail": "a symlink (never followed)"}]
    record_validation(db, {**base, "proofs": proofs})
    rows = db.execute("SELECT proof_id, status, detail FROM proofs ORDER BY seq").fetchall()
    assert rows == [("board", "present", ""), ("moon", "refused", "a symlink (never followed)")]
    record_validation(db, {**base, "proofs": proofs[:1]})
    assert _count(db, "proofs") == 1
    with pytest.raises(ResultsError, match="proofs.status: expected one of present|missing|refused"):
        record_validation(db, {**base, "proofs": [{**proofs[0], "status": "maybe"}]})
    assert _count(db, "proofs") == 1


def test_migration_0007_keeps_an_existing_database(db_path):
    old = open_db(db_path, migrations=MIGRATIONS[:6])
    record_run(old, run_row("old-run", case_slug="glint", case_type="end-to-end", variant="night"), [])
    record_validation(old, {"run_id": "old-run", "case_slug": "glint", "case_version": "v1.0.0",
                            "variant": "night", "status": "passed"})
    assert schema_version(old) == 6 and not old["reviews"].exists()
    old.close()
    conn = connect(db_path)  # what `tcab report` does: migrates an older database first
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION  # 0007 and every later one
    assert conn.execute("SELECT id FROM runs").fetchall() == [("old-run",)]
    assert conn.execute("SELECT count(*) FROM validations").fetchone()[0] == 1
    for table in ("proofs", "review_items", "review_domains", "reviews", "review_verdicts", "review_ratings"):
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
    conn.close()
