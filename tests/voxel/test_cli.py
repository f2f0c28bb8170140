"""The voxel and voxel-anim tools, called as a harness would (fresh processes)."""

import json

import pytest

from tcab.gltf.reader import read_glb
from tcab.voxel.limits import MAX_PARTS
from tcab.voxel.log import replay
from tcab.voxel.regenerate import part_files
from tests.support.gltf import assert_valid
from tests.voxel.support import make_workspace, ok, tool

OPS = ("set-voxel", "clear-voxel", "fill-box", "stroke-box", "clear-box", "fill-sphere", "fill-ellipsoid",
       "fill-cylinder", "line", "mirror", "replace-color", "translate", "copy-box")


def test_help_is_the_contract(tmp_path):
    text = ok(tmp_path, "voxel", "--help")
    assert all(f"  {name} " in text for name in OPS)
    assert "define-part" not in text
    box = ok(tmp_path, "voxel", "fill-box", "--help")
    assert all(f"--{k} N" in box for k in ("x0", "y0", "z0", "x1", "y1", "z1")) and "--color #RRGGBB" in box
    anim = ok(tmp_path, "voxel-anim", "--help")
    assert all(name in anim for name in ("define-part", "set-pivot", "define-joint", "define-animation",
                                         "add-keyframe"))
    assert "--part NAME" in ok(tmp_path, "voxel-anim", "line", "--help")


def test_sculpt_then_render_static(tmp_path):
    ws = make_workspace(tmp_path)
    ok(ws, "voxel", "fill-box", "--x0", "5", "--y0", "5", "--z0", "5", "--x1", "10", "--y1", "10", "--z1", "10",
       "--color", "#808890")
    ok(ws, "voxel", "fill-cylinder", "--cx", "8", "--cy", "8", "--cz", "8", "--radius", "2", "--length", "20",
       "--axis", "x", "--color", "#3A3836")
    assert not (ws / "mesh.glb").exists()  # a sculpting call renders nothing
    out = ok(ws, "voxel", "render")
    assert "model.png" in out and "mesh.glb" in out
    assert (ws / "model.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert_valid(ws / "mesh.glb")
    # the regenerated mesh and preview are byte-identical to the tool's for an honest log
    volume, glb, png = part_files(str(ws / "actions.json"), (16, 16, 16), background="#202020")
    assert glb == (ws / "mesh.glb").read_bytes() and png == (ws / "model.png").read_bytes()
    assert volume.count() == replay(str(ws / "actions.json"), (16, 16, 16)).count()
    # the disc has 13 cells, x 8..15 (clipped); it overlaps the box on x 8..10
    assert volume.colors() == {"#808890": 216 - 3 * 13, "#3a3836": 8 * 13}
    ok(ws, "voxel", "render", "--view", "front", "--out", "front.png")
    assert (ws / "front.png").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["fill-box", "--x0", "1"], "--y0: required"),
    (["fill-box", "--x0", "a", "--y0", "0", "--z0", "0", "--x1", "0", "--y1", "0", "--z1", "0", "--color", "#000000"],
     "--x0: expected an integer"),
    (["set-voxel", "--x", "0", "--y", "0", "--z", "0", "--color", "#ff000080"], "--color: expected an opaque"),
    (["set-voxel", "--x", "0", "--y", "0", "--z", "0", "--color", "#000000", "--w", "1"], "--w: unknown flag"),
    (["set-voxel", "--x", "99999999999999999999", "--y", "0", "--z", "0", "--color", "#000000"], "out of range"),
    (["mirror", "--plane", "w", "--at", "3"], "--plane: expected x, y or z"),
    (["carve"], "unknown command"),
    (["render", "--view", "below"], "--view: expected one of"),
])
def test_bad_flags_exit_1_and_record_nothing(tmp_path, args, message):
    ws = make_workspace(tmp_path)
    done = tool(ws, "voxel", *args)
    assert done.returncode == 1 and message in done.stderr and done.stderr.count("\n") == 1
    assert not (ws / "actions.json").exists()


def test_wrong_tool_and_bad_config(tmp_path):
    ws = make_workspace(tmp_path, "voxel-animation")
    done = tool(ws, "voxel", "render")
    assert done.returncode == 1 and "use voxel-anim" in done.stderr
    (ws / ".tcab" / "voxel.json").write_text(json.dumps({"kind": "voxel-model", "width": 10 ** 6, "height": 1,
                                                         "depth": 1}))
    done = tool(ws, "voxel", "render")
    assert done.returncode == 1 and "width" in done.stderr and "MAX_SIDE" in done.stderr


