"""rig.json checks, F-curves and posing."""

import json
import math

import numpy as np
import pytest

from tcab.voxel.errors import RigError
from tcab.voxel.pose import joint_matrix, joint_values, local_time, sample, world_matrices
from tcab.voxel.rig import (
    add_keyframe,
    check_rig,
    define_animation,
    define_joint,
    define_part,
    load_rig,
)


def key(t, v, interp="linear", out=None, back=None):
    return {"t_ms": float(t), "value": float(v), "interp": interp, "in_handle": back, "out_handle": out}


def test_curves():
    assert sample([], 5) is None
    keys = [key(0, 0), key(100, 10)]
    assert sample(keys, 50) == 5 and sample(keys, -1) == 0 and sample(keys, 1000) == 10
    assert sample([key(0, 1, "constant"), key(100, 3)], 99) == 1
    ease_in = [key(0, 0, "ease-in"), key(100, 10)]
    ease_out = [key(0, 0, "ease-out"), key(100, 10)]
    assert sample(ease_in, 50) < 5 < sample(ease_out, 50)
    assert sample(ease_in, 0) == 0 and abs(sample(ease_in, 100) - 10) < 1e-9
    smooth = [key(0, 0, "bezier"), key(100, 10, "bezier"), key(200, 0)]
    assert 0 < sample(smooth, 50) < 10 and abs(sample(smooth, 100) - 10) < 1e-9
    overshoot = [key(0, 0, "bezier", out=[30, 30]), key(100, 10)]
    assert max(sample(overshoot, t) for t in range(0, 100, 5)) > 10


def test_time_wraps_or_holds():
    assert local_time({"period_ms": 1000.0, "loop": True}, 2500) == 500
    assert local_time({"period_ms": 1000.0, "loop": False}, 2500) == 1000
    with pytest.raises(RigError, match="--time"):
        local_time({"period_ms": 1000.0, "loop": True}, math.nan)


def _rig():
    rig = define_part(check_rig({}), "hull", None)
    rig = define_part(rig, "turret", "hull")
    rig = define_part(rig, "barrel", "turret")
    joint = {"name": "yaw", "part": "turret", "kind": "rotation", "axis": "y", "pivot": [16, 0, 16], "min": -4,
             "max": 4, "rest": 0, "drive": "caller", "offset": [0, 0, 0], "orient": [0, 0, 0]}
    rig = define_joint(rig, joint)
    rig = define_joint(rig, {**joint, "name": "pitch", "part": "barrel", "axis": "x", "pivot": [16, 8, 16]})
    rig = define_animation(rig, "idle", 1000, True, True)
    rig = add_keyframe(rig, "idle", "yaw", key(0, 0))
    return add_keyframe(rig, "idle", "yaw", key(500, math.pi / 2))


def test_pose_follows_the_hierarchy_about_the_pivots():
    rig = _rig()
    values = joint_values(rig, rig["animations"][0], 500)
    assert values == {"yaw": pytest.approx(math.pi / 2), "pitch": 0.0}
    world = world_matrices(rig, values)
    point = np.array([16, 8, 20, 1.0])  # 4 voxels in front of the yaw pivot
    moved = world["barrel"] @ point  # the barrel turns with its parent turret
    assert moved[:3] == pytest.approx([20, 8, 16])  # +z turned a quarter about +y is +x
    assert (world["hull"] == np.eye(4)).all()
    assert world_matrices(rig, None)["barrel"] == pytest.approx(np.eye(4))
    pitch = next(j for j in rig["joints"] if j["name"] == "pitch")
    lifted = joint_matrix(pitch, 0.5) @ point
    assert lifted[1] > 8  # pitch: a positive value lifts a forward part


def test_redefining_an_animation_keeps_its_tracks():
    rig = define_animation(_rig(), "idle", 2000, False, False)
    assert rig["animations"][0]["period_ms"] == 2000 and len(rig["animations"][0]["tracks"][0]["keys"]) == 2


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda r: r["parts"].__setitem__(1, {**r["parts"][1], "parent": "barrel"}), "is a cycle"),
    (lambda r: r["parts"].append({"name": "loose", "parent": None}), "only the first part is the root"),
    (lambda r: r["joints"][0].__setitem__("part", "ghost"), r"joints\[0\]\.part"),
    (lambda r: r["animations"][0]["tracks"][0]["keys"][1].__setitem__("t_ms", 1e18), "t_ms"),
    (lambda r: r["animations"][0]["tracks"][0]["keys"][1].__setitem__("t_ms", -1), "t_ms"),
    (lambda r: r["animations"][0]["tracks"][0]["keys"][1].__setitem__("t_ms", 0), "increasing time"),
    (lambda r: r["animations"][0].__setitem__("loop", "yes"), "loop"),
    (lambda r: r["animations"].append(dict(r["animations"][0])), "defined twice"),
    (lambda r: r.__setitem__("extra", 1), "'extra': unknown key"),
])
def test_bad_rigs_are_named(mutate, message):
    rig = json.loads(json.dumps(_rig()))
    mutate(rig)
    with pytest.raises(RigError, match=message):
        check_rig(rig)


def test_rig_files_bounded():
    with pytest.raises(RigError, match="NaN is not a number"):
        load_rig(b'{"parts": [{"name": "a", "pivot": [NaN, 0, 0]}]}')
    with pytest.raises(RigError, match="nested"):
        load_rig(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(RigError, match="MAX_KEYFRAMES"):
        keys = [{"t_ms": i, "value": 0} for i in range(9000)]
        load_rig(json.dumps({"parts": [{"name": "a"}], "joints": [{"name": "j", "part": "a"}],
                             "animations": [{"name": "x", "tracks": [{"joint": "j", "keys": keys}]}]}).encode())
    assert load_rig(b"")["parts"] == []


def test_baking_a_huge_rig_is_bounded():
    import time

    from tcab.voxel.mesh import Mesh
    from tcab.voxel.scene import scene_glb
    parts = [{"name": f"p{i}", "parent": None if i == 0 else f"p{i - 1}"} for i in range(256)]
    joints = [{"name": f"j{i}", "part": f"p{i % 256}"} for i in range(512)]
    animations = [{"name": f"a{k}", "period_ms": 3_600_000, "tracks": [
        {"joint": f"j{i}", "keys": [{"t_ms": 0, "value": 0}, {"t_ms": 3_600_000, "value": 1}]} for i in range(60)]}
        for k in range(64)]
    rig = check_rig({"parts": parts, "joints": joints, "animations": animations})
    start = time.process_time()
    data = scene_glb(rig, {"p0": Mesh.empty()})
    assert time.process_time() - start < 30 and data[:4] == b"glTF"
