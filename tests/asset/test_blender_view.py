"""A blender-character run's page in ``tcab view`` (issue 23, item 5, in
part): the preview drawn again from the glb beside the model's, the glb to
download, each required animation and caller joint against the run's glb,
the provenance note, and the ``overall`` rating through the review form."""

from __future__ import annotations

import re
import urllib.error
import urllib.request

import pytest

from tcab.results import open_db, record_run
from tcab.testtypes.asset_blender import score_blender
from tcab.testtypes.asset_view import panel
from tcab.web3d import THREE
from tests.blender.support import REFERENCE_BUILD, SIEGE, load
from tests.support.original import ORIGINAL
from tests.support.paths import REPO
from tests.support.results_rows import run_row
from tests.support.run_folders import write_run
from tests.support.settings import tmp_settings
from tests.support.view_server import view_server
from tests.watch.wire import wait_for

RUN_ID = "20261205-siege-rifleman-reference-1"


def _run(tmp_path, glb: bytes):
    case = load(SIEGE)
    settings = tmp_settings(tmp_path, catalog=ORIGINAL)
    src = tmp_path / "src"
    src.mkdir()
    (src / "character.glb").write_bytes(glb)
    (src / "build.py").write_bytes(REFERENCE_BUILD.read_bytes())
    (src / "model.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    run_dir = write_run(settings.runs_dir, RUN_ID, case, tree=src).run_dir  # run.json: `tcab asset export` reads it
    tree = run_dir / "work"
    score = score_blender(case.section, tree, run_dir, lambda section, script: (glb, ""))
    assert score.status == "regenerated"
    return case, settings, run_dir


def test_the_panel_holds_the_contract_against_the_glb(tmp_path, scout_glb) -> None:
    case, _, run_dir = _run(tmp_path, scout_glb)
    values = panel(case, {"variant": "base"}, run_dir, RUN_ID)
    (frame,) = values["asset_frames"]
    assert frame["regenerated"] == f"/runs/{RUN_ID}/raw/regenerated/model.png"
    assert frame["preview"] == f"/runs/{RUN_ID}/raw/work/model.png"
    blender = values["blender"]
    assert blender["glb"] == f"/runs/{RUN_ID}/raw/work/character.glb"
    present = {a["name"]: a["present"] for a in blender["animations"]}
    assert present == {"idle": True, "run": True, "fire": True, "reload": False, "hit": False, "death": True}
    assert blender["joints"][0]["name"] == "aim_pitch" and blender["joints"][0]["present"]
    assert "animation 'reload' missing" in blender["gaps"]
    (run_dir / "work/character.glb").unlink()
    (run_dir / "work/character.glb").symlink_to("/etc/passwd")
    assert panel(case, {"variant": "base"}, run_dir, RUN_ID)["blender"]["glb"] is None  # a link is never named


def test_the_run_page_shows_the_character(tmp_path, monkeypatch, scout_glb) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    _, settings, run_dir = _run(tmp_path, scout_glb)
    db = open_db(settings.results_db)
    try:
        record_run(db, run_row(RUN_ID, case_slug="siege-rifleman", case_type="asset-generation"), [])
    finally:
        db.close()
    with view_server(settings) as url:
        page = urllib.request.urlopen(f"{url}/runs/{RUN_ID}", timeout=10).read().decode()
        assert "<h2>Asset</h2>" in page and "character: regenerated" in page
        assert f'href="/runs/{RUN_ID}/raw/work/character.glb"' in page
        assert re.search(r"<code>reload</code>.*?missing", page, re.S)
        assert "<code>aim_pitch</code>" in page and "provenance: the rebuild matches" in page
        assert 'name="rating:overall"' in page
        glb = urllib.request.urlopen(f"{url}/runs/{RUN_ID}/raw/work/character.glb", timeout=10).read()
        assert glb == scout_glb
        assert f'src="/runs/{RUN_ID}/raw/regenerated/turntable.png"' in page


def test_the_turntable_is_an_animated_png_of_a_full_turn(tmp_path, scout_glb) -> None:
    from PIL import Image

    from tcab.testtypes.asset_blender import TURNTABLE_FRAMES, TURNTABLE_SIZE

    case, _, run_dir = _run(tmp_path, scout_glb)
    path = run_dir / "regenerated/turntable.png"
    with Image.open(path) as image:
        assert image.n_frames == TURNTABLE_FRAMES and image.size == (TURNTABLE_SIZE, TURNTABLE_SIZE)
        image.seek(0)
        first = image.convert("RGBA").tobytes()
        image.seek(TURNTABLE_FRAMES // 4)
        assert image.convert("RGBA").tobytes() != first  # it turns
    values = panel(case, {"variant": "base"}, run_dir, RUN_ID)
    assert values["blender"]["turntable"] == f"/runs/{RUN_ID}/raw/regenerated/turntable.png"
    assert list(values["asset_exports"]) == ["character.glb", "turntable.png"]
    again = tmp_path / "again"
    again.mkdir()
    _, _, second = _run(again, scout_glb)
    assert (second / "regenerated/turntable.png").read_bytes() == path.read_bytes()  # deterministic


def test_tcab_asset_export_copies_the_glb_and_the_turntable(tmp_path, scout_glb) -> None:
    from tests.support.settings import run_tcab

    _, settings, run_dir = _run(tmp_path, scout_glb)
    db = open_db(settings.results_db)
    try:
        record_run(db, run_row(RUN_ID, case_slug="siege-rifleman", case_type="asset-generation"), [])
    finally:
        db.close()
    result = run_tcab(settings, "asset", "export", RUN_ID, "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out/character.glb").read_bytes() == scout_glb
    assert (tmp_path / "out/turntable.png").read_bytes() == (run_dir / "regenerated/turntable.png").read_bytes()
    (run_dir / "regenerated/turntable.png").unlink()
    result = run_tcab(settings, "asset", "export", RUN_ID, "--out", str(tmp_path / "out2"))
    assert result.returncode == 2 and "turntable.png: missing" in result.stderr


@pytest.mark.timeout(300)
def test_the_viewer_turns_the_character_plays_its_animations_and_poses_its_joint(tmp_path, monkeypatch,
                                                                                 scout_glb) -> None:
    """The glb tcab-blend built, in real Chromium: three.js from the app, each
    glb animation a button by name, the caller joint a slider that turns the
    bone build.py tagged ``aim_pitch``; nothing requested outside the app."""
    if not THREE.is_dir():
        pytest.fail("three.js is not installed: make node-deps (npm ci --prefix tcab/web3d/node)")
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    _, settings, run_dir = _run(tmp_path, scout_glb)
    db = open_db(settings.results_db)
    try:
        record_run(db, run_row(RUN_ID, case_slug="siege-rifleman", case_type="asset-generation"), [])
    finally:
        db.close()
    with view_server(settings) as url:
        page = urllib.request.urlopen(f"{url}/runs/{RUN_ID}", timeout=10).read().decode()
        assert f'src="/runs/{RUN_ID}/viewer"' in page and 'sandbox="allow-scripts"' in page
        viewer = urllib.request.urlopen(f"{url}/runs/{RUN_ID}/viewer", timeout=10)
        assert "script-src 'self' 'sha256-" in viewer.headers["Content-Security-Policy"]

        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                        args=["--use-gl=swiftshader", "--enable-unsafe-swiftshader"])
            try:
                tab = browser.new_page()
                problems: list[str] = []
                outside: list[str] = []
                tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
                tab.on("request", lambda r: outside.append(r.url) if not r.url.startswith((url, "data:", "blob:"))
                       else None)
                tab.goto(f"{url}/runs/{RUN_ID}/viewer")
                # Polled with evaluate: the viewer's policy refuses the eval a string wait_for_function needs.
                wait_for(lambda: tab.evaluate("() => Boolean(window.tcabViewer && window.tcabViewer.ready)"),
                         timeout=60)
                state = tab.evaluate("window.tcabViewer")
                assert {"idle", "run", "fire", "death"} <= set(state["animations"]), state
                assert state["joints"] == ["aim_pitch"]  # found by its tcab_joint tag
                tab.locator("button", has_text="play run").click()
                assert tab.evaluate("window.tcabViewer.playing") == "run"
                tab.locator("button", has_text="stop").click()
                slider = tab.locator("input[type=range]")
                assert slider.count() == 1 and "aim_pitch" in tab.inner_text("#controls")
                slider.fill("0.4")
                posed = tab.evaluate("window.tcabViewer.posed")["aim_pitch"]  # radians: the manifest's +-30 degrees
                assert posed["value"] == pytest.approx(0.4, abs=0.01) and posed["turned"] == pytest.approx(posed["value"])
                tab.wait_for_timeout(300)
                tab.screenshot(path=str(tmp_path / "viewer.png"))
                assert problems == [] and outside == [], (problems, outside)
            finally:
                browser.close()


def test_the_viewer_refuses_a_linked_or_oversized_character(tmp_path, monkeypatch, scout_glb) -> None:
    from tcab.web3d import MAX_VIEW_GLB

    monkeypatch.setenv("PYTHONPATH", str(REPO))
    _, settings, run_dir = _run(tmp_path, scout_glb)
    db = open_db(settings.results_db)
    try:
        record_run(db, run_row(RUN_ID, case_slug="siege-rifleman", case_type="asset-generation"), [])
    finally:
        db.close()
    glb = run_dir / "work/character.glb"
    with view_server(settings) as url:
        glb.unlink()
        glb.symlink_to("/etc/passwd")
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{url}/runs/{RUN_ID}/viewer", timeout=10)
        assert err.value.code == 404
        glb.unlink()
        with glb.open("wb") as out:  # sparse: over the bound without writing it
            out.truncate(MAX_VIEW_GLB + 1)
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{url}/runs/{RUN_ID}/viewer", timeout=10)
        assert err.value.code == 404 and "larger than" in err.value.read().decode()
        page = urllib.request.urlopen(f"{url}/runs/{RUN_ID}", timeout=10).read().decode()
        assert f'src="/runs/{RUN_ID}/viewer"' not in page and "over the 3D viewer's size limit" in page
