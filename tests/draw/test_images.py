"""The sprite images with the real tool, as a harness calls it: a seeded
workspace copied in, draw/draw-sheet run as the run user, the tree copied
out, and the host's regeneration equal to the tool's previews byte for
byte (containers/sprite*, tcab/draw). Needs Podman and `make images`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tcab.draw import VERSION, blank_png
from tcab.draw.config import ToolConfig
from tcab.draw.logs import read_log_file
from tcab.draw.regenerate import regenerate
from tcab.runtime import ContainerSpec, resolve_image

pytestmark = pytest.mark.timeout(300)


def seed(folder, config: ToolConfig) -> None:
    (folder / ".tcab").mkdir(parents=True)
    (folder / ".tcab/draw.json").write_bytes(config.to_json())
    (folder / config.layers).write_bytes(b"")
    for frame in config.frame_keys():
        (folder / config.actions_path(frame)).parent.mkdir(parents=True, exist_ok=True)
        (folder / config.actions_path(frame)).write_bytes(b"")
        (folder / config.preview_path(frame)).write_bytes(blank_png(config.width, config.height, config.background))


def regenerated(folder, config: ToolConfig) -> dict:
    return regenerate(config, lambda frame: read_log_file(str(folder / config.actions_path(frame))),
                      read_log_file(str(folder / config.layers)))


@pytest.fixture
def container(podman_runtime, request):
    made = []

    def start(kind: str) -> str:
        image = resolve_image(kind)
        try:
            podman_runtime.ensure_image(image, pull=False)
        except Exception:  # noqa: BLE001 - the message says what fixes it
            pytest.fail(f"{image} is missing; run `make images`", pytrace=False)
        cid = podman_runtime.start(ContainerSpec(image=image, run_id=f"test-draw-{kind}"))
        made.append(cid)
        return cid

    yield start
    for cid in made:
        podman_runtime.remove(cid)


def test_draw_in_the_sprite_image(podman_runtime, container, tmp_path) -> None:
    config = ToolConfig(kind="sprite", width=64, height=64, background="transparent", actions="actions.json",
                        preview="canvas.png", layers=".tcab/layers.jsonl")
    seed(tmp_path / "in", config)
    box = container("sprite")
    podman_runtime.copy_in(box, tmp_path / "in")
    script = " && ".join([
        "draw --version", "! command -v draw-sheet",
        "draw fill-rect --x 28 --y 28 --width 8 --height 1 --color '#ff4ec7'",
        "draw fill-circle --cx 20 --cy 16 --r 8 --color '#c46bff'",
        "draw register-layer --name ball --x 10 --y 6 --width 12 --height 12 --rotation 33 --opacity 180",
        "draw fill-circle --layer ball --cx 6 --cy 6 --r 5 --color '#88ccff'",
        "draw line --x0 -4611686018427387904 --y0 0 --x1 4611686018427387904 --y1 63 --color '#000'",
        "draw flood-fill --x 0 --y 63 --color '#0f08'",
        "draw mirror-horizontal --axis-x 32",
        "draw stroke-circle --cx 50 --cy 50 --r 4611686018427387904 --color '#fff'",
        "draw render --out /tmp/r.png && cmp /tmp/r.png canvas.png",
        "(draw fill-rect --x 1 --y 1 --width 2 --height 2 --color red; test $? -eq 1)",
    ])
    res = podman_runtime.exec(box, ["sh", "-c", script])
    assert res.ok, res.output
    assert f"draw {VERSION}" in res.stdout and "recorded as op 6 of actions.json" in res.stdout
    assert "--color: expected a colour" in res.stderr
    podman_runtime.copy_out(box, "/work", tmp_path / "out")
    out = tmp_path / "out"
    assert (out / ".tcab/version").read_text() == VERSION + "\n"
    assert regenerated(out, config)[None] == (out / "canvas.png").read_bytes()


def test_draw_sheet_in_the_sprite_sheet_image(podman_runtime, container, tmp_path) -> None:
    config = ToolConfig(kind="sprite-sheet", width=48, height=48, background="#00000000",
                        actions="frames/{frame}.actions.json", preview="frames/{frame}.png",
                        layers=".tcab/layers.jsonl", frames=(0, 1, 2, 3, 4, 5))
    seed(tmp_path / "in", config)
    box = container("sprite-sheet")
    podman_runtime.copy_in(box, tmp_path / "in")
    script = " && ".join([
        "! command -v draw",
        "draw-sheet register-layer --name ball --x 2 --y 30 --width 12 --height 12",
        "draw-sheet fill-circle --layer ball --cx 6 --cy 6 --r 5 --color '#c46bff'",
        "draw-sheet animate-layer --layer ball --property x --frame 0 --value 2 --interp linear",
        "draw-sheet animate-layer --layer ball --property x --frame 5 --value 34",
        "draw-sheet animate-layer --layer ball --property y --frame 0 --value 30 --interp ease-out",
        "draw-sheet animate-layer --layer ball --property y --frame 2 --value 4 --interp ease-in",
        "draw-sheet animate-layer --layer ball --property y --frame 5 --value 30",
        "draw-sheet animate-layer --layer ball --property rotation --frame 5 --value 270 --handle-in -2,0",
        "for f in 0 1 2 3 4 5; do draw-sheet fill-rect --frame $f --x 0 --y 44 --width 48 --height 4 "
        "--color '#222'; done",
        "draw-sheet set-pixel --frame 3 --x 47 --y 0 --color '#fff'",
        "(draw-sheet set-pixel --frame 6 --x 0 --y 0 --color '#fff'; test $? -eq 1)",
    ])
    res = podman_runtime.exec(box, ["sh", "-c", script])
    assert res.ok, res.output
    podman_runtime.copy_out(box, "/work", tmp_path / "out")
    out = tmp_path / "out"
    frames = regenerated(out, config)
    assert sorted(frames) == [0, 1, 2, 3, 4, 5]
    for frame, data in frames.items():
        assert data == (out / config.preview_path(frame)).read_bytes(), frame
    assert len(set(frames.values())) == 6  # the ball moves


def test_the_images_carry_this_checkouts_library(podman_runtime, container) -> None:
    here = Path(__file__).resolve().parents[2] / "tcab/draw"
    want = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(here.glob("*.py"))}
    script = ("import hashlib, pathlib, json; print(json.dumps({p.name: hashlib.sha256(p.read_bytes()).hexdigest() "
              "for p in sorted(pathlib.Path('/usr/local/lib/tcab-draw/tcab/draw').glob('*.py'))}))")
    for kind in ("sprite", "sprite-sheet"):
        res = podman_runtime.exec(container(kind), ["python3", "-c", script])
        assert res.ok, res.output
        assert json.loads(res.stdout) == want, f"{kind}: the image's tcab/draw is not this checkout's; run `make images`"
