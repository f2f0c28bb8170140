"""Posing a rig: F-curve sampling and each part's world transform at a time.

A track's segment leaving a key is shaped by that key's ``interp``:
``constant`` holds, ``linear`` is a straight line, ``bezier`` is the cubic
through the key's ``out_handle`` and the next key's ``in_handle`` (each a
``[dt_ms, dvalue]`` offset; absent: smooth auto tangents), and the easing
presets are fixed handles (CSS ``ease-in`` 0.42,0,1,1; ``ease-out``
0,0,0.58,1; ``ease-in-out`` 0.42,0,0.58,1). Time is wrapped by the period for
a looping animation and held at its end otherwise.

A joint's matrix is ``T(offset) T(pivot) R(orient, Euler X then Y then Z)
D(value) T(-pivot)`` where ``D`` rotates about the joint's axis by the value
(radians, right-handed about y and z; about x a positive value lifts +z toward +y) or translates along it (voxels). A part's local
matrix is the product of its joints in definition order; its world matrix is
its parent's world times its local. Untracked joints sit at ``rest``.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from tcab.voxel.errors import RigError

_PRESETS = {"ease-in": (0.42, 0.0, 1.0, 1.0), "ease-out": (0.0, 0.0, 0.58, 1.0),
            "ease-in-out": (0.42, 0.0, 0.58, 1.0)}
_AXIS = {"x": 0, "y": 1, "z": 2}


def _bezier(p0: float, p1: float, p2: float, p3: float, s: float) -> float:
    u = 1 - s
    return u * u * u * p0 + 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s * p3


def _handles(keys: list[dict], i: int) -> tuple[float, float, float, float]:
    """The two inner control points (t1, v1, t2, v2) of the segment keys[i]..keys[i+1]."""
    a, b = keys[i], keys[i + 1]
    dt, dv = b["t_ms"] - a["t_ms"], b["value"] - a["value"]
    preset = _PRESETS.get(a["interp"])
    if preset is not None:
        return a["t_ms"] + preset[0] * dt, a["value"] + preset[1] * dv, a["t_ms"] + preset[2] * dt, \
            a["value"] + preset[3] * dv

    def slope(k: int) -> float:  # auto tangent: the neighbours' chord
        lo, hi = keys[max(k - 1, 0)], keys[min(k + 1, len(keys) - 1)]
        span = hi["t_ms"] - lo["t_ms"]
        return (hi["value"] - lo["value"]) / span if span > 0 else 0.0

    out = a["out_handle"] or [dt / 3, slope(i) * dt / 3]
    back = b["in_handle"] or [-dt / 3, -slope(i + 1) * dt / 3]
    t1 = min(max(a["t_ms"] + out[0], a["t_ms"]), b["t_ms"])  # clamped inside: time stays monotone
    t2 = min(max(b["t_ms"] + back[0], a["t_ms"]), b["t_ms"])
    return t1, a["value"] + out[1], t2, b["value"] + back[1]


def sample(keys: list[dict], t_ms: float) -> float | None:
    """The track's value at ``t_ms`` (None for a track without keys)."""
    if not keys:
        return None
    if t_ms <= keys[0]["t_ms"]:
        return keys[0]["value"]
    if t_ms >= keys[-1]["t_ms"]:
        return keys[-1]["value"]
    # The last key at or before t_ms (keys are in time order), found by bisection: a bake samples every frame.
    i = bisect.bisect_right(keys, t_ms, hi=len(keys) - 1, key=lambda k: k["t_ms"]) - 1
    a, b = keys[i], keys[i + 1]
    if a["interp"] == "constant":
        return a["value"]
    frac = (t_ms - a["t_ms"]) / (b["t_ms"] - a["t_ms"])
    if a["interp"] == "linear":
        return a["value"] + frac * (b["value"] - a["value"])
    t1, v1, t2, v2 = _handles(keys, i)
    lo, hi = 0.0, 1.0
    for _ in range(48):  # bisection on the monotone time polynomial: same steps on any machine
        mid = (lo + hi) / 2
        if _bezier(a["t_ms"], t1, t2, b["t_ms"], mid) < t_ms:
            lo = mid
        else:
            hi = mid
    return _bezier(a["value"], v1, v2, b["value"], (lo + hi) / 2)


