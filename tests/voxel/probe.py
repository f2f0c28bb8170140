"""Fingerprints of tcab's voxel renders, computed the same way on the host and
in the voxel run image (standalone: imports only tcab.voxel and tcab.gltf)."""

import hashlib
import json
import math

SCENE = [("fill-box", {"x0": 0, "y0": 0, "z0": 0, "x1": 15, "y1": 3, "z1": 15, "color": "#3a4a5a"}),
         ("fill-sphere", {"cx": 8, "cy": 9, "cz": 8, "radius": 5, "color": "#ff8800"}),
         ("fill-cylinder", {"cx": 8, "cy": 8, "cz": 8, "radius": 2, "length": 8, "axis": "z", "color": "#2f7d72"})]


def fingerprints() -> dict:
    from tcab.gltf.writer import mesh_glb
    from tcab.voxel.log import op_line, replay_bytes
    from tcab.voxel.mesh import mesh_volume
    from tcab.voxel.render import VIEWS, rasterize, render_png
    from tcab.voxel.rig import add_keyframe, check_rig, define_animation, define_joint, define_part
    from tcab.voxel.scene import posed, scene_glb

    def digest(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()[:32]

    mesh = mesh_volume(replay_bytes(b"".join(op_line(n, v) for n, v in SCENE), (16, 16, 16)))
    out = {f"pixels-{v}": digest(rasterize(mesh, v, (16, 16, 16), "#202020").tobytes()) for v in VIEWS}
    out.update({f"png-{v}": digest(render_png(mesh, v, (16, 16, 16), "#202020")) for v in VIEWS})
    out["glb"] = digest(mesh_glb(mesh, "model"))
    rig = define_part(define_part(check_rig({}), "base", None), "top", "base")
    rig = define_joint(rig, {"name": "spin", "part": "top", "kind": "rotation", "axis": "y", "pivot": [8, 4, 8],
                             "min": -4, "max": 4, "rest": 0, "drive": "auto", "offset": [0, 0.5, 0],
                             "orient": [0.1, 0, 0.2]})
    rig = define_animation(rig, "idle", 1000, True, True)
    rig = add_keyframe(rig, "idle", "spin", {"t_ms": 0.0, "value": 0.0, "interp": "ease-in-out",
                                             "in_handle": None, "out_handle": None})
    rig = add_keyframe(rig, "idle", "spin", {"t_ms": 1000.0, "value": math.pi, "interp": "linear",
                                             "in_handle": None, "out_handle": None})
    meshes = {"base": mesh, "top": mesh}
    for t in (0, 333, 700):
        out[f"pose-{t}"] = digest(rasterize(posed(rig, meshes, rig["animations"][0], t), "iso", (16, 16, 16)).tobytes())
    out["scene-glb"] = digest(scene_glb(rig, meshes))
    return out


if __name__ == "__main__":
    print(json.dumps(fingerprints(), sort_keys=True))
