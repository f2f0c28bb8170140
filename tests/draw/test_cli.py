"""The draw and draw-sheet tools as a harness calls them: one op per call,
recorded, rendered, refused whole on a bad flag (tcab/draw/cli.py, tool.py)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tcab.draw import VERSION, blank_png, cache, png
from tcab.draw.cli import main
from tcab.draw.config import Live, ToolConfig
from tcab.draw.logs import read_log_file
from tcab.draw.regenerate import regenerate

ROOT = Path(__file__).resolve().parents[2]


def workspace(tmp_path: Path, sheet: bool = False, live: Live | None = None) -> Path:
    if sheet:
        config = ToolConfig(kind="sprite-sheet", width=24, height=16, background="transparent",
                            actions="frames/{frame}.actions.json", preview="frames/{frame}.png",
                            layers=".tcab/layers.jsonl", frames=(0, 1, 2), live=live)
    else:
        config = ToolConfig(kind="sprite", width=32, height=32, background="#202020", actions="actions.json",
                            preview="canvas.png", layers=".tcab/layers.jsonl", live=live)
    (tmp_path / ".tcab").mkdir()
    (tmp_path / ".tcab/draw.json").write_bytes(config.to_json())
    return tmp_path


def run(ws: Path, *argv: str, sheet: bool = False, capsys=None) -> tuple[int, str, str]:
    code = main("draw-sheet" if sheet else "draw", sheet, ["--config", str(ws / ".tcab/draw.json"), *argv])
    out, err = capsys.readouterr() if capsys else ("", "")
    return code, out, err


def regenerated(ws: Path) -> dict:
    config = ToolConfig.from_json((ws / ".tcab/draw.json").read_bytes())
    layers = ws / config.layers
    return regenerate(config, lambda frame: read_log_file(str(ws / config.actions_path(frame))),
                      read_log_file(str(layers)) if layers.exists() else None)


def test_a_sprite_drawn_op_by_op_regenerates_to_its_preview(tmp_path, capsys) -> None:
    ws = workspace(tmp_path)
    assert run(ws, "init", capsys=capsys)[0] == 0
    assert (ws / "canvas.png").read_bytes() == blank_png(32, 32, "#202020")
    calls = [
        ["fill-rect", "--x", "28", "--y", "28", "--width", "8", "--height", "1", "--color", "#ff4ec7"],
        ["fill-circle", "--cx", "20", "--cy", "16", "--r", "8", "--color", "#c46bff"],
        ["register-layer", "--name", "ball", "--x", "10", "--y", "6", "--width", "12", "--height", "12",
         "--rotation", "30", "--opacity", "200", "--z", "2"],
        ["fill-circle", "--layer", "ball", "--cx", "6", "--cy", "6", "--r", "5", "--color", "#8cf"],
        ["stroke-rect", "--x", "-3", "--y", "2", "--width", "10", "--height", "10", "--color", "#00ff00"],
        ["line", "--x0", "0", "--y0", "31", "--x1", "31", "--y1", "0", "--color", "#fff8"],
        ["stroke-circle", "--cx", "5", "--cy", "25", "--r", "4", "--color", "#123456"],
        ["flood-fill", "--x", "0", "--y", "0", "--color", "#334455"],
        ["set-pixel", "--x", "1", "--y", "1", "--color", "#ff0000"],
        ["mirror-horizontal"],
        ["fill-background", "--layer", "ball", "--color", "#00000000"],
        ["clear-layer", "--name", "ball"],
        ["fill-rect", "--layer", "ball", "--x", "0", "--y", "0", "--width", "3", "--height", "3", "--color", "#f00"],
    ]
    for argv in calls:
        code, out, err = run(ws, *argv, capsys=capsys)
        assert (code, err) == (0, ""), argv
        assert "recorded as op" in out and argv[0] in out
        assert regenerated(ws)[None] == (ws / "canvas.png").read_bytes(), argv  # byte for byte, every step
    actions = [json.loads(line) for line in (ws / "actions.json").read_text().splitlines()]
    assert [a["op"] for a in actions] == ["fill-rect", "fill-circle", "stroke-rect", "line", "stroke-circle",
                                          "flood-fill", "set-pixel", "mirror-horizontal"]
    assert actions[0]["color"] == "#ff4ec7ff" and actions[-1] == {"op": "mirror-horizontal", "axis_x": 16}
    assert len((ws / ".tcab/layers.jsonl").read_text().splitlines()) == 5
    assert (ws / ".tcab/version").read_text() == VERSION + "\n"
    code, out, _ = run(ws, "list-layers", capsys=capsys)
    assert code == 0 and out.startswith("ball: 12x12 at (10,6) z=2 opacity=200 rotation=30")


@pytest.mark.parametrize("argv, message", [
    (["fill-rect", "--x", "1", "--y", "1", "--width", "2", "--height", "2", "--color", "red"],
     "--color: expected a colour #rrggbb or #rrggbbaa, got 'red'"),
    (["fill-rect", "--x", "1.5", "--y", "1", "--width", "2", "--height", "2", "--color", "#fff"],
     "--x: expected an integer, got '1.5'"),
    (["fill-rect", "--x", "1", "--y", "1", "--width", "-2", "--height", "2", "--color", "#fff"],
     "--width: expected an integer >= 0"),
    (["fill-rect", "--x", "1", "--y", "1", "--width", "2", "--color", "#fff"], "--height: required"),
    (["fill-rect", "--x", "1", "--y", "1", "--width", "2", "--height", "2", "--colour", "#fff"],
     "--colour: unknown flag"),
    (["fill-rect", "--x", "1", "--x", "2", "--y", "1", "--width", "2", "--height", "2", "--color", "#fff"],
     "--x: given twice"),
    (["fill-rect", "--x", "1", "--y", "1", "--width", "2", "--height", "2", "--color"], "--color: expected a value"),
    (["spray", "--x", "1"], "unknown operation 'spray'"),
    (["fill-rect", "--layer", "ghost", "--x", "1", "--y", "1", "--width", "2", "--height", "2", "--color", "#fff"],
     "--layer: no layer 'ghost' is registered"),
    (["register-layer", "--name", "a b", "--x", "0", "--y", "0", "--width", "2", "--height", "2"], "--name: expected"),
    (["register-layer", "--name", "a", "--x", "0", "--y", "0", "--width", "0", "--height", "2"],
     "--width: expected an integer from 1 to 4096"),
    (["animate-layer", "--layer", "a", "--property", "x", "--frame", "0", "--value", "1"],
     "keyframes are for sprite sheets (draw-sheet)"),
    (["fill-rect", "--frame", "0", "--x", "1", "--y", "1", "--width", "2", "--height", "2", "--color", "#fff"],
     "--frame: unknown flag"),
])
def test_a_bad_call_is_exit_1_one_line_and_records_nothing(tmp_path, capsys, argv, message) -> None:
    ws = workspace(tmp_path)
    run(ws, "init", capsys=capsys)
    before = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    code, out, err = run(ws, *argv, capsys=capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith(f"draw {argv[0]}: ")
    after = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file() and p.name != "version"}
    assert after == {p: b for p, b in before.items() if p.name != "version"}


def test_a_sheet_draws_per_frame_and_layers_move_by_keyframes(tmp_path, capsys) -> None:
    ws = workspace(tmp_path, sheet=True)
    assert run(ws, "init", sheet=True, capsys=capsys)[0] == 0
    ok = [
        ["fill-rect", "--frame", "0", "--x", "0", "--y", "12", "--width", "24", "--height", "4", "--color", "#222"],
        ["fill-rect", "--frame", "2", "--x", "0", "--y", "0", "--width", "4", "--height", "4", "--color", "#f00"],
        ["register-layer", "--name", "ball", "--x", "0", "--y", "4", "--width", "6", "--height", "6"],
        ["fill-circle", "--layer", "ball", "--cx", "3", "--cy", "3", "--r", "2", "--color", "#c46bff"],
        ["animate-layer", "--layer", "ball", "--property", "x", "--frame", "0", "--value", "0", "--interp", "linear"],
        ["animate-layer", "--layer", "ball", "--property", "x", "--frame", "2", "--value", "16"],
        ["animate-layer", "--layer", "ball", "--property", "y", "--frame", "0", "--value", "8",
         "--handle-out", "1,-6"],
        ["animate-layer", "--layer", "ball", "--property", "y", "--frame", "2", "--value", "8", "--handle-in", "-1,-6"],
        ["animate-layer", "--layer", "ball", "--property", "rotation", "--frame", "2", "--value", "90"],
    ]
    for argv in ok:
        code, out, err = run(ws, *argv, sheet=True, capsys=capsys)
        assert (code, err) == (0, ""), argv
    frames = regenerated(ws)
    for frame in (0, 1, 2):
        assert frames[frame] == (ws / f"frames/{frame}.png").read_bytes()
    assert len(set(frames.values())) == 3
    code, out, _ = run(ws, "render", "--frame", "1", "--out", str(tmp_path / "one.png"), sheet=True, capsys=capsys)
    assert code == 0 and (tmp_path / "one.png").read_bytes() == frames[1]
    code, _, _ = run(ws, "clear-keyframes", "--layer", "ball", "--property", "rotation", sheet=True, capsys=capsys)
    listing = run(ws, "list-layers", sheet=True, capsys=capsys)[1]
    assert code == 0 and "  x: frame 0 = 0 (linear)" in listing and "  rotation:" not in listing
    for argv, message in (
        (["fill-rect", "--x", "0", "--y", "0", "--width", "1", "--height", "1", "--color", "#fff"],
         "--frame: required"),
        (["fill-rect", "--frame", "7", "--x", "0", "--y", "0", "--width", "1", "--height", "1", "--color", "#fff"],
         "--frame: '7' is not a frame of this sheet (frames: 0, 1, 2)"),
        (["fill-rect", "--frame", "x", "--x", "0", "--y", "0", "--width", "1", "--height", "1", "--color", "#fff"],
         "--frame: 'x' is not a frame"),
        (["fill-rect", "--layer", "ball", "--frame", "0", "--x", "0", "--y", "0", "--width", "1", "--height", "1",
          "--color", "#fff"], "--frame: not with --layer"),
        (["animate-layer", "--layer", "ball", "--property", "x", "--frame", "9", "--value", "1"], "--frame: 9 is not"),
        (["animate-layer", "--layer", "ball", "--property", "z", "--frame", "0", "--value", "1"],
         "--property: expected one of x, y"),
        (["animate-layer", "--layer", "ball", "--property", "x", "--frame", "0", "--value", "1", "--interp", "cubic"],
         "--interp: expected one of bezier"),
        (["animate-layer", "--layer", "ball", "--property", "x", "--frame", "0", "--value", "1", "--handle-in", "1"],
         "--handle-in: expected DFRAMES,DVALUE"),
    ):
        before = sorted((p, p.read_bytes()) for p in ws.rglob("*.json*"))
        code, out, err = run(ws, *argv, sheet=True, capsys=capsys)
        assert code == 1 and message in err, (argv, err)
        assert sorted((p, p.read_bytes()) for p in ws.rglob("*.json*")) == before


def test_render_draws_a_log_without_changing_it(tmp_path, capsys) -> None:
    ws = workspace(tmp_path)
    run(ws, "init", capsys=capsys)
    run(ws, "fill-rect", "--x", "0", "--y", "0", "--width", "4", "--height", "4", "--color", "#f00", capsys=capsys)
    run(ws, "register-layer", "--name", "top", "--x", "0", "--y", "0", "--width", "2", "--height", "2", capsys=capsys)
    run(ws, "fill-background", "--layer", "top", "--color", "#00f", capsys=capsys)
    log = (ws / "actions.json").read_bytes()
    code, out, _ = run(ws, "render", "--out", str(tmp_path / "r.png"), "--width", "8", "--height", "8",
                       "--background", "transparent", "--no-layers", capsys=capsys)
    assert code == 0 and "the log is unchanged" in out and (ws / "actions.json").read_bytes() == log
    w, h, rgba = png.decode((tmp_path / "r.png").read_bytes(), 100)
    pixels = {rgba[i:i + 4] for i in range(0, len(rgba), 4)}
    assert (w, h) == (8, 8) and rgba[:4] == b"\xff\x00\x00\xff" and b"\x00\x00\xff\xff" not in pixels
    code, _, _ = run(ws, "render", "--out", str(tmp_path / "all.png"), capsys=capsys)
    assert (tmp_path / "all.png").read_bytes() == (ws / "canvas.png").read_bytes()
    code, _, _ = run(ws, "render", "--out", str(tmp_path / "none.png"), "--only-layer", "nobody", capsys=capsys)
    assert png.decode((tmp_path / "none.png").read_bytes(), 2000)[2][:4] == b"\xff\x00\x00\xff"


def test_the_cache_speeds_the_tool_but_never_the_regeneration(tmp_path, capsys) -> None:
    ws = workspace(tmp_path)
    run(ws, "init", capsys=capsys)
    run(ws, "fill-rect", "--x", "0", "--y", "0", "--width", "4", "--height", "4", "--color", "#f00", capsys=capsys)
    cache_file = Path(cache.path_for(str(ws / ".tcab/draw.json"), None))
    assert cache_file.is_file()
    # a hand-edited log: the key no longer matches, the tool replays (and the edit shows)
    (ws / "actions.json").write_bytes(b'{"op":"fill-background","color":"#00ff00"}\n')
    run(ws, "set-pixel", "--x", "9", "--y", "9", "--color", "#00f", capsys=capsys)
    assert regenerated(ws)[None] == (ws / "canvas.png").read_bytes()
    # a forged cache misleads only the tool's own preview; regeneration replays the log
    data = bytearray(cache_file.read_bytes())
    data[-4:] = b"\x01\x02\x03\x04"
    cache_file.write_bytes(bytes(data))
    run(ws, "set-pixel", "--x", "10", "--y", "10", "--color", "#00f", capsys=capsys)
    honest = regenerated(ws)[None]
    assert honest != (ws / "canvas.png").read_bytes()
    assert png.decode(honest, 2000)[2][-4:] == b"\x00\xff\x00\xff"
    # garbage in the cache is ignored, not fatal
    cache_file.write_bytes(b"garbage")
    assert run(ws, "set-pixel", "--x", "11", "--y", "11", "--color", "#00f", capsys=capsys)[0] == 0
    assert regenerated(ws)[None] == (ws / "canvas.png").read_bytes()


def test_a_broken_log_is_refused_by_the_tool(tmp_path, capsys) -> None:
    ws = workspace(tmp_path)
    run(ws, "init", capsys=capsys)
    (ws / "actions.json").write_bytes(b'{"op":"fill-rect","x":NaN}\n')
    code, _, err = run(ws, "set-pixel", "--x", "1", "--y", "1", "--color", "#fff", capsys=capsys)
    assert code == 1 and "actions.json: op 1 (line 1): not valid JSON" in err
    (ws / "actions.json").unlink()
    (ws / "actions.json").symlink_to("/etc/passwd")
    code, _, err = run(ws, "set-pixel", "--x", "1", "--y", "1", "--color", "#fff", capsys=capsys)
    assert code == 1 and "symbolic link" in err


def test_help_is_the_contract(tmp_path, capsys) -> None:
    assert main("draw", False, ["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("fill-rect", "stroke-rect", "line", "fill-circle", "stroke-circle", "flood-fill", "fill-background",
                 "mirror-horizontal", "set-pixel", "register-layer", "clear-layer", "remove-layer", "list-layers",
                 "render", "init"):
        assert f"\n  {name} " in out
    assert "animate-layer" not in out
    assert main("draw-sheet", True, []) == 0 and "animate-layer" in capsys.readouterr().out
    assert main("draw", False, ["fill-circle", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: draw fill-circle [--config PATH] --cx N --cy N --r N --color COLOR [--layer NAME]")
    assert main("draw-sheet", True, ["animate-layer", "-h"]) == 0
    out = capsys.readouterr().out
    assert "--interp INTERP" in out and "ease-in-out" in out and "--handle-out DF,DV" in out


class Listener:
    """A bare TCP listener on loopback that keeps each connection's bytes."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.got: list[bytes] = []
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                chunks = []
                while chunk := conn.recv(65536):
                    chunks.append(chunk)
                self.got.append(b"".join(chunks))

    def close(self, expect: int = 0) -> None:
        deadline = time.monotonic() + 5  # connections already made may still wait in the backlog
        while len(self.got) < expect and time.monotonic() < deadline:
            time.sleep(0.01)
        self.stop = True
        self.thread.join(5)
        self.sock.close()


