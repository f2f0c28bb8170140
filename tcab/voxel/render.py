"""The deterministic software renderer: a mesh to a 512x512 PNG.

Integer arithmetic from the projected vertices on: positions are rounded
once to 1/16 voxel, projected by an integer matrix per view, placed in
1/16-pixel fixed point, and every triangle is rasterized with integer edge
functions and an integer depth; a pixel keeps its nearest triangle, a tie the
lowest triangle index (one ``np.minimum.at`` over a combined key). No
threads, no GPU, no float after rounding, so the bytes are the same on any
machine with the same zlib. Back faces are culled; each triangle is
flat-shaded by one fixed light (quantized to 1/256).

Views: ``iso`` (from +x +y +z, true isometric), ``front`` (from +z), ``side``
(from +x), ``top`` (from +y, front at the bottom). The frame is the volume's
box (``bounds``), so every part of a rig and the assembled scene share it;
without ``bounds``, the mesh's own box.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from tcab.voxel.errors import VoxelError
from tcab.voxel.limits import PREVIEW_SIDE

VIEWS = ("iso", "front", "side", "top")
FIX = 16  # world fixed point: 1/16 voxel
SUB = 16  # screen fixed point: 1/16 pixel
MARGIN = 16  # pixels left free on each side
_PROJECT = {  # rows: screen x, screen y (up), depth (larger is nearer)
    "front": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "side": ((0, 0, -1), (0, 1, 0), (1, 0, 0)),
    "top": ((1, 0, 0), (0, 0, -1), (0, 1, 0)),
    "iso": ((1774, 0, -1774), (-1024, 2048, -1024), (1, 1, 1)),  # sqrt(3) ~ 1774/1024
}
_LIGHT = np.array([0.35, 0.8, 0.5])
_LIGHT = _LIGHT / np.sqrt((_LIGHT ** 2).sum())
_BATCH = 1 << 21  # candidate pixels one batch evaluates
_TRI_BITS = 22


def parse_background(text: str) -> tuple[int, int, int, int]:
    """``transparent`` or ``#rrggbb`` (the case's background)."""
    if text == "transparent":
        return (0, 0, 0, 0)
    if len(text) == 7 and text[0] == "#":
        try:
            return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16), 255)
        except ValueError:
            pass
    raise VoxelError(f"background: expected 'transparent' or '#rrggbb', got {text!r}"[:120])


def encode_png(rgba: np.ndarray) -> bytes:
    """PNG of an (h, w, 4) uint8 array: filter 0, one IDAT, zlib level 6, no ancillary chunk."""
    h, w, _ = rgba.shape
    raw = np.zeros((h, w * 4 + 1), np.uint8)
    raw[:, 1:] = rgba.reshape(h, w * 4)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + chunk(b"IEND", b""))


def _shades(world: np.ndarray, tris: np.ndarray) -> np.ndarray:
    """Per triangle, the light factor in 1/256 (ambient 0.45 + diffuse 0.55)."""
    a, b, c = (world[tris[:, i]].astype(np.float64) for i in range(3))
    n = np.cross(b - a, c - a)
    length = np.sqrt((n * n).sum(axis=1))
    length[length == 0] = 1
    lit = np.maximum((n @ _LIGHT) / length, 0)
    return np.rint(256 * (0.45 + 0.55 * lit)).astype(np.int64)


