"""A glTF binary's default scene at rest as one voxel ``Mesh``, so that tcab's
own renderer can draw a .glb it did not write (a Blender character's preview).
It lives beside the renderer, not in tcab.gltf, which imports nothing of tcab."""

from __future__ import annotations

import math

import numpy as np

from tcab.gltf.reader import Gltf, _int
from tcab.voxel.mesh import Mesh
from tcab.voxel.pose import _mul
from tcab.voxel.scene import apply, combine


def _trs(node: dict) -> np.ndarray:
    if isinstance(node.get("matrix"), list) and len(node["matrix"]) == 16:
        m = np.array(node["matrix"], np.float64).reshape(4, 4).T
        return m if np.isfinite(m).all() else np.eye(4)
    t = np.array(node.get("translation", [0, 0, 0]), np.float64)
    x, y, z, w = (float(v) for v in node.get("rotation", [0, 0, 0, 1]))
    s = np.array(node.get("scale", [1, 1, 1]), np.float64)
    r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    m = np.eye(4)
    m[:3, :3] = r * s
    m[:3, 3] = t
    return m if np.isfinite(m).all() else np.eye(4)


def scene_mesh(gltf: Gltf):
    """Every mesh node of the default scene at rest (skinning not applied),
    as one ``tcab.voxel.mesh.Mesh``: a vertex without COLOR_0 takes its
    material's base colour (grey without one). For tcab's renderer."""
    doc = gltf.json
    nodes = doc.get("nodes", [])
    scenes = doc.get("scenes", [])
    scene = doc.get("scene", 0)
    roots = scenes[scene].get("nodes", []) if _int(scene) and scene < len(scenes) else list(range(len(nodes)))
    out: list[Mesh] = []
    stack = [(r, np.eye(4)) for r in roots if _int(r) and r < len(nodes)]
    seen = set()
    while stack:
        i, parent = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        world = _mul(parent, _trs(nodes[i]))
        if "mesh" in nodes[i]:
            for prim in gltf.meshes[nodes[i]["mesh"]]:
                colors = prim.colors
                if colors is None:
                    colors = np.tile(_base_color(doc, prim.material), (len(prim.positions), 1))
                pos = apply(world, prim.positions, translate=True)
                out.append(Mesh(pos.astype(np.float32), np.zeros_like(prim.positions), colors, prim.indices))
        stack.extend((c, world) for c in reversed(nodes[i].get("children", [])))
    return combine(out)


def _base_color(doc: dict, material: int | None) -> np.ndarray:
    rgba = [0.7, 0.7, 0.7, 1.0]
    materials = doc.get("materials", [])
    if material is not None and material < len(materials):
        factor = materials[material].get("pbrMetallicRoughness", {}).get("baseColorFactor")
        if isinstance(factor, list) and len(factor) == 4 and all(isinstance(v, int | float) for v in factor):
            rgba = [min(max(float(v), 0.0), 1.0) if math.isfinite(v) else 0.0 for v in factor]
    return np.rint(np.array(rgba) * 255).astype(np.uint8)
