"""The check runner against real Chromium: actions drive the page into the
view, the screenshot is scored by SSIM against a reference, and a hostile
page ends its own check in a bounded time while the others still run.

The pages are solid-colour boxes and the references are drawn with Pillow,
so a page in the expected state matches its reference pixel for pixel."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from tcab.errors import ValidationError
from tcab.validation import BrowserLimits
from tcab.validation.checks import (
    ActionError,
    CheckLimits,
    CheckSpec,
    Click,
    Hold,
    Key,
    Wait,
    parse_action,
    parse_actions,
    run_checks,
    similarity,
)

W, H = 320, 240
BACKGROUND, BUTTON, PANEL = (32, 64, 128), (240, 192, 32), (224, 32, 32)
FAST = CheckLimits(settle_s=0.2, action_timeout_s=5, check_timeout_s=30)

STYLE = f"""<style>
html, body {{ margin: 0; padding: 0; overflow: hidden; background: rgb{BACKGROUND}; }}
#btn {{ position: absolute; left: 10px; top: 10px; width: 60px; height: 30px; background: rgb{BUTTON}; }}
#panel {{ position: absolute; left: 40px; top: 60px; width: 240px; height: 160px;
          background: rgb{PANEL}; display: none; }}
</style>"""

# The button and the key "p" toggle the panel; holding "h" 800 ms or more shows it.
TOGGLE = "<!doctype html><html><head>" + STYLE + """</head><body><div id=btn></div><div id=panel></div>
<script>
const panel = document.getElementById('panel');
const toggle = () => { panel.style.display = panel.style.display === 'block' ? 'none' : 'block'; };
document.getElementById('btn').addEventListener('click', toggle);
let down = 0;
addEventListener('keydown', e => { if (e.key === 'p' && !e.repeat) toggle(); if (e.key === 'h') down = performance.now(); });
addEventListener('keyup', e => { if (e.key === 'h' && performance.now() - down >= 800) panel.style.display = 'block'; });
</script></body></html>"""


def _site(tmp_path: Path, name: str, index: str) -> Path:
    site = tmp_path / name
    site.mkdir()
    (site / "index.html").write_text(index)
    return site


def _reference(tmp_path: Path, name: str, panel: bool, size=(W, H), colour=BACKGROUND) -> Path:
    image = Image.new("RGB", size, colour)
    draw = ImageDraw.Draw(image)
    if colour == BACKGROUND:
        draw.rectangle([10, 10, 69, 39], fill=BUTTON)
        if panel:
            draw.rectangle([40, 60, 279, 219], fill=PANEL)
    path = tmp_path / f"{name}.png"
    image.save(path)
    return path


def _by_view(results):
    return {r.view: r for r in results}


@pytest.mark.timeout(240)
def test_actions_drive_the_page_into_the_view(tmp_path: Path) -> None:
    site = _site(tmp_path, "site", TOGGLE)
    closed, opened = _reference(tmp_path, "closed", False), _reference(tmp_path, "opened", True)
    specs = [
        CheckSpec("on-load", closed),
        CheckSpec("not-clicked", opened),
        CheckSpec("clicked", opened, (Click(40, 25),)),
        CheckSpec("clicked-twice", opened, (Click(40, 25), Wait(50), Click(40, 25))),
        CheckSpec("key", opened, (Key("p"),)),
        CheckSpec("hold", opened, (Hold("h", 1200),)),
        CheckSpec("tap-not-hold", opened, (Key("h"),)),
    ]
    results = run_checks(site, specs, tmp_path / "shots", limits=FAST)
    by = _by_view(results)
    print({v: round(r.similarity, 4) for v, r in by.items()})
    assert all(r.error is None and r.reached for r in results), [r.error for r in results]
    for view in ("on-load", "clicked", "key", "hold"):
        assert by[view].similarity > 0.99, (view, by[view].similarity)
    for view in ("not-clicked", "clicked-twice", "tap-not-hold"):
        assert by[view].similarity < 0.8, (view, by[view].similarity)
    # The screenshot of each check is kept, at the view's (the reference's) size.
    assert by["clicked"].screenshot == "clicked.png" and by["clicked"].name == "Clicked"
    assert Image.open(tmp_path / "shots" / "clicked.png").size == (W, H)
    assert json.loads(json.dumps(by["key"].to_json()))["reached"] is True


@pytest.mark.timeout(180)
def test_own_screenshot_scores_one_and_another_page_lower(tmp_path: Path) -> None:
    site = _site(tmp_path, "site", TOGGLE)
    grey = _reference(tmp_path, "grey", False, colour=(128, 128, 128))
    first = run_checks(site, [CheckSpec("page", grey)], tmp_path / "first", limits=FAST)[0]
    assert first.error is None and first.similarity < 0.9, first
    own = tmp_path / "first" / "page.png"
    other = _site(tmp_path, "other", "<!doctype html><body style='margin:0;background:#fff'>"
                                     "<h1 style='color:#000'>Another game entirely</h1></body>")
    again = run_checks(site, [CheckSpec("page", own)], tmp_path / "again", limits=FAST)[0]
    different = run_checks(other, [CheckSpec("page", own)], tmp_path / "other-shots", limits=FAST)[0]
    print("own", again.similarity, "other page", different.similarity, "grey", first.similarity)
    assert again.similarity > 0.99
    assert different.similarity < 0.5
    # A viewport other than the reference's: the screenshot is resized to it.
    half = run_checks(site, [CheckSpec("half", own, viewport=(W // 2, H // 2))], tmp_path / "half", limits=FAST)[0]
    print("half-size viewport", half.similarity)
    assert half.error is None and Image.open(tmp_path / "half" / "half.png").size == (W // 2, H // 2)
    assert 0 < half.similarity < again.similarity


def test_bad_actions_are_named() -> None:
    assert parse_actions([{"type": "wait", "ms": 500}, {"type": "key", "key": "Enter"},
                          {"type": "hold", "key": "ArrowUp", "ms": 300}, {"type": "click", "x": 640, "y": 360.5}]) == (
        Wait(500), Key("Enter"), Hold("ArrowUp", 300), Click(640.0, 360.5))
    assert parse_actions([]) == ()
    with pytest.raises(ActionError) as exc:
        parse_actions([{"type": "key", "key": "Enter"}, {"type": "scroll", "dy": 3}, {"kind": "click"},
                       {"type": "click", "x": 10}, {"type": "click", "selector": "#start", "x": 1, "y": 2},
                       {"type": "wait", "ms": -1}, {"type": "wait", "ms": 1.5}, {"type": "wait", "ms": True},
                       {"type": "click", "x": float("nan"), "y": float("inf")}, {"type": "key", "key": ""},
                       {"type": "key", "key": "a\x00"}, "click", {"type": "hold", "key": "w"}])
    problems = dict(exc.value.problems)
    assert problems["actions[2].type"] == 'expected one of click, hold, key, wait, got "scroll"'
    assert problems["actions[3].type"] == "missing required key"
    assert problems["actions[4].y"] == "missing required key"
    assert problems["actions[5].selector"].startswith("unknown key for a click action; allowed keys: type, x, y")
    for key in ("actions[6].ms", "actions[7].ms", "actions[8].ms"):
        assert problems[key].startswith("expected an integer number of milliseconds"), key
    assert "got nan" in problems["actions[9].x"] and "got inf" in problems["actions[9].y"]
    assert "actions[10].key" in problems and "actions[11].key" in problems
    assert problems["actions[12]"].startswith("expected a table like")
    assert problems["actions[13].ms"] == "missing required key"
    assert "actions[1]" not in str(exc.value)
    with pytest.raises(ActionError, match=r"^actions: expected an array of action tables, got a table$"):
        parse_actions({"type": "wait"})
    with pytest.raises(ActionError, match=r"^step\.ms: expected an integer"):
        parse_action({"type": "wait", "ms": "500"}, "step")
    # The spec and the limits refuse what cannot run.
    with pytest.raises(ValidationError, match="check view: expected a kebab-case slug"):
        CheckSpec("../evil", Path("r.png"))
    with pytest.raises(ValidationError, match="check v: viewport"):
        CheckSpec("v", Path("r.png"), viewport=(0, 10))
    with pytest.raises(ValidationError, match="check v: actions"):
        CheckSpec("v", Path("r.png"), ({"type": "wait"},))
    for bad in (float("nan"), float("inf"), 0, -1, "10", True):
        with pytest.raises(ValidationError, match="check limit action_timeout_s: expected a finite positive"):
            CheckLimits(action_timeout_s=bad)
    with pytest.raises(ValidationError, match="checks: view 'v' is checked twice"):
        run_checks(Path("."), [CheckSpec("v", Path("a.png")), CheckSpec("v", Path("b.png"))], Path("."))


@pytest.mark.timeout(240)
def test_hostile_checks_end_alone_in_bounded_time(tmp_path: Path) -> None:
    spin = TOGGLE.replace("addEventListener('click', toggle)", "addEventListener('click', () => { for (;;) {} })")
    site = _site(tmp_path, "site", spin)
    (site / "away.html").write_text("<script>location.href = 'http://198.51.100.7/';</script>")
    (site / "alerts.html").write_text("<script>for (let i = 0; i < 100000; i++) alert(i);</script>")
    opened, closed = _reference(tmp_path, "opened", True), _reference(tmp_path, "closed", False)
    (tmp_path / "fifo").mkdir()
    import os
    os.mkfifo(tmp_path / "fifo" / "ref.png")
    limits = CheckLimits(settle_s=0.2, action_timeout_s=2, check_timeout_s=20)
    specs = [
        CheckSpec("spins", opened, (Click(40, 25),)),
        CheckSpec("after-spin", closed),
        CheckSpec("bad-key", opened, (Key("NoSuchKey"),)),
        CheckSpec("long-wait", opened, (Wait(60_000),)),
        CheckSpec("fifo-reference", tmp_path / "fifo" / "ref.png"),
        CheckSpec("missing-reference", tmp_path / "nope.png"),
        CheckSpec("still-fine", opened, (Key("p"),)),
    ]
    started = time.monotonic()
    results = run_checks(site, specs, tmp_path / "shots", limits=limits)
    took = time.monotonic() - started
    by = _by_view(results)
    print({v: (r.similarity, r.error, round(r.duration_s, 2)) for v, r in by.items()}, "total", round(took, 1))
    assert [r.view for r in results] == [s.view for s in specs]
    spins = by["spins"]
    assert spins.error == "actions[1] (click 40,25): did not finish within 2s; Chromium was killed"
    assert spins.similarity is None and spins.screenshot is None and spins.duration_s < 15
    assert by["after-spin"].error is None and by["after-spin"].similarity > 0.99
    assert by["bad-key"].error.startswith('actions[1] (key "NoSuchKey"): ') and "NoSuchKey" in by["bad-key"].error
    assert by["long-wait"].error.startswith("actions: they pause 60.4s in all") and by["long-wait"].duration_s < 1
    assert "not a regular file" in by["fifo-reference"].error
    assert by["missing-reference"].error.endswith("nope.png: No such file or directory")
    assert by["still-fine"].error is None and by["still-fine"].similarity > 0.99
    assert took < 90


@pytest.mark.timeout(240)
def test_hostile_pages_navigation_alerts_memory_total(tmp_path: Path) -> None:
    away = _site(tmp_path, "away", TOGGLE.replace("addEventListener('click', toggle)",
                                                  "addEventListener('click', () => { location.href = 'http://198.51.100.7/x'; })"))
    opened = _reference(tmp_path, "opened", True)
    result = run_checks(away, [CheckSpec("away", opened, (Click(40, 25),))], tmp_path / "a", limits=FAST)[0]
    print("away", result)
    assert result.similarity is None and result.error.startswith("the page navigated away from the site: ")

    alerts = _site(tmp_path, "alerts", "<!doctype html><body style='margin:0;background:#204080'>"
                                       "<script>setTimeout(() => { for (let i = 0; i < 1e9; i++) alert(i); }, 10)</script>")
    started = time.monotonic()
    result = run_checks(alerts, [CheckSpec("alerts", opened, (Key("p"), Wait(200)))], tmp_path / "b",
                        limits=CheckLimits(settle_s=0.2, action_timeout_s=3, check_timeout_s=12))[0]
    print("alerts", result, round(time.monotonic() - started, 1))
    assert time.monotonic() - started < 30
    assert result.error is None or "Chromium was killed" in result.error or "Timeout" in result.error

    swell = _site(tmp_path, "swell", "<!doctype html><script>const keep = [];"
                                     "setInterval(() => { const b = new Uint8Array(64 << 20); b.fill(1); keep.push(b); }, 20);"
                                     "</script>")
    started = time.monotonic()
    result = run_checks(swell, [CheckSpec("swell", opened, (Wait(15_000),))], tmp_path / "c",
                        limits=CheckLimits(settle_s=0.2, action_timeout_s=3, check_timeout_s=30),
                        browser=BrowserLimits(max_memory_bytes=1024**3))[0]
    print("swell", result, round(time.monotonic() - started, 1))
    assert result.similarity is None and "memory" in result.error and time.monotonic() - started < 40

    # The total bound: the checks not started in time are not run.
    site = _site(tmp_path, "site", TOGGLE)
    results = run_checks(site, [CheckSpec("slow", opened), CheckSpec("late", opened)],
                         tmp_path / "d", limits=CheckLimits(settle_s=0.2, total_timeout_s=0.5))
    print("total", results)
    assert results[0].error.endswith("did not finish within 0.5s; Chromium was killed")
    assert results[1].error == "not run: the checks used up total_timeout_s (0.5s)"


LIGHTS_OUT = Path(__file__).resolve().parents[2] / "test-cases" / "end-to-end" / "easy" / "lights-out" / "v1.0.0"


@pytest.mark.timeout(600)
def test_validate_run_records_the_checks(settings, make_run, podman_runtime) -> None:
    from tcab.catalog import resolve_case
    from tcab.validation import validate_run

    run = make_run("checks-1")
    board = LIGHTS_OUT / "reference" / "board.png"
    checks = [CheckSpec("board", board), CheckSpec("clicked", board, (Click(240, 300), Wait(100))),
              CheckSpec("no-reference", LIGHTS_OUT / "reference" / "missing.png")]
    record = validate_run(settings, resolve_case(settings.catalog_dir, run.case_slug, run.case_version), run,
                          runtime=podman_runtime, settle_s=0.3, checks=checks, check_limits=FAST)
    by = _by_view(record.check_results)
    print({v: (r.similarity, r.error) for v, r in by.items()})
    assert record.status == "passed", record.detail      # a check is a signal, never the status
    assert by["board"].error is None and by["board"].screenshot == "validation/checks/board.png"
    # The reference solution deals a random board: like the mockup, not the same lights.
    assert 0.3 < by["board"].similarity < 1
    assert by["clicked"].error is None and by["clicked"].reached
    shots = run.run_dir / "validation" / "checks"
    with Image.open(shots / "board.png") as on_load:
        assert similarity(on_load.convert("RGB"), (shots / "clicked.png").read_bytes()) < 0.99  # the click changed it
    assert by["no-reference"].similarity is None and "missing.png" in by["no-reference"].error
    assert Image.open(run.run_dir / "validation" / "checks" / "board.png").size == (480, 560)
    doc = json.loads((run.run_dir / "validation" / "validation.json").read_text())
    assert [c["view"] for c in doc["check_results"]] == ["board", "clicked", "no-reference"]
    assert doc["check_results"][0]["reached"] is True and "check_results" not in record.row()
    # Bad specs are refused before any container starts.
    with pytest.raises(ValidationError, match="checked twice"):
        validate_run(settings, resolve_case(settings.catalog_dir, run.case_slug, run.case_version), run,
                     runtime=podman_runtime, checks=checks + checks[:1])


# -- a check is never passed by showing a screenshot the run was given ----------------

def _showing(tmp_path: Path, name: str, png: Path) -> Path:
    """A page that only displays ``png`` over its whole viewport (what a run
    can build from its own reference/ folder)."""
    site = _site(tmp_path, name, "<!doctype html><html><body style='margin:0;overflow:hidden'>"
                                 f"<img src='shown.png' style='display:block;width:{W}px;height:{H}px'>"
                                 "</body></html>")
    (site / "shown.png").write_bytes(png.read_bytes())
    return site


@pytest.mark.timeout(300)
def test_a_page_showing_a_seeded_screenshot_never_counts(tmp_path: Path) -> None:
    """The run was seeded with the closed view. Checked against that view
    itself (no actions), every capture, the cheat's 1.0 too, is no better
    than the seeded screenshot; against the opened view held back from the
    run, the working page counts and the page showing the seeded one does not."""
    closed, opened = _reference(tmp_path, "closed", False), _reference(tmp_path, "opened", True)
    seeded = (closed,)
    specs = [CheckSpec("seeded-view", closed, (), seeded=seeded),
             CheckSpec("held-back", opened, (Click(40, 25),), seeded=seeded)]
    cheat = _by_view(run_checks(_showing(tmp_path, "cheat", closed), specs, tmp_path / "cheat-shots",
                                limits=FAST))
    real = _by_view(run_checks(_site(tmp_path, "real", TOGGLE), specs, tmp_path / "real-shots", limits=FAST))
    print({v: (r.similarity, r.seeded_similarity, r.error) for v, r in {**cheat, **real}.items()})
    assert cheat["seeded-view"].similarity > 0.99 and cheat["seeded-view"].seeded_similarity == 1.0
    assert "no better than the screenshot closed.png the run was given" in cheat["seeded-view"].error
    assert real["seeded-view"].error and real["seeded-view"].seeded_similarity == 1.0
    assert real["held-back"].error is None and real["held-back"].similarity > 0.99, real["held-back"]
    assert real["held-back"].seeded_similarity < 0.9
    assert cheat["held-back"].error and "closed.png" in cheat["held-back"].error
    doc = real["held-back"].to_json()
    assert doc["seeded_similarity"] == round(real["held-back"].seeded_similarity, 4)
    # Without seeded screenshots (a spec built by hand) nothing is compared.
    plain = run_checks(_site(tmp_path, "plain", TOGGLE), [CheckSpec("page", closed)], tmp_path / "plain-shots",
                       limits=FAST)[0]
    assert plain.error is None and plain.seeded_similarity is None


def test_seeded_must_be_paths() -> None:
    with pytest.raises(ValidationError, match="seeded: expected a tuple of Paths"):
        CheckSpec("page", Path("x.png"), seeded=("x.png",))
