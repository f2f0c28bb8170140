"""Regenerating an asset run from its logs alone (issue 22, item 4): the
frames written, each preview's divergence, and every bad input recorded as
an outcome, never a crash."""

from __future__ import annotations

import os
import struct
import zlib

import pytest

from tcab.catalog import load_version
from tcab.draw import VERSION, blank_png, png
from tcab.draw.cli import main_sheet, main_sprite
from tcab.seeding import seed_repository
from tcab.testtypes.asset_score import MAX_DIVERGENCE, divergence, score_tree
from tests.asset.support import HERO, ICONS


def _load(root):
    case, found = load_version(root)
    assert found == [] and case is not None
    return case


@pytest.fixture
def sprite(tmp_path):
    """(case, collected tree, run folder) of a sprite run that drew two rectangles."""
    case = _load(ICONS)
    run_dir = tmp_path / "run"
    tree = run_dir / "work"
    seed_repository(case, case.variant(), tree)
    config = str(tree / ".tcab/draw.json")
    for x, color in ((4, "#ff0000"), (40, "#00ff0080")):
        assert main_sprite(["--config", config, "fill-rect", "--x", str(x), "--y", "8", "--width", "20",
                            "--height", "30", "--color", color]) == 0
    return case, tree, run_dir


def test_an_honest_sprite_regenerates_to_its_preview(sprite) -> None:
    case, tree, run_dir = sprite
    score = score_tree(case.section, tree, run_dir)
    assert score.status == "regenerated" and score.detail == ""
    (frame,) = score.frames
    assert (frame.name, frame.ops, frame.divergence, frame.flagged) == ("sprite", 2, 0.0, False)
    assert (run_dir / "regenerated/sprite.png").read_bytes() == (tree / "canvas.png").read_bytes()
    assert score.draw_version == VERSION and not score.version_mismatch


def test_a_sheet_regenerates_every_frame(tmp_path) -> None:
    case = _load(HERO)
    tree = tmp_path / "run/work"
    seed_repository(case, case.variant(), tree)
    assert main_sheet(["--config", str(tree / ".tcab/draw.json"), "fill-circle", "--frame", "3", "--cx", "20",
                       "--cy", "20", "--r", "6", "--color", "#123456"]) == 0
    score = score_tree(case.section, tree, tmp_path / "run")
    assert [(f.name, f.ops, f.divergence) for f in score.frames] == \
        [(str(i), int(i == 3), 0.0) for i in range(6)]
    assert sorted(p.name for p in (tmp_path / "run/regenerated").iterdir()) == [f"{i}.png" for i in range(6)]


def test_a_tampered_preview_is_flagged_with_its_divergence(sprite) -> None:
    case, tree, run_dir = sprite
    (tree / "canvas.png").write_bytes(png.encode(96, 96, b"\xff\xff\xff\xff" * 96 * 96))
    (frame,) = score_tree(case.section, tree, run_dir).frames
    assert frame.flagged and frame.divergence > MAX_DIVERGENCE and "differs" in frame.detail


def test_the_divergence_is_the_mean_rgb_difference() -> None:
    a = b"\x00\x00\x00\xff" * 4
    b = b"\xff\xff\xff\x00" + b"\x00\x00\x00\xff" * 3
    assert divergence(a, a) == 0.0 and divergence(a, b) == pytest.approx(0.25)


def _huge_png() -> bytes:
    header = struct.pack(">IIBBBBB", 10_000, 10_000, 8, 6, 0, 0, 0)
    chunk = b"IHDR" + header
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(header)) + chunk
            + struct.pack(">I", zlib.crc32(chunk)) + b"\x00\x00\x00\x00IEND\xaeB`\x82")


@pytest.mark.parametrize("make, words", [
    (lambda p: p.write_bytes(b"GIF89a not a png"), "not a PNG"),
    (lambda p: p.write_bytes(_huge_png()), "10000"),
    (lambda p: p.write_bytes(blank_png(8, 8, "transparent")), "8x8, not the canvas's 96x96"),
    (lambda p: p.unlink(), "missing"),
    (lambda p: (p.unlink(), p.symlink_to("/etc/passwd")), "symbolic link"),
])
def test_a_bad_preview_is_flagged_without_a_divergence(sprite, make, words) -> None:
    case, tree, run_dir = sprite
    make(tree / "canvas.png")
    score = score_tree(case.section, tree, run_dir)
    (frame,) = score.frames
    assert score.status == "regenerated" and frame.flagged and frame.divergence is None
    assert words in frame.detail, frame.detail


def _fifo(p):
    p.unlink()
    os.mkfifo(p)


def _folder(p):
    p.unlink()
    p.mkdir()


def _link(p):
    outside = p.parent.parent / "outside.json"
    outside.write_bytes(p.read_bytes())
    p.unlink()
    p.symlink_to(outside)


@pytest.mark.parametrize("make, words", [
    (_link, "symbolic link"), (_fifo, "FIFO"), (_folder, "directory"), (lambda p: p.unlink(), "missing"),
    (lambda p: p.write_bytes(b'{"op":"fill-rect","x":NaN,"y":0,"width":1,"height":1,"color":"#ff0000ff"}\n'),
     "actions.json"),
    (lambda p: p.write_bytes(b'{"op":"fill-rect","x":"4","y":0,"width":1,"height":1,"color":"#ff0000ff"}\n'),
     "x"),
    (lambda p: p.write_bytes(b'{"op":"fill-rect","x":1.5,"y":0,"width":1,"height":1,"color":"#ff0000ff"}\n'),
     "x"),
    (lambda p: p.write_bytes(b"[" * 100_000 + b"\n"), "actions.json"),
])
def test_a_bad_log_is_no_asset(sprite, make, words) -> None:
    case, tree, run_dir = sprite
    make(tree / "actions.json")
    score = score_tree(case.section, tree, run_dir)
    assert score.status == "no_asset" and score.frames == () and words in score.detail, score.detail
    assert not (run_dir / "regenerated").exists()


def test_a_log_behind_a_linked_folder_is_not_read(tmp_path) -> None:
    case = _load(HERO)
    tree = tmp_path / "run/work"
    seed_repository(case, case.variant(), tree)
    os.rename(tree / "frames", tmp_path / "elsewhere")
    (tree / "frames").symlink_to(tmp_path / "elsewhere")
    score = score_tree(case.section, tree, tmp_path / "run")
    assert score.status == "no_asset" and "frames is not a folder" in score.detail


def test_a_version_mismatch_is_seen(sprite) -> None:
    case, tree, run_dir = sprite
    (tree / ".tcab/version").write_text("0.9.0\n")
    score = score_tree(case.section, tree, run_dir)
    assert score.draw_version == "0.9.0" and score.version_mismatch
    (tree / ".tcab/version").unlink()
    assert score_tree(case.section, tree, run_dir).version_mismatch
