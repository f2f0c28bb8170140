"""Layers and keyframes: order, blending, transforms, limits; integer
curves (tcab/draw/layers.py, tcab/draw/keyframes.py)."""

from __future__ import annotations

import pytest

from tcab.draw.config import ToolConfig
from tcab.draw.errors import LogError
from tcab.draw.keyframes import INTERPS, Keyframe, evaluate
from tcab.draw.layers import LayerSet, composite, sin_cos
from tcab.draw.limits import MAX_KEYFRAMES, MAX_LAYERS
from tcab.draw.logs import op_line, parse_log
from tcab.draw.raster import Surface
from tcab.draw.regenerate import replay_layers
from tests.support.draw import picture

SPRITE = ToolConfig(kind="sprite", width=8, height=8, background="transparent", actions="a.json",
                    preview="p.png", layers="l.json")
SHEET = ToolConfig(kind="sprite-sheet", width=8, height=8, background="transparent", actions="{frame}.json",
                   preview="{frame}.png", layers="l.json", frames=(0, 1, 2, 3, 4))


def log(*ops: dict) -> bytes:
    return b"".join(op_line(o.pop("op"), o) for o in ops)


def reg(name: str, x: int, y: int, w: int, h: int, **kw) -> dict:
    return {"op": "register-layer", "name": name, "x": x, "y": y, "width": w, "height": h, **kw}


def test_z_order_then_registration_order() -> None:
    layers = replay_layers(SPRITE, log(
        reg("top", 0, 0, 2, 1, z=5), {"op": "fill-background", "layer": "top", "color": "#ff0000"},
        reg("low", 0, 0, 3, 1, z=-1), {"op": "fill-background", "layer": "low", "color": "#00ff00"},
        reg("tie", 2, 0, 2, 1, z=5), {"op": "fill-background", "layer": "tie", "color": "#0000ff"}))
    assert [la.name for la in layers.stacked()] == ["low", "top", "tie"]
    canvas = Surface(5, 1)
    for layer in layers.stacked():
        composite(canvas, layer, None)
    assert picture(canvas) == ["RRBB."]


def test_source_over_in_integers() -> None:
    layers = replay_layers(SPRITE, log(reg("a", 0, 0, 2, 1, opacity=128),
                                       {"op": "fill-background", "layer": "a", "color": "#ffffff"},
                                       {"op": "set-pixel", "layer": "a", "x": 1, "y": 0, "color": "#ffffff00"}))
    canvas = Surface(2, 1, b"\x00\x00\x00\xff")
    composite(canvas, layers.layers["a"], None)
    assert bytes(canvas.buf) == b"\x80\x80\x80\xff" + b"\x00\x00\x00\xff"  # 50%; a transparent pixel is nothing
    clear = Surface(1, 1)
    composite(clear, layers.layers["a"], None)
    assert bytes(clear.buf) == b"\xff\xff\xff\x80"  # over transparency: the colour, with the opacity as alpha


def test_rotation_by_90_moves_pixels_exactly() -> None:
    # a 3x1 layer R G B, rotated 90 degrees clockwise about its centre: a column, R on top
    ops = [reg("bar", 2, 2, 3, 1, rotation=90)] + [
        {"op": "set-pixel", "layer": "bar", "x": i, "y": 0, "color": c} for i, c in
        enumerate(("#ff0000", "#00ff00", "#0000ff"))]
    layers = replay_layers(SPRITE, log(*ops))
    canvas = Surface(7, 5)
    composite(canvas, layers.layers["bar"], None)
    assert picture(canvas) == ["." * 7, "...R...", "...G...", "...B...", "." * 7]
    assert sin_cos(90) == (65536, 0) and sin_cos(-90) == sin_cos(270) and sin_cos(720) == (0, 65536)


def test_scale_and_negative_scale_flip() -> None:
    ops = [reg("two", 0, 0, 2, 1, scale_x=200, scale_y=100),
           {"op": "set-pixel", "layer": "two", "x": 0, "y": 0, "color": "#ff0000"},
           {"op": "set-pixel", "layer": "two", "x": 1, "y": 0, "color": "#0000ff"},
           reg("flip", 0, 1, 2, 1, scale_x=-100),
           {"op": "set-pixel", "layer": "flip", "x": 0, "y": 0, "color": "#ff0000"},
           {"op": "set-pixel", "layer": "flip", "x": 1, "y": 0, "color": "#0000ff"},
           reg("none", 0, 0, 2, 2, scale_y=0), {"op": "fill-background", "layer": "none", "color": "#00ff00"}]
    layers = replay_layers(SPRITE, log(*ops))
    canvas = Surface(4, 2)
    for layer in layers.stacked():
        composite(canvas, layer, None)
    # scaled about the centre (x=1): 200% covers x -1..2 (R R B B, the first R off the canvas);
    # the flipped one reads B R
    assert picture(canvas) == ["RBB.", "BR.."]


def test_clear_and_remove_and_reregister() -> None:
    layers = replay_layers(SPRITE, log(reg("a", 0, 0, 2, 2), {"op": "fill-background", "layer": "a", "color": "#f00"
                                                              .replace("#f00", "#ff0000")},
                                       {"op": "clear-layer", "name": "a"}))
    assert layers.layers["a"].surface.buf.count(0) == 16 and layers.layers["a"].ops == 0
    layers = replay_layers(SPRITE, log(reg("a", 0, 0, 2, 2), {"op": "remove-layer", "name": "a"}, reg("a", 1, 1, 1, 1)))
    assert layers.layers["a"].width == 1


