"""Exporting a sprite sheet run (issue 22, item 7): the atlas's rectangles
hold exactly the regenerated frames, the Aseprite JSON's frameTags point at
each sequence's frames, each sequence's animated PNG has its frames at its
fps, and ``tcab asset export``'s bad arguments exit 2 naming them."""

from __future__ import annotations

import io
import json
import shutil

import pytest
from PIL import Image

from tcab.catalog import resolve_case
from tcab.draw import png
from tcab.draw.cli import main_sheet
from tcab.seeding import seed_repository
from tcab.testtypes.asset_export import (
    UNSEQUENCED_MS,
    export_sheet,
    layout,
    read_frames,
    sequence_apng,
)
from tcab.testtypes.asset_score import score_tree
from tests.asset.support import HERO
from tests.support.paths import CATALOG
from tests.support.run_folders import write_run
from tests.support.settings import run_tcab, tmp_settings

RUN_ID = "20261204-platformer-hero-run-reference-1"
# The hero's run cycle, plus a frame no sequence names and a sequence that
# names frames out of order, one twice in a row and one twice in all.
EXTRA = """
[[sheet.frame]]
index = 9

[[sheet.sequence]]
slug = "stumble"
frames = [4, 1, 1, 2, 4]
fps = 7
"""
COLORS = ["#ff0000", "#00ff00", "#0000ff", "#ffff00", "#ff00ff", "#00ffff", None, None, None, "#808080"]


@pytest.fixture
def sheet_run(tmp_path):
    """(settings, case, run folder) of a regenerated sheet run: each frame a rectangle of its own."""
    catalog = tmp_path / "catalog"
    root = catalog / "asset-generation/medium/platformer-hero-run/v1.0.0"
    shutil.copytree(HERO, root)
    manifest = root / "test-case.toml"
    text = manifest.read_text()
    marker = "# The self-contained brief"
    manifest.write_text(text.replace(marker, EXTRA + "\n" + marker, 1))
    shutil.copytree(CATALOG / "asset-generation", catalog / "asset-generation", dirs_exist_ok=True)
    shutil.copytree(CATALOG / "end-to-end", catalog / "end-to-end")
    settings = tmp_settings(tmp_path, catalog=catalog)
    case = resolve_case(catalog, "platformer-hero-run", "v1.0.0")
    assert case.section.frames == (0, 1, 2, 3, 4, 5, 9)
    tree = tmp_path / "tree"
    seed_repository(case, case.variant(), tree)
    for frame in case.section.frames:
        assert main_sheet(["--config", str(tree / ".tcab/draw.json"), "fill-rect", "--frame", str(frame),
                           "--x", str(frame * 4), "--y", str(frame * 2), "--width", "9", "--height", "7",
                           "--color", COLORS[frame]]) == 0
    run = write_run(settings.runs_dir, RUN_ID, case, tree=tree)
    assert score_tree(case.section, run.run_dir / "work", run.run_dir).status == "regenerated"
    return settings, case, run.run_dir


def _rgba(path) -> bytes:
    return png.decode(path.read_bytes(), 48 * 48)[2]


