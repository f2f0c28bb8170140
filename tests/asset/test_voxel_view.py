"""A voxel run in ``tcab view`` (issue 23, item 5): the panel (parts
regenerated beside previews, the four scene views, the posed render, the
required animations, the brief, the .glb export), the 3D viewer page
carrying the model under its own policy, three.js served by the app from
npm (nothing from the network), and the viewer for real in Chromium:
the model loads, each animation is a button by name, each caller joint a
slider."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from tcab.catalog import load_version
from tcab.results import open_db, record_run
from tcab.seeding import seed_repository
from tcab.testtypes.asset_view import panel
from tcab.testtypes.asset_voxel_score import score_voxel_tree
from tcab.voxel.cli import main_anim
from tcab.web3d import THREE
from tests.asset.support import CORE
from tests.support.original import ORIGINAL
from tests.support.paths import REPO
from tests.support.results_rows import run_row
from tests.support.settings import tmp_settings
from tests.support.view_server import view_server

RUN_ID = "20261205-caldera-core-reference-1"


def _run(tmp_path, monkeypatch):
    case, _ = load_version(CORE)
    settings = tmp_settings(tmp_path, catalog=ORIGINAL)
    run_dir = settings.results_dir / "runs" / RUN_ID
    tree = run_dir / "work"
    half = case.variant("half")
    seed_repository(case, half, tree)
    monkeypatch.chdir(tree)
    for args in (["define-part", "--name", "keep"], ["define-part", "--name", "beacon", "--parent", "keep"],
                 ["fill-box", "--part", "keep", "--x0", "2", "--y0", "0", "--z0", "2", "--x1", "30", "--y1", "8",
                  "--z1", "30", "--color", "#c8a24a"],
                 ["fill-box", "--part", "beacon", "--x0", "14", "--y0", "9", "--z0", "14", "--x1", "17", "--y1", "20",
                  "--z1", "17", "--color", "#2f7d72"],
                 ["define-joint", "--name", "spin", "--part", "beacon", "--axis", "y", "--min", "-7", "--max", "7",
                  "--drive", "auto"],
                 ["define-joint", "--name", "tilt", "--part", "beacon", "--axis", "x", "--min", "-1", "--max", "1",
                  "--drive", "caller"],
                 ["define-animation", "--name", "idle", "--period-ms", "1000", "--loop", "true", "--auto-play", "true"],
                 ["add-keyframe", "--animation", "idle", "--joint", "spin", "--t-ms", "0", "--value", "0"],
                 ["add-keyframe", "--animation", "idle", "--joint", "spin", "--t-ms", "1000", "--value", "3"],
                 ["render"], ["render", "--time", "500", "--animation", "idle"]):
        assert main_anim(args) == 0, args
    assert score_voxel_tree(case.section, case.section.volume_for(half), tree, run_dir).status == "regenerated"
    return case, settings, run_dir


def test_the_panel_names_parts_views_pose_and_the_model(tmp_path, monkeypatch) -> None:
    case, _, run_dir = _run(tmp_path, monkeypatch)
    v = panel(case, {"variant": "half"}, run_dir, RUN_ID)["voxel"]
    assert v["volume"] == "40×35×40" and v["kind"] == "voxel-animation"
    assert [p["part"] for p in v["parts"]] == ["keep", "beacon"]
    assert v["parts"][1]["regenerated"] == f"/runs/{RUN_ID}/raw/regenerated/beacon.png"
    assert v["parts"][1]["preview"] == f"/runs/{RUN_ID}/raw/work/parts/beacon.png"
    assert [x["view"] for x in v["views"]] == ["iso", "front", "side", "top"]
    assert v["pose"] == f"/runs/{RUN_ID}/raw/work/scene/pose.png"
    assert v["turntable"] == f"/runs/{RUN_ID}/raw/exports/turntable.png"
    assert v["viewer"] == f"/runs/{RUN_ID}/viewer" and v["glb"] == f"/runs/{RUN_ID}/raw/work/scene/scene.glb"
    assert [a["name"] for a in v["animations"]] == ["idle", "upgrade"]
    assert v["brief"] == ["/cases/caldera-core/v1.0.0/raw/specs/brief.md.hbs"]
    # a preview replaced by a link is never named
    (run_dir / "work/parts/keep.png").unlink()
    (run_dir / "work/parts/keep.png").symlink_to("/etc/passwd")
    assert panel(case, {"variant": "half"}, run_dir, RUN_ID)["voxel"]["parts"][0]["preview"] is None


@pytest.mark.timeout(180)
def test_the_viewer_turns_the_model_with_three_from_the_app(tmp_path, monkeypatch) -> None:
    if not THREE.is_dir():
        pytest.fail("three.js is not installed: make node-deps (npm ci --prefix tcab/web3d/node)")
    _, settings, run_dir = _run(tmp_path, monkeypatch)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    db = open_db(settings.results_db)
    try:
        record_run(db, run_row(RUN_ID, case_slug="caldera-core", case_type="asset-generation", variant="half"), [])
    finally:
        db.close()
    with view_server(settings) as url:
        page = urllib.request.urlopen(f"{url}/runs/{RUN_ID}", timeout=10).read().decode()
        assert "<h2>Voxel model</h2>" in page and f'src="/runs/{RUN_ID}/viewer"' in page
        assert 'sandbox="allow-scripts"' in page and "scene: front" in page and "posed render" in page
        viewer = urllib.request.urlopen(f"{url}/runs/{RUN_ID}/viewer", timeout=10)
        policy = viewer.headers["Content-Security-Policy"]
        assert "script-src 'self' 'sha256-" in policy and "connect-src data: blob:" in policy
        three = urllib.request.urlopen(f"{url}/web3d/three.module.js", timeout=10)
        assert three.headers["Access-Control-Allow-Origin"] == "*" and b"REVISION" in three.read()
        for bad in ("addons/../../package.json", "addons/loaders/../../../../../../etc/passwd", "nothing.js"):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(f"{url}/web3d/{bad}", timeout=10)
            assert err.value.code in (400, 403, 404)

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
                tab.locator("button", has_text="play idle").wait_for(timeout=30_000)
                assert tab.locator("button", has_text="play upgrade").count() == 0  # not authored: a gap
                assert tab.locator("input[type=range]").count() == 1  # the caller joint tilt
                assert "tilt" in tab.inner_text("#controls")
                tab.locator("button", has_text="turntable").click()
                tab.locator("input[type=range]").fill("0.5")
                tab.wait_for_timeout(300)
                tab.screenshot(path=str(tmp_path / "viewer.png"))
                assert problems == [] and outside == [], (problems, outside)
            finally:
                browser.close()


def test_asset_export_writes_a_voxel_runs_glb_and_turntable(tmp_path, monkeypatch) -> None:
    from PIL import Image

    from tests.support.run_folders import write_run
    from tests.support.settings import run_tcab

    case, settings, first = _run(tmp_path, monkeypatch)
    other = "20261205-caldera-core-reference-2"
    run = write_run(settings.runs_dir, other, case, variant="half", tree=first / "work")
    assert score_voxel_tree(case.section, case.section.volume_for(case.variant("half")), run.run_dir / "work",
                            run.run_dir).status == "regenerated"  # what the sweep's regenerate task does
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    result = run_tcab(settings, "asset", "export", other, "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(tmp_path / "out/model.glb"), str(tmp_path / "out/turntable.png")]
    assert (tmp_path / "out/model.glb").read_bytes() == (run.run_dir / "work/scene/scene.glb").read_bytes()
    assert Image.open(tmp_path / "out/turntable.png").n_frames == 24


def _exported_run(tmp_path, monkeypatch):
    from tests.support.run_folders import write_run

    case, settings, first = _run(tmp_path, monkeypatch)
    other = "20261205-caldera-core-reference-2"
    run = write_run(settings.runs_dir, other, case, variant="half", tree=first / "work")
    score_voxel_tree(case.section, case.section.volume_for(case.variant("half")), run.run_dir / "work", run.run_dir)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    return settings, other, run.run_dir


def _export(settings, run_id, out):
    from tests.support.settings import run_tcab

    result = run_tcab(settings, "asset", "export", run_id, "--out", str(out))
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_asset_export_of_a_voxel_run_is_bounded_as_the_tools_output_not_the_viewer(tmp_path, monkeypatch) -> None:
    from tcab.testtypes.asset_voxel_view import MAX_EXPORT_BYTES
    from tcab.web3d import MAX_VIEW_GLB

    settings, run_id, run_dir = _exported_run(tmp_path, monkeypatch)
    scene = run_dir / "work/scene/scene.glb"
    with open(scene, "ab") as f:  # sparse: a scene the tool could write, too large for a viewer page
        f.truncate(MAX_VIEW_GLB + (8 << 20))
    result = _export(settings, run_id, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out/model.glb").stat().st_size == MAX_VIEW_GLB + (8 << 20)
    with open(scene, "ab") as f:
        f.truncate(MAX_EXPORT_BYTES + 1)
    result = _export(settings, run_id, tmp_path / "out2")
    assert result.returncode == 2 and "work/scene/scene.glb" in result.stderr and "MAX_EXPORT_BYTES" in result.stderr
    assert not (tmp_path / "out2").exists()  # nothing half exported


@pytest.mark.parametrize("attack", ["link", "folder", "fifo", "linked-folder"])
def test_asset_export_names_a_model_that_is_not_a_plain_file(tmp_path, monkeypatch, attack) -> None:
    import os

    settings, run_id, run_dir = _exported_run(tmp_path, monkeypatch)
    scene = run_dir / "work/scene/scene.glb"
    scene.unlink()
    if attack == "link":
        scene.symlink_to("/etc/passwd")
    elif attack == "folder":
        scene.mkdir()
    elif attack == "fifo":
        os.mkfifo(scene)
    else:
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "elsewhere/scene.glb").write_bytes(b"glTF")
        (run_dir / "work/scene").rename(tmp_path / "moved")
        (run_dir / "work/scene").symlink_to(tmp_path / "elsewhere")
    result = _export(settings, run_id, tmp_path / "out")
    assert result.returncode == 2 and "RUN_ID" in result.stderr, result.stderr
    assert "work/scene" in result.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("attack", ["folder", "link"])
def test_asset_export_names_an_out_file_it_cannot_write(tmp_path, monkeypatch, attack) -> None:
    settings, run_id, _ = _exported_run(tmp_path, monkeypatch)
    out = tmp_path / "out"
    out.mkdir()
    if attack == "folder":
        (out / "model.glb").mkdir()
    else:
        (out / "turntable.png").symlink_to(tmp_path / "elsewhere.png")
    result = _export(settings, run_id, out)
    assert result.returncode == 2 and "--out" in result.stderr, result.stderr
    assert str(out / ("model.glb" if attack == "folder" else "turntable.png")) in result.stderr
    assert not (tmp_path / "elsewhere.png").exists()
    from click.testing import CliRunner

    from tcab.cli import cli
    from tests.support.settings import cli_env

    inside = CliRunner().invoke(cli, ["asset", "export", run_id, "--out", str(out)], env=cli_env(settings),
                                catch_exceptions=False)  # the command itself, not main()'s last line of defence
    assert inside.exit_code == 2 and "--out" in inside.output


def test_the_panel_links_no_viewer_for_a_glb_too_large_to_carry(tmp_path, monkeypatch) -> None:
    from tcab.web3d import MAX_VIEW_GLB

    case, _, run_dir = _run(tmp_path, monkeypatch)
    with open(run_dir / "work/scene/scene.glb", "ab") as f:
        f.truncate(MAX_VIEW_GLB + 1)
    v = panel(case, {"variant": "half"}, run_dir, RUN_ID)["voxel"]
    assert v["viewer"] is None and v["glb"] == f"/runs/{RUN_ID}/raw/work/scene/scene.glb"  # still downloadable
