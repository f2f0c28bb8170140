"""The pixel operations: exact pixels on small surfaces, and clipping that
costs nothing for huge coordinates (tcab/draw/raster.py)."""

from __future__ import annotations

import random
import time

from tcab.draw import raster
from tcab.draw.raster import Surface
from tests.support.draw import B, G, R, picture


def test_fill_rect_is_clipped_and_replaces_pixels() -> None:
    s = Surface(6, 4)
    raster.fill_rect(s, -2, -1, 4, 3, R)
    raster.fill_rect(s, 1, 1, 100, 100, b"\x00\x00\xff\x40")  # a translucent colour replaces, never blends
    assert picture(s, {R: "R", b"\x00\x00\xff\x40": "b"}) == ["RR....", "Rbbbbb", ".bbbbb", ".bbbbb"]


def test_whole_rows_and_empty_rects() -> None:
    s = Surface(4, 3)
    raster.fill_rect(s, -5, 1, 50, 1, G)
    raster.fill_rect(s, 0, 0, 0, 3, R)  # zero width: nothing
    raster.fill_rect(s, 10, 10, 3, 3, R)  # off the canvas: nothing
    assert picture(s) == ["....", "GGGG", "...."]


def test_stroke_rect_is_inside_its_bounds() -> None:
    s = Surface(6, 5)
    raster.stroke_rect(s, 1, 0, 4, 4, R)
    assert picture(s) == [".RRRR.", ".R..R.", ".R..R.", ".RRRR.", "......"]
    raster.stroke_rect(s, 0, 4, 1, 1, B)
    assert picture(s)[4] == "B....."


def test_set_pixel_off_the_canvas_is_nothing() -> None:
    s = Surface(3, 2)
    raster.set_pixel(s, 2, 1, R)
    raster.set_pixel(s, 3, 1, G)
    raster.set_pixel(s, -1, 0, G)
    assert picture(s) == ["...", "..R"]


def test_line_steps_along_its_major_axis_and_rounds_half_up() -> None:
    s = Surface(8, 4)
    raster.line(s, 0, 0, 7, 3, R)
    assert picture(s) == ["RR......", "..RR....", "....RR..", "......RR"]
    s = Surface(3, 5)
    raster.line(s, 2, 4, 0, 0, G)  # reversed, y-major
    assert picture(s) == ["G..", ".G.", ".G.", "..G", "..G"]


def test_a_line_from_minus_to_plus_2_62_is_clipped_without_walking_it() -> None:
    s = Surface(16, 16)
    start = time.monotonic()
    raster.line(s, -(1 << 62), 3, 1 << 62, 3, R)
    raster.line(s, -(1 << 62), -(1 << 62), 1 << 62, 1 << 62, G)
    assert time.monotonic() - start < 0.5
    assert picture(s)[3] == "RRRGRRRRRRRRRRRR"
    assert all(picture(s)[i][i] == ("G" if i != 3 else "G") for i in range(16))
    assert s.work < 100


def test_fill_circle_and_its_ring() -> None:
    s = Surface(7, 7)
    raster.fill_circle(s, 3, 3, 2, R)
    assert picture(s) == [".......", "..RRR..", ".RRRRR.", ".RRRRR.", ".RRRRR.", "..RRR..", "......."]
    s = Surface(7, 7)
    raster.stroke_circle(s, 3, 3, 3, G)
    assert picture(s) == ["..GGG..", ".G...G.", "G.....G", "G.....G", "G.....G", ".G...G.", "..GGG.."]
    s = Surface(3, 3)
    raster.fill_circle(s, 1, 1, 0, B)
    raster.stroke_circle(s, 0, 0, 0, R)
    assert picture(s) == ["R..", ".B.", "..."]


