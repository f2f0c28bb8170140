"""The cascade case (tests/fixtures/catalogs/original/.../cascade/v2.0.0, the
original's grammar with our own scripts) against tcab's own reference build
(tests/fixtures/scripted-builds/cascade, the debug API its specs ask for):
every scripted item of both variants is decided and passes; a build broken
on purpose fails exactly the items it breaks."""

from __future__ import annotations

import shutil

import pytest

from tcab.validation.scripts import run_scripts, script_items
from tests.support.original import ORIGINAL, load
from tests.support.scripted_builds import FIXTURES

CASCADE = ORIGINAL / "end-to-end/easy/cascade/v2.0.0"


def reference_build(tmp_path, turn: int, broken: tuple[str, ...] = ()):
    folder = tmp_path / "build"
    shutil.copytree(FIXTURES / "cascade", folder)
    (folder / "config.js").write_text(f"window.CASCADE_CONFIG = {{ turn: {turn}, broken: {list(broken)!r} }};\n")
    return folder


def decide(tmp_path, variant: str, turn: int, broken: tuple[str, ...] = ()):
    case = load(CASCADE)
    items = script_items(case, case.variant(variant))
    decisions = run_scripts(reference_build(tmp_path, turn, broken), items, tmp_path / "items",
                            handle=case.instrumentation.handle, tick_hz=case.instrumentation.tick_hz)
    return items, {d.item: d for d in decisions}


@pytest.mark.parametrize(("variant", "turn"), [("draw-three", 3), ("draw-one", 1)])
def test_the_reference_build_passes_every_scripted_item(tmp_path, variant, turn):
    items, got = decide(tmp_path, variant, turn)
    assert [i.item for i in items] == ["deal.columns", "deal.stock-count", "foundations.ace-only",
                                       "foundations.build-up", "stock.recycle", "stock.turn-count"]
    for decision in got.values():
        assert decision.passed is True, decision
    for i in items:
        for output in i.outputs:
            name = got[i.item].outputs[output.id]
            data = (tmp_path / "items" / i.item / name).read_bytes()
            assert data.startswith(b"\x89PNG" if output.kind == "image" else b"\x1a\x45\xdf\xa3"), (i.item, name)


def test_a_broken_build_fails_exactly_the_items_it_breaks(tmp_path):
    _, got = decide(tmp_path, "draw-three", 3, ("ace-only", "stock-count"))
    assert {k: d.passed for k, d in got.items()} == {
        "deal.columns": True, "deal.stock-count": False, "foundations.ace-only": False,
        "foundations.build-up": True, "stock.recycle": True, "stock.turn-count": True}
    failed = [a["label"] for a in got["foundations.ace-only"].assertions if not a["pass"]]
    assert failed == ["a Two is refused by an empty foundation"]


