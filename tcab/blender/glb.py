"""A bounded reader of glTF 2.0 binaries (GLB), standard library only.

A ``character.glb`` is written by the model's own build.py: hostile. Every
bound is checked before the work it bounds: the file's size
(:data:`MAX_GLB_BYTES`) before it is read, the JSON chunk's size
(:data:`MAX_JSON_BYTES`) and nesting (:data:`MAX_JSON_DEPTH`, counted on
the raw bytes before ``json.loads``) before it is parsed, the number of
entries of each top-level array (:data:`MAX_ENTRIES`), and each accessor's
claimed count (:data:`MAX_ELEMENTS`) and its extent against its buffer view
and the buffer against the BIN chunk, before any of it is decoded; the
meshes' shape (primitives, attributes, a float VEC3 ``POSITION``, unsigned
integer indices, indices into the arrays they name) before anything reads
them; and what :func:`triangles` decodes over the whole file
(:data:`MAX_DECODED`, :data:`MAX_TRIANGLES`) before it decodes it. What
does not hold is a :class:`GlbError` naming the file's part
(``accessors[3]: ...``): nothing else escapes parse, summary or triangles.

:func:`summary` is what scoring compares: mesh and skin counts, animation
names with their channel counts, the nodes' ``tcab_joint`` / ``tcab_socket``
extras. :func:`triangles` decodes the meshes' positions and indices for the
preview.
"""

from __future__ import annotations

import json
import math
import re
import struct
from dataclasses import dataclass
from typing import Any

MAX_GLB_BYTES = 256 << 20
MAX_JSON_BYTES = 16 << 20
MAX_JSON_DEPTH = 64
MAX_ENTRIES = 65_536          # per top-level array (nodes, accessors, ...)
MAX_ELEMENTS = 4_000_000      # per accessor (vertices, indices, keyframes)
MAX_TRIANGLES = 2_000_000     # over all primitives decoded for a preview
#: Accessor elements (positions and indices) decoded for a preview, over all
#: primitives: each accessor is bounded alone, but any number of primitives
#: may name the same one.
MAX_DECODED = 8_000_000
_MAGIC = b"glTF"
_JSON = 0x4E4F534A
_BIN = 0x004E4942
_COMPONENTS = {5120: ("b", 1), 5121: ("B", 1), 5122: ("h", 2), 5123: ("H", 2), 5125: ("I", 4), 5126: ("f", 4)}
_TYPES = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_ARRAYS = ("accessors", "animations", "buffers", "bufferViews", "materials", "meshes", "nodes", "scenes",
           "skins", "textures", "images", "samplers", "cameras")


class GlbError(ValueError):
    """Bytes that are not a glTF binary this reader accepts (the message says where)."""


@dataclass(frozen=True, slots=True)
class Glb:
    doc: dict[str, Any]
    bin: bytes


@dataclass(frozen=True, slots=True)
class GlbAnimation:
    name: str
    channels: int
    duration: float  # seconds, the largest input time


@dataclass(frozen=True, slots=True)
class Summary:
    meshes: int
    skins: int
    joints: int          # bones over all skins
    vertices: int
    animations: tuple[GlbAnimation, ...]
    caller_joints: tuple[dict[str, Any], ...]  # the nodes' extras.tcab_joint
    sockets: tuple[str, ...]                   # the nodes' extras.tcab_socket

    @property
    def animation_names(self) -> tuple[str, ...]:
        return tuple(sorted({a.name for a in self.animations}))

    def provenance(self) -> dict[str, Any]:
        """What a re-run of build.py must reproduce."""
        return {"meshes": self.meshes, "skinned": self.skins > 0, "animations": list(self.animation_names)}

    def to_json(self) -> dict[str, Any]:
        return {"meshes": self.meshes, "skins": self.skins, "joints": self.joints, "vertices": self.vertices,
                "animations": [{"name": a.name, "channels": a.channels, "duration": a.duration}
                               for a in self.animations],
                "caller_joints": list(self.caller_joints), "sockets": list(self.sockets)}


_SPECIAL = re.compile(rb'[\\"\[\]{}]')


