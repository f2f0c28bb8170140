"""What one call of ``voxel``/``voxel-anim`` does, after its flags are checked.

Sculpting appends one line to the log (for ``voxel-anim``, the log of a
defined ``--part``); the rig commands rewrite ``rig.json`` whole (checked
before it is replaced); ``render`` replays the logs and writes the .glb and
PNG files through a temporary file and a rename, so a reader never sees half
of one.
"""

from __future__ import annotations

import os

from tcab.voxel.errors import RigError, VoxelUsageError
from tcab.voxel.log import append_line, op_line, read_file, write_atomic
from tcab.voxel.ops import OPS

VIEWS = ("iso", "front", "side", "top")


def _count(path: str) -> int:
    if not os.path.lexists(path):
        return 0
    return sum(1 for line in read_file(path).split(b"\n") if line.strip())


def load_rig(ws) -> dict:
    from tcab.voxel.limits import MAX_RIG_BYTES
    from tcab.voxel.rig import load_rig as parse
    relative = ws.config.path("rig")
    path = ws.file(relative)
    data = read_file(path, MAX_RIG_BYTES, "MAX_RIG_BYTES") if os.path.lexists(path) else b""
    return parse(data, relative)


def _need_part(rig: dict, part: str) -> None:
    if not any(p["name"] == part for p in rig["parts"]):
        known = ", ".join(p["name"] for p in rig["parts"][:20]) or "none yet"
        raise VoxelUsageError(f"--part: {part!r} is not a part (define-part first; parts: {known})")


