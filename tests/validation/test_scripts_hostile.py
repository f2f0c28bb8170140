"""Hostile builds against the validation scripts (tests/support/scripted_builds.py):
a build that hijacks the canvas or the debug API, spins, navigates to a page
that fakes the answers, floods its console, swells or opens dialogs can
neither fool a script nor hold it past its bounds."""

from __future__ import annotations

import time

from tcab.browser.page import BrowserLimits
from tcab.validation.scripts import ScriptItem, ScriptLimits, ScriptOutput, run_scripts
from tests.support.scripted_builds import SCRIPTS, build

FAST = ScriptLimits(call_timeout_s=3, script_timeout_s=30, handle_timeout_s=3)


def item(name: str, *outputs: tuple[str, str]) -> ScriptItem:
    return ScriptItem(f"tally.{name}", SCRIPTS / f"{name}.mjs", tuple(ScriptOutput(i, i, k) for i, k in outputs))


def run(tmp_path, folder, items, limits=FAST, browser=None):
    started = time.monotonic()
    got = {d.item: d for d in run_scripts(build(tmp_path, folder), items, tmp_path / "out", handle="__tally",
                                          tick_hz=60, limits=limits, browser=browser)}
    return got, time.monotonic() - started


def test_a_build_that_fakes_its_pixels_and_refuses_film_is_read_as_it_paints(tmp_path):
    # The page's getImageData says green; what it paints is red. The pixel is
    # read (and the clip filmed) in a world the page's script cannot patch.
    got, _ = run(tmp_path, "hijack-canvas", [item("drive-color", ("table", "image")),
                                             item("clip", ("clock", "clip"))])
    color = got["tally.drive-color"]
    assert color.passed is False, color
    assert {a["label"]: a["actual"] for a in color.assertions} == {"the table is painted green": "0", "not red": "255"}
    assert got["tally.clip"].passed is True and got["tally.clip"].outputs == {"clock": "clock.webm"}


def test_a_handle_that_hangs_every_call_is_bounded(tmp_path):
    got, took = run(tmp_path, "hijack-handle", [item("bump", ("counted", "image"))])
    decision = got["tally.bump"]
    assert decision.passed is None and "did not answer within 3s" in decision.reason
    assert took < 25


def test_a_lying_json_stringify_decides_nothing(tmp_path):
    got, _ = run(tmp_path, "hijack-json", [item("drive-bump")])
    assert got["tally.drive-bump"].passed is None, got["tally.drive-bump"]


def test_a_spinning_snapshot_decides_nothing_within_the_call_bound(tmp_path):
    got, took = run(tmp_path, "spin", [item("drive-bump"), item("bump")])
    for decision in got.values():
        assert decision.passed is None and "snapshot() did not answer within 3s" in decision.reason, decision
    assert took < 50


def test_a_page_that_spins_before_load_decides_nothing_within_the_load_bound(tmp_path):
    got, took = run(tmp_path, "spin-at-load", [item("drive-bump")], browser=BrowserLimits(load_timeout_s=3))
    decision = got["tally.drive-bump"]
    assert decision.passed is None and "index.html" in decision.reason, decision
    assert took < 25


def test_navigating_to_a_page_with_a_fake_handle_cannot_pass(tmp_path):
    # fake.html installs a __tally whose snapshot says exactly what bump.mjs wants.
    got, _ = run(tmp_path, "navigate", [item("bump", ("counted", "image")), item("drive-bump")])
    for decision in got.values():
        assert decision.passed is None and "navigated" in decision.reason, decision


def test_a_record_pass_that_breaks_keeps_a_failure_without_media(tmp_path):
    got, _ = run(tmp_path, "miscount-then-leave", [item("bump", ("counted", "image"))])
    decision = got["tally.bump"]
    assert decision.passed is False and decision.outputs == {}, decision
    assert decision.reason.startswith("the record pass did not complete") and "navigated" in decision.reason


def test_a_flooded_console_is_kept_as_a_short_tail_and_the_script_still_decides(tmp_path):
    got, _ = run(tmp_path, "flood", [item("drive-bump")], limits=ScriptLimits(log_lines=10, log_chars=80))
    decision = got["tally.drive-bump"]
    assert decision.passed is True, decision.reason
    assert len(decision.log) <= 11 and all(len(line) <= 83 for line in decision.log)
    assert any("flood" in line for line in decision.log)


def test_a_build_that_swells_is_killed_and_decides_nothing(tmp_path):
    got, took = run(tmp_path, "swell", [item("drive-bump")], limits=ScriptLimits(call_timeout_s=20),
                    browser=BrowserLimits(max_memory_bytes=1024**3, js_heap_mb=256))
    decision = got["tally.drive-bump"]
    assert decision.passed is None, decision
    assert took < 60


def test_dialogs_and_popups_do_not_stop_a_script(tmp_path):
    got, _ = run(tmp_path, "dialogs", [item("drive-bump")])
    assert got["tally.drive-bump"].passed is True, got["tally.drive-bump"]