def rasterize(mesh, view: str = "iso", bounds: tuple[int, int, int] | None = None,
              background: str = "transparent", size: int = PREVIEW_SIDE) -> np.ndarray:
    """The (size, size, 4) uint8 image of ``mesh`` seen from ``view``."""
    if view not in _PROJECT:
        raise VoxelError(f"--view: expected one of {', '.join(VIEWS)}, got {view!r}"[:120])
    image = np.empty((size, size, 4), np.uint8)
    image[:] = parse_background(background)
    tris = np.asarray(mesh.indices, np.int64).reshape(-1, 3)
    if not len(tris):
        return image
    matrix = np.array(_PROJECT[view], np.int64)
    world = np.rint(np.asarray(mesh.positions, np.float64) * FIX).astype(np.int64)
    proj = world @ matrix.T  # (n, 3): screen x, screen y up, depth
    if bounds is not None:
        corners = np.array([[x, y, z] for x in (0, bounds[0]) for y in (0, bounds[1]) for z in (0, bounds[2])],
                           np.int64) * FIX
        box = corners @ matrix.T
    else:
        box = proj
    lo, hi = box.min(axis=0), box.max(axis=0)
    span = max(int(hi[0] - lo[0]), int(hi[1] - lo[1]), 1)
    num, den = (size - 2 * MARGIN) * SUB, span
    mid_x, mid_y = int(lo[0] + hi[0]) // 2, int(lo[1] + hi[1]) // 2
    half = size * SUB // 2
    sx = (proj[:, 0] - mid_x) * num // den + half
    sy = half - (proj[:, 1] - mid_y) * num // den
    depth = proj[:, 2] - int(lo[2])  # >= 0 inside the frame; nearer is larger
    x0, x1, x2 = (sx[tris[:, i]] for i in range(3))
    y0, y1, y2 = (sy[tris[:, i]] for i in range(3))
    area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
    front = area < 0  # counter-clockwise seen from the camera is clockwise with y down
    keep = np.nonzero(front)[0]
    if not len(keep):
        return image
    # make the kept ones positive: swap vertices 1 and 2
    X = np.stack([x0[keep], x2[keep], x1[keep]], axis=1)
    Y = np.stack([y0[keep], y2[keep], y1[keep]], axis=1)
    Z = np.stack([depth[tris[keep, 0]], depth[tris[keep, 2]], depth[tris[keep, 1]]], axis=1)
    area = -area[keep]
    colors = np.asarray(mesh.colors, np.int64)[tris[keep, 0], :3]
    shade = _shades(world, tris[keep])
    rgb = np.clip(colors * shade[:, None] >> 8, 0, 255).astype(np.uint8)
    # pixel bounding boxes (centres at (p + 0.5) * SUB), clipped to the image
    px0 = np.clip((X.min(axis=1) - SUB // 2 + SUB - 1) // SUB, 0, size)
    px1 = np.clip((X.max(axis=1) - SUB // 2) // SUB, -1, size - 1)
    py0 = np.clip((Y.min(axis=1) - SUB // 2 + SUB - 1) // SUB, 0, size)
    py1 = np.clip((Y.max(axis=1) - SUB // 2) // SUB, -1, size - 1)
    extent = np.maximum(px1 - px0 + 1, py1 - py0 + 1)
    visible = np.nonzero(extent > 0)[0]
    order = visible[np.argsort(extent[visible], kind="stable")]
    zmax = int(Z.max()) + 1
    zbuf = np.full(size * size, np.iinfo(np.int64).max, np.int64)
    start = 0
    while start < len(order):
        k = int(extent[order[start]])
        # grow the batch while its largest box still fits the budget
        stop = start + 1
        limit = max(1, _BATCH // (k * k))
        stop = min(len(order), start + limit)
        k = int(extent[order[stop - 1]])
        while stop - start > 1 and (stop - start) * k * k > _BATCH:
            stop = start + max(1, (stop - start) // 2)
            k = int(extent[order[stop - 1]])
        batch = order[start:stop]
        start = stop
        steps = np.arange(k, dtype=np.int64)
        gx = px0[batch][:, None, None] + steps[None, None, :]
        gy = py0[batch][:, None, None] + steps[None, :, None]
        cx, cy = gx * SUB + SUB // 2, gy * SUB + SUB // 2
        bx, by, bz = X[batch], Y[batch], Z[batch]
        e = []
        for i, j in ((1, 2), (2, 0), (0, 1)):  # edge opposite vertex i: weight of vertex i
            ax, ay = bx[:, i:i + 1, None], by[:, i:i + 1, None]
            ax2, ay2 = bx[:, j:j + 1, None], by[:, j:j + 1, None]
            e.append((ax2 - ax) * (cy - ay) - (ay2 - ay) * (cx - ax))
        w0, w1, w2 = e[0], e[1], e[2]
        inside = (w0 >= 0) & (w1 >= 0) & (w2 >= 0) & (gx <= px1[batch][:, None, None]) \
            & (gy <= py1[batch][:, None, None])
        t, ry, rx = np.nonzero(inside)
        if not len(t):
            continue
        tb = batch[t]
        z = (w0[t, ry, rx] * bz[t, 0] + w1[t, ry, rx] * bz[t, 1] + w2[t, ry, rx] * bz[t, 2]) // area[tb]
        key = ((zmax - z) << _TRI_BITS) | tb
        np.minimum.at(zbuf, gy[t, ry, 0] * size + gx[t, 0, rx], key)
    hit = zbuf != np.iinfo(np.int64).max
    flat = image.reshape(-1, 4)
    tri = zbuf[hit] & ((1 << _TRI_BITS) - 1)
    flat[hit, :3] = rgb[tri]
    flat[hit, 3] = 255
    return image


def render_png(mesh, view: str = "iso", bounds: tuple[int, int, int] | None = None,
               background: str = "transparent", size: int = PREVIEW_SIDE) -> bytes:
    """The PNG of ``mesh`` (voxel.mesh.Mesh or any object with positions,
    colors, indices) seen from ``view``, framed by the volume ``bounds``."""
    if len(mesh.indices) // 3 >= 1 << _TRI_BITS:
        raise VoxelError(f"render: {len(mesh.indices) // 3} triangles, over the {1 << _TRI_BITS} limit")
    return encode_png(rasterize(mesh, view, bounds, background, size))
