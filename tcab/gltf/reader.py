"""Reading glTF 2.0 binaries (.glb) someone else wrote, within bounds.

Everything is checked before anything is allocated or decoded: the file's
size; the header and chunk lengths against the file; the JSON chunk's size,
its bracket depth (counted, never parsed past the limit) and the length of
every top-level list; each buffer (only the GLB's own BIN chunk: a ``uri``,
external or ``data:``, is refused) and buffer view against what holds it;
each accessor's count against ``GlbLimits.max_count``, its view's stride
against its element's size and its last element against its view. Only
then are the mesh attributes and indices decoded (numpy views of the bytes,
copied), indices checked against the vertex count. A refusal is a GltfError naming the file and the JSON path.
"""

from __future__ import annotations

import json
import os
import stat
import struct
from dataclasses import dataclass, field

import numpy as np

_COMPONENTS = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_LISTS = ("accessors", "bufferViews", "buffers", "meshes", "nodes", "scenes", "skins", "animations",
          "materials", "images", "textures", "samplers", "cameras")


class GltfError(Exception):
    """A .glb that is not one this reader accepts (the message names the file and where)."""


@dataclass(frozen=True, slots=True)
class GlbLimits:
    max_bytes: int = 256 << 20
    max_json_bytes: int = 16 << 20
    max_depth: int = 32
    max_list: int = 1 << 16  # entries in any top-level list (nodes, accessors, ...)
    max_count: int = 1 << 24  # elements one accessor may claim
    max_elements: int = 1 << 26  # elements decoded over the whole file


@dataclass(frozen=True, slots=True)
class Primitive:
    positions: np.ndarray  # float32 (n, 3)
    indices: np.ndarray  # uint32 (3 per triangle)
    colors: np.ndarray | None  # uint8 (n, 4) or None
    material: int | None


@dataclass(frozen=True, slots=True)
class Gltf:
    """The checked document (``json``), its decoded mesh primitives
    (``meshes[i]`` a list), and names for scoring."""

    path: str
    json: dict
    meshes: list[list[Primitive]] = field(default_factory=list)

    @property
    def node_names(self) -> list[str]:
        return [n.get("name", "") for n in self.json.get("nodes", [])]

    @property
    def animation_names(self) -> list[str]:
        return [a.get("name", "") for a in self.json.get("animations", [])]

    @property
    def skins(self) -> list[dict]:
        return self.json.get("skins", [])

    @property
    def vertex_count(self) -> int:
        return sum(len(p.positions) for m in self.meshes for p in m)


def _fail(path: str, where: str, why: str) -> None:
    raise GltfError(f"{path}: {where}: {why}")


