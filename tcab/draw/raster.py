"""The pixel operations on one RGBA surface (a canvas or a layer).

Every operation replaces the pixels it touches (no blending: a log replays
to an order-only image). Coordinates are signed and clipped arithmetically:
the work of an operation is bounded by the surface, never by a radius, a
length or a coordinate, so a circle of radius 2^62 costs one pass over the
rows it covers. Each operation adds what it did to ``surface.work``: one
unit per span (a Python step) plus one per 256 pixels written (the copy
itself); the caller bounds the sum.
"""

from __future__ import annotations

from math import isqrt


class Surface:
    """``width`` x ``height`` RGBA pixels, row-major, 4 bytes each."""

    __slots__ = ("width", "height", "buf", "work")

    def __init__(self, width: int, height: int, fill: bytes = b"\x00\x00\x00\x00") -> None:
        self.width, self.height = width, height
        self.buf = bytearray(fill * (width * height))
        self.work = 0

    def copy(self) -> Surface:
        other = Surface.__new__(Surface)
        other.width, other.height, other.buf, other.work = self.width, self.height, bytearray(self.buf), 0
        return other


def _span(s: Surface, y: int, x0: int, x1: int, color: bytes) -> None:
    """Pixels x0..x1-1 of row y (already clipped, x0 < x1)."""
    s.work += (x1 - x0) >> 8
    row = y * s.width
    s.buf[(row + x0) * 4:(row + x1) * 4] = color * (x1 - x0)


def fill_background(s: Surface, color: bytes) -> None:
    s.buf[:] = color * (s.width * s.height)
    s.work += 1 + (s.width * s.height >> 8)


def set_pixel(s: Surface, x: int, y: int, color: bytes) -> None:
    if 0 <= x < s.width and 0 <= y < s.height:
        i = (y * s.width + x) * 4
        s.buf[i:i + 4] = color
    s.work += 1


def fill_rect(s: Surface, x: int, y: int, w: int, h: int, color: bytes) -> None:
    x0, x1 = max(x, 0), min(x + w, s.width)
    y0, y1 = max(y, 0), min(y + h, s.height)
    if x0 >= x1 or y0 >= y1:
        s.work += 1
        return
    s.work += (x1 - x0) * (y1 - y0) >> 8
    if x0 == 0 and x1 == s.width:  # whole rows: one slice
        s.buf[y0 * s.width * 4:y1 * s.width * 4] = color * ((y1 - y0) * s.width)
        s.work += 1
        return
    n, stride, buf = (x1 - x0) * 4, s.width * 4, s.buf
    run = color * (x1 - x0)
    for start in range(y0 * stride + x0 * 4, y1 * stride, stride):
        buf[start:start + n] = run
    s.work += y1 - y0


def stroke_rect(s: Surface, x: int, y: int, w: int, h: int, color: bytes) -> None:
    """The 1-pixel outline of the rectangle (width/height 0 draws nothing)."""
    if w <= 0 or h <= 0:
        s.work += 1
        return
    fill_rect(s, x, y, w, 1, color)
    fill_rect(s, x, y + h - 1, w, 1, color)
    fill_rect(s, x, y + 1, 1, h - 2, color)
    fill_rect(s, x + w - 1, y + 1, 1, h - 2, color)


def _round_div(num: int, den: int) -> int:
    """num/den rounded half up (den > 0)."""
    return (2 * num + den) // (2 * den)


