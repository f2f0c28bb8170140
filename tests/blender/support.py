"""What the Blender tests share: a GLB writer for hostile files, tin-scout's
reference build.py run through tcab-blend in a real container of the
Blender image, and the config the case seeds."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from tcab.catalog import load_version
from tests.support.paths import REPO

TIN_SCOUT = REPO / "test-cases/asset-generation/medium/tin-scout/v1.0.0"
SIEGE = REPO / "tests/fixtures/catalogs/original/asset-generation/hard/siege-rifleman/v1.0.0"
REFERENCE_BUILD = TIN_SCOUT / "solution/build.py"


def load(root: Path):
    case, found = load_version(root)
    assert found == [] and case is not None, found
    return case


def make_glb(doc: dict | bytes, binary: bytes = b"") -> bytes:
    """A GLB of ``doc`` (a dict, or raw JSON bytes) and ``binary``, as written."""
    raw = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    raw += b" " * (-len(raw) % 4)
    binary += b"\0" * (-len(binary) % 4)
    chunks = struct.pack("<II", len(raw), 0x4E4F534A) + raw
    if binary:
        chunks += struct.pack("<II", len(binary), 0x004E4942) + binary
    return b"glTF" + struct.pack("<II", 2, 12 + len(chunks)) + chunks


def triangle_doc(count: int = 3, view_length: int = 36, buffer_length: int = 36) -> dict:
    return {"asset": {"version": "2.0"},
            "buffers": [{"byteLength": buffer_length}],
            "bufferViews": [{"buffer": 0, "byteLength": view_length}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "type": "VEC3", "count": count}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]}


TRIANGLE_BIN = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)


def rebuild(rt, section, script: bytes, tmp: Path) -> tuple[bytes | None, str]:
    """``script`` run by tcab-blend in a fresh offline container, as provenance does."""
    from tcab.testtypes.asset_blender import container_rebuild

    return container_rebuild(rt, "test", tmp)(section, script)


def config_of(section) -> dict:
    return json.loads(section.config())


def large_triangles_glb(count: int) -> bytes:
    """A small GLB of ``count`` triangles that each cover most of the frame
    (one triangle's three vertices, indexed ``count`` times)."""
    binary = struct.pack("<9f", -1, -1, 0, 1, -1, 0, 0, 1, 0) + struct.pack(f"<{3 * count}I", *(0, 1, 2) * count)
    doc = {"asset": {"version": "2.0"},
           "buffers": [{"byteLength": len(binary)}],
           "bufferViews": [{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36,
                                                              "byteLength": 12 * count}],
           "accessors": [{"bufferView": 0, "componentType": 5126, "type": "VEC3", "count": 3},
                         {"bufferView": 1, "componentType": 5125, "type": "SCALAR", "count": 3 * count}],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}]}
    return make_glb(doc, binary)
