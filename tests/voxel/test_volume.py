"""The 13 operations on a real volume: what each sets, and clipping of hostile extents."""

import time

import numpy as np
import pytest

from tcab.voxel.errors import VoxelError, VoxelLogError
from tcab.voxel.limits import check_bounds
from tcab.voxel.log import op_line, parse_log, replay_bytes
from tcab.voxel.volume import Volume

BIG = 1 << 62


def run(ops: list[tuple[str, dict]], bounds=(16, 16, 16)) -> Volume:
    return replay_bytes(b"".join(op_line(n, v) for n, v in ops), bounds)


def box(name, a, b, color="#ff0000"):
    v = dict(zip(("x0", "y0", "z0", "x1", "y1", "z1"), (*a, *b), strict=True))
    return (name, v if name == "clear-box" else {**v, "color": color})


def test_boxes_take_inclusive_corners_in_any_order():
    vol = run([box("fill-box", (5, 5, 5), (2, 3, 4))])
    assert vol.count() == 4 * 3 * 2
    vol = run([box("fill-box", (0, 0, 0), (15, 15, 15)), box("clear-box", (1, 1, 1), (14, 14, 14))])
    assert vol.count() == 16 ** 3 - 14 ** 3
    assert run([box("stroke-box", (0, 0, 0), (3, 3, 3))]).count() == 8 + 12 * 2


def test_single_voxels_and_colours():
    vol = run([("set-voxel", {"x": 1, "y": 2, "z": 3, "color": "#ABCDEF"}),
               ("set-voxel", {"x": 2, "y": 2, "z": 3, "color": "#abcdef"}),
               ("clear-voxel", {"x": 2, "y": 2, "z": 3}),
               ("set-voxel", {"x": 99, "y": 2, "z": 3, "color": "#000000"})])
    assert vol.colors() == {"#abcdef": 1}
    vol = run([box("fill-box", (0, 0, 0), (1, 0, 0), "#111111"),
               ("replace-color", {"from": "#111111", "to": "#222222"})])
    assert vol.colors() == {"#222222": 2}


def test_quadrics():
    sphere = run([("fill-sphere", {"cx": 8, "cy": 8, "cz": 8, "radius": 1, "color": "#00ff00"})])
    assert sphere.count() == 7
    ell = run([("fill-ellipsoid", {"cx": 8, "cy": 8, "cz": 8, "rx": 2, "ry": 0, "rz": 1, "color": "#00ff00"})])
    assert ell.count() == 5 + 2  # the y=8 layer: x in -2..2 at z=8, x=0 at z=+-1
    cyl = run([("fill-cylinder", {"cx": 8, "cy": 2, "cz": 8, "radius": 1, "length": 4, "axis": "y",
                                  "color": "#0000ff"})])
    assert cyl.count() == 5 * 4 and cyl.data[8, 2:6, 8].all() and not cyl.data[8, 6, 8]


def test_fill_sphere_radius_2_62_is_clipped_without_looping():
    start = time.monotonic()
    vol = run([("fill-sphere", {"cx": 8, "cy": 8, "cz": 8, "radius": BIG, "color": "#ff0000"}),
               ("fill-sphere", {"cx": -BIG, "cy": 8, "cz": 8, "radius": BIG + 6, "color": "#00ff00"}),
               ("fill-ellipsoid", {"cx": BIG, "cy": -BIG, "cz": 0, "rx": BIG, "ry": BIG, "rz": BIG,
                                   "color": "#0000ff"}),
               ("fill-cylinder", {"cx": 0, "cy": -BIG, "cz": 0, "radius": BIG, "length": BIG + BIG // 2,
                                  "axis": "y", "color": "#ffffff"})], bounds=(64, 64, 64))
    assert time.monotonic() - start < 5
    assert vol.count() == 64 ** 3


def test_far_sphere_edge_is_exact():
    vol = run([("fill-sphere", {"cx": -BIG, "cy": 8, "cz": 8, "radius": BIG + 6, "color": "#00ff00"})])
    # x + 2^62 <= 2^62 + 6 - (dy^2 + dz^2) / 2^63: x 0..5 everywhere, x = 6 on the axis only
    assert vol.count() == 6 * 256 + 1


def test_line_is_clipped_and_exact():
    vol = run([("line", {"x0": 0, "y0": 0, "z0": 0, "x1": 15, "y1": 15, "z1": 15, "color": "#ff0000"})])
    assert vol.count() == 16 and all(vol.data[i, i, i] for i in range(16))
    start = time.monotonic()
    vol = run([("line", {"x0": -BIG, "y0": 3, "z0": 3, "x1": BIG, "y1": 3, "z1": 3, "color": "#ff0000"})])
    assert vol.count() == 16 and time.monotonic() - start < 1


def test_mirror_translate_copy():
    vol = run([box("fill-box", (0, 0, 0), (1, 0, 0)), ("mirror", {"plane": "x", "at": 8})])
    assert sorted(np.argwhere(vol.data)[:, 0].tolist()) == [0, 1, 14, 15]
    vol = run([box("fill-box", (0, 0, 0), (1, 0, 0)), ("translate", {"dx": 3, "dy": 1, "dz": 0})])
    assert sorted(map(tuple, np.argwhere(vol.data).tolist())) == [(3, 1, 0), (4, 1, 0)]
    vol = run([box("fill-box", (0, 0, 0), (1, 0, 0)),
               ("copy-box", {"x0": 0, "y0": 0, "z0": 0, "x1": 3, "y1": 0, "z1": 0, "dx": 1, "dy": 0, "dz": 0})])
    assert np.argwhere(vol.data)[:, 0].tolist() == [0, 1, 2]