def test_a_watched_call_streams_header_and_png(tmp_path, capsys) -> None:
    listener = Listener()
    try:
        live = Live(f"http://127.0.0.1:{listener.port}/frames", "secret")
        ws = workspace(tmp_path, sheet=True, live=live)
        run(ws, "init", sheet=True, capsys=capsys)
        run(ws, "fill-rect", "--frame", "1", "--x", "0", "--y", "0", "--width", "2", "--height", "2",
            "--color", "#f00", sheet=True, capsys=capsys)
        run(ws, "register-layer", "--name", "l", "--x", "0", "--y", "0", "--width", "2", "--height", "2",
            sheet=True, capsys=capsys)
    finally:
        listener.close(expect=4)
    assert len(listener.got) == 4  # one frame, then the three frames a layer op redraws
    head, _, body = listener.got[0].partition(b"\n")
    assert json.loads(head) == {"token": "secret", "frame": 1, "op": "fill-rect", "count": 1, "length": len(body)}
    assert body == (ws / "frames/1.png").read_bytes()
    assert [json.loads(g.partition(b"\n")[0])["frame"] for g in listener.got[1:]] == [0, 1, 2]


def test_a_listener_that_is_gone_never_fails_a_drawing(tmp_path, capsys) -> None:
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()
    ws = workspace(tmp_path, live=Live(f"http://127.0.0.1:{port}/", "t"))
    run(ws, "init", capsys=capsys)
    code, out, err = run(ws, "set-pixel", "--x", "1", "--y", "1", "--color", "#fff", capsys=capsys)
    assert (code, err) == (0, "")


