"""The preview of a character.glb: tcab's own software renderer.

Deterministic to the byte: numpy in float64, one thread, triangles drawn in
file order with a strict depth test, the PNG written by
:func:`tcab.draw.png.encode`. The mesh is drawn in its bind pose
(the positions as stored), orthographic from the front-right and a little
above (the glTF frame: +Y up, the character facing +Z), flat shaded with
one light, fitted to the image. No GPU, no Blender.

Its work is bounded before any triangle is drawn: at most :data:`MAX_DRAWN`
triangles, and the pixels of their bounding boxes (clipped to the image)
summed against a :class:`RasterBudget` of :data:`MAX_RASTER_PIXELS`, which
the frames of a turntable share. Over it is a :class:`RenderError`.
"""

from __future__ import annotations

import math

from tcab.draw import png
from tcab.draw.colors import parse_background

SIZE = 512
MAX_DRAWN = 400_000  # triangles drawn; the rest of a larger mesh is left out of the preview
#: Pixels rasterised (triangles' clipped bounding boxes) by one render, or by
#: all the frames of a turntable: 64 full previews. A few thousand frame-filling
#: triangles would otherwise take the CPU for hours.
MAX_RASTER_PIXELS = 64 * SIZE * SIZE
_YAW = math.radians(-30.0)
_PITCH = math.radians(20.0)
_LIGHT = (0.35, 0.55, 0.76)


class RenderError(ValueError):
    """A mesh whose drawing would pass :data:`MAX_RASTER_PIXELS`."""


class RasterBudget:
    """What is left of :data:`MAX_RASTER_PIXELS`; pass one to every frame
    that must share it."""

    __slots__ = ("left",)

    def __init__(self, pixels: int = MAX_RASTER_PIXELS) -> None:
        self.left = pixels

    def spend(self, pixels: int) -> None:
        if pixels > self.left:
            raise RenderError(f"{pixels} pixels of triangle bounding boxes to draw, over the {self.left} left of "
                              f"MAX_RASTER_PIXELS ({MAX_RASTER_PIXELS})")
        self.left -= pixels


def _rotation(yaw: float = _YAW):
    import numpy as np

    cy, sy = math.cos(yaw), math.sin(yaw)
    cp, sp = math.cos(_PITCH), math.sin(_PITCH)
    yaw = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]], dtype=np.float64)
    pitch = np.array([[1, 0, 0], [0, cp, -sp], [0, sp, cp]], dtype=np.float64)
    return pitch @ yaw


def render(parts, background: str = "transparent", size: int = SIZE) -> bytes:
    """A PNG of ``parts`` (:func:`tcab.blender.glb.triangles`) on ``background``.
    Raises RenderError over MAX_RASTER_PIXELS."""
    return png.encode(size, size, render_rgba(parts, background, size))


