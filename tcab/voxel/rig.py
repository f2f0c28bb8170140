"""The rig of an animated voxel model (``rig.json``): parts, joints, animations.

``rig.json`` is one JSON object ``{"version": 1, "parts": [...], "joints":
[...], "animations": [...]}``:

- a part: ``{"name", "parent" (null for the root, the first part), "pivot": [x, y, z]}``;
- a joint: ``{"name", "part", "kind" (rotation|translation), "axis" (x|y|z),
  "pivot": [x, y, z], "min", "max", "rest", "drive" (caller|auto),
  "offset": [x, y, z], "orient": [x, y, z]}`` (radians or voxels);
- an animation: ``{"name", "period_ms", "loop", "auto_play", "tracks":
  [{"joint", "keys": [{"t_ms", "value", "interp", "in_handle", "out_handle"}]}]}``.

Reading is bounded (bytes, counts of every list, names, finite numbers in
range, times 0..MAX_TIME_MS) and strict: a parent chain that is a cycle, a
second root, a joint on an unknown part or a track on an unknown joint is a
RigError naming ``rig.json: <path>: ...``. Edits check the same rules before
the file is replaced.
"""

from __future__ import annotations

import json
import math

from tcab.gltf.depth import max_depth
from tcab.voxel.errors import RigError
from tcab.voxel.limits import (
    MAX_ANIMATIONS,
    MAX_JOINTS,
    MAX_KEYFRAMES,
    MAX_NAME,
    MAX_PARTS,
    MAX_RIG_BYTES,
    MAX_TIME_MS,
    MAX_VALUE,
)

NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
INTERPS = ("constant", "linear", "bezier", "ease-in", "ease-out", "ease-in-out")
KINDS = ("rotation", "translation")
DRIVES = ("caller", "auto")
AXES = ("x", "y", "z")


def check_name(value: object) -> str | None:
    if not (isinstance(value, str) and 1 <= len(value) <= MAX_NAME and all(c in NAME_CHARS for c in value)
            and value[0] != "-"):
        return f"expected a name of 1 to {MAX_NAME} letters, digits, '_' or '-', got {value!r}"[:160]
    return None


def check_number(value: object, low: float = -MAX_VALUE, high: float = MAX_VALUE) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"expected a number, got {value!r}"[:120]
    if not math.isfinite(value) or not low <= value <= high:
        return f"{value!r} is not a finite number in {low:g}..{high:g}"
    return None


def check_time(value: object) -> str | None:
    return check_number(value, 0, MAX_TIME_MS)


def _reject(name: str) -> None:
    raise ValueError(f"{name} is not a number rig.json may hold")


class _RigReader:
    def __init__(self, label: str) -> None:
        self.label = label

    def fail(self, where: str, why: str) -> None:
        raise RigError(f"{self.label}: {where}: {why}")

    def obj(self, value: object, where: str, keys: tuple[str, ...]) -> dict:
        if not isinstance(value, dict):
            self.fail(where, "expected an object")
        extra = sorted(k for k in value if k not in keys)
        if extra:
            self.fail(where, f"{extra[0]!r}: unknown key (known: {', '.join(keys)})"[:200])
        return value

    def lst(self, value: object, where: str, most: int, limit: str) -> list:
        if not isinstance(value, list):
            self.fail(where, "expected a list")
        if len(value) > most:
            self.fail(where, f"{len(value)} entries, over the limit of {most} ({limit})")
        return value

    def check(self, problem: str | None, where: str) -> None:
        if problem:
            self.fail(where, problem)

    def vec(self, value: object, where: str) -> list[float]:
        if not isinstance(value, list) or len(value) != 3:
            self.fail(where, f"expected [x, y, z], got {value!r}"[:120])
        for i, v in enumerate(value):
            self.check(check_number(v), f"{where}[{i}]")
        return [float(v) for v in value]


def _handle(r: _RigReader, value: object, where: str) -> list[float] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        r.fail(where, f"expected null or [dt_ms, dvalue], got {value!r}"[:120])
    r.check(check_number(value[0], -MAX_TIME_MS, MAX_TIME_MS), f"{where}[0]")
    r.check(check_number(value[1]), f"{where}[1]")
    return [float(value[0]), float(value[1])]