def test_the_console_scripts_start_as_a_fresh_process(tmp_path) -> None:
    ws = workspace(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TCAB_DRAW_CONFIG": str(ws / ".tcab/draw.json")}
    script = "import sys; from tcab.draw.cli import main_sprite; sys.exit(main_sprite())"
    done = subprocess.run([sys.executable, "-c", script, "fill-rect", "--x", "0", "--y", "0", "--width", "1",
                           "--height", "1", "--color", "#abc"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "recorded as op 1 of actions.json" in done.stdout
    done = subprocess.run([sys.executable, "-c", script, "fill-rect", "--color", "#abc"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stderr == "draw fill-rect: --x: required (also missing: --y, --width, --height)\n"


def test_a_removed_frames_folder_is_made_again(tmp_path, capsys) -> None:
    ws = workspace(tmp_path, sheet=True)
    run(ws, "init", sheet=True, capsys=capsys)
    shutil.rmtree(ws / "frames")
    code, _, err = run(ws, "set-pixel", "--frame", "2", "--x", "0", "--y", "0", "--color", "#fff", sheet=True,
                       capsys=capsys)
    assert (code, err) == (0, "") and (ws / "frames/2.actions.json").read_bytes().count(b"\n") == 1
    assert regenerated_frames_match(ws, (2,))


def regenerated_frames_match(ws: Path, frames: tuple[int, ...]) -> bool:
    config = ToolConfig.from_json((ws / ".tcab/draw.json").read_bytes())
    out = regenerate(config, lambda frame: (ws / config.actions_path(frame)).read_bytes()
                     if (ws / config.actions_path(frame)).exists() else b"", b"")
    return all(out[f] == (ws / config.preview_path(f)).read_bytes() for f in frames)
