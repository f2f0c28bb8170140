"""The mesher, the .glb it is written to, and the deterministic renderer."""

import hashlib
import subprocess
import sys

import numpy as np
import pytest

from tcab.gltf.writer import mesh_glb
from tcab.voxel.errors import VoxelError
from tcab.voxel.log import op_line, replay_bytes
from tcab.voxel.mesh import mesh_volume
from tcab.voxel.render import VIEWS, rasterize, render_png
from tests.support.gltf import assert_valid
from tests.voxel.support import REPO

SCENE = [("fill-box", {"x0": 0, "y0": 0, "z0": 0, "x1": 15, "y1": 3, "z1": 15, "color": "#3a4a5a"}),
         ("fill-sphere", {"cx": 8, "cy": 9, "cz": 8, "radius": 5, "color": "#ff8800"}),
         ("fill-cylinder", {"cx": 8, "cy": 8, "cz": 8, "radius": 2, "length": 8, "axis": "z", "color": "#2f7d72"})]


def scene_volume():
    return replay_bytes(b"".join(op_line(n, v) for n, v in SCENE), (16, 16, 16))


def test_faces_are_culled_and_one_colour_each():
    vol = replay_bytes(op_line("fill-box", {"x0": 0, "y0": 0, "z0": 0, "x1": 1, "y1": 0, "z1": 0,
                                            "color": "#102030"}), (4, 4, 4))
    mesh = mesh_volume(vol)
    assert mesh.faces == 10  # two cubes side by side: the shared faces are culled
    colors = mesh.colors.reshape(-1, 4, 4)
    assert (colors == colors[:, :1]).all() and (colors[:, 0] == [0x10, 0x20, 0x30, 255]).all()
    normals = mesh.normals.reshape(-1, 4, 3)
    assert (normals == normals[:, :1]).all()
    # each face winds counter-clockwise seen from outside: its geometric normal is its normal
    p = mesh.positions.reshape(-1, 4, 3)
    assert (np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]) == normals[:, 0]).all()
    assert mesh_volume(replay_bytes(b"", (4, 4, 4))).faces == 0


def test_mesh_bound_named():
    vol = replay_bytes(b"", (64, 64, 64))
    vol.data[::2, ::2, ::2] = 1 << 24
    with pytest.raises(VoxelError, match="MAX_FACES"):
        mesh_volume(vol, max_faces=1000)


def test_glb_passes_the_khronos_validator(tmp_path):
    (tmp_path / "scene.glb").write_bytes(mesh_glb(mesh_volume(scene_volume()), "scene"))
    (tmp_path / "empty.glb").write_bytes(mesh_glb(mesh_volume(replay_bytes(b"", (2, 2, 2))), "empty"))
    assert_valid(tmp_path / "scene.glb", tmp_path / "empty.glb")


def test_views_differ_and_fill_the_frame():
    mesh = mesh_volume(scene_volume())
    images = {view: rasterize(mesh, view, (16, 16, 16)) for view in VIEWS}
    assert len({img.tobytes() for img in images.values()}) == 4
    front = images["front"]
    assert front.shape == (512, 512, 4)
    assert front[:16].max() == 0 and front[256, 256, 3] == 255  # margin empty, centre drawn
    # the top view lights the top faces most: the plinth's top is brighter than its front in "front"
    assert images["top"][480, 100, :3].sum() > images["front"][480, 100, :3].sum() > 0


def test_background_and_empty_mesh():
    empty = mesh_volume(replay_bytes(b"", (4, 4, 4)))
    assert (rasterize(empty, "iso", (4, 4, 4), "#102030") == [16, 32, 48, 255]).all()
    with pytest.raises(VoxelError, match="background"):
        rasterize(empty, "iso", (4, 4, 4), "red")


# The preview pixels of SCENE, pinned: a change in the renderer or the shading shows here (bump
# tcab.voxel.VERSION with it), and so does a machine that renders differently. (The PNG bytes
# also depend on zlib's version: those are compared between two processes instead.)
GOLDEN = {'iso': '85fd2bcbf92b36ac9e3f5cd56d441a43', 'front': 'be7cc1fdb242b20cf42c6338d0ab2a68', 'side': '5fba59a37649b7883b80905ed66c72fd', 'top': '2b9f5a7a3cd3fead8fcba38a860fdc07'}


def _render_in_fresh_process() -> dict:
    code = ("import hashlib, json; from tests.voxel.test_mesh_render import scene_volume;"
            "from tcab.voxel.mesh import mesh_volume; from tcab.voxel.render import render_png, VIEWS;"
            "m = mesh_volume(scene_volume());"
            "print(json.dumps({v: hashlib.sha256(render_png(m, v, (16, 16, 16), '#202020')).hexdigest()"
            " for v in VIEWS}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                          check=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    import json
    return json.loads(done.stdout)


def test_renders_are_byte_identical_across_runs():
    mesh = mesh_volume(scene_volume())
    here = {v: hashlib.sha256(render_png(mesh, v, (16, 16, 16), "#202020")).hexdigest() for v in VIEWS}
    assert _render_in_fresh_process() == here
    pixels = {v: hashlib.sha256(rasterize(mesh, v, (16, 16, 16), "#202020").tobytes()).hexdigest()[:32]
              for v in VIEWS}
    assert pixels == GOLDEN
