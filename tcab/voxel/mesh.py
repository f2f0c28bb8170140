"""Face-culled meshing: one quad per voxel face that touches empty space.

Each visible face is its own 4 vertices (so a face has one colour and one
normal, flat-shaded) and 2 triangles. Positions are the voxel corners in the
volume's own coordinates (voxel ``[x, y, z]`` spans x..x+1, y..y+1, z..z+1),
so the parts of a rig, meshed alone, already sit where they assemble. The
order is fixed (direction +x, -x, +y, -y, +z, -z; then x, y, z), so the same
volume always gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tcab.voxel.errors import VoxelError
from tcab.voxel.limits import MAX_FACES


@dataclass(frozen=True, slots=True)
class Mesh:
    """Triangles: ``positions``/``normals`` float32 (n, 3), ``colors`` uint8 RGBA
    (n, 4, sRGB bytes as written), ``indices`` uint32 (3 per triangle)."""

    positions: np.ndarray
    normals: np.ndarray
    colors: np.ndarray
    indices: np.ndarray

    @property
    def faces(self) -> int:
        return len(self.indices) // 6

    @property
    def triangles(self) -> int:
        return len(self.indices) // 3

    @classmethod
    def empty(cls) -> Mesh:
        return cls(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32), np.zeros((0, 4), np.uint8),
                   np.zeros(0, np.uint32))


# Per direction: the corner offsets (counter-clockwise seen from outside) of the face of voxel (0,0,0).
def _corners(axis: int, sign: int) -> np.ndarray:
    u, v = (axis + 1) % 3, (axis + 2) % 3
    quad = [(0, 0), (1, 0), (1, 1), (0, 1)]
    if sign < 0:
        quad = quad[::-1]
    out = np.zeros((4, 3), np.int64)
    for i, (a, b) in enumerate(quad):
        out[i, axis] = 1 if sign > 0 else 0
        out[i, u], out[i, v] = a, b
    return out


DIRECTIONS = [(axis, sign) for axis in range(3) for sign in (1, -1)]
_CORNERS = [_corners(a, s) for a, s in DIRECTIONS]
_QUAD = np.array([0, 1, 2, 0, 2, 3], np.uint32)


def mesh_volume(volume, max_faces: int = MAX_FACES) -> Mesh:
    """The face-culled mesh of a ``Volume`` (or its ``uint32`` array)."""
    data = getattr(volume, "data", volume)
    solid = data != 0
    padded = np.zeros(tuple(n + 2 for n in data.shape), bool)
    padded[1:-1, 1:-1, 1:-1] = solid
    cells, colors, kinds = [], [], []
    total = 0
    for k, (axis, sign) in enumerate(DIRECTIONS):
        neighbour = [slice(1, -1)] * 3
        neighbour[axis] = slice(2, None) if sign > 0 else slice(0, -2)
        visible = solid & ~padded[tuple(neighbour)]
        where = np.nonzero(visible)
        total += len(where[0])
        if total > max_faces:
            raise VoxelError(f"mesh: more than {max_faces} visible faces (MAX_FACES)")
        cells.append(np.stack(where, axis=1).astype(np.int64))
        colors.append(data[where])
        kinds.append(np.full(len(where[0]), k, np.int64))
    if total == 0:
        return Mesh.empty()
    cell = np.concatenate(cells)
    kind = np.concatenate(kinds)
    value = np.concatenate(colors)
    corners = np.stack(_CORNERS)[kind]  # (faces, 4, 3)
    positions = (cell[:, None, :] + corners).reshape(-1, 3).astype(np.float32)
    normal_of = np.zeros((6, 3), np.float32)
    for k, (axis, sign) in enumerate(DIRECTIONS):
        normal_of[k, axis] = sign
    normals = np.repeat(normal_of[kind], 4, axis=0)
    rgba = np.empty((total, 4), np.uint8)
    rgba[:, 0] = (value >> 16) & 0xFF
    rgba[:, 1] = (value >> 8) & 0xFF
    rgba[:, 2] = value & 0xFF
    rgba[:, 3] = 255
    colors4 = np.repeat(rgba, 4, axis=0)
    indices = (np.arange(total, dtype=np.uint32)[:, None] * 4 + _QUAD[None, :]).reshape(-1)
    return Mesh(positions, normals, colors4, indices)