def _rig_model(ws):
    ok(ws, "voxel-anim", "define-part", "--name", "hull")
    ok(ws, "voxel-anim", "define-part", "--name", "turret", "--parent", "hull")
    ok(ws, "voxel-anim", "define-part", "--name", "socket", "--parent", "turret")
    ok(ws, "voxel-anim", "fill-box", "--part", "hull", "--x0", "4", "--y0", "0", "--z0", "4", "--x1", "27",
       "--y1", "5", "--z1", "27", "--color", "#4a5a3a")
    ok(ws, "voxel-anim", "fill-cylinder", "--part", "turret", "--cx", "16", "--cy", "6", "--cz", "16",
       "--radius", "6", "--length", "4", "--axis", "y", "--color", "#5a6a4a")
    ok(ws, "voxel-anim", "set-pivot", "--part", "turret", "--x", "16", "--y", "6", "--z", "16")
    ok(ws, "voxel-anim", "define-joint", "--name", "yaw", "--part", "turret", "--axis", "y", "--min=-3.14",
       "--max", "3.14")
    ok(ws, "voxel-anim", "define-animation", "--name", "idle", "--period-ms", "1200", "--auto-play", "true")
    ok(ws, "voxel-anim", "add-keyframe", "--animation", "idle", "--joint", "yaw", "--t-ms", "0", "--value", "0",
       "--interp", "ease-in-out")
    ok(ws, "voxel-anim", "add-keyframe", "--animation", "idle", "--joint", "yaw", "--t-ms", "600",
       "--value=-0.35", "--interp", "bezier", "--out-handle", "100,0")


def test_voxel_anim_parts_rig_and_renders(tmp_path):
    ws = make_workspace(tmp_path, "voxel-animation", (32, 24, 32))
    _rig_model(ws)
    rig = json.loads((ws / "rig.json").read_text())
    assert [p["name"] for p in rig["parts"]] == ["hull", "turret", "socket"]
    assert rig["parts"][1]["parent"] == "hull" and rig["joints"][0]["pivot"] == [16.0, 6.0, 16.0]
    assert [k["t_ms"] for k in rig["animations"][0]["tracks"][0]["keys"]] == [0.0, 600.0]
    ok(ws, "voxel-anim", "render")
    for part in ("hull", "turret", "socket"):
        assert (ws / f"parts/{part}.png").exists() and (ws / f"parts/{part}.actions.json").exists()
    for view in ("iso", "front", "side", "top"):
        assert (ws / f"scene/{view}.png").exists()
    assert_valid(*(ws / "parts").glob("*.glb"), ws / "scene/scene.glb")
    scene = read_glb(str(ws / "scene/scene.glb"))
    assert scene.node_names == ["hull", "turret", "socket"] and scene.animation_names == ["idle"]
    rest = (ws / "scene/iso.png").read_bytes()
    ok(ws, "voxel-anim", "render", "--time", "600")
    ok(ws, "voxel-anim", "render", "--time", "0", "--out", "zero.png")
    assert (ws / "scene/pose.png").read_bytes() != rest
    assert (ws / "zero.png").read_bytes() == rest  # at t=0 every joint is at 0: the rest scene
    ok(ws, "voxel-anim", "render", "--component", "turret", "--view", "top")


@pytest.mark.parametrize(("args", "message"), [
    (["fill-box", "--part", "ghost", "--x0", "0", "--y0", "0", "--z0", "0", "--x1", "0", "--y1", "0", "--z1", "0",
      "--color", "#000000"], "'ghost' is not a part"),
    (["define-part", "--name", "hull", "--parent", "socket"], "the first part is the root"),
    (["define-part", "--name", "turret", "--parent", "socket"], "is a cycle"),
    (["add-keyframe", "--animation", "idle", "--joint", "yaw", "--t-ms", "NaN", "--value", "0"], "--t-ms"),
    (["add-keyframe", "--animation", "idle", "--joint", "yaw", "--t-ms", "1e18", "--value", "0"], "--t-ms"),
    (["add-keyframe", "--animation", "idle", "--joint", "yaw", "--t-ms", "5", "--value", "inf"], "--value"),
    (["add-keyframe", "--animation", "walk", "--joint", "yaw", "--t-ms", "5", "--value", "1"], "'walk'"),
    (["define-joint", "--name", "j", "--part", "hull", "--min", "1", "--max", "0"], "--min"),
    (["define-part", "--name", "bad/name"], "--name"),
])
def test_rig_edits_refused_leave_the_rig(tmp_path, args, message):
    ws = make_workspace(tmp_path, "voxel-animation", (32, 24, 32))
    _rig_model(ws)
    before = (ws / "rig.json").read_bytes()
    done = tool(ws, "voxel-anim", *args)
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert (ws / "rig.json").read_bytes() == before


def test_ten_thousand_parts_are_bounded(tmp_path):
    ws = make_workspace(tmp_path, "voxel-animation", (8, 8, 8))
    parts = [{"name": f"p{i}", "parent": None if i == 0 else "p0"} for i in range(10_000)]
    (ws / "rig.json").write_text(json.dumps({"parts": parts}))
    done = tool(ws, "voxel-anim", "render")
    assert done.returncode == 1 and f"over the limit of {MAX_PARTS} (MAX_PARTS)" in done.stderr
    (ws / "rig.json").write_text(json.dumps({"parts": parts[:MAX_PARTS]}))
    done = tool(ws, "voxel-anim", "define-part", "--name", "one-more")
    assert done.returncode == 1 and "MAX_PARTS" in done.stderr
    joints = [{"name": f"j{i}", "part": "p0"} for i in range(10_000)]
    (ws / "rig.json").write_text(json.dumps({"parts": parts[:1], "joints": joints}))
    done = tool(ws, "voxel-anim", "render")
    assert done.returncode == 1 and "MAX_JOINTS" in done.stderr


