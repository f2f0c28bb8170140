"""A voxel run's turntable: the regenerated model (an animated one at rest,
its parts assembled) turned a full circle about the vertical axis through
its volume's centre, drawn by tcab's own renderer frame by frame and written
as an animated PNG (``exports/turntable.png`` in the run's folder, linked by
``tcab view``). Deterministic: the same meshes give the same bytes."""

from __future__ import annotations

import io
import math

#: Frames a circle, the side of each, and each frame's delay.
TURN_FRAMES = 24
TURN_SIDE = 256
TURN_FRAME_MS = 125
EXPORTS_DIR = "exports"
TURNTABLE = "turntable.png"


def turntable_apng(mesh, bounds: tuple[int, int, int], background: str = "transparent",
                   frames: int = TURN_FRAMES, side: int = TURN_SIDE) -> bytes:
    """The animated PNG of ``mesh`` turning in ``frames`` steps (looping)."""
    import numpy as np
    from PIL import Image

    from tcab.voxel.render import render_png
    from tcab.voxel.scene import transformed

    width, height, depth = bounds
    square = math.ceil(math.hypot(width, depth))  # the footprint's diagonal: room to turn in
    cx, cz, mid = width / 2, depth / 2, square / 2
    images = []
    for i in range(frames):
        a = 2 * math.pi * i / frames
        c, s = math.cos(a), math.sin(a)
        matrix = np.array([[c, 0, s, mid - c * cx - s * cz], [0, 1, 0, 0], [-s, 0, c, mid + s * cx - c * cz],
                           [0, 0, 0, 1]], dtype=np.float64)
        png = render_png(transformed(mesh, matrix), "iso", (square, height, square), background, side)
        images.append(Image.open(io.BytesIO(png)).convert("RGBA"))
    out = io.BytesIO()
    images[0].save(out, format="PNG", save_all=True, append_images=images[1:], duration=[TURN_FRAME_MS] * frames,
                   loop=0, compress_level=9, optimize=False, default_image=False)
    return out.getvalue()