def _read(path: str, limit: int) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise GltfError(f"{path}: " + ("a symbolic link (not followed)" if os.path.islink(path)
                                       else (exc.strerror or str(exc)))) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise GltfError(f"{path}: not a regular file")
        if info.st_size > limit:
            raise GltfError(f"{path}: {info.st_size} bytes, over the {limit}-byte limit (max_bytes)")
        chunks, total = [], 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise GltfError(f"{path}: grew over the {limit}-byte limit while read (max_bytes)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _depth(text: bytes, limit: int) -> int | None:
    """The bracket depth where it first passes ``limit`` (None: it never does)."""
    from tcab.gltf.depth import max_depth

    depth = max_depth(text, limit)
    return depth if depth > limit else None


def _int(value: object, low: int = 0, high: int = 1 << 62) -> bool:
    return type(value) is int and low <= value <= high


def read_glb(path: str, limits: GlbLimits = GlbLimits()) -> Gltf:
    """The checked, decoded .glb at ``path`` (no link followed); GltfError otherwise."""
    data = _read(path, limits.max_bytes)
    if len(data) < 20:
        _fail(path, "header", f"{len(data)} bytes: too short for a .glb")
    magic, version, length = struct.unpack_from("<4sII", data)
    if magic != b"glTF" or version != 2:
        _fail(path, "header", "not a glTF 2.0 binary (magic 'glTF', version 2)")
    if length != len(data):
        _fail(path, "header", f"declares {length} bytes, the file has {len(data)}")
    json_length, kind = struct.unpack_from("<I4s", data, 12)
    if kind != b"JSON" or 20 + json_length > len(data):
        _fail(path, "JSON chunk", "missing, or longer than the file")
    if json_length > limits.max_json_bytes:
        _fail(path, "JSON chunk", f"{json_length} bytes, over the {limits.max_json_bytes}-byte limit (max_json_bytes)")
    text = data[20:20 + json_length]
    deep = _depth(text, limits.max_depth)
    if deep:
        _fail(path, "JSON chunk", f"nested {deep} deep, over the limit of {limits.max_depth} (max_depth)")
    try:
        doc = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(f"{c} is not JSON")))
    except (ValueError, RecursionError) as exc:
        _fail(path, "JSON chunk", f"not valid JSON: {exc}"[:200])
    if not isinstance(doc, dict):
        _fail(path, "JSON chunk", "expected an object")
    for key in _LISTS:
        value = doc.get(key, [])
        if not isinstance(value, list) or len(value) > limits.max_list:
            _fail(path, key, f"expected a list of at most {limits.max_list} entries (max_list)")
        if any(not isinstance(v, dict) for v in value):
            _fail(path, key, "expected a list of objects")
    bin_chunk = b""
    at = 20 + json_length  # the JSON chunk is padded to 4 bytes within its length
    if at + 8 <= len(data):
        bin_length, kind = struct.unpack_from("<I4s", data, at)
        if kind == b"BIN\0":
            if at + 8 + bin_length > len(data):
                _fail(path, "BIN chunk", f"declares {bin_length} bytes, past the end of the file")
            bin_chunk = data[at + 8:at + 8 + bin_length]
    buffers = doc.get("buffers", [])
    for i, buffer in enumerate(buffers):
        if "uri" in buffer:
            _fail(path, f"buffers[{i}].uri", "refused: a .glb must hold its data (no external or data: URI)")
        if i > 0:
            _fail(path, f"buffers[{i}]", "a .glb has one buffer, its BIN chunk")
        if not _int(buffer.get("byteLength")) or buffer["byteLength"] > len(bin_chunk):
            _fail(path, f"buffers[{i}].byteLength", f"{buffer.get('byteLength')!r} is past the BIN chunk "
                                                    f"({len(bin_chunk)} bytes)")
    views = doc.get("bufferViews", [])
    for i, view in enumerate(views):
        where = f"bufferViews[{i}]"
        if not _int(view.get("buffer")) or view["buffer"] >= len(buffers):
            _fail(path, f"{where}.buffer", f"{view.get('buffer')!r} is not a buffer")
        offset, size = view.get("byteOffset", 0), view.get("byteLength")
        if not _int(offset) or not _int(size, 1):
            _fail(path, where, "byteOffset and byteLength must be integers (byteLength >= 1)")
        if offset + size > buffers[view["buffer"]]["byteLength"]:
            _fail(path, where, f"bytes {offset}..{offset + size} are past its buffer "
                               f"({buffers[view['buffer']]['byteLength']} bytes)")
        stride = view.get("byteStride")
        if stride is not None and not _int(stride, 4, 252):
            _fail(path, f"{where}.byteStride", f"expected 4..252, got {stride!r}")
    accessors = doc.get("accessors", [])
    for i, acc in enumerate(accessors):
        _check_accessor(path, i, acc, views, limits)
    budget = [limits.max_elements]
    meshes = []
    for m, mesh in enumerate(doc.get("meshes", [])):
        prims = mesh.get("primitives")
        if not isinstance(prims, list) or not prims or len(prims) > limits.max_list:
            _fail(path, f"meshes[{m}].primitives", "expected a non-empty list")
        meshes.append([_primitive(path, f"meshes[{m}].primitives[{p}]", prim, doc, data, at, budget)
                       for p, prim in enumerate(prims)])
    for key, ref in (("nodes", "mesh"), ("nodes", "skin")):
        target = {"mesh": "meshes", "skin": "skins"}[ref]
        for i, node in enumerate(doc.get(key, [])):
            if ref in node and (not _int(node[ref]) or node[ref] >= len(doc.get(target, []))):
                _fail(path, f"nodes[{i}].{ref}", f"{node[ref]!r} is not an index into {target}")
    nodes = doc.get("nodes", [])
    for i, node in enumerate(nodes):
        children = node.get("children", [])
        if not isinstance(children, list) or any(not _int(c) or c >= len(nodes) for c in children):
            _fail(path, f"nodes[{i}].children", "expected a list of node indices")
    _check_tree(path, nodes)
    return Gltf(path, doc, meshes)


def _check_accessor(path: str, i: int, acc: dict, views: list[dict], limits: GlbLimits) -> None:
    where = f"accessors[{i}]"
    if acc.get("componentType") not in _COMPONENTS or acc.get("type") not in _WIDTH:
        _fail(path, where, "unknown componentType or type")
    count = acc.get("count")
    if not _int(count, 1):
        _fail(path, f"{where}.count", f"expected an integer >= 1, got {count!r}"[:120])
    if count > limits.max_count:
        _fail(path, f"{where}.count", f"{count} elements, over the limit of {limits.max_count} (max_count)")
    if "sparse" in acc:
        _fail(path, f"{where}.sparse", "sparse accessors are not read")
    if "bufferView" not in acc:
        return
    if not _int(acc["bufferView"]) or acc["bufferView"] >= len(views):
        _fail(path, f"{where}.bufferView", f"{acc['bufferView']!r} is not a buffer view")
    view = views[acc["bufferView"]]
    element = np.dtype(_COMPONENTS[acc["componentType"]]).itemsize * _WIDTH[acc["type"]]
    stride = view.get("byteStride") or element
    if stride < element:  # elements would overlap: not a layout any writer means
        _fail(path, where, f"bufferViews[{acc['bufferView']}].byteStride {stride} is shorter than its "
                           f"{element}-byte element")
    offset = acc.get("byteOffset", 0)
    if not _int(offset):
        _fail(path, f"{where}.byteOffset", f"expected an integer >= 0, got {offset!r}")
    end = offset + stride * (count - 1) + element
    if end > view["byteLength"]:
        _fail(path, where, f"{count} elements end at byte {end}, past its buffer view ({view['byteLength']} bytes)")


