"""Regeneration from the logs alone, and the bad input of the issue: huge
or deep logs, NaN/strings/floats, links, FIFOs, folders, runaway work
(tcab/draw/regenerate.py, tcab/draw/logs.py)."""

from __future__ import annotations

import os
import time

import pytest

from tcab.draw import blank_png, png
from tcab.draw.config import ToolConfig
from tcab.draw.errors import LogError
from tcab.draw.limits import MAX_LOG_BYTES, MAX_OPS, MAX_SIDE, MAX_WORK
from tcab.draw.logs import parse_log, read_log_file
from tcab.draw.regenerate import regenerate

SPRITE = ToolConfig(kind="sprite", width=16, height=16, background="#000000", actions="actions.json",
                    preview="canvas.png", layers="layers.jsonl")
SHEET = ToolConfig(kind="sprite-sheet", width=8, height=4, background="transparent",
                   actions="f/{frame}.jsonl", preview="f/{frame}.png", layers="layers.jsonl", frames=(0, 3))
RECT = b'{"op":"fill-rect","x":1,"y":1,"width":2,"height":2,"color":"#ff0000"}\n'


def one(config: ToolConfig, log: bytes, layers: bytes | None = None) -> bytes:
    return regenerate(config, lambda frame: log, layers)[None]


def test_an_empty_log_regenerates_to_the_blank_preview() -> None:
    assert one(SPRITE, b"") == blank_png(16, 16, "#000000")
    out = regenerate(SHEET, lambda frame: b"", b"")
    assert set(out) == {0, 3} and out[0] == out[3] == blank_png(8, 4, "transparent")


def test_each_frame_replays_its_own_log() -> None:
    logs = {0: RECT, 3: b'{"op":"set-pixel","x":7,"y":3,"color":"#00ff00"}\n'}
    out = regenerate(SHEET, logs.__getitem__, None)
    _, _, f0 = png.decode(out[0], 100)
    _, _, f3 = png.decode(out[3], 100)
    assert f0[(1 * 8 + 1) * 4:(1 * 8 + 1) * 4 + 4] == b"\xff\x00\x00\xff" and f0.count(b"\x00\xff\x00\xff") == 0
    assert f3[-4:] == b"\x00\xff\x00\xff" and f3.count(b"\xff\x00\x00\xff") == 0


@pytest.mark.parametrize("line, message", [
    (b'{"op":"fill-rect","x":NaN,"y":1,"width":2,"height":2,"color":"#ff0000"}', "not valid JSON: NaN"),
    (b'{"op":"fill-rect","x":1.5,"y":1,"width":2,"height":2,"color":"#ff0000"}', "x: expected an integer"),
    (b'{"op":"fill-rect","x":"1","y":1,"width":2,"height":2,"color":"#ff0000"}', "x: expected an integer"),
    (b'{"op":"fill-rect","x":true,"y":1,"width":2,"height":2,"color":"#ff0000"}', "x: expected an integer"),
    (b'{"op":"fill-rect","x":1,"y":1,"width":-2,"height":2,"color":"#ff0000"}', "width: expected an integer >= 0"),
    (b'{"op":"fill-rect","x":1,"y":1,"width":2,"height":2,"color":"red"}', "color: expected a colour"),
    (b'{"op":"fill-rect","x":1,"y":1,"width":2,"color":"#ff0000"}', "height: missing"),
    (b'{"op":"fill-rect","x":1,"y":1,"width":2,"height":2,"color":"#ff0000","z":1}', "z: not a field of fill-rect"),
    (b'{"op":"fill-rect","layer":"a","x":1,"y":1,"width":2,"height":2,"color":"#ff0000"}', "layer: not a field"),
    (b'{"op":"spray","x":1}', "op: unknown operation 'spray'"),
    (b'{"op":"register-layer","name":"a","x":0,"y":0,"width":1,"height":1}', "op: register-layer belongs in the layers log"),
    (b'{"op":"set-pixel","x":1' + b"0" * 5000 + b',"y":1,"color":"#fff"}', "5045 bytes, over the 4096-byte line limit"),
    (b'{"op":"set-pixel","x":' + b"1" * 4000 + b',"y":1,"color":"#ffffff"}', r"x: expected an integer .*\.\.\.$"),
    (b'{"op":"set-pixel","x":' + str(1 << 64).encode() + b',"y":1,"color":"#ffffff"}', r"x: expected an integer \(\|v\|"),
    (b"[1]", "expected a JSON object"),
    (b"\xff\xfe", "not valid JSON"),
])
def test_a_bad_op_names_its_number_and_field(line: bytes, message: str) -> None:
    with pytest.raises(LogError, match=r"actions\.json: op 2 \(line 2\): " + message):
        one(SPRITE, RECT + line + b"\n")


def test_json_nested_10_5_deep_is_refused_by_counting() -> None:
    start = time.monotonic()
    for deep in (b"[" * 100_000, b'{"op":' + b'{"a":' * 50_000):
        with pytest.raises(LogError, match="nested deeper than|over the 4096-byte line limit"):
            parse_log(deep + b"\n", "log", layered=False)
    with pytest.raises(LogError, match="nested deeper than 8 brackets"):
        parse_log(b"[[[[[[[[[1]]]]]]]]]\n", "log", layered=False)
    assert time.monotonic() - start < 1