def test_the_atlas_rectangles_hold_exactly_the_regenerated_frames(sheet_run, tmp_path) -> None:
    _, case, run_dir = sheet_run
    out = tmp_path / "out"
    pixels = read_frames(case.section, run_dir / "regenerated", "run")
    export_sheet(case.section, pixels, out)
    doc = json.loads((out / "atlas.json").read_text())
    atlas = Image.open(out / "atlas.png")
    assert atlas.mode == "RGBA" and [atlas.width, atlas.height] == [doc["meta"]["size"]["w"], doc["meta"]["size"]["h"]]
    # One row per sequence (run: 6 frames, stumble: 5), then the frame no sequence names.
    assert (atlas.width, atlas.height) == (6 * 48, 3 * 48)
    expected = [0, 1, 2, 3, 4, 5, 4, 1, 1, 2, 4, 9]
    assert [e["filename"] for e in doc["frames"]][:7] == [f"run {i} (frame {i})" for i in range(6)] + \
        ["stumble 0 (frame 4)"]
    assert doc["frames"][-1]["filename"] == "frame 9"
    covered = Image.new("RGBA", atlas.size)
    for entry, frame in zip(doc["frames"], expected, strict=True):
        r = entry["frame"]
        assert (r["w"], r["h"]) == (48, 48) and entry["sourceSize"] == {"w": 48, "h": 48}
        assert entry["spriteSourceSize"] == {"x": 0, "y": 0, "w": 48, "h": 48}
        assert entry["rotated"] is False and entry["trimmed"] is False
        crop = atlas.crop((r["x"], r["y"], r["x"] + r["w"], r["y"] + r["h"]))
        assert crop.tobytes() == _rgba(run_dir / f"regenerated/{frame}.png"), entry["filename"]
        covered.paste(crop, (r["x"], r["y"]))
    # Nothing outside the rectangles: the atlas is exactly its cells.
    assert covered.tobytes() == atlas.tobytes()


def test_the_json_is_asepritess_array_format_with_the_sequences_as_frame_tags(sheet_run, tmp_path) -> None:
    _, case, run_dir = sheet_run
    export_sheet(case.section, read_frames(case.section, run_dir / "regenerated", "run"), tmp_path / "out")
    doc = json.loads((tmp_path / "out/atlas.json").read_text())
    meta = doc["meta"]
    assert (meta["app"], meta["image"], meta["format"], meta["scale"]) == ("tcab", "atlas.png", "RGBA8888", "1")
    assert meta["frameTags"] == [{"name": "run", "from": 0, "to": 5, "direction": "forward"},
                                 {"name": "stumble", "from": 6, "to": 10, "direction": "forward"}]
    for seq, tag in zip(case.section.sequences, meta["frameTags"], strict=True):
        entries = doc["frames"][tag["from"]:tag["to"] + 1]
        assert [int(e["filename"].split("frame ")[1].rstrip(")")) for e in entries] == list(seq.frames)
        assert {e["duration"] for e in entries} == {round(1000 / seq.fps)}
    assert doc["frames"][-1]["duration"] == UNSEQUENCED_MS


def test_each_sequence_is_an_animated_png_at_its_fps(sheet_run, tmp_path) -> None:
    _, case, run_dir = sheet_run
    pixels = read_frames(case.section, run_dir / "regenerated", "run")
    export_sheet(case.section, pixels, tmp_path / "out")
    run = Image.open(tmp_path / "out/sequences/run.png")
    assert run.format == "PNG" and run.n_frames == 6 and run.info.get("loop") == 0
    for i in range(6):
        run.seek(i)
        assert run.info["duration"] == 83  # 1000 / 12 fps
        assert run.convert("RGBA").tobytes() == pixels[i]
    # 4, 1, 1, 2, 4 at 7 fps: the writer merges the repeated 1 into one frame of twice the duration.
    stumble = Image.open(tmp_path / "out/sequences/stumble.png")
    assert stumble.n_frames == 4
    shown = []
    for i in range(4):
        stumble.seek(i)
        shown.append((stumble.convert("RGBA").tobytes(), stumble.info["duration"]))
    assert shown == [(pixels[4], 143), (pixels[1], 286), (pixels[2], 143), (pixels[4], 143)]
    # The same frames give the same bytes.
    again = sequence_apng(case.section, (0, 1, 2, 3, 4, 5), 12, pixels)
    assert again == (tmp_path / "out/sequences/run.png").read_bytes()