def _check_tree(path: str, nodes: list[dict]) -> None:
    """Every node has at most one parent and no chain of parents loops: each
    node is walked up once (coloured on the way), so 65,536 nodes take linear time."""
    parent: dict[int, int] = {}
    for i, node in enumerate(nodes):
        for c in node.get("children", []):
            if c == i:
                _fail(path, f"nodes[{i}].children", f"node {c} is its own child")
            if c in parent:
                _fail(path, f"nodes[{i}].children", f"node {c} has two parents (nodes {parent[c]} and {i})")
            parent[c] = i
    done = bytearray(len(nodes))  # 1: its chain of parents reaches a root
    walking = bytearray(len(nodes))  # 1: on the chain being walked now
    for start in range(len(nodes)):
        chain, at = [], start
        while not done[at]:
            if walking[at]:
                _fail(path, f"nodes[{at}]", "the node hierarchy is a cycle")
            walking[at] = 1
            chain.append(at)
            if at not in parent:
                break
            at = parent[at]
        for seen in chain:
            done[seen] = 1


def _accessor(path: str, where: str, index: object, doc: dict, data: bytes, bin_at: int,
              budget: list[int]) -> np.ndarray:
    accessors = doc.get("accessors", [])
    if not _int(index) or index >= len(accessors):
        _fail(path, where, f"{index!r} is not an accessor")
    acc = accessors[index]
    if "bufferView" not in acc:
        _fail(path, where, f"accessor {index} has no bufferView")
    budget[0] -= acc["count"] * _WIDTH[acc["type"]]
    if budget[0] < 0:
        _fail(path, where, "the decoded elements pass the file's limit (max_elements)")
    view = doc["bufferViews"][acc["bufferView"]]
    dtype = np.dtype(_COMPONENTS[acc["componentType"]]).newbyteorder("<")
    width = _WIDTH[acc["type"]]
    element = dtype.itemsize * width
    stride = view.get("byteStride") or element
    start = bin_at + 8 + view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    raw = np.frombuffer(data, np.uint8, count=stride * (acc["count"] - 1) + element, offset=start)
    rows = np.lib.stride_tricks.as_strided(raw, shape=(acc["count"], element), strides=(stride, 1))
    return np.ascontiguousarray(rows).view(dtype).reshape(acc["count"], width)


def _primitive(path: str, where: str, prim: dict, doc: dict, data: bytes, bin_at: int,
               budget: list[int]) -> Primitive:
    if not isinstance(prim, dict) or not isinstance(prim.get("attributes"), dict):
        _fail(path, where, "expected an object with attributes")
    if prim.get("mode", 4) != 4:
        _fail(path, f"{where}.mode", "only triangles (mode 4) are read")
    attrs = prim["attributes"]
    if "POSITION" not in attrs:
        _fail(path, f"{where}.attributes", "no POSITION")
    acc = doc["accessors"][attrs["POSITION"]] if _int(attrs["POSITION"]) and attrs["POSITION"] < len(
        doc.get("accessors", [])) else None
    if acc is None or acc["componentType"] != 5126 or acc["type"] != "VEC3":
        _fail(path, f"{where}.attributes.POSITION", "expected a float VEC3 accessor")
    positions = _accessor(path, f"{where}.attributes.POSITION", attrs["POSITION"], doc, data, bin_at, budget)
    if not np.isfinite(positions).all():
        _fail(path, f"{where}.attributes.POSITION", "holds a value that is not finite")
    n = len(positions)
    if "indices" in prim:
        indices = _accessor(path, f"{where}.indices", prim["indices"], doc, data, bin_at, budget).reshape(-1)
        if indices.dtype.kind == "f":
            _fail(path, f"{where}.indices", "float indices")
        indices = indices.astype(np.int64)
        if len(indices) and (indices.min() < 0 or indices.max() >= n):
            _fail(path, f"{where}.indices", f"an index past the {n} vertices")
    else:
        indices = np.arange(n, dtype=np.int64)
    if len(indices) % 3:
        _fail(path, f"{where}.indices", f"{len(indices)} indices: not whole triangles")
    colors = None
    if "COLOR_0" in attrs:
        raw = _accessor(path, f"{where}.attributes.COLOR_0", attrs["COLOR_0"], doc, data, bin_at, budget)
        if len(raw) != n or raw.shape[1] not in (3, 4):
            _fail(path, f"{where}.attributes.COLOR_0", "expected one VEC3/VEC4 a vertex")
        scale = {np.dtype(np.uint8): 255.0, np.dtype(np.uint16): 65535.0}.get(raw.dtype.newbyteorder("="), 1.0)
        values = np.clip(np.nan_to_num(raw.astype(np.float64) / scale), 0, 1)
        colors = np.full((n, 4), 255, np.uint8)
        colors[:, :raw.shape[1]] = np.rint(values * 255).astype(np.uint8)
    material = prim.get("material")
    return Primitive(positions.astype(np.float32), indices.astype(np.uint32), colors,
                     material if _int(material) else None)
