"""Pixels as text, for the drawing library's tests (tests/draw/)."""

from __future__ import annotations

from tcab.draw.raster import Surface

R = b"\xff\x00\x00\xff"
G = b"\x00\xff\x00\xff"
B = b"\x00\x00\xff\xff"


def picture(s: Surface, legend: dict[bytes, str] | None = None) -> list[str]:
    legend = legend or {R: "R", G: "G", B: "B"}
    rows = []
    for y in range(s.height):
        row = ""
        for x in range(s.width):
            px = bytes(s.buf[(y * s.width + x) * 4:(y * s.width + x) * 4 + 4])
            row += legend.get(px, "." if px[3] == 0 else "?")
        rows.append(row)
    return rows
