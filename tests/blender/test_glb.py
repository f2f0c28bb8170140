"""The bounded glb reader (issue 23, bad input): a real Blender export read
and summarised, and hostile files refused by the bound they break, fast."""

from __future__ import annotations

import json
import math
import re
import struct
import time

import pytest

from tcab.blender import glb
from tests.blender.support import TRIANGLE_BIN, make_glb, triangle_doc


def test_a_real_export_is_summarised(scout_glb) -> None:
    summary = glb.summary(glb.parse(scout_glb))
    assert summary.meshes == 1 and summary.skins == 1 and summary.joints == 8
    assert summary.animation_names == ("death", "fire", "idle", "run")
    assert all(a.channels > 0 and a.duration > 0 for a in summary.animations)
    (joint,) = summary.caller_joints
    assert joint["name"] == "aim_pitch" and joint["axis"] == "x" and joint["node"] == "aim"
    assert joint["max"] == pytest.approx(0.5235987, rel=1e-6)  # 30 degrees, exported in radians
    assert summary.sockets == ("weapon_socket",)
    assert summary.provenance() == {"meshes": 1, "skinned": True, "animations": ["death", "fire", "idle", "run"]}


def test_a_well_formed_triangle_decodes() -> None:
    parsed = glb.parse(make_glb(triangle_doc(), TRIANGLE_BIN))
    ((positions, indices, colour),) = glb.triangles(parsed)
    assert positions[1] == (1.0, 0.0, 0.0) and indices == [0, 1, 2] and colour == (0.7, 0.7, 0.7)


@pytest.mark.parametrize(("doc", "binary", "message"), [
    (triangle_doc(count=4), TRIANGLE_BIN, "accessors[0]: 4 elements need 48 bytes, past its buffer view's 36"),
    (triangle_doc(count=10**9), TRIANGLE_BIN, "accessors[0].count: 1000000000, over MAX_ELEMENTS"),
    (triangle_doc(view_length=400, buffer_length=36), TRIANGLE_BIN, "bufferViews[0]: ends at byte 400"),
    (triangle_doc(buffer_length=4000), TRIANGLE_BIN, "buffers[0]: 4000 bytes, past the 36-byte BIN chunk"),
    ({**triangle_doc(), "buffers": [{"byteLength": 36, "uri": "http://x/y.bin"}]}, TRIANGLE_BIN, "external uri"),
    ({"nodes": [{}] * (glb.MAX_ENTRIES + 1)}, b"", "nodes: 65537 entries, over MAX_ENTRIES"),
    (b"[" * 1_000_000 + b"]" * 1_000_000, b"", "nested deeper than MAX_JSON_DEPTH"),
    (b'{"a": NaN}', b"", "does not parse"),
    (b"[1, 2]", b"", "not an object"),
], ids=["accessor-past-view", "claims-1e9-vertices", "view-past-buffer", "buffer-past-chunk", "external-uri",
        "1e5-nodes", "json-bomb-depth", "nan", "not-an-object"])
