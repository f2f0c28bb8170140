"""The operations: their fields, their check, and how a canvas op draws.

One table serves the command line (flags, help) and the log (keys, check),
so the two cannot drift. A field's kind says what it accepts:

- ``coord``: any integer (signed; clipped when drawn), |v| <= MAX_INT;
- ``size``: an integer 0..MAX_INT; ``extent``: 1..MAX_SIDE (a layer's side);
- ``byte``: 0..255; ``scale``: -MAX_SCALE..MAX_SCALE percent; ``z``: |v| <= 2^31;
- ``frame``: 0..MAX_FRAME_INDEX; ``color``: ``#rrggbb[aa]``; ``name``: a layer name;
- ``property``/``interp``: one of the keyframe words; ``handle``: null or [dframes, dvalue].

Keys in a log are the flag names with ``_`` for ``-`` (``--axis-x`` is ``axis_x``).
"""

from __future__ import annotations

from tcab.draw import raster
from tcab.draw.colors import parse_color
from tcab.draw.errors import LogError
from tcab.draw.keyframes import INTERPS, PROPERTIES
from tcab.draw.limits import MAX_FRAME_INDEX, MAX_INT, MAX_SCALE, MAX_SIDE

NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
MAX_NAME = 64


class Field:
    """One field of an op: its log key (the flag is ``--key`` with ``-`` for ``_``),
    its kind, its help, and whether it may be omitted (then ``default``).
    (Plain classes, not dataclasses: a fresh ``draw`` process must start fast.)"""

    __slots__ = ("key", "kind", "help", "default", "optional", "flag")

    def __init__(self, key: str, kind: str, help: str, default: object = None, optional: bool = False) -> None:
        self.key, self.kind, self.help, self.default, self.optional = key, kind, help, default, optional
        self.flag = "--" + key.replace("_", "-")


class Op:
    """An operation: ``canvas`` ops draw (on a frame, or on a layer with --layer)."""

    __slots__ = ("name", "summary", "fields", "canvas", "sheet_only")

    def __init__(self, name: str, summary: str, fields: tuple[Field, ...], canvas: bool,
                 sheet_only: bool = False) -> None:
        self.name, self.summary, self.fields, self.canvas, self.sheet_only = name, summary, fields, canvas, sheet_only


_COLOR = Field("color", "color", "colour, #rrggbb or #rrggbbaa (#rgb/#rgba too)")
_XY = (Field("x", "coord", "left column"), Field("y", "coord", "top row"))
_RECT = _XY + (Field("width", "size", "width in pixels"), Field("height", "size", "height in pixels"), _COLOR)
_CIRCLE = (Field("cx", "coord", "centre column"), Field("cy", "coord", "centre row"),
           Field("r", "size", "radius in pixels"), _COLOR)
_NAME = Field("name", "name", "the layer's name (letters, digits, '-', '_', '.'; up to 64)")
_LAYER = Field("layer", "name", "the layer")