def check_rig(obj: object, label: str = "rig.json") -> dict:
    """The rig ``obj`` normalized (numbers as floats, defaults filled); RigError naming the path."""
    r = _RigReader(label)
    top = r.obj(obj, "top level", ("version", "parts", "joints", "animations"))
    if top.get("version", 1) != 1:
        r.fail("version", f"expected 1, got {top.get('version')!r}")
    parts, names = [], {}
    for i, p in enumerate(r.lst(top.get("parts", []), "parts", MAX_PARTS, "MAX_PARTS")):
        where = f"parts[{i}]"
        p = r.obj(p, where, ("name", "parent", "pivot"))
        r.check(check_name(p.get("name")), f"{where}.name")
        if p["name"] in names:
            r.fail(f"{where}.name", f"{p['name']!r} is defined twice")
        names[p["name"]] = i
        parent = p.get("parent")
        if parent is not None:
            r.check(check_name(parent), f"{where}.parent")
        parts.append({"name": p["name"], "parent": parent, "pivot": r.vec(p.get("pivot", [0, 0, 0]), f"{where}.pivot")})
    for i, p in enumerate(parts):
        where = f"parts[{i}].parent"
        if p["parent"] is None:
            if i:
                r.fail(where, f"only the first part is the root; give {p['name']!r} a parent")
        elif p["parent"] not in names:
            r.fail(where, f"{p['parent']!r} is not a part")
        elif i == 0:
            r.fail(where, "the first part is the root: its parent is null")
    for i, p in enumerate(parts):  # every chain must reach the root within len(parts) steps
        seen, at = set(), p
        while at["parent"] is not None:
            if at["name"] in seen:
                r.fail(f"parts[{i}].parent", f"the parent chain of {p['name']!r} is a cycle")
            seen.add(at["name"])
            at = parts[names[at["parent"]]]
    joints, joint_names = [], set()
    for i, j in enumerate(r.lst(top.get("joints", []), "joints", MAX_JOINTS, "MAX_JOINTS")):
        where = f"joints[{i}]"
        j = r.obj(j, where, ("name", "part", "kind", "axis", "pivot", "min", "max", "rest", "drive", "offset",
                             "orient"))
        r.check(check_name(j.get("name")), f"{where}.name")
        if j["name"] in joint_names:
            r.fail(f"{where}.name", f"{j['name']!r} is defined twice")
        joint_names.add(j["name"])
        if j.get("part") not in names:
            r.fail(f"{where}.part", f"{j.get('part')!r} is not a part"[:120])
        out = {"name": j["name"], "part": j["part"]}
        for key, words, default in (("kind", KINDS, "rotation"), ("axis", AXES, "y"), ("drive", DRIVES, "caller")):
            value = j.get(key, default)
            if value not in words:
                r.fail(f"{where}.{key}", f"expected one of {', '.join(words)}, got {value!r}"[:120])
            out[key] = value
        out["pivot"] = r.vec(j.get("pivot", parts[names[j["part"]]]["pivot"]), f"{where}.pivot")
        for key in ("min", "max", "rest"):
            r.check(check_number(j.get(key, 0)), f"{where}.{key}")
            out[key] = float(j.get(key, 0))
        if out["min"] > out["max"]:
            r.fail(f"{where}.min", f"{out['min']:g} is above max {out['max']:g}")
        out["offset"] = r.vec(j.get("offset", [0, 0, 0]), f"{where}.offset")
        out["orient"] = r.vec(j.get("orient", [0, 0, 0]), f"{where}.orient")
        joints.append(out)
    animations, anim_names, keys_total = [], set(), 0
    for i, a in enumerate(r.lst(top.get("animations", []), "animations", MAX_ANIMATIONS, "MAX_ANIMATIONS")):
        where = f"animations[{i}]"
        a = r.obj(a, where, ("name", "period_ms", "loop", "auto_play", "tracks"))
        r.check(check_name(a.get("name")), f"{where}.name")
        if a["name"] in anim_names:
            r.fail(f"{where}.name", f"{a['name']!r} is defined twice")
        anim_names.add(a["name"])
        period = a.get("period_ms", 1000)
        r.check(check_time(period), f"{where}.period_ms")
        out = {"name": a["name"], "period_ms": float(period)}
        for key, default in (("loop", True), ("auto_play", False)):
            if not isinstance(a.get(key, default), bool):
                r.fail(f"{where}.{key}", f"expected true or false, got {a.get(key)!r}"[:120])
            out[key] = a.get(key, default)
        tracks, tracked = [], set()
        for k, t in enumerate(r.lst(a.get("tracks", []), f"{where}.tracks", MAX_JOINTS, "MAX_JOINTS")):
            tw = f"{where}.tracks[{k}]"
            t = r.obj(t, tw, ("joint", "keys"))
            if t.get("joint") not in joint_names:
                r.fail(f"{tw}.joint", f"{t.get('joint')!r} is not a joint"[:120])
            if t["joint"] in tracked:
                r.fail(f"{tw}.joint", f"a second track for {t['joint']!r}")
            tracked.add(t["joint"])
            keys = r.lst(t.get("keys", []), f"{tw}.keys", MAX_KEYFRAMES, "MAX_KEYFRAMES")
            keys_total += len(keys)
            if keys_total > MAX_KEYFRAMES:
                r.fail(f"{tw}.keys", f"more than {MAX_KEYFRAMES} keyframes in the rig (MAX_KEYFRAMES)")
            out_keys = []
            for n, key in enumerate(keys):
                kw = f"{tw}.keys[{n}]"
                key = r.obj(key, kw, ("t_ms", "value", "interp", "in_handle", "out_handle"))
                r.check(check_time(key.get("t_ms")), f"{kw}.t_ms")
                r.check(check_number(key.get("value")), f"{kw}.value")
                interp = key.get("interp", "linear")
                if interp not in INTERPS:
                    r.fail(f"{kw}.interp", f"expected one of {', '.join(INTERPS)}, got {interp!r}"[:160])
                if out_keys and key["t_ms"] <= out_keys[-1]["t_ms"]:
                    r.fail(f"{kw}.t_ms", "keys must be in increasing time")
                out_keys.append({"t_ms": float(key["t_ms"]), "value": float(key["value"]), "interp": interp,
                                 "in_handle": _handle(r, key.get("in_handle"), f"{kw}.in_handle"),
                                 "out_handle": _handle(r, key.get("out_handle"), f"{kw}.out_handle")})
            tracks.append({"joint": t["joint"], "keys": out_keys})
        out["tracks"] = tracks
        animations.append(out)
    return {"version": 1, "parts": parts, "joints": joints, "animations": animations}


