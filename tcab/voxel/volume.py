"""The voxel volume and the 13 operations, each clipped to the volume.

A volume is a numpy ``uint32`` array indexed ``[x, y, z]``: 0 is empty, a
voxel is ``SOLID | 0xRRGGBB``. Every operation first clips what it touches
to the volume with exact integer arithmetic (Python ints, so a coordinate or
radius of 2^62 neither overflows nor is looped over), then touches at most
the clipped region. ``work`` counts the voxels visited, so a replay can stop
a log that would take too long (limits.MAX_WORK).
"""

from __future__ import annotations

from math import isqrt

import numpy as np

from tcab.voxel.errors import VoxelError
from tcab.voxel.limits import check_bounds

SOLID = 1 << 24
_AXIS = {"x": 0, "y": 1, "z": 2}
_SAFE = 1 << 61  # products below this fit int64 three times over


def color_value(text: str) -> int:
    return SOLID | int(text[1:7], 16)


def color_text(value: int) -> str:
    return f"#{value & 0xFFFFFF:06x}"


def _span(a: int, b: int, extent: int) -> tuple[int, int] | None:
    """The cells lo..hi-1 of ``[min(a,b), max(a,b)]`` inside ``0..extent-1``."""
    lo, hi = max(min(a, b), 0), min(max(a, b), extent - 1)
    return (lo, hi + 1) if lo <= hi else None