def test_a_watched_render_streams_png_then_mesh(tmp_path):
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    received: list[bytes] = []

    def accept():
        conn, _ = server.accept()
        with conn:
            data = b""
            while chunk := conn.recv(1 << 16):
                data += chunk
            received.append(data)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    ws = make_workspace(tmp_path, live={"url": f"http://127.0.0.1:{port}/live", "token": "t0k"})
    ok(ws, "voxel", "set-voxel", "--x", "1", "--y", "1", "--z", "1", "--color", "#ffffff")
    ok(ws, "voxel", "render")
    thread.join(10)
    server.close()
    head, _, body = received[0].partition(b"\n")
    header = json.loads(head)
    assert header["token"] == "t0k" and header["frame"] == 0 and header["count"] == 1
    assert body[:header["length"]] == (ws / "model.png").read_bytes()
    assert body[header["length"]:] == (ws / "mesh.glb").read_bytes() and header["meshLength"] == len(body) - header["length"]
    # nobody listening: the render still succeeds
    ok(ws, "voxel", "render")


def test_links_are_not_followed_and_init_empties(tmp_path):
    ws = make_workspace(tmp_path / "ws")
    outside = tmp_path / "outside.json"
    outside.write_text('{"op":"set-voxel","x":1,"y":1,"z":1,"color":"#ffffff"}\n')
    (ws / "actions.json").symlink_to(outside)
    done = tool(ws, "voxel", "render")
    assert done.returncode == 1 and "symbolic link" in done.stderr
    done = tool(ws, "voxel", "set-voxel", "--x", "1", "--y", "1", "--z", "1", "--color", "#000000")
    assert done.returncode == 1 and outside.read_text().count("\n") == 1
    (ws / "actions.json").unlink()
    (tmp_path / "elsewhere").mkdir()
    (ws / "parts").symlink_to(tmp_path / "elsewhere")
    anim = make_workspace(tmp_path / "ws", "voxel-animation")
    done = tool(anim, "voxel-anim", "define-part", "--name", "hull")
    assert done.returncode == 1 and "leads out of the workspace" in done.stderr
    assert not any((tmp_path / "elsewhere").iterdir())
    (ws / "parts").unlink()
    ok(anim, "voxel-anim", "define-part", "--name", "hull")
    ok(anim, "voxel-anim", "set-voxel", "--part", "hull", "--x", "1", "--y", "1", "--z", "1", "--color", "#000000")
    assert "emptied parts/hull.actions.json" in ok(anim, "voxel-anim", "init")
    assert (anim / "parts/hull.actions.json").read_bytes() == b""


def test_a_rig_s_parts_share_one_work_budget(tmp_path, monkeypatch):
    ws = make_workspace(tmp_path, "voxel-animation", (64, 64, 64))
    parts = [{"name": f"p{i}", "parent": None if i == 0 else "p0"} for i in range(3)]
    (ws / "rig.json").write_text(json.dumps({"parts": parts}))
    (ws / "parts").mkdir()
    line = b'{"op":"replace-color","from":"#000000","to":"#000001"}\n'
    for i in range(3):  # each alone is within MAX_WORK (2^31); together they pass MAX_RIG_WORK (2^32)
        (ws / f"parts/p{i}.actions.json").write_bytes(line * 7000)
    done = tool(ws, "voxel-anim", "render", timeout=300)
    assert done.returncode == 1 and "parts/p2.actions.json" in done.stderr and "MAX_RIG_WORK" in done.stderr


def test_a_rig_s_parts_share_one_face_budget(tmp_path):
    ws = make_workspace(tmp_path, "voxel-animation", (128, 128, 128))
    parts = [{"name": f"p{i}", "parent": None if i == 0 else "p0"} for i in range(4)]
    (ws / "rig.json").write_text(json.dumps({"parts": parts}))
    (ws / "parts").mkdir()
    # spheres of radius 2 every 6 voxels: 9,261 spheres, 722,358 faces a part; three pass 2^21
    ops = b"".join(b'{"op":"fill-sphere","cx":%d,"cy":%d,"cz":%d,"radius":2,"color":"#ffffff"}\n' % (x, y, z)
                   for x in range(2, 126, 6) for y in range(2, 126, 6) for z in range(2, 126, 6))
    for i in range(4):
        (ws / f"parts/p{i}.actions.json").write_bytes(ops)
    done = tool(ws, "voxel-anim", "render", timeout=300)
    assert done.returncode == 1 and "parts/p2.actions.json" in done.stderr and "MAX_SCENE_FACES" in done.stderr
