"""What ``render`` builds from the logs and the rig: part meshes, the
assembled scene, the posed scene and the scene's .glb with the animations baked.

Every part is sculpted in the shared volume's coordinates, so the scene at
rest is the parts' meshes side by side; a pose moves each part's vertices by
its world matrix (tcab.voxel.pose). The scene .glb has one node per part in
the rig's hierarchy (rest: identity) and each animation sampled at
``BAKE_FPS`` (fewer when the rig is large: ``MAX_BAKE_WORK``) as every jointed
part's local translation and rotation.
"""

from __future__ import annotations

import math

import numpy as np

from tcab.gltf.writer import Animation, Channel, Node, write_glb
from tcab.voxel import VERSION
from tcab.voxel.mesh import Mesh
from tcab.voxel.pose import joint_values, local_matrices, world_matrices

BAKE_FPS = 30
MAX_BAKE_SAMPLES = 600
#: Joint evaluations one bake may make over every animation (~0.1 ms each): a
#: rig of 512 joints and 64 hour-long animations gets fewer samples, not minutes.
MAX_BAKE_WORK = 50_000


def combine(meshes: list[Mesh]) -> Mesh:
    """One mesh of several (indices shifted)."""
    meshes = [m for m in meshes if len(m.indices)]
    if not meshes:
        return Mesh.empty()
    offsets = np.cumsum([0] + [len(m.positions) for m in meshes[:-1]])
    return Mesh(np.concatenate([m.positions for m in meshes]), np.concatenate([m.normals for m in meshes]),
                np.concatenate([m.colors for m in meshes]),
                np.concatenate([m.indices + np.uint32(o) for m, o in zip(meshes, offsets, strict=True)]))


def apply(matrix: np.ndarray, points: np.ndarray, translate: bool) -> np.ndarray:
    """``matrix`` applied to (n, 3) points, elementwise in a fixed order (not
    a BLAS product, whose summation order may differ between machines)."""
    p = points.astype(np.float64)
    out = np.empty_like(p)
    for row in range(3):
        value = p[:, 0] * matrix[row, 0] + p[:, 1] * matrix[row, 1] + p[:, 2] * matrix[row, 2]
        out[:, row] = value + matrix[row, 3] if translate else value
    return out


def transformed(mesh: Mesh, matrix: np.ndarray) -> Mesh:
    if not len(mesh.indices):
        return mesh
    positions = apply(matrix, mesh.positions, translate=True)
    normals = apply(matrix, mesh.normals, translate=False)
    return Mesh(positions.astype(np.float32), normals.astype(np.float32), mesh.colors, mesh.indices)


def posed(rig: dict, meshes: dict[str, Mesh], animation: dict | None, t_ms: float) -> Mesh:
    """The scene at ``t_ms`` of ``animation`` (None: every part as sculpted)."""
    world = world_matrices(rig, None if animation is None else joint_values(rig, animation, t_ms))
    return combine([transformed(meshes[p["name"]], world[p["name"]]) for p in rig["parts"]
                    if p["name"] in meshes])


def quaternion(m: np.ndarray) -> np.ndarray:
    """The unit quaternion (x, y, z, w) of a rotation matrix."""
    r = m[:3, :3]
    trace = r[0, 0] + r[1, 1] + r[2, 2]
    if trace > 0:
        s = math.sqrt(trace + 1.0) * 2
        q = [(r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s, 0.25 * s]
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2]) * 2
        q = [0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s, (r[2, 1] - r[1, 2]) / s]
    elif r[1, 1] > r[2, 2]:
        s = math.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2]) * 2
        q = [(r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s, (r[0, 2] - r[2, 0]) / s]
    else:
        s = math.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1]) * 2
        q = [(r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s, (r[1, 0] - r[0, 1]) / s]
    q = np.array(q)
    return q / np.linalg.norm(q)


def scene_glb(rig: dict, meshes: dict[str, Mesh]) -> bytes:
    """The rig as one .glb: a node a part, each animation baked."""
    index = {p["name"]: i for i, p in enumerate(rig["parts"])}
    nodes = [Node(p["name"], meshes.get(p["name"]), None if p["parent"] is None else index[p["parent"]])
             for p in rig["parts"]]
    jointed = [p["name"] for p in rig["parts"] if any(j["part"] == p["name"] for j in rig["joints"])]
    animations, cache = [], {}  # untracked joints keep one matrix over every sample
    for animation in rig["animations"]:
        period = animation["period_ms"]
        share = MAX_BAKE_WORK // (len(rig["joints"]) + 1) // max(1, len(rig["animations"]))
        count = max(2, min(MAX_BAKE_SAMPLES, share, int(period * BAKE_FPS / 1000) + 1))
        times = np.array([period * i / (count - 1) / 1000 for i in range(count)])
        if not len(jointed) or not animation["tracks"] or period <= 0:
            animations.append(Animation(animation["name"], [], {"loop": animation["loop"],
                                                                "autoPlay": animation["auto_play"]}))
            continue
        samples = [local_matrices(rig, joint_values(rig, animation, t * 1000), cache) for t in times]
        channels = []
        tracked = {t["joint"] for t in animation["tracks"] if t["keys"]}
        for name in jointed:  # a part no track moves and whose joints rest at identity stays at its node's rest
            own = [j for j in rig["joints"] if j["part"] == name]
            if not any(j["name"] in tracked or j["rest"] or any(j["offset"]) or any(j["orient"]) for j in own):
                continue
            local = [s[name] for s in samples]
            quats = [quaternion(m) for m in local]
            for i in range(1, len(quats)):  # the shorter way round
                if np.dot(quats[i], quats[i - 1]) < 0:
                    quats[i] = -quats[i]
            channels.append(Channel(index[name], "translation", times, np.array([m[:3, 3] for m in local])))
            channels.append(Channel(index[name], "rotation", times, np.array(quats)))
        animations.append(Animation(animation["name"], channels,
                                    {"loop": animation["loop"], "autoPlay": animation["auto_play"]}))
    return write_glb(nodes, animations, generator=f"tcab voxel-anim {VERSION}")