class Volume:
    """A ``width`` x ``height`` x ``depth`` grid (x across, y up, z front to back)."""

    __slots__ = ("data", "work")

    def __init__(self, width: int, height: int, depth: int) -> None:
        problem = check_bounds(width, height, depth)
        if problem:
            raise VoxelError(f"volume: {problem}")
        self.data = np.zeros((width, height, depth), dtype=np.uint32)
        self.work = 0

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.data.shape  # type: ignore[return-value]

    def count(self) -> int:
        """The occupied voxels."""
        return int(np.count_nonzero(self.data))

    def colors(self) -> dict[str, int]:
        """Each colour's voxel count, by ``#rrggbb``."""
        values, counts = np.unique(self.data[self.data != 0], return_counts=True)
        return {color_text(int(v)): int(c) for v, c in zip(values, counts, strict=True)}

    def apply(self, name: str, v: dict) -> None:
        """Apply op ``name`` with its checked values (ops.check_op)."""
        getattr(self, "op_" + name.replace("-", "_"))(v)

    # -- single voxels and boxes ------------------------------------------------
    def _box(self, v: dict) -> tuple[slice, slice, slice] | None:
        spans = [_span(v[a + "0"], v[a + "1"], n) for a, n in zip("xyz", self.data.shape, strict=True)]
        if None in spans:
            return None
        self.work += int(np.prod([hi - lo for lo, hi in spans]))  # type: ignore[misc]
        return tuple(slice(lo, hi) for lo, hi in spans)  # type: ignore[misc,return-value]

    def _cell(self, v: dict) -> tuple[int, int, int] | None:
        w, h, d = self.data.shape
        x, y, z = v["x"], v["y"], v["z"]
        self.work += 1
        return (x, y, z) if 0 <= x < w and 0 <= y < h and 0 <= z < d else None

    def op_set_voxel(self, v: dict) -> None:
        cell = self._cell(v)
        if cell:
            self.data[cell] = color_value(v["color"])

    def op_clear_voxel(self, v: dict) -> None:
        cell = self._cell(v)
        if cell:
            self.data[cell] = 0

    def op_fill_box(self, v: dict) -> None:
        box = self._box(v)
        if box:
            self.data[box] = color_value(v["color"])

    def op_clear_box(self, v: dict) -> None:
        box = self._box(v)
        if box:
            self.data[box] = 0

    def op_stroke_box(self, v: dict) -> None:
        lo = [min(v[a + "0"], v[a + "1"]) for a in "xyz"]
        hi = [max(v[a + "0"], v[a + "1"]) for a in "xyz"]
        color = color_value(v["color"])
        for axis in range(3):  # the 4 edges along each axis
            others = [a for a in range(3) if a != axis]
            for pa in (lo[others[0]], hi[others[0]]):
                for pb in (lo[others[1]], hi[others[1]]):
                    edge = {}
                    for a, name in enumerate("xyz"):
                        if a == axis:
                            edge[name + "0"], edge[name + "1"] = lo[a], hi[a]
                        else:
                            p = pa if a == others[0] else pb
                            edge[name + "0"] = edge[name + "1"] = p
                    box = self._box(edge)
                    if box:
                        self.data[box] = color

    # -- quadrics ---------------------------------------------------------------
    def _quadric(self, centre: list[int], weights: list[int], limit: int,
                 ranges: list[tuple[int, int]], color: int) -> None:
        """Set the cells within ``ranges`` (inclusive, per axis) where
        sum(weights[a] * (p[a] - centre[a])^2) <= limit (a weight 0: unconstrained)."""
        spans = []
        for a, n in enumerate(self.data.shape):
            lo, hi = ranges[a]
            if weights[a]:  # |d| <= isqrt(limit // w) bounds the axis before anything is visited
                reach = isqrt(limit // weights[a])
                lo, hi = max(lo, centre[a] - reach), min(hi, centre[a] + reach)
            span = _span(lo, hi, n) if lo <= hi else None
            if span is None:
                return
            spans.append(span)
        sizes = [hi - lo for lo, hi in spans]
        self.work += sizes[0] * sizes[1] * sizes[2]
        region = tuple(slice(lo, hi) for lo, hi in spans)
        biggest = [max(abs(lo - c), abs(hi - 1 - c)) for (lo, hi), c in zip(spans, centre, strict=True)]
        if limit < _SAFE and all(w * b * b < _SAFE for w, b in zip(weights, biggest, strict=True)):
            d = [np.arange(lo - c, hi - c, dtype=np.int64) for (lo, hi), c in zip(spans, centre, strict=True)]
            total = (weights[0] * d[0] ** 2)[:, None, None] + (weights[1] * d[1] ** 2)[None, :, None] \
                + (weights[2] * d[2] ** 2)[None, None, :]
            self.data[region][total <= limit] = color
            return
        # Exact big-integer path (a huge radius or a far centre): one x interval per (y, z).
        sub = self.data[region]
        (x0, x1), (y0, y1), (z0, z1) = spans
        for y in range(y0, y1):
            ry = limit - weights[1] * (y - centre[1]) ** 2
            if ry < 0:
                continue
            for z in range(z0, z1):
                rem = ry - weights[2] * (z - centre[2]) ** 2
                if rem < 0:
                    continue
                if weights[0]:
                    reach = isqrt(rem // weights[0])
                    lo, hi = max(x0, centre[0] - reach), min(x1 - 1, centre[0] + reach)
                else:
                    lo, hi = x0, x1 - 1
                if lo <= hi:
                    sub[lo - x0:hi - x0 + 1, y - y0, z - z0] = color

    def _whole(self) -> list[tuple[int, int]]:
        return [(0, n - 1) for n in self.data.shape]

    def op_fill_sphere(self, v: dict) -> None:
        r = v["radius"]
        self._quadric([v["cx"], v["cy"], v["cz"]], [1, 1, 1], r * r, self._whole(), color_value(v["color"]))

    def op_fill_ellipsoid(self, v: dict) -> None:
        centre = [v["cx"], v["cy"], v["cz"]]
        radii = [v["rx"], v["ry"], v["rz"]]
        ranges = self._whole()
        squares = [r * r for r in radii]
        weights, limit = [0, 0, 0], 1
        for a in range(3):
            if radii[a] == 0:  # a flat axis: the centre's layer only
                ranges[a] = (centre[a], centre[a])
            else:
                limit *= squares[a]
                weights[a] = 1
                for b in range(3):
                    if b != a and radii[b]:
                        weights[a] *= squares[b]
        self._quadric(centre, weights, limit, ranges, color_value(v["color"]))

    def op_fill_cylinder(self, v: dict) -> None:
        if v["length"] == 0:
            return
        axis = _AXIS[v["axis"]]
        centre = [v["cx"], v["cy"], v["cz"]]
        ranges = self._whole()
        ranges[axis] = (centre[axis], centre[axis] + v["length"] - 1)
        weights = [0 if a == axis else 1 for a in range(3)]
        self._quadric(centre, weights, v["radius"] ** 2, ranges, color_value(v["color"]))

    # -- lines --------------------------------------------------------------------
    def op_line(self, v: dict) -> None:
        """Step along the dominant axis; the others are rounded (half away
        from the start). Only the steps whose dominant coordinate is inside the
        volume are computed, so a line 2^63 long costs at most one side."""
        p0 = [v["x0"], v["y0"], v["z0"]]
        delta = [v["x1"] - p0[0], v["y1"] - p0[1], v["z1"] - p0[2]]
        n = max(abs(d) for d in delta)
        color = color_value(v["color"])
        shape = self.data.shape
        if n == 0:
            self.op_set_voxel({"x": p0[0], "y": p0[1], "z": p0[2], "color": v["color"]})
            return
        major = max(range(3), key=lambda a: abs(delta[a]))  # the first on a tie
        step = 1 if delta[major] > 0 else -1
        # i such that 0 <= p0[major] + step*i < extent, within 0..n
        if step > 0:
            first, last = -p0[major], shape[major] - 1 - p0[major]
        else:
            first, last = p0[major] - (shape[major] - 1), p0[major]
        first, last = max(first, 0), min(last, n)
        if first > last:
            return
        self.work += last - first + 1
        for i in range(first, last + 1):
            cell = []
            for a in range(3):
                d = delta[a]
                off = (2 * i * abs(d) + n) // (2 * n)
                c = p0[a] + (off if d >= 0 else -off)
                if not 0 <= c < shape[a]:
                    break
                cell.append(c)
            else:
                self.data[cell[0], cell[1], cell[2]] = color

    # -- whole-volume edits -------------------------------------------------------
    def op_mirror(self, v: dict) -> None:
        axis, at = _AXIS[v["plane"]], v["at"]
        n = self.data.shape[axis]
        # low cells k = at-1-j land on at+j; both must be inside 0..n-1
        count = min(at, n - at) if 0 < at < n else 0
        if count <= 0:
            return
        self.work += self.data.size
        low = [slice(None)] * 3
        high = [slice(None)] * 3
        low[axis] = slice(at - count, at)
        high[axis] = slice(at, at + count)
        self.data[tuple(high)] = np.flip(self.data[tuple(low)], axis=axis)

    def op_replace_color(self, v: dict) -> None:
        self.work += self.data.size
        self.data[self.data == color_value(v["from"])] = color_value(v["to"])

    def _moved(self, src: tuple[tuple[int, int], ...], offset: list[int]):
        """The part of box ``src`` (per-axis half-open) whose image under ``offset``
        is inside the volume: (source slices, destination slices) or None."""
        s, d = [], []
        for (lo, hi), off, n in zip(src, offset, self.data.shape, strict=True):
            lo2, hi2 = max(lo, -off), min(hi, n - off)  # Python ints: no overflow
            if lo2 >= hi2:
                return None
            s.append(slice(lo2, hi2))
            d.append(slice(lo2 + off, hi2 + off))
        return tuple(s), tuple(d)

    def op_translate(self, v: dict) -> None:
        self.work += self.data.size
        offset = [v["dx"], v["dy"], v["dz"]]
        moved = self._moved(tuple((0, n) for n in self.data.shape), offset)
        out = np.zeros_like(self.data)
        if moved:
            out[moved[1]] = self.data[moved[0]]
        self.data = out

    def op_copy_box(self, v: dict) -> None:
        spans = [_span(v[a + "0"], v[a + "1"], n) for a, n in zip("xyz", self.data.shape, strict=True)]
        if None in spans:
            return
        moved = self._moved(tuple(spans), [v["dx"], v["dy"], v["dz"]])  # type: ignore[arg-type]
        if moved is None:
            return
        block = self.data[moved[0]].copy()  # read before writing: the boxes may overlap
        self.work += block.size
        target = self.data[moved[1]]
        mask = block != 0
        target[mask] = block[mask]