def test_hostile_glbs_are_refused_by_the_bound_they_break(doc, binary, message) -> None:
    start = time.perf_counter()
    with pytest.raises(glb.GlbError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        glb.parse(make_glb(doc, binary))
    assert time.perf_counter() - start < 5


def test_a_json_chunk_over_its_bound_is_refused_before_it_is_parsed() -> None:
    raw = json.dumps({"asset": {}, "pad": "x" * glb.MAX_JSON_BYTES}).encode()
    with pytest.raises(glb.GlbError, match="over MAX_JSON_BYTES"):
        glb.parse(make_glb(raw))


@pytest.mark.parametrize(("data", "message"), [
    (b"PK\x03\x04" + bytes(40), "no 'glTF' magic"),
    (b"glTF" + struct.pack("<II", 1, 20) + bytes(8), "version 1"),
    (b"glTF" + struct.pack("<II", 2, 999) + bytes(8), "header's length 999"),
    (b"glTF" + struct.pack("<II", 2, 28) + struct.pack("<II", 10**6, 0x4E4F534A) + bytes(8), "past the end"),
])
def test_broken_containers_are_refused(data, message) -> None:
    with pytest.raises(glb.GlbError, match=message):
        glb.parse(data)


def test_an_index_past_the_positions_is_refused() -> None:
    doc = triangle_doc()
    doc["bufferViews"].append({"buffer": 0, "byteLength": 12})
    doc["accessors"].append({"bufferView": 1, "componentType": 5125, "type": "SCALAR", "count": 3})
    doc["meshes"][0]["primitives"][0]["indices"] = 1
    binary = TRIANGLE_BIN + struct.pack("<3I", 0, 1, 7)
    doc["buffers"][0]["byteLength"] = len(binary)
    doc["bufferViews"][1]["byteOffset"] = 36
    with pytest.raises(glb.GlbError, match="an index past its 3 positions"):
        glb.triangles(glb.parse(make_glb(doc, binary)))


def test_the_export_passes_the_khronos_validator_and_the_voxel_reader(scout_glb, tmp_path) -> None:
    """What tcab-blend exports is a glTF the Khronos validator accepts, and
    tcab.gltf's reader (the voxel kinds') reads the same mesh."""
    from tcab.gltf.reader import read_glb
    from tests.support.gltf import assert_valid

    path = tmp_path / "character.glb"
    path.write_bytes(scout_glb)
    assert_valid(path)
    assert read_glb(str(path)).vertex_count == glb.summary(glb.parse(scout_glb)).vertices


def _indexed(edit=None, indices: bytes = struct.pack("<3I", 0, 1, 2)) -> bytes:
    """A coloured, indexed triangle on a node, ``edit``-ed (doc -> None) before it is written."""
    doc = triangle_doc()
    binary = TRIANGLE_BIN + indices
    doc["buffers"][0]["byteLength"] = len(binary)
    doc["bufferViews"].append({"buffer": 0, "byteOffset": 36, "byteLength": 12})
    doc["accessors"].append({"bufferView": 1, "componentType": 5125, "type": "SCALAR", "count": 3})
    doc["meshes"][0]["primitives"][0].update(indices=1, material=0)
    doc["materials"] = [{"pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]}}]
    doc["nodes"] = [{"mesh": 0}]
    if edit:
        edit(doc)
    return make_glb(doc, binary)


def _set(path: str, value):
    """An edit setting the doc's ``path`` ("meshes.0.primitives") to ``value``."""
    def edit(doc):
        *keys, last = [int(k) if k.isdigit() else k for k in path.split(".")]
        for key in keys:
            doc = doc[key]
        doc[last] = value
    return edit


def _accessor(component: int, kind: str = "SCALAR", count: int = 3):
    return _set("accessors.1", {"bufferView": 1, "componentType": component, "type": kind, "count": count})


@pytest.mark.parametrize(("data", "message"), [
    (_indexed(_set("meshes.0.primitives.0.attributes", [0])),
     "meshes[0].primitives[0].attributes: expected an object"),
    (_indexed(_set("materials.0.pbrMetallicRoughness", [1, 0, 0, 1])),
     "materials[0].pbrMetallicRoughness: expected an object"),
    (_indexed(_accessor(5126), struct.pack("<3f", math.nan, 0, 1)),
     "meshes[0].primitives[0].indices: expected an unsigned integer SCALAR accessor"),
    (_indexed(_accessor(5120), struct.pack("<3b", -1, 0, 1) + bytes(9)),
     "meshes[0].primitives[0].indices: expected an unsigned integer SCALAR accessor"),
    (_indexed(indices=struct.pack("<3I", 0, 1, 3)), "an index past its 3 positions"),
    (_indexed(_set("meshes.0.primitives.0.attributes.POSITION", 1)),
     "meshes[0].primitives[0].attributes.POSITION: expected a float VEC3 accessor"),
    (_indexed(_set("accessors.0.componentType", 5123)),
     "meshes[0].primitives[0].attributes.POSITION: expected a float VEC3 accessor"),
    (_indexed(_set("meshes.0.primitives", {"attributes": {"POSITION": 0}})),
     "meshes[0].primitives: expected an array of objects"),
    (_indexed(_set("nodes.0.mesh", "0")), "nodes[0].mesh: expected an index into meshes, got '0'"),
    (_indexed(_set("meshes.0.primitives.0.material", 5)),
     "meshes[0].primitives[0].material: expected an index into materials, got 5"),
], ids=["attributes-list", "pbr-list", "nan-indices", "negative-indices", "index-out-of-range",
        "position-scalar", "position-uint16", "primitives-object", "node-mesh-string", "material-past-end"])
def test_malformed_meshes_are_a_glb_error_naming_the_part(data, message) -> None:
    """What scoring and tcab-blend do with a glb (parse, summary, triangles,
    render) either works or raises GlbError: nothing else escapes."""
    from tcab.blender.render import render

    with pytest.raises(glb.GlbError, match=re.escape(message)):
        parsed = glb.parse(data)
        glb.summary(parsed)
        render(glb.triangles(parsed))


def test_the_well_formed_base_of_those_decodes() -> None:
    ((positions, indices, colour),) = glb.triangles(glb.parse(_indexed()))
    assert indices == [0, 1, 2] and colour == (1.0, 0.0, 0.0)


def test_primitives_sharing_one_large_accessor_are_refused_by_the_decode_budget() -> None:
    """One accessor is bounded by MAX_ELEMENTS, but every primitive may name
    it again: what triangles decodes is bounded over the whole file."""
    def edit(doc):
        doc["accessors"].append({"componentType": 5126, "type": "VEC3", "count": glb.MAX_ELEMENTS})
        doc["meshes"][0]["primitives"] = [{"attributes": {"POSITION": 2}, "indices": 1}] * 3
    with pytest.raises(glb.GlbError, match=r"over MAX_DECODED \(8000000\)"):
        glb.triangles(glb.parse(_indexed(edit)))


@pytest.mark.parametrize("tag", [{"name": ["aim_pitch"], "kind": "rotation"}, "[" * 4000, '{"name": NaN}'],
                         ids=["name-a-list", "deep-json-string", "nan-in-json-string"])
def test_a_tcab_joint_tag_that_is_no_joint_is_left_out(tag) -> None:
    """Scoring looks the tags up by name: a name that is not a string, or a
    JSON string too deep or not JSON, is no tag (never an exception)."""
    data = _indexed(_set("nodes.0.extras", {"tcab_joint": tag if isinstance(tag, str) else dict(tag)}))
    assert glb.summary(glb.parse(data)).caller_joints == ()
