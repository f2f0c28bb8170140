"""Writing glTF 2.0 binaries (.glb): meshes with flat vertex colours, a node
tree, and animations sampled per node.

The bytes are deterministic (fixed order, compact JSON, zero padding) and
every file passes the Khronos glTF validator (tests/gltf/). ``COLOR_0``
carries the sRGB bytes of the voxel colours as written (normalized unsigned
bytes); ``asset.extras.tcabColorSpace`` says so, for a viewer to choose.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field

import numpy as np

ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
FLOAT, UNSIGNED_BYTE, UNSIGNED_INT = 5126, 5121, 5125


@dataclass(frozen=True, slots=True)
class Node:
    """A node: ``mesh`` (a voxel.mesh.Mesh, or None for an empty attach point),
    ``parent`` (an index into the node list, or None for a root), and its rest
    ``translation`` and ``rotation`` (quaternion x, y, z, w)."""

    name: str
    mesh: object | None = None
    parent: int | None = None
    translation: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rotation: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)


@dataclass(frozen=True, slots=True)
class Channel:
    """One animated property of a node: ``path`` ``rotation`` (values (n, 4)
    quaternions) or ``translation`` (values (n, 3)), at ``times`` in seconds
    (strictly increasing), interpolated ``LINEAR`` or ``STEP``."""

    node: int
    path: str
    times: np.ndarray
    values: np.ndarray
    interpolation: str = "LINEAR"


@dataclass(frozen=True, slots=True)
class Animation:
    name: str
    channels: list[Channel] = field(default_factory=list)
    extras: dict | None = None


class _Bin:
    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.size = 0
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def add(self, array: np.ndarray, component: int, kind: str, target: int | None,
            normalized: bool = False, bounds: bool = False) -> int:
        data = np.ascontiguousarray(array).tobytes()
        view = {"buffer": 0, "byteOffset": self.size, "byteLength": len(data)}
        if target is not None:
            view["target"] = target
        self.views.append(view)
        pad = (-len(data)) % 4
        self.chunks.append(data + b"\0" * pad)
        self.size += len(data) + pad
        accessor = {"bufferView": len(self.views) - 1, "componentType": component,
                    "count": int(array.shape[0]), "type": kind}
        if normalized:
            accessor["normalized"] = True
        if bounds:
            flat = array.reshape(array.shape[0], -1)
            accessor["min"] = [_num(x) for x in flat.min(axis=0)]
            accessor["max"] = [_num(x) for x in flat.max(axis=0)]
        self.accessors.append(accessor)
        return len(self.accessors) - 1


def _num(x) -> float | int:
    value = float(x)
    return int(value) if value.is_integer() and abs(value) < 1 << 53 else value


def write_glb(nodes: list[Node], animations: list[Animation] = (), generator: str = "tcab",
              extras: dict | None = None) -> bytes:
    """The .glb of ``nodes`` (parents before or after children, any order) and ``animations``."""
    binary = _Bin()
    meshes, json_nodes = [], []
    for node in nodes:
        entry: dict = {"name": node.name}
        mesh = node.mesh
        if mesh is not None and len(mesh.indices):
            attributes = {
                "POSITION": binary.add(mesh.positions.astype(np.float32), FLOAT, "VEC3", ARRAY_BUFFER, bounds=True),
                "NORMAL": binary.add(mesh.normals.astype(np.float32), FLOAT, "VEC3", ARRAY_BUFFER),
                "COLOR_0": binary.add(mesh.colors.astype(np.uint8), UNSIGNED_BYTE, "VEC4", ARRAY_BUFFER,
                                      normalized=True),
            }
            indices = binary.add(mesh.indices.astype(np.uint32), UNSIGNED_INT, "SCALAR", ELEMENT_ARRAY_BUFFER)
            meshes.append({"name": node.name, "primitives": [{"attributes": attributes, "indices": indices,
                                                              "mode": 4}]})
            entry["mesh"] = len(meshes) - 1
        if any(node.translation):
            entry["translation"] = [float(x) for x in node.translation]
        if tuple(node.rotation) != (0.0, 0.0, 0.0, 1.0):
            entry["rotation"] = [float(x) for x in node.rotation]
        json_nodes.append(entry)
    for i, node in enumerate(nodes):
        if node.parent is not None:
            json_nodes[node.parent].setdefault("children", []).append(i)
    roots = [i for i, node in enumerate(nodes) if node.parent is None]
    doc: dict = {"asset": {"version": "2.0", "generator": generator,
                           "extras": {"tcabColorSpace": "srgb", **(extras or {})}},
                 "scene": 0, "scenes": [{"nodes": roots}], "nodes": json_nodes}
    if meshes:
        doc["meshes"] = meshes
    json_animations = []
    for animation in animations:
        samplers, channels = [], []
        for channel in animation.channels:
            times = np.asarray(channel.times, np.float32)
            values = np.asarray(channel.values, np.float32)
            kind = "VEC4" if channel.path == "rotation" else "VEC3"
            samplers.append({"input": binary.add(times, FLOAT, "SCALAR", None, bounds=True),
                             "output": binary.add(values, FLOAT, kind, None),
                             "interpolation": channel.interpolation})
            channels.append({"sampler": len(samplers) - 1, "target": {"node": channel.node, "path": channel.path}})
        if channels:
            entry = {"name": animation.name, "samplers": samplers, "channels": channels}
            if animation.extras:
                entry["extras"] = animation.extras
            json_animations.append(entry)
    if json_animations:
        doc["animations"] = json_animations
    if binary.size:
        doc["accessors"] = binary.accessors
        doc["bufferViews"] = binary.views
        doc["buffers"] = [{"byteLength": binary.size}]
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False).encode()
    text += b" " * ((-len(text)) % 4)
    body = struct.pack("<I4s", len(text), b"JSON") + text
    if binary.size:
        body += struct.pack("<I4s", binary.size, b"BIN\0") + b"".join(binary.chunks)
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


def mesh_glb(mesh, name: str, generator: str = "tcab") -> bytes:
    """The .glb of one mesh (an empty mesh: one node without a mesh)."""
    return write_glb([Node(name, mesh)], generator=generator)