def line(s: Surface, x0: int, y0: int, x1: int, y1: int, color: bytes) -> None:
    """The pixels of the segment: one per step along the major axis, the minor
    coordinate rounded half up. Only the steps whose major coordinate lies on
    the surface are visited."""
    dx, dy = x1 - x0, y1 - y0
    major_x = abs(dx) >= abs(dy)
    length = abs(dx) if major_x else abs(dy)
    if length == 0:
        set_pixel(s, x0, y0, color)
        return
    if major_x:
        start, step, size, other, delta = x0, (1 if dx > 0 else -1), s.width, y0, dy
    else:
        start, step, size, other, delta = y0, (1 if dy > 0 else -1), s.height, x0, dx
    # steps i in [0, length] with 0 <= start + step*i < size
    if step > 0:
        lo, hi = max(0, -start), min(length, size - 1 - start)
    else:
        lo, hi = max(0, start - (size - 1)), min(length, start)
    width, height, buf = s.width, s.height, s.buf
    two_l, two_d = 2 * length, 2 * delta
    if lo > hi:
        s.work += 1
        return
    if 2 * abs(delta) <= length:  # runs of 2+ pixels share a minor coordinate: draw each run at once
        _line_runs(s, major_x, start, step, other, lo, hi, two_l, two_d, length, color)
        s.work += abs(delta) + 1 + ((hi - lo) >> 8)
        return
    num = two_d * lo + length  # the minor offset at step i is num // two_l (half up), num growing by two_d
    if major_x:
        for a in range(start + step * lo, start + step * (hi + 1), step):
            b = other + num // two_l
            num += two_d
            if 0 <= b < height:
                j = (b * width + a) * 4
                buf[j:j + 4] = color
    else:
        for a in range(start + step * lo, start + step * (hi + 1), step):
            b = other + num // two_l
            num += two_d
            if 0 <= b < width:
                j = (a * width + b) * 4
                buf[j:j + 4] = color
    s.work += max(0, hi - lo + 1)


