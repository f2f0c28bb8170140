"""What ``render`` builds from the logs and the rig: part meshes, the
assembled scene, the posed scene and the scene's .glb with the animations baked.

Every part is sculpted in the shared volume's coordinates, so the scene at
rest is the parts' meshes side by side; a pose moves each part's vertices by
its world matrix (tcab.voxel.pose). The scene .glb has one node per part in
the rig's hierarchy (rest: identity) and each animation sampled at
``BAKE_FPS`` as every jointed part's local translation and rotation.
"""

from __future__ import annotations

import math

import numpy as np

from tcab.gltf.writer import Animation, Channel, Node, write_glb
from tcab.voxel import VERSION
from tcab.voxel.mesh import Mesh
from tcab.voxel.pose import joint_values, world_matrices

BAKE_FPS = 30
MAX_BAKE_SAMPLES = 600


def combine(meshes: list[Mesh]) -> Mesh:
    """One mesh of several (indices shifted)."""
    meshes = [m for m in meshes if len(m.indices)]
    if not meshes:
        return Mesh.empty()
    offsets = np.cumsum([0] + [len(m.positions) for m in meshes[:-1]])
    return Mesh(np.concatenate([m.positions for m in meshes]), np.concatenate([m.normals for m in meshes]),
                np.concatenate([m.colors for m in meshes]),
                np.concatenate([m.indices + np.uint32(o) for m, o in zip(meshes, offsets, strict=True)]))


def transformed(mesh: Mesh, matrix: np.ndarray) -> Mesh:
    if not len(mesh.indices):
        return mesh
    positions = mesh.positions.astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]
    normals = mesh.normals.astype(np.float64) @ matrix[:3, :3].T
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
    animations = []
    for animation in rig["animations"]:
        period = animation["period_ms"]
        count = min(MAX_BAKE_SAMPLES, max(2, int(period * BAKE_FPS / 1000) + 1))
        times = np.array([period * i / (count - 1) / 1000 for i in range(count)])
        if not len(jointed) or not animation["tracks"] or period <= 0:
            animations.append(Animation(animation["name"], [], {"loop": animation["loop"],
                                                                "autoPlay": animation["auto_play"]}))
            continue
        samples = [world_matrices(rig, joint_values(rig, animation, t * 1000)) for t in times]
        channels = []
        for name in jointed:
            parent = rig["parts"][index[name]]["parent"]
            local = [s[name] if parent is None else np.linalg.solve(s[parent], s[name]) for s in samples]
            quats = [quaternion(m) for m in local]
            for i in range(1, len(quats)):  # the shorter way round
                if np.dot(quats[i], quats[i - 1]) < 0:
                    quats[i] = -quats[i]
            channels.append(Channel(index[name], "translation", times, np.array([m[:3, 3] for m in local])))
            channels.append(Channel(index[name], "rotation", times, np.array(quats)))
        animations.append(Animation(animation["name"], channels,
                                    {"loop": animation["loop"], "autoPlay": animation["auto_play"]}))
    return write_glb(nodes, animations, generator=f"tcab voxel-anim {VERSION}")
