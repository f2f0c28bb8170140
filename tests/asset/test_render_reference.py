"""``tcab asset render-reference`` (issue 22, item 8): a case's reference
implementation seeded, run on the host with this checkout's drawing tools,
regenerated and written out; a broken, slow or missing reference exits 2
naming CASE. (That its output equals a real sweep's regeneration is
tests/asset/test_sweep.py, under Podman.)"""

from __future__ import annotations

import json
import shutil

from PIL import Image

from tcab.catalog import resolve_case
from tcab.testtypes.asset_reference import render_reference
from tests.support.paths import CATALOG
from tests.support.settings import run_tcab, tmp_settings

GEM = "asset-generation/easy/ember-gem/v1.0.0"


def test_the_sheet_cases_reference_renders_every_frame_and_its_exports(tmp_path) -> None:
    case = resolve_case(CATALOG, "candle-flicker")
    rendered = render_reference(case, case.variant(), tmp_path / "out", tmp_path / "tmp", timeout_s=120)
    assert [(f.name, f.divergence, f.flagged) for f in rendered.score.frames] == \
        [(str(i), 0.0, False) for i in range(4)]  # the previews it drew are what its logs regenerate to
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in rendered.written) == \
        ["atlas.json", "atlas.png", "frames/0.png", "frames/1.png", "frames/2.png", "frames/3.png",
         "sequences/flicker.png"]
    frames = [Image.open(tmp_path / f"out/frames/{i}.png").convert("RGBA").tobytes() for i in range(4)]
    assert len(set(frames)) == 4  # the flame moves in every frame
    flicker = Image.open(tmp_path / "out/sequences/flicker.png")
    assert flicker.n_frames == 4 and flicker.info["duration"] == 125  # 8 fps
    doc = json.loads((tmp_path / "out/atlas.json").read_text())
    assert doc["meta"]["frameTags"] == [{"name": "flicker", "from": 0, "to": 3, "direction": "forward"}]
    assert list((tmp_path / "tmp").iterdir()) == []  # the scratch folder is gone


def test_the_command_renders_the_sprite_case(tmp_path) -> None:
    settings = tmp_settings(tmp_path)
    result = run_tcab(settings, "asset", "render-reference", "ember-gem@v1.0.0", "--out", str(tmp_path / "gem"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(tmp_path / "gem/frames/sprite.png")]
    gem = Image.open(tmp_path / "gem/frames/sprite.png")
    assert gem.size == (16, 16) and gem.convert("RGBA").getpixel((6, 4)) == (0xff, 0xd9, 0xc2, 255)
    assert "draw.sh" in run_tcab(settings, "asset", "render-reference", "--help").stdout


def _catalog_with(tmp_path, script: str):
    """A catalog of ember-gem whose reference script is ``script``."""
    catalog = tmp_path / "catalog"
    shutil.copytree(CATALOG / GEM, catalog / GEM)
    (catalog / GEM / "solution/.reference/draw.sh").write_text(script)
    shutil.copytree(CATALOG / "end-to-end", catalog / "end-to-end")
    return tmp_settings(tmp_path, catalog=catalog)


def _refused(settings, *args) -> str:
    result = run_tcab(settings, "asset", "render-reference", *args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    return result.stderr


def test_a_failing_script_exits_2_with_its_output_and_a_clean_environment(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TCAB_PROBE_SECRET", "do-not-pass-me")
    settings = _catalog_with(tmp_path, "env\necho broken >&2\nexit 3\n")
    err = _refused(settings, "ember-gem", "--out", str(tmp_path / "out"))
    assert "CASE" in err and "exited 3" in err and "broken" in err
    assert "PATH=" in err and "do-not-pass-me" not in err
    assert not (tmp_path / "out").exists()


def test_a_slow_script_is_killed_at_the_timeout(tmp_path) -> None:
    settings = _catalog_with(tmp_path, "sleep 60 &\nsleep 60\n")
    err = _refused(settings, "ember-gem", "--out", str(tmp_path / "out"), "--timeout", "1")
    assert "CASE" in err and "did not finish within 1 s" in err


def test_a_script_that_draws_a_broken_log_exits_2(tmp_path) -> None:
    settings = _catalog_with(tmp_path, "printf 'not json\\n' > actions.json\n")
    err = _refused(settings, "ember-gem", "--out", str(tmp_path / "out"))
    assert "CASE" in err and "do not regenerate" in err


def test_bad_arguments_exit_2_naming_them(tmp_path) -> None:
    settings = _catalog_with(tmp_path, "exit 0\n")
    out = str(tmp_path / "out")
    assert "CASE" in _refused(settings, "no-such-case", "--out", out)
    err = _refused(settings, "lights-out", "--out", out)
    assert "CASE" in err and "end-to-end" in err
    (tmp_path / "file").write_text("x")
    err = _refused(settings, "ember-gem", "--out", str(tmp_path / "file"))
    assert "--out" in err and "not a folder" in err
    assert "--timeout" in _refused(settings, "ember-gem", "--out", out, "--timeout", "-1")
    err = _refused(settings, "ember-gem", "--out", out, "--variant", "nope")
    assert "--variant" in err and "nope" in err
    shutil.rmtree(tmp_path / "catalog" / GEM / "solution/.reference")
    err = _refused(settings, "ember-gem", "--out", out)
    assert "CASE" in err and ".reference/draw.sh" in err
    (tmp_path / "catalog" / GEM / "solution/.reference").mkdir()
    (tmp_path / "catalog" / GEM / "solution/.reference/draw.sh").symlink_to("/bin/true")
    err = _refused(settings, "ember-gem", "--out", out)
    assert "CASE" in err and "not a regular file" in err


def test_the_voxel_cases_references_render_their_parts_and_scene(tmp_path) -> None:
    """Issue 23, item 7: the case-author command renders tcab's own voxel cases."""
    lamp = resolve_case(CATALOG, "beacon-lamp")
    rendered = render_reference(lamp, lamp.variant("tall"), tmp_path / "lamp", tmp_path / "tmp", timeout_s=120)
    assert [(p.part, p.status, p.mesh_match) for p in rendered.score.parts] == \
        [("post", "regenerated", True), ("head", "regenerated", True)]
    assert rendered.score.notes == []  # the required `spin` is authored
    assert sorted(p.relative_to(tmp_path / "lamp").as_posix() for p in rendered.written) == \
        ["parts/head.glb", "parts/head.png", "parts/post.glb", "parts/post.png", "scene/front.png",
         "scene/iso.png", "scene/scene.glb", "scene/side.png", "scene/top.png"]
    settings = tmp_settings(tmp_path)
    result = run_tcab(settings, "asset", "render-reference", "valve-wheel", "--out", str(tmp_path / "valve"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(tmp_path / "valve/parts/model.glb"), str(tmp_path / "valve/parts/model.png")]
    assert Image.open(tmp_path / "valve/parts/model.png").size == (512, 512)