def _depth(raw: bytes) -> int:
    """The deepest nesting of ``[``/``{`` outside strings (json.loads would
    recurse that deep: checked first). Only the special bytes are visited,
    and the scan stops past MAX_JSON_DEPTH."""
    depth = deepest = 0
    in_string = False
    skip = -1  # the byte after a backslash, inside a string
    for match in _SPECIAL.finditer(raw):
        pos = match.start()
        if pos == skip:
            continue
        byte = raw[pos]
        if in_string:
            if byte == 0x5C:
                skip = pos + 1
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_JSON_DEPTH:
                    return deepest
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def parse(data: bytes) -> Glb:
    """The document and BIN chunk of ``data``, every structural bound checked.
    Raises GlbError."""
    if len(data) > MAX_GLB_BYTES:
        raise GlbError(f"{len(data)} bytes, over MAX_GLB_BYTES ({MAX_GLB_BYTES})")
    if len(data) < 20 or data[:4] != _MAGIC:
        raise GlbError("not a glTF binary (no 'glTF' magic)")
    version, length = struct.unpack_from("<II", data, 4)
    if version != 2:
        raise GlbError(f"glTF version {version}, expected 2")
    if length != len(data):
        raise GlbError(f"the header's length {length} is not the file's {len(data)} bytes")
    chunks: list[tuple[int, bytes]] = []
    offset = 12
    while offset < len(data):
        if offset + 8 > len(data) or len(chunks) >= 2:
            raise GlbError(f"a truncated or extra chunk at byte {offset}")
        size, kind = struct.unpack_from("<II", data, offset)
        if offset + 8 + size > len(data):
            raise GlbError(f"chunk {len(chunks)} claims {size} bytes past the end of the file")
        chunks.append((kind, data[offset + 8: offset + 8 + size]))
        offset += 8 + size
    if not chunks or chunks[0][0] != _JSON:
        raise GlbError("the first chunk is not JSON")
    raw = chunks[0][1]
    if len(raw) > MAX_JSON_BYTES:
        raise GlbError(f"a JSON chunk of {len(raw)} bytes, over MAX_JSON_BYTES ({MAX_JSON_BYTES})")
    if _depth(raw) > MAX_JSON_DEPTH:
        raise GlbError(f"JSON nested deeper than MAX_JSON_DEPTH ({MAX_JSON_DEPTH})")
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise GlbError(f"the JSON chunk does not parse: {exc}") from None
    if not isinstance(doc, dict):
        raise GlbError("the JSON chunk is not an object")
    for key in _ARRAYS:
        value = doc.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise GlbError(f"{key}: expected an array of objects")
        if len(value) > MAX_ENTRIES:
            raise GlbError(f"{key}: {len(value)} entries, over MAX_ENTRIES ({MAX_ENTRIES})")
    binary = chunks[1][1] if len(chunks) > 1 and chunks[1][0] == _BIN else b""
    glb = Glb(doc, binary)
    _check_buffers(glb)
    _check_meshes(doc)
    return glb


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _int(table: dict[str, Any], key: str, where: str, default: int | None = None) -> int:
    value = table.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise GlbError(f"{where}.{key}: expected a non-negative integer, got {value!r:.40}")
    return value


def _check_buffers(glb: Glb) -> None:
    doc = glb.doc
    buffers = doc.get("buffers", [])
    for i, buf in enumerate(buffers):
        size = _int(buf, "byteLength", f"buffers[{i}]")
        if "uri" in buf:
            raise GlbError(f"buffers[{i}]: an external uri; a character.glb is self-contained")
        if i > 0 or size > len(glb.bin):
            raise GlbError(f"buffers[{i}]: {size} bytes, past the {len(glb.bin)}-byte BIN chunk")
    views = doc.get("bufferViews", [])
    for i, view in enumerate(views):
        where = f"bufferViews[{i}]"
        buf = _int(view, "buffer", where)
        if buf >= len(buffers):
            raise GlbError(f"{where}.buffer: {buf}, but there are {len(buffers)} buffers")
        end = _int(view, "byteOffset", where, 0) + _int(view, "byteLength", where)
        if end > buffers[buf]["byteLength"]:
            raise GlbError(f"{where}: ends at byte {end}, past its buffer's {buffers[buf]['byteLength']}")
        if "byteStride" in view and not 4 <= _int(view, "byteStride", where) <= 252:
            raise GlbError(f"{where}.byteStride: expected 4 to 252")
    for i, acc in enumerate(doc.get("accessors", [])):
        where = f"accessors[{i}]"
        count = _int(acc, "count", where)
        if count > MAX_ELEMENTS:
            raise GlbError(f"{where}.count: {count}, over MAX_ELEMENTS ({MAX_ELEMENTS})")
        comp = _COMPONENTS.get(acc.get("componentType"))
        width = _TYPES.get(acc.get("type"))
        if comp is None or width is None:
            raise GlbError(f"{where}: componentType {acc.get('componentType')!r:.20} / "
                           f"type {acc.get('type')!r:.20} not known")
        if "sparse" in acc:
            raise GlbError(f"{where}: sparse accessors are not read")
        if "bufferView" not in acc:
            continue
        v = _int(acc, "bufferView", where)
        if v >= len(views):
            raise GlbError(f"{where}.bufferView: {v}, but there are {len(views)} buffer views")
        view = views[v]
        elem = comp[1] * width
        stride = view.get("byteStride", elem)
        need = _int(acc, "byteOffset", where, 0) + (stride * (count - 1) + elem if count else 0)
        if need > view["byteLength"]:
            raise GlbError(f"{where}: {count} elements need {need} bytes, past its buffer view's "
                           f"{view['byteLength']}")


