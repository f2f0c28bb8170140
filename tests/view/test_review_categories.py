"""The review form of a ``[review] format = 2`` case in ``tcab view`` (real
Chromium): items grouped by category, each scripted item's decision (its
outputs and log tail) shown beside it, an override with its note through the
form, its history kept; a forged or note-less override writes nothing.

The run is of the cascade fixture (tests/fixtures/catalogs/original), variant
draw-one: four categories, eight items, one added by the variant.
"""

from __future__ import annotations

import re
import sqlite3
import urllib.error
import urllib.request
from urllib.parse import urlencode

import pytest

from tcab.catalog import resolve_case
from tcab.results import open_db, record_run
from tcab.results.decisions import DecisionOutput, record_decision
from tcab.results.reviews import ReviewMaterial
from tests.support.paths import CATALOG_FIXTURES
from tests.support.run_folders import write_run
from tests.support.settings import tmp_settings
from tests.support.view_server import view_server
from tests.view.test_review import _post

ORIGINAL = CATALOG_FIXTURES / "original"
CASCADE = ORIGINAL / "end-to-end" / "easy" / "cascade" / "v2.0.0"
RUN = "20260101-cascade-draw-one-1"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("categories")
    settings = tmp_settings(root, catalog=ORIGINAL)
    case = resolve_case(ORIGINAL, "cascade", "v2.0.0")
    png = (CASCADE / "reference" / "screenshots" / "victory.png").read_bytes()
    record = write_run(settings.runs_dir, RUN, case, variant="draw-one", tree=CASCADE / "workspaces" / "base")
    out = record.run_dir / "validation"
    out.mkdir()
    (out / "deal.columns__layout.png").write_bytes(png)
    (root / "secret.png").write_bytes(png)
    (out / "deal.stock-count__stock.png").symlink_to(root / "secret.png")   # a link out of the run
    material = ReviewMaterial.of_case(case, "draw-one")
    db = open_db(settings.results_db)
    try:
        record_run(db, *record.db_rows())
        record_decision(db, RUN, "deal.columns", "pass",
                        [DecisionOutput("layout", "image", "validation/deal.columns__layout.png")],
                        "dealt 7 columns\n<script>alert(1)</script>", material=material)
        record_decision(db, RUN, "deal.stock-count", "fail",
                        [DecisionOutput("stock", "image", "validation/deal.stock-count__stock.png")],
                        "stock holds 23", material=material)
        record_decision(db, RUN, "stock.turn-count", "undecided", [], "Error: timed out after 30 s",
                        material=material, detail="the script hung: stopped after 30 s")
    finally:
        db.close()
    return settings


@pytest.fixture(scope="module")
def server(site):
    with view_server(site) as url:
        yield url


def _decisions(settings) -> list[tuple]:
    conn = sqlite3.connect(settings.results_db)
    try:
        return conn.execute("SELECT item_id, source, current, verdict, author, note FROM item_decisions "
                            "WHERE source = 'override' ORDER BY id").fetchall()
    finally:
        conn.close()


@pytest.mark.timeout(240)
def test_items_grouped_by_category_with_decisions_and_an_override(site, server, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/runs/{RUN}")
    assert page.locator("h3.category").all_inner_texts() == [
        "Deal (2 pts)", "Foundations (2 pts)", "Stock and waste (2 pts)", "UI (3 pts)"]
    assert page.locator("fieldset.item").count() == 8
    # the variant's item sits in the common category it names
    stock = page.locator("h3#category-stock ~ fieldset.item")
    assert "Draw One — the stock turns one" in stock.first.inner_text() or \
        "Draw One — the stock turns one" in stock.nth(1).inner_text()
    columns = page.locator('[id="item-deal.columns"]')
    assert columns.locator(".state").inner_text() == "pass"
    assert columns.locator('img[alt="output layout"]').evaluate("i => i.naturalWidth") > 0
    assert "<script>alert(1)</script>" in columns.locator("pre.log").text_content()  # shown as text
    # the review form starts from the decisions
    assert columns.locator('input[name="verdict:deal.columns"][value="pass"]').is_checked()
    count = page.locator('[id="item-deal.stock-count"]')
    assert count.locator(".state").inner_text() == "fail"
    assert count.locator('img[alt="output stock"]').evaluate("i => i.naturalWidth") == 0  # the link out
    turn = page.locator('[id="item-stock.turn-count"]')
    assert "the script hung: stopped after 30 s" in turn.inner_text()

    # the review form's own choice still works beside the override controls
    page.check('input[name="verdict:deal.stock-count"][value="pass"]')
    assert not page.locator('[id="item-ui.fits-window"] p.override').count()  # no script, no decision
    # override the failed count with a note
    count.locator('input[name="verdict"][value="pass"]').check()
    count.locator('input[name="note"]').fill("23 plus the one turned is right: the script miscounts.")
    count.locator('input[name="author"]').fill("ada")
    with page.expect_navigation():
        count.locator("button").click()
    count = page.locator('[id="item-deal.stock-count"]')
    assert count.locator(".state").inner_text() == "pass"
    assert "overridden by ada" in count.inner_text()
    assert "2 decisions" in count.locator("details.history summary").inner_text()
    assert _decisions(site) == [("deal.stock-count", "override", 1, "pass", "ada",
                                 "23 plus the one turned is right: the script miscounts.")]
    # only the refused output's image failed to load (once per page load)
    assert [e for e in errors if "404" not in e] == [] and len(errors) == 2


def test_outputs_are_served_only_when_recorded_and_inside_the_run(site, server):
    ok = urllib.request.urlopen(f"{server}/runs/{RUN}/outputs/deal.columns/layout", timeout=10)
    assert ok.headers["Content-Type"] == "image/png" and ok.read().startswith(b"\x89PNG")
    for item, output in (("deal.stock-count", "stock"), ("deal.columns", "nope"), ("ui.victory", "x"),
                         ("deal.columns", "..%2f..%2fsecret")):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{server}/runs/{RUN}/outputs/{item}/{output}", timeout=10)
        assert err.value.code in (400, 404)


def test_bad_or_forged_overrides_write_nothing(site, server):
    before = _decisions(site)
    html = urllib.request.urlopen(f"{server}/runs/{RUN}", timeout=10).read().decode()
    token = re.search(r'name="token" value="([0-9a-f]+)"', html).group(1)
    good = {"token": token, "item": "deal.columns", "verdict": "fail", "author": "eve", "note": "x"}
    form = {"Content-Type": "application/x-www-form-urlencoded", "Origin": server}
    path = f"/runs/{RUN}/override"
    for change, headers, status in [
        ({"token": "0" * 64}, form, 403),
        ({}, {"Content-Type": form["Content-Type"], "Origin": "http://evil.example"}, 403),
        ({"note": " "}, form, 400),
        ({"author": ""}, form, 400),
        ({"verdict": "undecided"}, form, 400),
        ({"item": "deal.ghost"}, form, 400),
        ({"extra": "1"}, form, 400),
    ]:
        assert _post(server, path, urlencode({**good, **change}).encode(), headers)[0] == status, change
    assert _decisions(site) == before

