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

from tcab.voxel.errors import VoxelLogError
from tcab.voxel.limits import MAX_INT

HEX = frozenset("0123456789abcdefABCDEF")
AXES = ("x", "y", "z")


class OpField:
    __slots__ = ("key", "kind", "help", "flag")

    def __init__(self, key: str, kind: str, help: str) -> None:
        self.key, self.kind, self.help, self.flag = key, kind, help, "--" + key.replace("_", "-")


class VoxelOp:
    __slots__ = ("name", "summary", "fields")

    def __init__(self, name: str, summary: str, fields: tuple[OpField, ...]) -> None:
        self.name, self.summary, self.fields = name, summary, fields


_COLOR = OpField("color", "color", "opaque colour #rrggbb")
_XYZ = (OpField("x", "coord", "column (x, across)"), OpField("y", "coord", "row (y, up)"),
        OpField("z", "coord", "depth (z, front to back)"))
_BOX = (OpField("x0", "coord", "first corner x"), OpField("y0", "coord", "first corner y"),
        OpField("z0", "coord", "first corner z"), OpField("x1", "coord", "opposite corner x (included)"),
        OpField("y1", "coord", "opposite corner y (included)"), OpField("z1", "coord", "opposite corner z (included)"))
_CENTRE = (OpField("cx", "coord", "centre x"), OpField("cy", "coord", "centre y"), OpField("cz", "coord", "centre z"))
_OFFSET = (OpField("dx", "coord", "offset along x"), OpField("dy", "coord", "offset along y"),
           OpField("dz", "coord", "offset along z"))

OPS: dict[str, VoxelOp] = {op.name: op for op in (
    VoxelOp("set-voxel", "set one voxel", _XYZ + (_COLOR,)),
    VoxelOp("clear-voxel", "clear one voxel", _XYZ),
    VoxelOp("fill-box", "fill a box given by two opposite corners (both included)", _BOX + (_COLOR,)),
    VoxelOp("stroke-box", "set only a box's twelve edges (faces and inside untouched)", _BOX + (_COLOR,)),
    VoxelOp("clear-box", "clear a box given by two opposite corners (both included)", _BOX),
    VoxelOp("fill-sphere", "fill the voxels whose centre is within RADIUS of the centre (dx^2+dy^2+dz^2 <= r^2)",
       _CENTRE + (OpField("radius", "size", "radius in voxels"), _COLOR)),
    VoxelOp("fill-ellipsoid", "fill an ellipsoid with per-axis radii ((dx/rx)^2+(dy/ry)^2+(dz/rz)^2 <= 1)",
       _CENTRE + (OpField("rx", "size", "radius along x"), OpField("ry", "size", "radius along y"),
                  OpField("rz", "size", "radius along z"), _COLOR)),
    VoxelOp("fill-cylinder", "fill a disc of RADIUS about the centre, extruded LENGTH voxels along +AXIS from it",
       _CENTRE + (OpField("radius", "size", "disc radius (du^2+dv^2 <= r^2)"),
                  OpField("length", "size", "voxels along the axis, from the centre's layer on (0: nothing)"),
                  OpField("axis", "axis", "the extrusion axis: x, y or z"), _COLOR)),
    VoxelOp("line", "set a 3D Bresenham run of voxels between two points, both included",
       (OpField("x0", "coord", "start x"), OpField("y0", "coord", "start y"), OpField("z0", "coord", "start z"),
        OpField("x1", "coord", "end x"), OpField("y1", "coord", "end y"), OpField("z1", "coord", "end z"), _COLOR)),
    VoxelOp("mirror", "copy the low side of a plane onto the high side, reflected (voxel AT-1-k lands on AT+k)",
       (OpField("plane", "axis", "the axis the plane is perpendicular to: x, y or z"),
        OpField("at", "coord", "the plane: between layers AT-1 and AT"))),
    VoxelOp("replace-color", "recolour every voxel of one colour",
       (OpField("from", "color", "the colour to replace, #rrggbb"), OpField("to", "color", "its new colour, #rrggbb"))),
    VoxelOp("translate", "shift every voxel by an offset; what leaves the volume is lost, what it vacates is cleared",
       _OFFSET),
    VoxelOp("copy-box", "copy a box's voxels (empty ones are not copied) to the box moved by an offset",
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


def check_op(obj: object, where: str) -> tuple[VoxelOp, dict]:
    """The op and its values of one decoded log line; VoxelLogError ``<where>: <key>: ...``."""
    if type(obj) is not dict:
        raise VoxelLogError(f"{where}: expected an object, got {type(obj).__name__}")
    name = obj.get("op")
    op = OPS.get(name) if type(name) is str else None
    if op is None:
        raise VoxelLogError(f"{where}: op: unknown operation {name!r}"[:200])
    values = {}
    for f in op.fields:
        if f.key not in obj:
            raise VoxelLogError(f"{where}: {f.key}: missing ({name})")
        try:
            check_value(f.kind, obj[f.key])
        except ValueError as exc:
            raise VoxelLogError(f"{where}: {f.key}: {exc}") from None
        value = obj[f.key]
        values[f.key] = value.lower() if f.kind == "color" else value
    extra = sorted(k for k in obj if k != "op" and k not in values)
    if extra:
        raise VoxelLogError(f"{where}: {extra[0]!r}: not a field of {name}"[:200])
    return op, values