def _line_runs(s: Surface, major_x: bool, start: int, step: int, other: int, lo: int, hi: int, two_l: int,
               two_d: int, length: int, color: bytes) -> None:
    """The steps lo..hi of a shallow line, one run per minor coordinate: the
    step where the minor coordinate changes is solved for, not walked to."""
    width, height = s.width, s.height
    view = None if major_x else memoryview(s.buf).cast("I")
    i = lo
    while i <= hi:
        k = (two_d * i + length) // two_l
        if two_d > 0:
            nxt = -((length - two_l * (k + 1)) // two_d)  # first i with a larger k
        elif two_d < 0:
            nxt = (length - two_l * k) // -two_d + 1  # first i with a smaller k
        else:
            nxt = hi + 1
        end = min(nxt - 1, hi)
        b = other + k
        a0, a1 = start + step * i, start + step * end
        if a0 > a1:
            a0, a1 = a1, a0
        if major_x:
            if 0 <= b < height:
                _span(s, b, a0, a1 + 1, color)
        elif 0 <= b < width:
            # one column: a strided slice of 32-bit pixels (no array module: it loads collections)
            view[a0 * width + b:a1 * width + b + 1:width] = memoryview(color * (a1 - a0 + 1)).cast("I")
        i = end + 1
    if view is not None:
        view.release()


def _disc_half(r: int, dy: int) -> int:
    """Half-width of the disc's row at offset dy: pixels with dx^2+dy^2 <= r^2+r."""
    return isqrt(r * r + r - dy * dy)


def fill_circle(s: Surface, cx: int, cy: int, r: int, color: bytes) -> None:
    y0, y1 = max(cy - r, 0), min(cy + r, s.height - 1)
    for y in range(y0, y1 + 1):
        half = _disc_half(r, y - cy)
        a, b = max(cx - half, 0), min(cx + half + 1, s.width)
        if a < b:
            _span(s, y, a, b, color)
    s.work += max(1, y1 - y0 + 1)


def stroke_circle(s: Surface, cx: int, cy: int, r: int, color: bytes) -> None:
    """The ring: inside the disc of r, outside the disc of r-1."""
    y0, y1 = max(cy - r, 0), min(cy + r, s.height - 1)
    for y in range(y0, y1 + 1):
        dy = y - cy
        outer = _disc_half(r, dy)
        spans = [(cx - outer, cx + outer + 1)]
        if r >= 1 and abs(dy) <= r - 1 and (r - 1) * r - dy * dy >= 0:
            inner = isqrt((r - 1) * (r - 1) + (r - 1) - dy * dy)
            spans = [(cx - outer, cx - inner), (cx + inner + 1, cx + outer + 1)]
        for a, b in spans:
            a, b = max(a, 0), min(b, s.width)
            if a < b:
                _span(s, y, a, b, color)
    s.work += max(1, 2 * (y1 - y0 + 1))


def mirror_horizontal(s: Surface, axis: int) -> None:
    """Copy the part left of the vertical axis at ``axis`` (between pixels
    axis-1 and axis) onto the right, mirrored: x -> 2*axis-1-x."""
    xs0, xs1 = max(0, 2 * axis - s.width), min(axis, s.width)
    if xs0 >= xs1:
        s.work += 1
        return
    view = memoryview(s.buf).cast("I")
    t0, t1 = 2 * axis - xs1, 2 * axis - xs0
    for y in range(s.height):
        row = y * s.width
        view[row + t0:row + t1] = view[row + xs0:row + xs1][::-1]
    view.release()
    s.work += s.height + ((xs1 - xs0) * s.height >> 8)


def _run_end(buf: bytearray, p: int, end: int, target: bytes, row: bytes) -> int:
    """The end (byte offset) of the run of ``target`` pixels starting at ``p``,
    before ``end``: galloping then halving comparisons of whole slices, so the
    cost is a few memcmp passes over the run, never a Python step per pixel."""
    n_max = (end - p) // 4
    if buf[p:end] == row[:end - p]:
        return end
    good, bad = 0, n_max  # buf[p:p+4*good] is all target; the first 4*bad bytes are not
    n = 1
    while n < bad:
        if buf[p:p + 4 * n] == row[:4 * n]:
            good, n = n, n * 2
        else:
            bad = n
            break
    while bad - good > 1:
        mid = (good + bad) // 2
        if buf[p:p + 4 * mid] == row[:4 * mid]:
            good = mid
        else:
            bad = mid
    return p + 4 * good


def flood_fill(s: Surface, x: int, y: int, color: bytes) -> None:
    """Fill the 4-connected region of exactly the seed pixel's colour.
    A run of that colour along a row is found by slice comparisons (C speed),
    so a uniform canvas costs one step per row; the work is bounded by the
    surface's pixels in every case."""
    if not (0 <= x < s.width and 0 <= y < s.height):
        s.work += 1
        return
    buf, width, height = s.buf, s.width, s.height
    i = (y * width + x) * 4
    target = bytes(buf[i:i + 4])
    if target == color:
        s.work += 1
        return
    full = target * width
    stack = [(x, y)]
    work = 0
    while stack:
        sx, sy = stack.pop()
        row = sy * width
        j = (row + sx) * 4
        if buf[j:j + 4] != target:
            continue
        left = sx
        while left > 0 and buf[(row + left - 1) * 4:(row + left) * 4] == target:
            left -= 1
            work += 1
        right = _run_end(buf, j, (row + width) * 4, target, full) // 4 - row  # exclusive
        buf[(row + left) * 4:(row + right) * 4] = color * (right - left)
        work += 1 + ((right - left) >> 8)
        for ny in (sy - 1, sy + 1):
            if 0 <= ny < height:
                # one seed per run of the target colour in the neighbour row;
                # find() skips what is not the target at C speed
                pos, end = (ny * width + left) * 4, (ny * width + right) * 4
                while True:
                    found = buf.find(target, pos, end)
                    work += 1
                    if found < 0:
                        break
                    if found % 4:  # the pattern straddles two pixels: not a pixel of it
                        pos = found + 1
                        continue
                    stack.append((found // 4 - ny * width, ny))
                    pos = _run_end(buf, found, end, target, full)
    s.work += work