def test_a_million_ops_are_refused_before_any_is_parsed() -> None:
    start = time.monotonic()
    with pytest.raises(LogError, match=f"more than {MAX_OPS} operations"):
        one(SPRITE, b"{}\n" * 1_000_000)
    assert time.monotonic() - start < 1
    assert len(parse_log(RECT * 10, "log", layered=False, max_ops=10)) == 10  # the limit itself is fine
    with pytest.raises(LogError, match="more than 10 operations"):
        parse_log(RECT * 11, "log", layered=False, max_ops=10)


def test_a_500_mb_log_is_refused_by_its_size_without_reading_it(tmp_path) -> None:
    big = tmp_path / "actions.json"
    with open(big, "wb") as f:
        f.truncate(500 << 20)  # sparse: nothing is written to disk
    start = time.monotonic()
    with pytest.raises(LogError, match="over the .*-byte limit"):
        read_log_file(str(big))
    with pytest.raises(LogError, match="over the .*-byte limit"):
        one(SPRITE, b" " * (MAX_LOG_BYTES + 1))
    assert time.monotonic() - start < 2


def test_a_log_that_is_a_link_a_fifo_or_a_folder_is_refused(tmp_path) -> None:
    real = tmp_path / "real.json"
    real.write_bytes(RECT)
    (tmp_path / "link.json").symlink_to(real)
    os.mkfifo(tmp_path / "fifo.json")
    (tmp_path / "dir.json").mkdir()
    start = time.monotonic()
    for name, why in (("link.json", "symbolic link"), ("fifo.json", "a FIFO"), ("dir.json", "a directory"),
                      ("absent.json", "No such file")):
        with pytest.raises(LogError, match=why):
            read_log_file(str(tmp_path / name))
    assert time.monotonic() - start < 1  # the FIFO never waited for a writer
    assert read_log_file(str(real)) == RECT


def test_huge_radius_and_line_regenerate_at_once() -> None:
    log = (b'{"op":"fill-circle","cx":8,"cy":8,"r":' + str(1 << 62).encode() + b',"color":"#ff0000"}\n'
           b'{"op":"line","x0":' + str(-(1 << 62)).encode() + b',"y0":0,"x1":' + str(1 << 62).encode()
           + b',"y1":15,"color":"#00ff00"}\n')
    start = time.monotonic()
    _, _, rgba = png.decode(one(SPRITE, log), 1000)
    assert time.monotonic() - start < 1
    assert rgba.count(b"\x00\xff\x00\xff") == 16 and rgba.count(b"\xff\x00\x00\xff") == 16 * 15


@pytest.mark.timeout(60)
def test_flood_fill_on_the_largest_canvas() -> None:
    big = ToolConfig(kind="sprite", width=MAX_SIDE, height=MAX_SIDE, background="transparent",
                     actions="a.json", preview="p.png", layers="l.json")
    log = (b'{"op":"line","x0":0,"y0":4095,"x1":4095,"y1":0,"color":"#ffffff"}\n'
           b'{"op":"flood-fill","x":0,"y":0,"color":"#ff0000"}\n')
    start = time.monotonic()
    out = one(big, log)
    assert time.monotonic() - start < 30
    assert out.startswith(png.SIGNATURE)


@pytest.mark.timeout(60)
def test_runaway_work_stops_at_the_budget() -> None:
    big = ToolConfig(kind="sprite", width=MAX_SIDE, height=MAX_SIDE, background="transparent",
                     actions="a.json", preview="p.png", layers="l.json")
    # each op a staircase of 4096 one-pixel spans, repeated: refused long before 10^5 ops are drawn
    log = b'{"op":"fill-circle","cx":2048,"cy":2048,"r":2048,"color":"#ff0000"}\n' * MAX_OPS
    start = time.monotonic()
    with pytest.raises(LogError, match=f"the drawing work passes {MAX_WORK}"):
        one(big, log)
    assert time.monotonic() - start < 30


@pytest.mark.timeout(60)
def test_a_huge_rotated_layer_stops_at_the_budget() -> None:
    big = ToolConfig(kind="sprite", width=MAX_SIDE, height=MAX_SIDE, background="transparent",
                     actions="a.json", preview="p.png", layers="l.json")
    layers = b"".join(b'{"op":"register-layer","name":"l%d","x":0,"y":0,"width":2048,"height":2048,"rotation":45,'
                      b'"scale_x":200,"scale_y":200}\n' % i for i in range(8))
    start = time.monotonic()
    with pytest.raises(LogError, match="compositing 'l.*the drawing work passes"):
        one(big, b"", layers)
    assert time.monotonic() - start < 30


def test_the_reader_must_return_bytes() -> None:
    with pytest.raises(LogError, match="returned str"):
        regenerate(SPRITE, lambda frame: "text", None)  # type: ignore[arg-type,return-value]
