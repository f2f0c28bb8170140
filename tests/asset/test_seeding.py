"""Seeding an asset case (issue 22, item 2): the draw tool's config, empty
logs and blank previews rendered by tcab.draw, the quality directive before
the case's prompt, and the live block only for a watched run."""

from __future__ import annotations

import json

import pytest

from tcab.catalog import load_version
from tcab.catalog.testtype import LiveEndpoint
from tcab.draw import VERSION, blank_png, png
from tcab.draw.cli import main_sheet, main_sprite
from tcab.draw.config import ToolConfig
from tcab.draw.limits import MAX_PIXELS
from tcab.seeding import check_case, render_prompt, seed_repository
from tcab.seeding.plan import plan_seed
from tcab.testtypes.asset_generation import QUALITY_DIRECTIVE
from tests.asset.support import HERO, ICONS, LATTICE


def _load(root):
    case, found = load_version(root)
    assert found == [] and case is not None
    return case


@pytest.mark.parametrize("root", [LATTICE, ICONS, HERO], ids=["lattice-sink", "rpg-item-icons", "hero-run"])
def test_the_originals_cases_load_seed_and_render_a_prompt(root) -> None:
    case = _load(root)
    assert check_case(case) == []
    seeded = {e.dest: e.data for e in plan_seed(case, case.variant())}
    assert "specs/brief.md" in seeded and ".tcab/draw.json" in seeded
    prompt = render_prompt(case, case.variant())
    assert prompt.startswith(QUALITY_DIRECTIVE) and "{{" not in prompt and "/work" in prompt


def test_a_sprites_seed_is_what_the_tool_reads() -> None:
    case = _load(ICONS)
    seeded = {e.dest: e.data for e in plan_seed(case, case.variant())}
    config = ToolConfig.from_json(seeded[".tcab/draw.json"])
    assert (config.kind, config.width, config.height, config.background) == ("sprite", 96, 96, "transparent")
    assert (config.actions, config.preview, config.layers, config.live) == \
        ("actions.json", "canvas.png", ".tcab/layers.jsonl", None)
    assert json.loads(seeded[".tcab/draw.json"])["live"] is None
    assert seeded["actions.json"] == b"" and seeded[".tcab/layers.jsonl"] == b""
    assert seeded["canvas.png"] == blank_png(96, 96, "transparent")
    width, height, pixels = png.decode(seeded["canvas.png"], MAX_PIXELS)[:3]
    assert (width, height) == (96, 96) and set(bytes(pixels)) == {0}
    assert seeded[".tcab/version"] == (VERSION + "\n").encode()


def test_a_sheets_seed_has_a_log_and_a_preview_per_frame() -> None:
    case = _load(HERO)
    seeded = {e.dest: e.data for e in plan_seed(case, case.variant())}
    config = ToolConfig.from_json(seeded[".tcab/draw.json"])
    assert config.frames == (0, 1, 2, 3, 4, 5) and config.sheet
    for frame in range(6):
        assert seeded[f"frames/{frame}.actions.json"] == b""
        assert seeded[f"frames/{frame}.png"] == blank_png(48, 48, "transparent")


def test_the_seeded_workspace_is_drawable(tmp_path) -> None:
    case = _load(ICONS)
    ws = tmp_path / "ws"
    seed_repository(case, case.variant(), ws)
    config = str(ws / ".tcab/draw.json")
    assert main_sprite(["--config", config, "fill-rect", "--x", "1", "--y", "1", "--width", "2", "--height", "2",
                        "--color", "#ff0000"]) == 0
    assert (ws / "actions.json").read_text().count("\n") == 1
    assert (ws / "canvas.png").read_bytes() != blank_png(96, 96, "transparent")
    sheet = _load(HERO)
    ws = tmp_path / "sheet"
    seed_repository(sheet, sheet.variant(), ws)
    assert main_sheet(["--config", str(ws / ".tcab/draw.json"), "set-pixel", "--frame", "5", "--x", "0",
                       "--y", "0", "--color", "#00ff00"]) == 0
    assert (ws / "frames/5.actions.json").read_bytes() != b"" and (ws / "frames/4.actions.json").read_bytes() == b""


def test_watch_setup_writes_the_live_block(tmp_path) -> None:
    case = _load(HERO)
    ws = tmp_path / "ws"
    seed_repository(case, case.variant(), ws)
    before = (ws / ".tcab/draw.json").read_bytes()
    live = LiveEndpoint("http://host.docker.internal:4242/frame", "t0ken")
    case.test_type.watch_setup(case, case.variant(), ws, live)
    config = ToolConfig.from_json((ws / ".tcab/draw.json").read_bytes())
    assert (config.live.url, config.live.token) == (live.url, live.token)
    assert config.replace(live=None) == ToolConfig.from_json(before)


def test_watch_setup_never_writes_through_a_link(tmp_path) -> None:
    case = _load(ICONS)
    ws = tmp_path / "ws"
    (ws / ".tcab").mkdir(parents=True)
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    (ws / ".tcab/draw.json").symlink_to(outside)
    live = LiveEndpoint("http://host.docker.internal:1/frame", "t")
    try:
        case.test_type.watch_setup(case, case.variant(), ws, live)
    except OSError:
        pass
    assert outside.read_text() == "{}"


def test_ember_gems_reference_implementation_is_never_seeded() -> None:
    from tests.support.paths import CATALOG

    case = _load(CATALOG / "asset-generation/easy/ember-gem/v1.0.0")
    seeded = {e.dest for e in plan_seed(case, case.variant())}
    assert (case.path(case.solution) / ".reference/draw.sh").is_file()
    assert not any(".reference" in d or "draw.sh" in d for d in seeded)
    assert {"actions.json", "canvas.png", ".tcab/draw.json", "specs/brief.md"} <= seeded


def test_a_watched_workspaces_tool_streams_its_frames_to_the_live_endpoint(tmp_path) -> None:
    import socket
    import threading

    case = _load(HERO)
    ws = tmp_path / "ws"
    seed_repository(case, case.variant(), ws)
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    got: list[bytes] = []

    def accept() -> None:
        conn, _ = server.accept()
        with conn:
            data = b""
            while chunk := conn.recv(65536):
                data += chunk
            got.append(data)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    case.test_type.watch_setup(case, case.variant(), ws, LiveEndpoint(f"http://127.0.0.1:{port}/frame", "tok"))
    try:
        assert main_sheet(["--config", str(ws / ".tcab/draw.json"), "set-pixel", "--frame", "2", "--x", "1",
                           "--y", "1", "--color", "#ffffff"]) == 0
        thread.join(5)
    finally:
        server.close()
    head, _, body = got[0].partition(b"\n")
    doc = json.loads(head)
    assert (doc["token"], doc["frame"], doc["op"], doc["count"]) == ("tok", 2, "set-pixel", 1)
    assert body == (ws / "frames/2.png").read_bytes() and len(body) == doc["length"]
