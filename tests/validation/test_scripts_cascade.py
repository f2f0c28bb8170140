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