def test_validate_run_decides_records_and_shows_the_items(tmp_path, podman_runtime):
    # The whole path: the run's tree built in the container, the scripts run
    # on the built site, validation.json, results.db (record_decision) and the
    # run's page in `tcab view`.
    import json
    import re
    import urllib.request

    from tcab.catalog import resolve_case
    from tcab.results import open_db, record_run, record_validation
    from tcab.results.decisions import item_states
    from tcab.validation import validate_run
    from tcab.validation.scripts import record_item_decisions
    from tests.support.original import copy, edit
    from tests.support.run_folders import write_run
    from tests.support.settings import tmp_settings
    from tests.support.view_server import view_server

    catalog = tmp_path / "catalog"
    root = copy(CASCADE, catalog)
    edit(root / "test-case.toml", 'build = "mkdir -p dist && cp index.html dist/"',
         'build = "mkdir -p dist && cp index.html config.js game.js dist/"')
    settings = tmp_settings(tmp_path, catalog=catalog)
    case = resolve_case(catalog, "cascade", "v2.0.0")
    run = write_run(settings.runs_dir, "20260101-cascade-draw-one-7", case, variant="draw-one",
                    tree=reference_build(tmp_path, 1, ("stock-count",)))
    record = validate_run(settings, case, run, runtime=podman_runtime)
    assert record.status == "passed", record.detail
    got = {d.item: d.passed for d in record.item_decisions}
    assert got == {"deal.columns": True, "deal.stock-count": False, "foundations.ace-only": True,
                   "foundations.build-up": True, "stock.recycle": True, "stock.turn-count": True}
    doc = json.loads((run.run_dir / "validation" / "validation.json").read_text())
    columns = next(d for d in doc["item_decisions"] if d["item"] == "deal.columns")
    assert columns["outputs"] == {"layout": "validation/items/deal.columns/layout.png"}
    assert (run.run_dir / columns["outputs"]["layout"]).read_bytes().startswith(b"\x89PNG")

    db = open_db(settings.results_db)
    try:
        record_run(db, *run.db_rows())
        record_validation(db, record.row())
        assert record_item_decisions(db, case, run.id, run.variant, run.run_dir, record.item_decisions,
                                     digest=record.case_digest) == 6
        states = item_states(db, run.id)
    finally:
        db.close()
    assert {k: s.state for k, s in states.items()} == {
        "deal.columns": "pass", "deal.stock-count": "fail", "foundations.ace-only": "pass",
        "foundations.build-up": "pass", "stock.recycle": "pass", "stock.turn-count": "pass"}
    stock = states["deal.stock-count"].script
    assert stock["log_tail"].endswith("FAILED the stock holds 24 cards: expected 24, got 23")
    assert stock["outputs"][0]["kind"] == "image" and stock["outputs"][0]["sha256"]
    assert states["stock.recycle"].script["outputs"][0]["kind"] == "video"

    with view_server(settings) as url:
        html = urllib.request.urlopen(f"{url}/runs/{run.id}", timeout=30).read().decode()
        clip = urllib.request.urlopen(f"{url}/runs/{run.id}/outputs/stock.recycle/passes", timeout=30)
        assert clip.headers["Content-Type"].startswith("video/webm")
        assert clip.read().startswith(b"\x1a\x45\xdf\xa3")
        shot = urllib.request.urlopen(f"{url}/runs/{run.id}/outputs/deal.columns/layout", timeout=30).read()
        assert shot.startswith(b"\x89PNG")
    item = re.search(r'id="item-deal.stock-count".*?</fieldset>', html, re.S).group(0)
    assert "fail" in item and "the stock holds 24 cards" in item


def test_a_changed_script_or_helper_re_keys_the_validation(tmp_path):
    from tcab.artifacts import validation_case_part
    from tests.support.original import copy

    root = copy(CASCADE, tmp_path)
    before = validation_case_part(load(root))
    (root / "validation" / "_helpers.mjs").write_text("// changed\n", encoding="utf-8")
    after = validation_case_part(load(root))
    assert after != before
    (root / "validation" / "deal" / "columns.mjs").write_text("// changed too\n", encoding="utf-8")
    assert validation_case_part(load(root)) != after



def test_a_browser_that_cannot_start_leaves_the_items_undecided(tmp_path, monkeypatch):
    # Chromium missing for the scripts alone: the items say why, the rest of the validation stands.
    from tcab.browser import chromium
    from tcab.browser.page import BrowserLimits
    from tcab.validation.validate import _run_item_scripts

    case = load(CASCADE)
    items = script_items(case, case.variant("draw-one"))
    monkeypatch.setattr(chromium, "CHROMIUM", str(tmp_path / "no-chromium"))
    got = _run_item_scripts(reference_build(tmp_path, 1), items, case, tmp_path / "validation", None,
                            BrowserLimits())
    assert [d.item for d in got] == [i.item for i in items]
    for decision in got:
        assert decision.passed is None and decision.reason.startswith("not run: the browser is unavailable: ")
        assert "no-chromium did not start" in decision.reason