def test_a_circle_of_radius_2_62_costs_one_pass_over_the_rows() -> None:
    s = Surface(64, 64)
    start = time.monotonic()
    raster.fill_circle(s, 10, 10, 1 << 62, R)
    raster.stroke_circle(s, 10, 10, 1 << 62, G)  # its ring is far outside
    raster.fill_circle(s, -(1 << 62), 0, 1 << 61, B)  # entirely off the canvas
    assert time.monotonic() - start < 0.5
    assert set(picture(s)) == {"R" * 64}
    assert s.work < 1000


def test_flood_fill_is_4_connected_and_exact() -> None:
    s = Surface(6, 5)
    raster.stroke_rect(s, 0, 0, 4, 4, R)
    raster.set_pixel(s, 4, 4, R)
    raster.flood_fill(s, 1, 1, G)  # inside the box
    raster.flood_fill(s, 5, 0, B)  # outside: around the box, not through its corner
    assert picture(s) == ["RRRRBB", "RGGRBB", "RGGRBB", "RRRRBB", "....RB"]  # row 4 is cut off by (4,4)
    raster.flood_fill(s, 9, 9, R)  # a seed off the canvas: nothing
    raster.flood_fill(s, 1, 1, G)  # the same colour: nothing
    assert picture(s)[1] == "RGGRBB"


def test_flood_fill_stops_at_a_nearly_equal_colour() -> None:
    s = Surface(4, 1)
    raster.set_pixel(s, 2, 0, b"\x00\x00\x00\x01")  # alpha 1 is not transparent
    raster.flood_fill(s, 0, 0, R)
    assert picture(s, {R: "R", b"\x00\x00\x00\x01": "a"}) == ["RRa."]


def test_flood_fill_of_the_largest_canvas_is_fast_and_whole() -> None:
    from tcab.draw.limits import MAX_SIDE
    s = Surface(MAX_SIDE, MAX_SIDE)
    raster.fill_rect(s, 100, 0, 1, MAX_SIDE - 1, R)  # a wall with a gap at the bottom
    start = time.monotonic()
    raster.flood_fill(s, 0, 0, G)
    assert time.monotonic() - start < 10
    assert s.buf.count(G) == MAX_SIDE * MAX_SIDE - (MAX_SIDE - 1)


def test_mirror_horizontal_copies_the_left_onto_the_right() -> None:
    s = Surface(6, 2)
    raster.set_pixel(s, 0, 0, R)
    raster.set_pixel(s, 1, 1, G)
    raster.set_pixel(s, 5, 1, B)  # overwritten by its mirror image (transparent)
    raster.mirror_horizontal(s, 3)
    assert picture(s) == ["R....R", ".G..G."]
    raster.mirror_horizontal(s, 1)  # axis near the edge: only x=0 -> x=1
    assert picture(s) == ["RR...R", "....G."]
    raster.mirror_horizontal(s, 1 << 62)  # far away: nothing to copy
    raster.mirror_horizontal(s, -(1 << 62))
    assert picture(s) == ["RR...R", "....G."]


def test_lines_drawn_as_runs_are_the_pixels_of_the_definition() -> None:
    def reference(s: Surface, x0: int, y0: int, x1: int, y1: int, color: bytes) -> None:
        dx, dy = x1 - x0, y1 - y0
        n = max(abs(dx), abs(dy))
        for i in range(n + 1):
            if n == 0:
                x, y = x0, y0
            elif abs(dx) >= abs(dy):
                x, y = x0 + (1 if dx > 0 else -1) * i, y0 + (2 * dy * i + n) // (2 * n)
            else:
                x, y = x0 + (2 * dx * i + n) // (2 * n), y0 + (1 if dy > 0 else -1) * i
            raster.set_pixel(s, x, y, color)

    rng = random.Random(11)
    for _ in range(3000):
        ends = [rng.randrange(-30, 50) for _ in range(4)]
        width, height = rng.randrange(1, 20), rng.randrange(1, 20)
        ours, theirs = Surface(width, height), Surface(width, height)
        raster.line(ours, *ends, R)
        reference(theirs, *ends, R)
        assert ours.buf == theirs.buf, (ends, width, height)