def local_time(animation: dict, t_ms: float) -> float:
    period = animation["period_ms"]
    if not math.isfinite(t_ms) or t_ms < 0:
        raise RigError(f"--time: expected a finite time >= 0 in ms, got {t_ms!r}")
    if period <= 0:
        return 0.0
    return math.fmod(t_ms, period) if animation["loop"] else min(t_ms, period)


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """4x4 product summed in a fixed order (a BLAS may not)."""
    return a[:, 0:1] * b[0:1, :] + a[:, 1:2] * b[1:2, :] + a[:, 2:3] * b[2:3, :] + a[:, 3:4] * b[3:4, :]


def _translate(v) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = v
    return m


def _rotate(axis: int, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    m = np.eye(4)
    u, v = (axis + 1) % 3, (axis + 2) % 3
    m[u, u], m[u, v], m[v, u], m[v, v] = c, -s, s, c
    return m


def joint_matrix(joint: dict, value: float) -> np.ndarray:
    axis = _AXIS[joint["axis"]]
    if joint["kind"] == "rotation":  # pitch (x) is positive upward: a +z part rises toward +y
        driven = _rotate(axis, -value if axis == 0 else value)
    else:
        step = [0.0, 0.0, 0.0]
        step[axis] = value
        driven = _translate(step)
    orient = _mul(_mul(_rotate(2, joint["orient"][2]), _rotate(1, joint["orient"][1])), _rotate(0, joint["orient"][0]))
    pivot = joint["pivot"]
    out = _translate(joint["offset"])
    for m in (_translate(pivot), orient, driven, _translate([-p for p in pivot])):
        out = _mul(out, m)
    return out


def joint_values(rig: dict, animation: dict | None, t_ms: float) -> dict[str, float]:
    values = {j["name"]: j["rest"] for j in rig["joints"]}
    if animation is not None:
        local = local_time(animation, t_ms)
        for track in animation["tracks"]:
            value = sample(track["keys"], local)
            if value is not None:
                values[track["joint"]] = value
    return values


def local_matrices(rig: dict, values: dict[str, float] | None,
                   cache: dict | None = None) -> dict[str, np.ndarray | None]:
    """Each part's matrix relative to its parent (None: identity, a part without
    joints or ``values`` None). ``cache`` (a dict kept across calls) reuses a
    joint's matrix for a value it had."""
    local: dict[str, np.ndarray | None] = {p["name"]: None for p in rig["parts"]}
    if values is None:
        return local
    for joint in rig["joints"]:
        value = values[joint["name"]]
        if cache is None:
            matrix = joint_matrix(joint, value)
        else:
            matrix = cache.get((joint["name"], value))
            if matrix is None:
                if len(cache) > 4096:
                    cache.clear()
                matrix = cache[(joint["name"], value)] = joint_matrix(joint, value)
        before = local[joint["part"]]
        local[joint["part"]] = matrix if before is None else _mul(before, matrix)
    return local


def world_matrices(rig: dict, values: dict[str, float] | None, cache: dict | None = None,
                   local: dict | None = None) -> dict[str, np.ndarray]:
    """Each part's world matrix; ``values`` None: every part as sculpted (identity)."""
    if local is None:
        local = local_matrices(rig, values, cache)
    parents = {p["name"]: p["parent"] for p in rig["parts"]}
    world: dict[str, np.ndarray] = {}
    eye = np.eye(4)

    def resolve(name: str, depth: int = 0) -> np.ndarray:
        if name not in world:
            if depth > len(parents):
                raise RigError(f"part {name!r}: the parent chain is a cycle")
            parent = parents[name]
            above = resolve(parent, depth + 1) if parent is not None else eye
            own = local[name]
            world[name] = above if own is None else (own if above is eye else _mul(above, own))
        return world[name]

    for name in parents:
        resolve(name)
    return world


def pick_animation(rig: dict, name: str | None) -> dict:
    """``name``'s animation, else the sole one, else the auto-play one."""
    animations = rig["animations"]
    if name is not None:
        for a in animations:
            if a["name"] == name:
                return a
        raise RigError(f"--animation: {name!r} is not an animation of the rig")
    if len(animations) == 1:
        return animations[0]
    auto = [a for a in animations if a["auto_play"]]
    if len(auto) == 1:
        return auto[0]
    raise RigError("--animation: required (the rig has " + (f"{len(animations)} animations" if animations
                                                            else "no animation") + ")")
