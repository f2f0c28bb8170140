"""``tcab asset render-reference`` for a Blender character (issue 23, item
7): tin-scout's solution build.py run by tcab-blend in a real container of
the Blender image; a solution whose build.py fails is exit 2 with the log."""

from __future__ import annotations

import json
import shutil

from tcab.blender import glb
from tests.support.paths import CATALOG
from tests.support.settings import run_tcab, tmp_settings


def test_tin_scouts_reference_is_built_in_the_blender_image(tmp_path, blender_runtime) -> None:
    settings = tmp_settings(tmp_path)
    out = tmp_path / "scout"
    result = run_tcab(settings, "asset", "render-reference", "tin-scout", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["character.glb", "model.png", "summary.json"]
    summary = glb.summary(glb.parse((out / "character.glb").read_bytes()))
    assert summary.skins == 1 and summary.animation_names == ("death", "fire", "idle", "run")
    assert json.loads((out / "summary.json").read_text())["gaps"] == []


def test_a_reference_that_builds_nothing_is_exit_2(tmp_path, blender_runtime) -> None:
    catalog = tmp_path / "catalog"
    shutil.copytree(CATALOG / "asset-generation/medium/tin-scout", catalog / "asset-generation/medium/tin-scout")
    (catalog / "asset-generation/medium/tin-scout/v1.0.0/solution/build.py").write_text("raise SystemExit(3)\n")
    settings = tmp_settings(tmp_path, catalog=catalog)
    result = run_tcab(settings, "asset", "render-reference", "tin-scout", "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and "the reference build.py built no character.glb" in result.stderr
    assert "Traceback" not in result.stderr
