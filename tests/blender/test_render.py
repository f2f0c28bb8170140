"""The preview (issue 23, item 3): tcab's own renderer, the same bytes on
the host as tcab-blend wrote in the container, and a picture of the mesh."""

from __future__ import annotations

import pytest

from tcab.blender import glb
from tcab.blender.render import MAX_RASTER_PIXELS, SIZE, RenderError, render
from tcab.draw import png
from tcab.testtypes.asset_blender import TURNTABLE_SIZE, turntable
from tests.blender.support import TRIANGLE_BIN, large_triangles_glb, make_glb, triangle_doc


def test_the_preview_is_deterministic_and_draws_the_character(scout_glb) -> None:
    parts = glb.triangles(glb.parse(scout_glb))
    first, second = render(parts, "#1d2330"), render(parts, "#1d2330")
    assert first == second
    width, height, rgba = png.decode(first, SIZE * SIZE)[:3]
    assert (width, height) == (SIZE, SIZE)
    background = bytes.fromhex("1d2330ff")
    drawn = sum(1 for i in range(0, len(rgba), 4) if rgba[i:i + 4] != background)
    assert 0.05 * SIZE * SIZE < drawn < 0.6 * SIZE * SIZE  # a figure, not a blank or a filled frame


def test_an_empty_or_degenerate_mesh_draws_the_background() -> None:
    flat = make_glb(triangle_doc(), bytes(len(TRIANGLE_BIN)))  # three times the same point
    image = render(glb.triangles(glb.parse(flat)), "transparent")
    assert set(png.decode(image, SIZE * SIZE)[2]) == {0}
    assert render([], "#000000") == png.encode(SIZE, SIZE, b"\0\0\0\xff" * SIZE * SIZE)


def test_a_mesh_of_large_triangles_is_refused_by_the_raster_budget() -> None:
    """Thousands of frame-filling triangles would take the host's CPU for
    hours: their bounding boxes are summed and refused before any is drawn."""
    parts = glb.triangles(glb.parse(large_triangles_glb(5_000)))
    with pytest.raises(RenderError, match=r"left of MAX_RASTER_PIXELS \(16777216\)"):
        render(parts)


def test_the_turntable_frames_share_one_raster_budget() -> None:
    """Each frame fits the budget alone; the turn's 24 together do not."""
    count = MAX_RASTER_PIXELS // (TURNTABLE_SIZE * TURNTABLE_SIZE) // 4
    parts = glb.triangles(glb.parse(large_triangles_glb(count)))
    assert render(parts)[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(RenderError, match="MAX_RASTER_PIXELS"):
        turntable(parts, "transparent")