@pytest.mark.parametrize("offset", [BIG, -BIG, (1 << 63) - 1, -(1 << 63) + 1])
def test_extreme_offsets(offset):
    ops = [box("fill-box", (0, 0, 0), (15, 15, 15)),
           ("copy-box", {"x0": -BIG, "y0": -BIG, "z0": -BIG, "x1": BIG, "y1": BIG, "z1": BIG,
                         "dx": offset, "dy": offset, "dz": offset}),
           ("mirror", {"plane": "z", "at": offset})]
    assert run(ops).count() == 16 ** 3
    assert run(ops + [("translate", {"dx": offset, "dy": 0, "dz": 0})]).count() == 0


def test_million_op_log_is_refused_by_counting():
    data = b'{"op":"set-voxel","x":0,"y":0,"z":0,"color":"#ff0000"}\n' * 1_000_000
    start = time.monotonic()
    with pytest.raises(VoxelLogError, match="MAX_LOG_BYTES|MAX_OPS"):
        parse_log(data, "actions.json")
    with pytest.raises(VoxelLogError, match="more than 100000 operations"):
        parse_log(b"\n".join([b'{"op":"clear-voxel","x":0,"y":0,"z":0}'] * 100_001), "actions.json")
    assert time.monotonic() - start < 5


def test_whole_volume_work_is_bounded():
    data = b'{"op":"replace-color","from":"#000000","to":"#000001"}\n' * 100_000
    with pytest.raises(VoxelLogError, match="MAX_WORK"):
        replay_bytes(data, (256, 128, 256), "actions.json")


@pytest.mark.parametrize(("line", "message"), [
    (b'{"op":"fill-box","x0":0}', "y0: missing"),
    (b'{"op":"set-voxel","x":0,"y":0,"z":0,"color":"#ff000080"}', "color: expected an opaque colour"),
    (b'{"op":"set-voxel","x":1e3,"y":0,"z":0,"color":"#ff0000"}', "x: expected an integer"),
    (b'{"op":"set-voxel","x":NaN,"y":0,"z":0,"color":"#ff0000"}', "not valid JSON"),
    (b'{"op":"set-voxel","x":9223372036854775808,"y":0,"z":0,"color":"#ff0000"}', "out of range"),
    (b'{"op":"fly"}', "unknown operation"),
    (b'{"op":"clear-voxel","x":0,"y":0,"z":0,"w":1}', "'w': not a field"),
    (b'{"op":{"op":{}}}', "no nesting"),
])
def test_bad_lines_are_named(line, message):
    with pytest.raises(VoxelLogError, match=message) as info:
        parse_log(b'{"op":"clear-voxel","x":0,"y":0,"z":0}\n' + line, "parts/a.actions.json")
    assert "parts/a.actions.json: op 2 (line 2)" in str(info.value)


def test_volume_bounds_named():
    assert "MAX_SIDE" in check_bounds(10 ** 6, 1, 1)
    assert "MAX_VOXELS" in check_bounds(1024, 1024, 1024)
    with pytest.raises(VoxelError, match="width"):
        Volume(0, 1, 1)


def test_exact_path_matches_the_numpy_path(monkeypatch):
    import random

    from tcab.voxel import volume as module
    rng = random.Random(5)
    ops = []
    for _ in range(60):
        c = {"cx": rng.randrange(-6, 22), "cy": rng.randrange(-6, 22), "cz": rng.randrange(-6, 22)}
        kind = rng.randrange(3)
        if kind == 0:
            ops.append(("fill-sphere", {**c, "radius": rng.randrange(0, 9), "color": "#ff0000"}))
        elif kind == 1:
            ops.append(("fill-ellipsoid", {**c, "rx": rng.randrange(0, 7), "ry": rng.randrange(0, 7),
                                           "rz": rng.randrange(0, 7), "color": "#00ff00"}))
        else:
            ops.append(("fill-cylinder", {**c, "radius": rng.randrange(0, 6), "length": rng.randrange(0, 9),
                                          "axis": rng.choice("xyz"), "color": "#0000ff"}))
    for op in ops:
        fast = run([op])
        monkeypatch.setattr(module, "_SAFE", 0)  # every quadric takes the big-integer path
        exact = run([op])
        monkeypatch.undo()
        assert (fast.data == exact.data).all(), op


def test_clipped_line_matches_the_whole_line():
    import random
    rng = random.Random(9)
    for _ in range(200):
        a = [rng.randrange(-40, 56) for _ in range(3)]
        b = [rng.randrange(-40, 56) for _ in range(3)]
        vol = run([("line", {"x0": a[0], "y0": a[1], "z0": a[2], "x1": b[0], "y1": b[1], "z1": b[2],
                             "color": "#ffffff"})])
        # the whole line stepped on a volume big enough to hold it, then cut to 16^3
        big = run([("line", {"x0": a[0] + 40, "y0": a[1] + 40, "z0": a[2] + 40, "x1": b[0] + 40, "y1": b[1] + 40,
                             "z1": b[2] + 40, "color": "#ffffff"})], bounds=(96, 96, 96))
        assert (vol.data == big.data[40:56, 40:56, 40:56]).all(), (a, b)
