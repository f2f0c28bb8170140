"""Review items decided by validation scripts against the good Tally build
(tests/fixtures/scripted-builds): both script shapes, images and clips, and
scripts that throw, hang, or produce what they did not declare."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest

from tcab.errors import ValidationError
from tcab.validation.scripts import ScriptItem, ScriptLimits, ScriptOutput, run_scripts
from tests.support.scripted_builds import SCRIPTS, build


def item(name: str, *outputs: tuple[str, str]) -> ScriptItem:
    return ScriptItem(f"tally.{name}", SCRIPTS / f"{name}.mjs", tuple(ScriptOutput(i, i, k) for i, k in outputs))


def run(tmp_path: Path, items, folder: str = "good", **kw):
    return {d.item: d for d in run_scripts(build(tmp_path, folder), items, tmp_path / "out", handle="__tally",
                                           tick_hz=60, **kw)}


def test_both_shapes_decide_and_produce_their_outputs(tmp_path):
    got = run(tmp_path, [item("bump", ("counted", "image")), item("bump-wrong"),
                         item("drive-color", ("table", "image")), item("drive-bump"),
                         item("clip", ("clock", "clip")), item("drive-audio")])
    assert got["tally.bump"].passed is True, got["tally.bump"]
    assert [a["label"] for a in got["tally.bump"].assertions] == ["two bumps counted", "thirty ticks ran"]
    wrong = got["tally.bump-wrong"]
    assert wrong.passed is False and wrong.assertions == ({"label": "three bumps counted", "pass": False,
                                                           "expected": "3", "actual": "2"},)
    assert got["tally.drive-color"].passed is True, got["tally.drive-color"]
    assert got["tally.drive-bump"].passed is True, got["tally.drive-bump"]
    assert got["tally.clip"].passed is True, got["tally.clip"]
    assert got["tally.drive-audio"].passed is True, got["tally.drive-audio"]  # api.audio, api.userDoubleClick
    png = (tmp_path / "out" / "tally.bump" / "counted.png").read_bytes()
    assert png.startswith(b"\x89PNG") and got["tally.bump"].outputs == {"counted": "counted.png"}
    assert (tmp_path / "out" / "tally.drive-color" / "table.png").read_bytes().startswith(b"\x89PNG")
    webm = (tmp_path / "out" / "tally.clip" / "clock.webm").read_bytes()
    assert webm.startswith(b"\x1a\x45\xdf\xa3") and len(webm) > 1000  # EBML: a WebM with frames
    assert json.loads(json.dumps(got["tally.clip"].to_json()))["outputs"] == {"clock": "clock.webm"}


def test_scripts_that_misbehave_decide_nothing_and_say_why(tmp_path):
    got = run(tmp_path, [item("throws"), item("undeclared"), item("no-assertion"), item("timed-arrange"),
                         item("bump", ("counted", "image"), ("missing", "image")),
                         item("hard-stop", ("never", "image"))])
    assert got["tally.throws"].passed is None
    assert "the author's helper is broken" in got["tally.throws"].reason
    assert got["tally.undeclared"].passed is None
    assert "did not declare: extra" in got["tally.undeclared"].reason
    assert not (tmp_path / "out" / "tally.undeclared").exists()
    assert got["tally.no-assertion"].reason == "the script recorded no assertion"
    assert "called from arrange()" in got["tally.timed-arrange"].reason
    assert "did not produce its declared output(s): missing" in got["tally.bump"].reason
    stop = got["tally.hard-stop"]
    assert stop.passed is False and len(stop.assertions) == 1 and "hard assertion" in stop.reason


def test_a_hanging_script_is_killed_at_its_bound(tmp_path):
    started = time.monotonic()
    got = run(tmp_path, [item("hangs"), item("drive-bump")], limits=ScriptLimits(script_timeout_s=8))
    assert got["tally.hangs"].passed is None
    assert "did not finish within 8s" in got["tally.hangs"].reason
    assert got["tally.drive-bump"].passed is True  # the next script runs in a fresh browser
    assert time.monotonic() - started < 40


def test_a_flood_on_stderr_is_read_as_a_bounded_tail(tmp_path):
    tracemalloc.start()
    try:
        got = run(tmp_path, [item("stderr-flood")])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024**2  # not the 100 MB the runner wrote
    reason = got["tally.stderr-flood"].reason
    assert got["tally.stderr-flood"].passed is None and "(exit 3)" in reason and "the last words" in reason
    assert len(reason) < 500


def test_a_forged_reason_of_a_megabyte_is_clipped(tmp_path):
    got = run(tmp_path, [ScriptItem("tally.forge-reason", SCRIPTS / "forge.mjs")])["tally.forge-reason"]
    assert got.passed is True, got.reason[:200]
    assert got.reason == "r" * 500 + "..."


def test_a_forged_log_that_is_not_a_list_is_no_log(tmp_path):
    kinds = ("object", "number", "string")
    got = run(tmp_path, [ScriptItem(f"tally.forge-log-{k}", SCRIPTS / "forge.mjs") for k in kinds])
    for kind in kinds:
        decision = got[f"tally.forge-log-{kind}"]
        assert (decision.passed, decision.log) == (True, ()), decision


def test_the_scripts_share_one_total_bound(tmp_path):
    got = run(tmp_path, [item("hangs"), item("drive-bump")],
              limits=ScriptLimits(script_timeout_s=8, total_timeout_s=6))
    assert "did not finish within 6s" in got["tally.hangs"].reason
    assert got["tally.drive-bump"].reason.startswith("not run: the scripts used up total_timeout_s")


def test_an_output_kind_tcab_cannot_produce_decides_nothing(tmp_path):
    got = run(tmp_path, [ScriptItem("tally.replay", SCRIPTS / "bump.mjs", (ScriptOutput("r", "r", "replay"),)),
                         ScriptItem("tally.two-clips", SCRIPTS / "clip.mjs",
                                    (ScriptOutput("a", "a", "clip"), ScriptOutput("b", "b", "video")))])
    assert "kind 'replay', which tcab's script runner does not produce" in got["tally.replay"].reason
    assert "more than one clip" in got["tally.two-clips"].reason


def test_bad_items_are_refused_before_anything_runs(tmp_path):
    with pytest.raises(ValidationError, match="kebab-case slug"):
        ScriptItem("a.b", SCRIPTS / "bump.mjs", (ScriptOutput("../x", "x", "image"),))
    with pytest.raises(ValidationError, match="item id"):
        ScriptItem("../a", SCRIPTS / "bump.mjs")
    with pytest.raises(ValidationError, match="absolute"):
        ScriptItem("a.b", Path("bump.mjs"))
    with pytest.raises(ValidationError, match="listed twice"):
        run_scripts(tmp_path, [item("bump"), item("bump")], tmp_path / "out", handle="__tally")
    with pytest.raises(ValidationError, match="JavaScript identifier"):
        run_scripts(tmp_path, [item("bump")], tmp_path / "out", handle="window.x; alert(1)")