def _index(table: dict[str, Any], key: str, where: str, target: str, doc: dict[str, Any]) -> None:
    if key in table:
        value = table[key]
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < len(doc.get(target, [])):
            raise GlbError(f"{where}.{key}: expected an index into {target}, got {value!r:.40}")


def _check_meshes(doc: dict[str, Any]) -> None:
    """The shapes summary and triangles rely on (glTF's own rules for them)."""
    accessors = doc.get("accessors", [])
    for i, mat in enumerate(doc.get("materials", [])):
        if not isinstance(mat.get("pbrMetallicRoughness", {}), dict):
            raise GlbError(f"materials[{i}].pbrMetallicRoughness: expected an object")
    for i, node in enumerate(doc.get("nodes", [])):
        _index(node, "mesh", f"nodes[{i}]", "meshes", doc)
        _index(node, "skin", f"nodes[{i}]", "skins", doc)
    for m, mesh in enumerate(doc.get("meshes", [])):
        prims = mesh.get("primitives", [])
        if not isinstance(prims, list) or not all(isinstance(p, dict) for p in prims):
            raise GlbError(f"meshes[{m}].primitives: expected an array of objects")
        for p, prim in enumerate(prims):
            where = f"meshes[{m}].primitives[{p}]"
            attrs = prim.get("attributes", {})
            if not isinstance(attrs, dict):
                raise GlbError(f"{where}.attributes: expected an object")
            for name in attrs:
                _index(attrs, name, f"{where}.attributes", "accessors", doc)
            if "POSITION" in attrs:
                acc = accessors[attrs["POSITION"]]
                if acc["componentType"] != 5126 or acc["type"] != "VEC3":
                    raise GlbError(f"{where}.attributes.POSITION: expected a float VEC3 accessor")
            _index(prim, "indices", where, "accessors", doc)
            if "indices" in prim:
                acc = accessors[prim["indices"]]
                # Unsigned integers only: no NaN, no negative index.
                if acc["componentType"] not in (5121, 5123, 5125) or acc["type"] != "SCALAR":
                    raise GlbError(f"{where}.indices: expected an unsigned integer SCALAR accessor")
            _index(prim, "material", where, "materials", doc)


def read_accessor(glb: Glb, index: int) -> list[tuple[float, ...]]:
    """The elements of accessor ``index`` (bounds checked by :func:`parse`)."""
    accessors = glb.doc.get("accessors", [])
    if not isinstance(index, int) or not 0 <= index < len(accessors):
        raise GlbError(f"accessor {index!r:.20} does not exist")
    acc = accessors[index]
    fmt, size = _COMPONENTS[acc["componentType"]]
    width = _TYPES[acc["type"]]
    count = acc["count"]
    if "bufferView" not in acc:
        return [(0.0,) * width] * count
    view = glb.doc["bufferViews"][acc["bufferView"]]
    base = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    stride = view.get("byteStride", size * width)
    unpack = struct.Struct("<" + fmt * width).unpack_from
    return [unpack(glb.bin, base + i * stride) for i in range(count)]


def _name(table: dict[str, Any], fallback: str) -> str:
    name = table.get("name")
    return name[:200] if isinstance(name, str) else fallback