def render_rgba(parts, background: str = "transparent", size: int = SIZE, *, yaw_degrees: float | None = None,
                turntable: bool = False, budget: RasterBudget | None = None) -> bytes:
    """The RGBA pixels of ``parts`` seen from ``yaw_degrees`` about +Y (the
    preview's -30 by default). ``turntable``: fitted by the bounding box's
    diagonal about its centre, so every angle has the same scale. ``budget``
    (a fresh one by default) is spent before anything is drawn; RenderError
    when it does not cover the frame."""
    import numpy as np

    bg = parse_background(background) or bytes(4)
    image = np.empty((size, size, 4), dtype=np.uint8)
    image[:, :] = np.frombuffer(bg, dtype=np.uint8)
    verts, faces, colours = [], [], []
    base = drawn = 0
    for positions, indices, colour in parts:
        if drawn >= MAX_DRAWN or not indices:
            continue
        tri = np.asarray(indices, dtype=np.int64).reshape(-1, 3)[: MAX_DRAWN - drawn]
        verts.append(np.asarray(positions, dtype=np.float64).reshape(-1, 3))
        faces.append(tri + base)
        colours.append(np.tile(np.asarray(colour, dtype=np.float64), (len(tri), 1)))
        base += len(positions)
        drawn += len(tri)
    if not faces:
        return image.tobytes()
    rotation = _rotation(_YAW if yaw_degrees is None else math.radians(yaw_degrees))
    raw = np.concatenate(verts)
    v = raw @ rotation.T
    f = np.concatenate(faces)
    c = np.concatenate(colours)
    finite = np.isfinite(v).all(axis=1)
    keep = finite[f].all(axis=1)
    f, c = f[keep], c[keep]
    if not len(f):
        return image.tobytes()
    if turntable:
        used = raw[np.unique(f)]
        lo, hi = used.min(axis=0), used.max(axis=0)
        extent = max(float(np.linalg.norm(hi - lo)), 1e-9)
        centre = ((lo + hi) / 2) @ rotation.T
    else:
        used = v[np.unique(f)]
        lo, hi = used.min(axis=0), used.max(axis=0)
        extent = max(hi[0] - lo[0], hi[1] - lo[1], 1e-9)
        centre = (lo + hi) / 2
    scale = size * 0.9 / extent
    sx = (v[:, 0] - centre[0]) * scale + size / 2
    sy = size / 2 - (v[:, 1] - centre[1]) * scale
    sz = v[:, 2]
    _spend(budget or RasterBudget(), sx[f], sy[f], size)
    a, b, d = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    n = np.cross(b - a, d - a)
    length = np.linalg.norm(n, axis=1)
    length[length == 0] = 1.0
    n = n / length[:, None]
    n[n[:, 2] < 0] *= -1  # two-sided: the face as seen
    shade = 0.3 + 0.7 * np.clip(n @ np.asarray(_LIGHT), 0.0, 1.0)
    # baseColorFactor is linear: to sRGB (gamma 2.2) for the PNG.
    rgb = np.clip(np.rint((c * shade[:, None]) ** (1 / 2.2) * 255.0), 0, 255).astype(np.uint8)
    depth = np.full((size, size), -np.inf)
    for t in range(len(f)):
        i, j, k = f[t]
        x0, y0, x1, y1, x2, y2 = sx[i], sy[i], sx[j], sy[j], sx[k], sy[k]
        area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
        if area == 0:
            continue
        left = max(int(math.floor(min(x0, x1, x2))), 0)
        right = min(int(math.ceil(max(x0, x1, x2))), size - 1)
        top = max(int(math.floor(min(y0, y1, y2))), 0)
        bottom = min(int(math.ceil(max(y0, y1, y2))), size - 1)
        if left > right or top > bottom:
            continue
        px = np.arange(left, right + 1, dtype=np.float64) + 0.5
        py = np.arange(top, bottom + 1, dtype=np.float64)[:, None] + 0.5
        w0 = ((x1 - px) * (y2 - py) - (x2 - px) * (y1 - py)) / area
        w1 = ((x2 - px) * (y0 - py) - (x0 - px) * (y2 - py)) / area
        w2 = 1.0 - w0 - w1
        inside = (w0 >= 0) & (w1 >= 0) & (w2 >= 0)
        if not inside.any():
            continue
        z = w0 * sz[i] + w1 * sz[j] + w2 * sz[k]
        window = depth[top:bottom + 1, left:right + 1]
        nearer = inside & (z > window)
        window[nearer] = z[nearer]
        image[top:bottom + 1, left:right + 1, :3][nearer] = rgb[t]
        image[top:bottom + 1, left:right + 1, 3][nearer] = 255
    return image.tobytes()


def _spend(budget: RasterBudget, xs, ys, size: int) -> None:
    """The loop's clipped bounding boxes, summed (degenerate triangles are skipped there too)."""
    import numpy as np

    area = (xs[:, 1] - xs[:, 0]) * (ys[:, 2] - ys[:, 0]) - (xs[:, 2] - xs[:, 0]) * (ys[:, 1] - ys[:, 0])
    width = np.minimum(np.ceil(xs.max(axis=1)), size - 1) - np.maximum(np.floor(xs.min(axis=1)), 0) + 1
    height = np.minimum(np.ceil(ys.max(axis=1)), size - 1) - np.maximum(np.floor(ys.min(axis=1)), 0) + 1
    boxes = np.clip(width, 0, None) * np.clip(height, 0, None)
    budget.spend(int(boxes[area != 0].sum()))
