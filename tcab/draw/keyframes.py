"""Keyframed layer properties of a sheet, evaluated in integer arithmetic.

A property's keyframes are sorted by frame; before the first it holds the
first value, after the last the last. Between two keys the left key's
``interp`` shapes the curve: ``constant`` holds, ``linear`` goes straight,
``ease-in`` (t^2), ``ease-out`` (1-(1-t)^2), ``ease-in-out`` (3t^2-2t^3),
and ``bezier`` (the default) is a cubic in (frame, value) space through the
left key's out-handle and the right key's in-handle, each an offset
``(dframes, dvalue)`` from its own key; an omitted handle is automatic (a
third of the segment long, along the neighbours' slope, flat at an extreme
or an end). Every step is exact integer or fixed-point arithmetic with one
rounding at the end (half up), so the host and the run image agree.
"""

from __future__ import annotations

INTERPS = ("bezier", "constant", "linear", "ease-in", "ease-out", "ease-in-out")
PROPERTIES = ("x", "y", "opacity", "rotation", "scale-x", "scale-y")
_Q = 1 << 20  # fixed-point scale of bezier control points
_T = 24  # bits of the bezier parameter found by bisection
_M = 1 << _T


class Keyframe:
    """One key of a property (a plain class: the tool must start fast)."""

    __slots__ = ("frame", "value", "interp", "handle_in", "handle_out")

    def __init__(self, frame: int, value: int, interp: str = "bezier", handle_in: tuple[int, int] | None = None,
                 handle_out: tuple[int, int] | None = None) -> None:
        self.frame, self.value, self.interp, self.handle_in, self.handle_out = \
            frame, value, interp, handle_in, handle_out


def _round_div(num: int, den: int) -> int:
    return (2 * num + den) // (2 * den)


def _auto_handle(keys: list[Keyframe], i: int, span: int, out: bool) -> tuple[int, int]:
    """The automatic handle of key i (fixed point): a third of ``span`` frames,
    along the slope between its neighbours, flat at an end or an extreme."""
    dx = span * _Q // 3
    dy = 0
    if 0 < i < len(keys) - 1:
        prev, here, nxt = keys[i - 1], keys[i], keys[i + 1]
        if (here.value - prev.value) * (nxt.value - here.value) > 0:
            dy = (nxt.value - prev.value) * dx // (nxt.frame - prev.frame)
    return (dx, dy) if out else (-dx, -dy)


def _bezier(x0: int, x1: int, x2: int, x3: int, k: int) -> int:
    """M^3 times the cubic Bezier at t = k/M."""
    j = _M - k
    return j * j * j * x0 + 3 * j * j * k * x1 + 3 * j * k * k * x2 + k * k * k * x3


def _segment(keys: list[Keyframe], i: int, frame: int) -> int:
    a, b = keys[i], keys[i + 1]
    span, n, dv = b.frame - a.frame, frame - a.frame, b.value - a.value
    if a.interp == "constant":
        return a.value
    if a.interp == "linear":
        return a.value + _round_div(dv * n, span)
    if a.interp == "ease-in":
        return a.value + _round_div(dv * n * n, span * span)
    if a.interp == "ease-out":
        return a.value + _round_div(dv * (span * span - (span - n) * (span - n)), span * span)
    if a.interp == "ease-in-out":
        return a.value + _round_div(dv * (3 * n * n * span - 2 * n * n * n), span ** 3)
    hout = (a.handle_out[0] * _Q, a.handle_out[1] * _Q) if a.handle_out else _auto_handle(keys, i, span, True)
    hin = (b.handle_in[0] * _Q, b.handle_in[1] * _Q) if b.handle_in else _auto_handle(keys, i + 1, span, False)
    x0, x3 = a.frame * _Q, b.frame * _Q
    x1 = min(max(x0 + hout[0], x0), x3)  # handles stay inside the segment: x(t) is monotone
    x2 = min(max(x3 + hin[0], x0), x3)
    y0, y1, y2, y3 = a.value * _Q, a.value * _Q + hout[1], b.value * _Q + hin[1], b.value * _Q
    goal = frame * _Q * _M ** 3
    lo, hi = 0, _M  # smallest k with x(k) >= frame
    while lo < hi:
        mid = (lo + hi) // 2
        if _bezier(x0, x1, x2, x3, mid) >= goal:
            hi = mid
        else:
            lo = mid + 1
    return _round_div(_bezier(y0, y1, y2, y3, lo), _Q * _M ** 3)


def evaluate(keys: list[Keyframe], frame: int) -> int:
    """The property's value at ``frame`` (``keys`` non-empty, sorted by frame)."""
    if frame <= keys[0].frame:
        return keys[0].value
    if frame >= keys[-1].frame:
        return keys[-1].value
    lo, hi = 0, len(keys) - 1  # the segment [i, i+1] with keys[i].frame <= frame < keys[i+1].frame
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if keys[mid].frame <= frame:
            lo = mid
        else:
            hi = mid
    return _segment(keys, lo, frame)