OPS: dict[str, Op] = {op.name: op for op in (
    Op("fill-background", "fill the whole canvas (or layer) with one colour", (_COLOR,), True),
    Op("set-pixel", "set one pixel", _XY + (_COLOR,), True),
    Op("fill-rect", "fill a rectangle", _RECT, True),
    Op("stroke-rect", "outline a rectangle, 1 pixel wide, inside its bounds", _RECT, True),
    Op("line", "draw a 1-pixel line between two points, both included",
       (Field("x0", "coord", "start column"), Field("y0", "coord", "start row"),
        Field("x1", "coord", "end column"), Field("y1", "coord", "end row"), _COLOR), True),
    Op("fill-circle", "fill a disc (pixels with dx^2+dy^2 <= r^2+r)", _CIRCLE, True),
    Op("stroke-circle", "outline a circle, 1 pixel wide", _CIRCLE, True),
    Op("flood-fill", "fill the 4-connected area of the seed pixel's exact colour", _XY + (_COLOR,), True),
    Op("mirror-horizontal", "copy the left of a vertical axis onto the right, mirrored",
       (Field("axis_x", "coord", "the axis: between columns AXIS-1 and AXIS (default: the middle)",
              optional=True),), True),
    Op("register-layer", "register a layer: its extent, place and resting transform",
       (_NAME, Field("x", "coord", "left column of the layer on the canvas"),
                             Field("y", "coord", "top row of the layer on the canvas"),
                             Field("width", "extent", "the layer's own width"),
                             Field("height", "extent", "the layer's own height"),
                             Field("z", "z", "composite order, low to high (ties: registration order)", 0, True),
                             Field("opacity", "byte", "0 (invisible) to 255 (opaque)", 255, True),
                             Field("rotation", "coord", "whole degrees clockwise about the layer's centre",
                                   0, True),
                             Field("scale_x", "scale", "horizontal scale, percent (100 = actual size)", 100, True),
                             Field("scale_y", "scale", "vertical scale, percent (100 = actual size)", 100, True)),
       False),
    Op("clear-layer", "discard a layer's drawing, keep it registered", (_NAME,), False),
    Op("remove-layer", "remove a layer entirely", (_NAME,), False),
    Op("animate-layer", "set a keyframe of a layer property at a frame",
       (_LAYER, Field("property", "property", "one of " + ", ".join(PROPERTIES)),
        Field("frame", "frame", "the frame index of the keyframe"),
        Field("value", "coord", "the property's value at that frame"),
        Field("interp", "interp", "how the curve leaves this key: " + ", ".join(INTERPS), "bezier", True),
        Field("handle_in", "handle", "bezier in-handle DFRAMES,DVALUE (offset from this key)", None, True),
        Field("handle_out", "handle", "bezier out-handle DFRAMES,DVALUE (offset from this key)", None, True)),
       False, True),
    Op("clear-keyframes", "drop a layer's keyframes (one property, or all)",
       (_LAYER, Field("property", "property", "only this property", None, True)), False, True),
)}

_ABSENT = object()

#: Operations a frame's log may hold (drawing straight onto the canvas).
CANVAS_OPS = frozenset(name for name, op in OPS.items() if op.canvas)


def _int_in(value: object, lo: int, hi: int) -> bool:
    return type(value) is int and lo <= value <= hi