def dispatch(ws, name: str, values: dict) -> int:
    config = ws.config
    if name in OPS:
        part = values.pop("part", None)
        if config.animated:
            _need_part(load_rig(ws), part)
        relative = config.path("actions", part=part)
        path = ws.file(relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        count = _count(path) + 1
        from tcab.voxel.limits import MAX_OPS
        if count > MAX_OPS:
            raise VoxelUsageError(f"{relative}: already {MAX_OPS} operations (MAX_OPS)")
        append_line(path, op_line(name, values))
        print(f"{name}: recorded as op {count} of {relative}")
        return 0
    if name == "init":
        return _init(ws)
    if name == "render":
        return render_anim(ws, values) if config.animated else render_static(ws, values)
    return _rig_command(ws, name, values)


def _init(ws) -> int:
    config = ws.config
    parts = [p["name"] for p in load_rig(ws)["parts"]] if config.animated else [None]
    for part in parts:
        relative = config.path("actions", part=part)
        write_atomic(ws.file(relative), b"")
        print(f"init: emptied {relative}")
    return 0


def _rig_command(ws, name: str, v: dict) -> int:
    from tcab.voxel import rig as edit
    rig = load_rig(ws)
    if name == "define-part":
        if v["parent"] is not None and v["parent"] == v["name"]:
            raise RigError(f"--parent: a part cannot be its own parent ({v['name']!r})")
        new = edit.define_part(rig, v["name"], v["parent"])
        log = ws.file(ws.config.path("actions", part=v["name"]))
        if not os.path.lexists(log):
            write_atomic(log, b"")
        message = f"define-part: {v['name']!r}" + (f" under {new['parts'][[p['name'] for p in new['parts']].index(v['name'])]['parent']!r}"
                                                  if len(new["parts"]) > 1 else " (the root)")
    elif name == "set-pivot":
        new = edit.set_pivot(rig, v["part"], [v["x"], v["y"], v["z"]])
        message = f"set-pivot: {v['part']!r} at {v['x']:g},{v['y']:g},{v['z']:g}"
    elif name == "define-joint":
        part = edit.find(rig["parts"], v["part"])
        if part is None:
            raise VoxelUsageError(f"--part: {v['part']!r} is not a part (define-part first)")
        pivot = [part["pivot"][i] if v[f"pivot_{a}"] is None else v[f"pivot_{a}"] for i, a in enumerate("xyz")]
        if v["min"] > v["max"]:
            raise VoxelUsageError(f"--min: {v['min']:g} is above --max {v['max']:g}")
        joint = {"name": v["name"], "part": v["part"], "kind": v["kind"], "axis": v["axis"], "pivot": pivot,
                 "min": v["min"], "max": v["max"], "rest": v["rest"], "drive": v["drive"],
                 "offset": [v["offset_x"], v["offset_y"], v["offset_z"]],
                 "orient": [v["orient_x"], v["orient_y"], v["orient_z"]]}
        new = edit.define_joint(rig, joint)
        message = f"define-joint: {v['name']!r} ({v['kind']} about {v['axis']}) on {v['part']!r}"
    elif name == "define-animation":
        new = edit.define_animation(rig, v["name"], v["period_ms"], v["loop"], v["auto_play"])
        message = f"define-animation: {v['name']!r}, {v['period_ms']:g} ms"
    else:  # add-keyframe
        key = {"t_ms": v["t_ms"], "value": v["value"], "interp": v["interp"], "in_handle": v["in_handle"],
               "out_handle": v["out_handle"]}
        new = edit.add_keyframe(rig, v["animation"], v["joint"], key)
        message = f"add-keyframe: {v['animation']}/{v['joint']} at {v['t_ms']:g} ms = {v['value']:g}"
    write_atomic(ws.file(ws.config.path("rig")), edit.dump_rig(new))
    print(message)
    return 0


def _part_mesh(ws, part: str | None, budget=None):
    """The part's volume and mesh; ``budget`` (a RigBudget) is what the rig's
    parts have left together, spent by this part."""
    from tcab.voxel.log import parse_log
    from tcab.voxel.regenerate import mesh_ops
    relative = ws.config.path("actions", part=part)
    path = ws.file(relative)
    data = read_file(path) if os.path.lexists(path) else b""
    return mesh_ops(parse_log(data, relative), ws.config.bounds, relative, budget)


def _write_part(ws, part: str | None, mesh, view: str, out: str | None, sender=None, frame: int = 0,
                count: int = 0) -> str:
    from tcab.voxel.regenerate import glb_for
    from tcab.voxel.render import render_png
    config = ws.config
    glb = config.path("mesh", part=part)
    png = out or config.path("preview", part=part)
    glb_bytes = glb_for(mesh, part, config.animated)
    png_bytes = render_png(mesh, view, config.bounds, config.background)
    write_atomic(ws.file(glb), glb_bytes)
    write_atomic(os.path.abspath(out) if out else ws.file(png), png_bytes)
    if sender is not None:
        sender.send(frame, count, png_bytes, glb_bytes)
    return f"{png} ({view}) and {glb}"


def _sender(ws):
    from tcab.voxel.live import Sender
    return Sender(ws.config.live)


def render_static(ws, v: dict) -> int:
    volume, mesh = _part_mesh(ws, None)
    count = _count(ws.file(ws.config.path("actions")))
    written = _write_part(ws, None, mesh, v["view"], v["out"], _sender(ws), 0, count)
    print(f"render: {written}: {volume.count()} voxels, {mesh.faces} faces")
    return 0


def render_anim(ws, v: dict) -> int:
    from tcab.voxel.render import render_png
    from tcab.voxel.scene import combine, posed, scene_glb
    config = ws.config
    rig = load_rig(ws)
    if not rig["parts"]:
        raise VoxelUsageError("no part yet (define-part first)")
    if v["component"] is not None and v["time"] is not None:
        raise VoxelUsageError("--component: not with --time (a pose renders every part)")
    if v["out"] is not None and v["component"] is None and v["time"] is None:
        raise VoxelUsageError("--out: only with --component or --time")
    if v["component"] is not None:
        _need_part(rig, v["component"])
        volume, mesh = _part_mesh(ws, v["component"])
        frame = [p["name"] for p in rig["parts"]].index(v["component"])
        count = _count(ws.file(config.path("actions", part=v["component"])))
        written = _write_part(ws, v["component"], mesh, v["view"], v["out"], _sender(ws), frame, count)
        print(f"render: {written}: {volume.count()} voxels")
        return 0
    from tcab.voxel.regenerate import RigBudget
    meshes, budget = {}, RigBudget.full()
    for p in rig["parts"]:
        volume, meshes[p["name"]] = _part_mesh(ws, p["name"], budget)
    if v["time"] is not None:
        from tcab.voxel.pose import pick_animation
        animation = pick_animation(rig, v["animation"])
        out = v["out"] or config.path("pose")
        image = render_png(posed(rig, meshes, animation, v["time"]), v["view"], config.bounds, config.background)
        write_atomic(os.path.abspath(out) if v["out"] else ws.file(out), image)
        print(f"render: {out}: {animation['name']!r} at {v['time']:g} ms ({v['view']})")
        return 0
    if v["animation"] is not None:
        raise VoxelUsageError("--animation: only with --time")
    sender = _sender(ws)
    for frame, p in enumerate(rig["parts"]):
        count = _count(ws.file(config.path("actions", part=p["name"])))
        _write_part(ws, p["name"], meshes[p["name"]], "iso", None, sender, frame, count)
    scene = combine([meshes[p["name"]] for p in rig["parts"]])
    for view in VIEWS:
        write_atomic(ws.file(config.path("scene", view=view)), render_png(scene, view, config.bounds,
                                                                          config.background))
    write_atomic(ws.file(config.path("scene_mesh")), scene_glb(rig, meshes))
    print(f"render: {len(rig['parts'])} parts ({config.path('preview')}, {config.path('mesh')}), "
          f"scene {config.path('scene')} in {', '.join(VIEWS)}, {config.path('scene_mesh')}")
    return 0
