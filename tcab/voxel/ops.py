"""The 13 sculpting operations: their fields, their check, their help.

One table serves the command line (flags, help) and the log (keys, check), so
the two cannot drift. A field's kind says what it accepts:

- ``coord``: any integer (signed; clipped to the volume when applied), |v| <= MAX_INT;
- ``size``: an integer 0..MAX_INT (radii, lengths);
- ``color``: opaque ``#rrggbb``; ``axis``: ``x``, ``y`` or ``z``.

A log line is ``{"op": NAME, KEY: VALUE, ...}`` with the flag names as keys
(``--x0`` is ``x0``). Boxes take two opposite corners, both included, in any order.
"""

from __future__ import annotations

from tcab.voxel.errors import LogError
from tcab.voxel.limits import MAX_INT

HEX = frozenset("0123456789abcdefABCDEF")
AXES = ("x", "y", "z")


class Field:
    __slots__ = ("key", "kind", "help", "flag")

    def __init__(self, key: str, kind: str, help: str) -> None:
        self.key, self.kind, self.help, self.flag = key, kind, help, "--" + key.replace("_", "-")


class Op:
    __slots__ = ("name", "summary", "fields")

    def __init__(self, name: str, summary: str, fields: tuple[Field, ...]) -> None:
        self.name, self.summary, self.fields = name, summary, fields


_COLOR = Field("color", "color", "opaque colour #rrggbb")
_XYZ = (Field("x", "coord", "column (x, across)"), Field("y", "coord", "row (y, up)"),
        Field("z", "coord", "depth (z, front to back)"))
_BOX = (Field("x0", "coord", "first corner x"), Field("y0", "coord", "first corner y"),
        Field("z0", "coord", "first corner z"), Field("x1", "coord", "opposite corner x (included)"),
        Field("y1", "coord", "opposite corner y (included)"), Field("z1", "coord", "opposite corner z (included)"))
_CENTRE = (Field("cx", "coord", "centre x"), Field("cy", "coord", "centre y"), Field("cz", "coord", "centre z"))
_OFFSET = (Field("dx", "coord", "offset along x"), Field("dy", "coord", "offset along y"),
           Field("dz", "coord", "offset along z"))

OPS: dict[str, Op] = {op.name: op for op in (
    Op("set-voxel", "set one voxel", _XYZ + (_COLOR,)),
    Op("clear-voxel", "clear one voxel", _XYZ),
    Op("fill-box", "fill a box given by two opposite corners (both included)", _BOX + (_COLOR,)),
    Op("stroke-box", "set only a box's twelve edges (faces and inside untouched)", _BOX + (_COLOR,)),
    Op("clear-box", "clear a box given by two opposite corners (both included)", _BOX),
    Op("fill-sphere", "fill the voxels whose centre is within RADIUS of the centre (dx^2+dy^2+dz^2 <= r^2)",
       _CENTRE + (Field("radius", "size", "radius in voxels"), _COLOR)),
    Op("fill-ellipsoid", "fill an ellipsoid with per-axis radii ((dx/rx)^2+(dy/ry)^2+(dz/rz)^2 <= 1)",
       _CENTRE + (Field("rx", "size", "radius along x"), Field("ry", "size", "radius along y"),
                  Field("rz", "size", "radius along z"), _COLOR)),
    Op("fill-cylinder", "fill a disc of RADIUS about the centre, extruded LENGTH voxels along +AXIS from it",
       _CENTRE + (Field("radius", "size", "disc radius (du^2+dv^2 <= r^2)"),
                  Field("length", "size", "voxels along the axis, from the centre's layer on (0: nothing)"),
                  Field("axis", "axis", "the extrusion axis: x, y or z"), _COLOR)),
    Op("line", "set a 3D Bresenham run of voxels between two points, both included",
       (Field("x0", "coord", "start x"), Field("y0", "coord", "start y"), Field("z0", "coord", "start z"),
        Field("x1", "coord", "end x"), Field("y1", "coord", "end y"), Field("z1", "coord", "end z"), _COLOR)),
    Op("mirror", "copy the low side of a plane onto the high side, reflected (voxel AT-1-k lands on AT+k)",
       (Field("plane", "axis", "the axis the plane is perpendicular to: x, y or z"),
        Field("at", "coord", "the plane: between layers AT-1 and AT"))),
    Op("replace-color", "recolour every voxel of one colour",
       (Field("from", "color", "the colour to replace, #rrggbb"), Field("to", "color", "its new colour, #rrggbb"))),
    Op("translate", "shift every voxel by an offset; what leaves the volume is lost, what it vacates is cleared",
       _OFFSET),
    Op("copy-box", "copy a box's voxels (empty ones are not copied) to the box moved by an offset",
       _BOX + _OFFSET),
)}


def check_value(kind: str, value: object) -> None:
    """ValueError (the message, no field name) when ``value`` is not of ``kind``."""
    if kind in ("coord", "size"):
        if type(value) is not int:
            raise ValueError(f"expected an integer, got {value!r}"[:120])
        low = 0 if kind == "size" else -MAX_INT
        if not low <= value <= MAX_INT:
            raise ValueError(f"{value} is out of range {low}..{MAX_INT}")
    elif kind == "color":
        if not (type(value) is str and len(value) == 7 and value[0] == "#" and all(c in HEX for c in value[1:])):
            raise ValueError(f"expected an opaque colour #rrggbb, got {value!r}"[:120])
    elif kind == "axis":
        if value not in AXES:
            raise ValueError(f"expected x, y or z, got {value!r}"[:120])


def check_op(obj: object, where: str) -> tuple[Op, dict]:
    """The op and its values of one decoded log line; LogError ``<where>: <key>: ...``."""
    if type(obj) is not dict:
        raise LogError(f"{where}: expected an object, got {type(obj).__name__}")
    name = obj.get("op")
    op = OPS.get(name) if type(name) is str else None
    if op is None:
        raise LogError(f"{where}: op: unknown operation {name!r}"[:200])
    values = {}
    for f in op.fields:
        if f.key not in obj:
            raise LogError(f"{where}: {f.key}: missing ({name})")
        try:
            check_value(f.kind, obj[f.key])
        except ValueError as exc:
            raise LogError(f"{where}: {f.key}: {exc}") from None
        value = obj[f.key]
        values[f.key] = value.lower() if f.kind == "color" else value
    extra = sorted(k for k in obj if k != "op" and k not in values)
    if extra:
        raise LogError(f"{where}: {extra[0]!r}: not a field of {name}"[:200])
    return op, values