def show(value: object) -> str:
    """``repr(value)``, cut short: a message never carries a 4,000-digit number."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_value(kind: str, value: object) -> object:
    """The stored form of ``value`` for a field of ``kind``; ValueError saying what is expected."""
    if kind == "coord":
        if _int_in(value, -MAX_INT, MAX_INT):
            return value
        raise ValueError(f"expected an integer (|v| <= 2^63-1), got {show(value)}")
    if kind == "size":
        if _int_in(value, 0, MAX_INT):
            return value
        raise ValueError(f"expected an integer >= 0, got {show(value)}")
    if kind == "extent":
        if _int_in(value, 1, MAX_SIDE):
            return value
        raise ValueError(f"expected an integer from 1 to {MAX_SIDE}, got {show(value)}")
    if kind == "byte":
        if _int_in(value, 0, 255):
            return value
        raise ValueError(f"expected an integer from 0 to 255, got {show(value)}")
    if kind == "scale":
        if _int_in(value, -MAX_SCALE, MAX_SCALE):
            return value
        raise ValueError(f"expected an integer from {-MAX_SCALE} to {MAX_SCALE} (percent), got {show(value)}")
    if kind == "z":
        if _int_in(value, -(1 << 31), 1 << 31):
            return value
        raise ValueError(f"expected an integer from -2^31 to 2^31, got {show(value)}")
    if kind == "frame":
        if _int_in(value, 0, MAX_FRAME_INDEX):
            return value
        raise ValueError(f"expected a frame index from 0 to {MAX_FRAME_INDEX}, got {show(value)}")
    if kind == "color":
        rgba = parse_color(value)
        if rgba is None:
            raise ValueError(f"expected a colour #rrggbb or #rrggbbaa, got {show(value)}")
        return rgba
    if kind == "name":
        if isinstance(value, str) and 1 <= len(value) <= MAX_NAME and all(c in NAME_CHARS for c in value):
            return value
        raise ValueError(f"expected a layer name (letters, digits, '-', '_', '.'; 1 to {MAX_NAME}), got {show(value)}")
    if kind == "property":
        if value in PROPERTIES:
            return value
        raise ValueError(f"expected one of {', '.join(PROPERTIES)}, got {show(value)}")
    if kind == "interp":
        if value in INTERPS:
            return value
        raise ValueError(f"expected one of {', '.join(INTERPS)}, got {show(value)}")
    if kind == "handle":
        if value is None:
            return None
        if isinstance(value, list) and len(value) == 2 and all(_int_in(v, -MAX_INT, MAX_INT) for v in value):
            return (value[0], value[1])
        raise ValueError(f"expected null or [dframes, dvalue] (integers), got {show(value)}")
    raise AssertionError(kind)


_FAST_INT = {"coord": (-MAX_INT, MAX_INT), "size": (0, MAX_INT)}


def check_op(obj: object, where: str, *, layered: bool) -> tuple[Op, dict]:
    """The op and its checked fields; LogError ``<where>: <field>: ...``.
    ``layered``: the op comes from the layers log (canvas ops there carry ``layer``)."""
    if not isinstance(obj, dict):
        raise LogError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    name = obj.get("op")
    op = OPS.get(name) if isinstance(name, str) else None
    if op is None:
        raise LogError(f"{where}: op: unknown operation {name!r}")
    if not op.canvas and not layered:
        raise LogError(f"{where}: op: {op.name} belongs in the layers log, not a frame's log")
    allowed = _ALLOWED[op.name][layered]
    if not allowed.issuperset(obj):
        key = next(k for k in obj if k not in allowed)
        raise LogError(f"{where}: {key}: not a field of {op.name}")
    values: dict[str, object] = {}
    for f in op.fields:
        value = obj.get(f.key, _ABSENT)
        bounds = _FAST_INT.get(f.kind)
        if bounds is not None and type(value) is int and bounds[0] <= value <= bounds[1]:
            values[f.key] = value  # the common case, checked inline
            continue
        if f.kind == "color" and type(value) is str:
            rgba = parse_color(value)
            if rgba is not None:
                values[f.key] = rgba
                continue
        if value is _ABSENT:
            if not f.optional:
                raise LogError(f"{where}: {f.key}: missing")
            values[f.key] = f.default
            continue
        try:
            values[f.key] = check_value(f.kind, obj[f.key])
        except ValueError as exc:
            raise LogError(f"{where}: {f.key}: {exc}") from None
    if op.canvas and layered:
        if "layer" not in obj:
            raise LogError(f"{where}: layer: missing (a drawing op in the layers log names its layer)")
        try:
            values["layer"] = check_value("name", obj["layer"])
        except ValueError as exc:
            raise LogError(f"{where}: layer: {exc}") from None
    return op, values


#: op name -> (keys allowed in a frame's log, keys allowed in the layers log)
_ALLOWED = {name: (frozenset({"op"} | {f.key for f in op.fields}),
                   frozenset({"op"} | {f.key for f in op.fields} | ({"layer"} if op.canvas else set())))
            for name, op in OPS.items()}


def draw(surface: raster.Surface, name: str, v: dict) -> None:
    """Apply the checked canvas op ``name`` to ``surface``."""
    if name == "fill-rect":
        raster.fill_rect(surface, v["x"], v["y"], v["width"], v["height"], v["color"])
    elif name == "set-pixel":
        raster.set_pixel(surface, v["x"], v["y"], v["color"])
    elif name == "line":
        raster.line(surface, v["x0"], v["y0"], v["x1"], v["y1"], v["color"])
    elif name == "fill-circle":
        raster.fill_circle(surface, v["cx"], v["cy"], v["r"], v["color"])
    elif name == "stroke-circle":
        raster.stroke_circle(surface, v["cx"], v["cy"], v["r"], v["color"])
    elif name == "stroke-rect":
        raster.stroke_rect(surface, v["x"], v["y"], v["width"], v["height"], v["color"])
    elif name == "flood-fill":
        raster.flood_fill(surface, v["x"], v["y"], v["color"])
    elif name == "fill-background":
        raster.fill_background(surface, v["color"])
    elif name == "mirror-horizontal":
        axis = v["axis_x"]
        raster.mirror_horizontal(surface, surface.width // 2 if axis is None else axis)
    else:
        raise AssertionError(name)