@pytest.mark.parametrize("ops, message", [
    ([reg("a", 0, 0, 2, 2), reg("a", 0, 0, 2, 2)], "op 2: name: layer 'a' is already registered"),
    ([{"op": "fill-rect", "layer": "ghost", "x": 0, "y": 0, "width": 1, "height": 1, "color": "#ffffff"}],
     "op 1: layer: no layer 'ghost'"),
    ([reg("a", 0, 0, 1, 1), {"op": "animate-layer", "layer": "a", "property": "x", "frame": 0, "value": 1}],
     "op 2: op: animate-layer is for sprite sheets only"),
    ([{"op": "fill-rect", "x": 0, "y": 0, "width": 1, "height": 1, "color": "#ffffff"}], r"op 1 \(line 1\): layer: missing"),
    ([reg("a", 0, 0, 5000, 1)], r"op 1 \(line 1\): width: expected an integer from 1 to 4096"),
])
def test_a_bad_layers_log_names_the_op_and_field(ops, message) -> None:
    with pytest.raises(LogError, match=message):
        replay_layers(SPRITE, log(*ops))


def test_ten_thousand_layers_or_keyframes_stop_at_the_limit() -> None:
    many = log(*[reg(f"l{i}", 0, 0, 1, 1) for i in range(10_000)])
    with pytest.raises(LogError, match=f"op {MAX_LAYERS + 1}: name: more than {MAX_LAYERS} layers"):
        replay_layers(SPRITE, many)
    keys = log(reg("a", 0, 0, 1, 1), *[{"op": "animate-layer", "layer": "a", "property": "x", "frame": i % 10_000,
                                       "value": i} for i in range(10_000)])
    with pytest.raises(LogError, match=f"more than {MAX_KEYFRAMES} keyframes"):
        replay_layers(SHEET, keys)
    # the same frame again replaces its key: no growth
    same = log(reg("a", 0, 0, 1, 1), *[{"op": "animate-layer", "layer": "a", "property": "x", "frame": 3,
                                       "value": i} for i in range(10_000)])
    assert replay_layers(SHEET, same).layers["a"].keys["x"][0].value == 9_999


def test_keyframes_move_a_layer_across_the_sheet() -> None:
    layers = replay_layers(SHEET, log(
        reg("ball", 0, 0, 1, 1), {"op": "fill-background", "layer": "ball", "color": "#ff0000"},
        {"op": "animate-layer", "layer": "ball", "property": "x", "frame": 0, "value": 0, "interp": "linear"},
        {"op": "animate-layer", "layer": "ball", "property": "x", "frame": 4, "value": 4},
        {"op": "animate-layer", "layer": "ball", "property": "opacity", "frame": 0, "value": 255,
         "interp": "constant"},
        {"op": "animate-layer", "layer": "ball", "property": "opacity", "frame": 2, "value": 0}))
    rows = []
    for frame in SHEET.frames:
        canvas = Surface(6, 1)
        composite(canvas, layers.layers["ball"], frame)
        rows.append(picture(canvas)[0])
    assert rows == ["R.....", ".R....", "......", "......", "......"]  # invisible from frame 2 on
    layers.apply(*parse_log(log({"op": "clear-keyframes", "layer": "ball", "property": "opacity"}), "l",
                            layered=True)[0], "x", sheet=True)
    assert set(layers.layers["ball"].keys) == {"x"} and layers.keyframes == 2


def test_every_interpolation_is_exact_and_bounded_by_its_keys() -> None:
    expected = {
        "constant": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100],
        "linear": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
        "ease-in": [0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100],
        "ease-out": [0, 19, 36, 51, 64, 75, 84, 91, 96, 99, 100],
        "ease-in-out": [0, 3, 10, 22, 35, 50, 65, 78, 90, 97, 100],
    }
    for interp in INTERPS:
        keys = [Keyframe(0, 0, interp), Keyframe(10, 100)]
        values = [evaluate(keys, f) for f in range(-2, 13)]
        assert values[:3] == [0, 0, 0] and values[-3:] == [100, 100, 100]  # held before and after
        assert values == sorted(values)
        if interp in expected:
            assert values[2:13] == expected[interp]
    # bezier with explicit handles: an overshoot above the last key, then it lands on it
    keys = [Keyframe(0, 0, "bezier", handle_out=(5, 300)), Keyframe(10, 100, handle_in=(-2, 100))]
    values = [evaluate(keys, f) for f in range(11)]
    assert values[0] == 0 and values[10] == 100 and max(values) > 100
    # the same inputs, the same integers (no float, no platform)
    assert values == [evaluate(keys, f) for f in range(11)]


def test_auto_bezier_is_flat_at_an_extreme_and_smooth_through_a_slope() -> None:
    peak = [Keyframe(0, 0), Keyframe(5, 50), Keyframe(10, 0)]
    assert max(evaluate(peak, f) for f in range(11)) == 50  # no overshoot past the extreme
    ramp = [Keyframe(0, 0), Keyframe(5, 50), Keyframe(10, 100)]
    values = [evaluate(ramp, f) for f in range(11)]
    assert values == sorted(values) and values[5] == 50
    assert values[6] - values[5] > 5  # keeps moving through the middle key


def test_a_layer_far_off_the_canvas_costs_nothing() -> None:
    layers = replay_layers(SPRITE, log(reg("far", 1 << 62, -(1 << 62), 64, 64, rotation=45, scale_x=10_000,
                                           scale_y=10_000)))
    canvas = Surface(8, 8)
    composite(canvas, layers.layers["far"], None)
    assert canvas.work == 0


def test_the_layer_set_starts_empty() -> None:
    assert LayerSet().stacked() == [] and replay_layers(SPRITE, b"").stacked() == []