def summary(glb: Glb) -> Summary:
    doc = glb.doc
    animations = []
    for i, anim in enumerate(doc.get("animations", [])):
        channels = anim.get("channels", [])
        samplers = anim.get("samplers", [])
        if not isinstance(channels, list) or not isinstance(samplers, list):
            raise GlbError(f"animations[{i}]: channels and samplers must be arrays")
        duration = 0.0
        for s in samplers:
            if not isinstance(s, dict):
                raise GlbError(f"animations[{i}].samplers: expected objects")
            acc = doc.get("accessors", [])[s.get("input")] if isinstance(s.get("input"), int) \
                and 0 <= s["input"] < len(doc.get("accessors", [])) else None
            if acc is None:
                raise GlbError(f"animations[{i}]: a sampler's input accessor does not exist")
            top = acc.get("max", [0.0])
            if isinstance(top, list) and top and isinstance(top[0], (int, float)) and math.isfinite(top[0]):
                duration = max(duration, float(top[0]))
        animations.append(GlbAnimation(_name(anim, f"animation_{i}"), len(channels), round(duration, 6)))
    joints = sum(len(s.get("joints", [])) if isinstance(s.get("joints"), list) else 0
                 for s in doc.get("skins", []))
    caller: list[dict[str, Any]] = []
    sockets: list[str] = []
    for node in doc.get("nodes", []):
        extras = node.get("extras")
        if not isinstance(extras, dict):
            continue
        tag = extras.get("tcab_joint")
        if isinstance(tag, str):  # Blender may export a dict property as a JSON string
            try:
                tag = json.loads(tag[:4096], parse_constant=_no_constant)
            except (ValueError, RecursionError):
                tag = None
        # The name is looked up by scoring: a list or an object there is no tag.
        if isinstance(tag, dict) and isinstance(tag.get("name"), str):
            caller.append({"node": _name(node, ""), **{k: tag[k] for k in
                          ("name", "kind", "axis", "min", "max", "rest") if k in tag}})
        if isinstance(extras.get("tcab_socket"), str):
            sockets.append(extras["tcab_socket"][:200])
    vertices = 0
    accessors = doc.get("accessors", [])
    for mesh in doc.get("meshes", []):
        for prim in mesh.get("primitives", []) if isinstance(mesh.get("primitives"), list) else []:
            pos = prim.get("attributes", {}).get("POSITION") if isinstance(prim, dict) else None
            if isinstance(pos, int) and 0 <= pos < len(accessors):
                vertices += accessors[pos]["count"]
    return Summary(len(doc.get("meshes", [])), len(doc.get("skins", [])), joints, vertices,
                   tuple(animations), tuple(caller), tuple(sockets))


def triangles(glb: Glb) -> list[tuple[list[tuple[float, ...]], list[int], tuple[float, float, float]]]:
    """Per primitive of every mesh: positions, triangle indices and the
    material's base colour (grey without one). Bounded by MAX_DECODED and
    MAX_TRIANGLES, each checked before the primitive is decoded (the shapes
    by :func:`parse`)."""
    doc = glb.doc
    materials = doc.get("materials", [])
    accessors = doc.get("accessors", [])
    out = []
    total = decoded = 0
    for m, mesh in enumerate(doc.get("meshes", [])):
        for prim in mesh.get("primitives", []):
            attrs = prim.get("attributes", {})
            if prim.get("mode", 4) != 4 or "POSITION" not in attrs:
                continue
            vertices = accessors[attrs["POSITION"]]["count"]
            count = accessors[prim["indices"]]["count"] if "indices" in prim else vertices
            decoded += vertices + count
            if decoded > MAX_DECODED:
                raise GlbError(f"meshes[{m}]: {decoded} accessor elements decoded, over MAX_DECODED ({MAX_DECODED})")
            total += count // 3
            if total > MAX_TRIANGLES:
                raise GlbError(f"over MAX_TRIANGLES ({MAX_TRIANGLES}) triangles")
            positions = read_accessor(glb, attrs["POSITION"])
            if "indices" in prim:
                indices = [int(i[0]) for i in read_accessor(glb, prim["indices"])]
            else:
                indices = list(range(len(positions)))
            indices = indices[: len(indices) - len(indices) % 3]
            if any(i >= len(positions) for i in indices):
                raise GlbError(f"meshes[{m}]: an index past its {len(positions)} positions")
            colour = (0.7, 0.7, 0.7)
            mat = prim.get("material")
            if mat is not None:
                factor = materials[mat].get("pbrMetallicRoughness", {}).get("baseColorFactor")
                if isinstance(factor, list) and len(factor) >= 3 and \
                        all(isinstance(c, (int, float)) and math.isfinite(c) for c in factor[:3]):
                    colour = tuple(min(1.0, max(0.0, float(c))) for c in factor[:3])  # type: ignore[assignment]
            out.append((positions, indices, colour))
    return out