def load_rig(data: bytes, label: str = "rig.json") -> dict:
    """The checked rig of ``rig.json``'s bytes (empty bytes: an empty rig)."""
    if len(data) > MAX_RIG_BYTES:
        raise RigError(f"{label}: {len(data)} bytes, over the {MAX_RIG_BYTES}-byte limit (MAX_RIG_BYTES)")
    if not data.strip():
        return {"version": 1, "parts": [], "joints": [], "animations": []}
    depth = max_depth(data, 8)
    if depth > 8:
        raise RigError(f"{label}: nested {depth} deep, over the limit of 8")
    try:
        obj = json.loads(data, parse_constant=_reject)
    except (ValueError, RecursionError) as exc:
        raise RigError(f"{label}: not valid JSON: {exc}"[:300]) from None
    return check_rig(obj, label)


def dump_rig(rig: dict) -> bytes:
    return (json.dumps(rig, indent=2, allow_nan=False) + "\n").encode()


def find(items: list[dict], name: str) -> dict | None:
    return next((item for item in items if item["name"] == name), None)


# -- edits (each returns the new rig, checked whole) -----------------------------------
def define_part(rig: dict, name: str, parent: str | None) -> dict:
    parts = [dict(p) for p in rig["parts"]]
    existing = find(parts, name)
    if parts and parent is None:
        parent = parts[0]["name"] if existing is None or existing is not parts[0] else None
    if existing is not None:
        existing["parent"] = parent
    else:
        parts.append({"name": name, "parent": parent if parts else None, "pivot": [0.0, 0.0, 0.0]})
    return check_rig({**rig, "parts": parts})


def set_pivot(rig: dict, part: str, pivot: list[float]) -> dict:
    parts = [dict(p) for p in rig["parts"]]
    target = find(parts, part)
    if target is None:
        raise RigError(f"--part: {part!r} is not a part (define-part first)")
    target["pivot"] = pivot
    return check_rig({**rig, "parts": parts})


def define_joint(rig: dict, joint: dict) -> dict:
    if find(rig["parts"], joint["part"]) is None:
        raise RigError(f"--part: {joint['part']!r} is not a part (define-part first)")
    joints = [j for j in rig["joints"] if j["name"] != joint["name"]]
    at = next((i for i, j in enumerate(rig["joints"]) if j["name"] == joint["name"]), len(joints))
    joints.insert(at, joint)
    return check_rig({**rig, "joints": joints})


def define_animation(rig: dict, name: str, period_ms: float, loop: bool, auto_play: bool) -> dict:
    animations = [dict(a) for a in rig["animations"]]
    existing = find(animations, name)
    if existing is not None:  # redefining keeps the authored tracks
        existing.update(period_ms=period_ms, loop=loop, auto_play=auto_play)
    else:
        animations.append({"name": name, "period_ms": period_ms, "loop": loop, "auto_play": auto_play,
                           "tracks": []})
    return check_rig({**rig, "animations": animations})


def add_keyframe(rig: dict, animation: str, joint: str, key: dict) -> dict:
    animations = [dict(a) for a in rig["animations"]]
    target = find(animations, animation)
    if target is None:
        raise RigError(f"--animation: {animation!r} is not an animation (define-animation first)")
    if find(rig["joints"], joint) is None:
        raise RigError(f"--joint: {joint!r} is not a joint (define-joint first)")
    tracks = [dict(t) for t in target["tracks"]]
    track = next((t for t in tracks if t["joint"] == joint), None)
    if track is None:
        track = {"joint": joint, "keys": []}
        tracks.append(track)
    keys = [k for k in track["keys"] if k["t_ms"] != key["t_ms"]] + [key]
    track["keys"] = sorted(keys, key=lambda k: k["t_ms"])
    target["tracks"] = tracks
    return check_rig({**rig, "animations": animations})