def test_the_layout_keeps_each_sequence_contiguous(sheet_run) -> None:
    _, case, _ = sheet_run
    cells, width, height = layout(case.section)
    assert [(c.frame, c.x // 48, c.y // 48) for c in cells][5:8] == [(5, 5, 0), (4, 0, 1), (1, 1, 1)]
    assert (width, height) == (288, 144)


def test_the_command_exports_a_run(sheet_run, tmp_path) -> None:
    settings, _, run_dir = sheet_run
    result = run_tcab(settings, "asset", "export", RUN_ID, "--out", str(tmp_path / "x"))
    assert result.returncode == 0, result.stderr
    assert sorted(p.relative_to(tmp_path / "x").as_posix() for p in (tmp_path / "x").rglob("*.*")) == \
        ["atlas.json", "atlas.png", "sequences/run.png", "sequences/stumble.png"]
    first = {p.name: p.read_bytes() for p in (tmp_path / "x").rglob("*.png")}
    again = run_tcab(settings, "asset", "export", RUN_ID, "--out", str(tmp_path / "x"))  # an existing folder
    assert again.returncode == 0, again.stderr
    assert {p.name: p.read_bytes() for p in (tmp_path / "x").rglob("*.png")} == first
    help_text = run_tcab(settings, "asset", "export", "--help").stdout
    assert "atlas.json" in help_text and "frameTags" in help_text and "RUN_ID" in help_text


def _refused(settings, *args) -> str:
    result = run_tcab(settings, "asset", "export", *args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    return result.stderr


def test_bad_arguments_exit_2_naming_them(sheet_run, tmp_path) -> None:
    settings, _, run_dir = sheet_run
    out = str(tmp_path / "out")
    assert "RUN_ID" in _refused(settings, "no-such-run", "--out", out)
    assert "RUN_ID" in _refused(settings, "../etc", "--out", out)
    (tmp_path / "file").write_text("x")
    err = _refused(settings, RUN_ID, "--out", str(tmp_path / "file"))
    assert "--out" in err and "not a folder" in err
    (tmp_path / "link").symlink_to(tmp_path)
    assert "--out" in _refused(settings, RUN_ID, "--out", str(tmp_path / "link"))
    assert "Missing option '--out'" in _refused(settings, RUN_ID)

    lights = resolve_case(settings.catalog_dir, "lights-out", "v1.0.0")
    write_run(settings.runs_dir, "20261204-lights-out-reference-1", lights, variant="classic")
    err = _refused(settings, "20261204-lights-out-reference-1", "--out", out)
    assert "RUN_ID" in err and "end-to-end" in err

    gem = resolve_case(settings.catalog_dir, "ember-gem", "v1.0.0")
    write_run(settings.runs_dir, "20261204-ember-gem-reference-1", gem)
    err = _refused(settings, "20261204-ember-gem-reference-1", "--out", out)
    assert "RUN_ID" in err and "single sprite" in err

    shutil.rmtree(run_dir / "regenerated")
    err = _refused(settings, RUN_ID, "--out", out)
    assert "RUN_ID" in err and "no regenerated frames" in err
    assert not (tmp_path / "out").exists()


def test_a_damaged_regenerated_frame_is_refused(sheet_run, tmp_path) -> None:
    settings, _, run_dir = sheet_run
    (run_dir / "regenerated/3.png").write_bytes(b"not a png")
    assert "3.png" in _refused(settings, RUN_ID, "--out", str(tmp_path / "out"))
    (run_dir / "regenerated/3.png").unlink()
    (run_dir / "regenerated/3.png").symlink_to(run_dir / "regenerated/2.png")
    assert "3.png" in _refused(settings, RUN_ID, "--out", str(tmp_path / "out"))


def test_a_sequence_with_nothing_to_animate_is_a_still_png(sheet_run) -> None:
    _, case, run_dir = sheet_run
    pixels = read_frames(case.section, run_dir / "regenerated", "run")
    for frames in ((9,), (9, 9, 9)):
        data = sequence_apng(case.section, frames, 2, pixels)
        one = Image.open(io.BytesIO(data))
        assert b"acTL" not in data and one.n_frames == 1 and one.convert("RGBA").tobytes() == pixels[9]
