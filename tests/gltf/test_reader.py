"""The bounded .glb reader: honest files decode; hostile ones are refused by name, fast."""

import json
import struct
import time

import numpy as np
import pytest

from tcab.gltf.reader import GlbLimits, GltfError, read_glb
from tcab.gltf.writer import mesh_glb
from tcab.voxel.glbscene import scene_mesh
from tcab.voxel.log import op_line, replay_bytes
from tcab.voxel.mesh import mesh_volume
from tcab.voxel.render import render_png


def glb(doc: dict | bytes, binary: bytes = b"") -> bytes:
    text = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    binary += b"\0" * (-len(binary) % 4)
    body = struct.pack("<I4s", len(text), b"JSON") + text
    if binary:
        body += struct.pack("<I4s", len(binary), b"BIN\0") + binary
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


def triangle(count: int = 3, view_length: int = 36, buffer_length: int = 36, **accessor) -> dict:
    return {"asset": {"version": "2.0"}, "buffers": [{"byteLength": buffer_length}],
            "bufferViews": [{"buffer": 0, "byteLength": view_length}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": count, "type": "VEC3", **accessor}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}], "nodes": [{"mesh": 0}],
            "scenes": [{"nodes": [0]}]}


POINTS = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32).tobytes()


def test_reads_what_the_writer_wrote(tmp_path):
    vol = replay_bytes(op_line("fill-box", {"x0": 0, "y0": 0, "z0": 0, "x1": 2, "y1": 1, "z1": 0,
                                            "color": "#aa5500"}), (4, 4, 4))
    mesh = mesh_volume(vol)
    path = tmp_path / "m.glb"
    path.write_bytes(mesh_glb(mesh, "model"))
    doc = read_glb(str(path))
    assert doc.node_names == ["model"] and doc.vertex_count == len(mesh.positions)
    prim = doc.meshes[0][0]
    assert (prim.positions == mesh.positions).all() and (prim.indices == mesh.indices).all()
    assert (prim.colors == mesh.colors).all()
    again = scene_mesh(doc)
    assert render_png(again, "iso", (4, 4, 4)) == render_png(mesh, "iso", (4, 4, 4))
    path.write_bytes(glb(triangle(), POINTS))
    assert read_glb(str(path)).meshes[0][0].indices.tolist() == [0, 1, 2]


@pytest.mark.parametrize(("doc", "binary", "message"), [
    (triangle(view_length=360, buffer_length=360), POINTS, "past the BIN chunk"),
    (triangle(view_length=36, buffer_length=36, byteOffset=12), POINTS, "past its buffer view"),
    (triangle(count=10 ** 9), POINTS, "over the limit of 16777216 (max_count)"),
    (triangle(count=1_000_000, view_length=36), POINTS, "past its buffer view"),
    ({**triangle(), "buffers": [{"byteLength": 36, "uri": "data:application/octet-stream;base64,AAAA"}]}, POINTS,
     "no external or data: URI"),
    ({**triangle(), "buffers": [{"byteLength": 36, "uri": "../../etc/passwd"}]}, POINTS, "uri"),
    ({**triangle(), "nodes": [{"mesh": 0, "children": [1]}, {"children": [0]}]}, POINTS, "two parents|cycle"),
    ({**triangle(), "nodes": [{"mesh": 7}]}, POINTS, "nodes[0].mesh"),
    ({**triangle(), "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                                   "sparse": {}}]}, POINTS, "sparse"),
    ({**triangle(), "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 0}]}]}, POINTS,
     "float indices"),
    (triangle(), np.array([[0, 0, 0], [np.nan, 0, 0], [0, 1, 0]], np.float32).tobytes(), "not finite"),
])
def test_hostile_files_are_refused_by_name(tmp_path, doc, binary, message):
    path = tmp_path / "bad.glb"
    path.write_bytes(glb(doc, binary))
    with pytest.raises(GltfError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]") if "|" not in message else message) as info:
        read_glb(str(path))
    assert str(path) in str(info.value)


def test_json_bombs_are_refused_before_parsing(tmp_path):
    path = tmp_path / "bomb.glb"
    start = time.monotonic()
    path.write_bytes(glb(b"[" * 1_000_000 + b"]" * 1_000_000))
    with pytest.raises(GltfError, match="max_depth"):
        read_glb(str(path))
    path.write_bytes(glb({"asset": {"version": "2.0"}, "nodes": [{}] * 200_000}))
    with pytest.raises(GltfError, match="max_list"):
        read_glb(str(path))
    path.write_bytes(glb(b'{"a":"' + b"x" * (17 << 20) + b'"}'))
    with pytest.raises(GltfError, match="max_json_bytes"):
        read_glb(str(path))
    with pytest.raises(GltfError, match="max_bytes"):
        read_glb(str(path), GlbLimits(max_bytes=1 << 20))
    assert time.monotonic() - start < 20


def test_truncated_and_foreign_files(tmp_path):
    path = tmp_path / "x.glb"
    data = glb(triangle(), POINTS)
    for bad, message in ((data[:-8], "declares"), (b"PK\x03\x04" + data[4:], "not a glTF 2.0"), (b"glTF", "short")):
        path.write_bytes(bad)
        with pytest.raises(GltfError, match=message):
            read_glb(str(path))
    link = tmp_path / "link.glb"
    link.symlink_to(path)
    with pytest.raises(GltfError, match="symbolic link"):
        read_glb(str(link))


def _nodes_glb(nodes: list[dict]) -> bytes:
    return glb({"asset": {"version": "2.0"}, "nodes": nodes})


def _lines_run(path: str) -> int:
    """The lines of tcab/gltf/reader.py that ``read_glb(path)`` executes; a
    quadratic check is stopped at the budget rather than waited for."""
    import sys

    from tcab.gltf import reader

    budget, count = 64 * (1 << 16), [0]

    def local(frame, event, arg):
        if event == "line":
            count[0] += 1
            if count[0] > budget:
                raise AssertionError(f"over {budget} lines: not linear in the node count")
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename == reader.__file__ else None

    sys.settrace(calls)
    try:
        read_glb(path)
    finally:
        sys.settrace(None)
    return count[0]


@pytest.mark.parametrize("shape", ["chain", "flat"])
def test_a_tree_of_65536_nodes_is_checked_in_linear_work(tmp_path, shape):
    n = 1 << 16  # max_list: the most nodes a file may have
    if shape == "chain":
        nodes = [{"children": [i + 1]} for i in range(n - 1)] + [{}]
    else:
        nodes = [{"children": list(range(1, n))}] + [{}] * (n - 1)
    path = tmp_path / "tree.glb"
    path.write_bytes(_nodes_glb(nodes))
    assert _lines_run(str(path)) <= 64 * n
    nodes[-1] = {"children": [0]}  # the chain closed into a ring; the flat list's last leaf holding its root
    path.write_bytes(_nodes_glb(nodes))
    with pytest.raises(GltfError, match=r"nodes\[\d+\].*cycle|two parents"):
        _lines_run(str(path))


@pytest.mark.parametrize(("nodes", "message"), [
    ([{"children": [1]}, {"children": [2]}, {"children": [0]}], r"nodes\[[012]\]: the node hierarchy is a cycle"),
    ([{"children": [2]}, {"children": [2]}, {}], r"nodes\[1\]\.children: node 2 has two parents"),
    ([{"children": [0]}], r"nodes\[0\]\.children: node 0 .*its own child"),
    ([{"children": [1, 1]}, {}], r"nodes\[0\]\.children: node 1 has two parents"),
    ([{"children": [1]}, {}, {"children": [3]}, {"children": [2]}], r"nodes\[(2|3)\]: the node hierarchy is a cycle"),
])
def test_cycles_and_second_parents_are_refused_by_node(tmp_path, nodes, message):
    path = tmp_path / "tree.glb"
    path.write_bytes(_nodes_glb(nodes))
    with pytest.raises(GltfError, match=message):
        read_glb(str(path))


def test_a_stride_shorter_than_its_element_is_refused_by_name(tmp_path):
    doc = triangle()
    doc["bufferViews"][0]["byteStride"] = 4  # a VEC3 of floats is 12 bytes: the elements would overlap
    path = tmp_path / "stride.glb"
    path.write_bytes(glb(doc, POINTS))
    with pytest.raises(GltfError, match=r"accessors\[0\]: bufferViews\[0\]\.byteStride 4 is shorter than its "
                                        r"12-byte element") as info:
        read_glb(str(path))
    assert str(path) in str(info.value)
    doc["bufferViews"][0]["byteStride"] = 12
    path.write_bytes(glb(doc, POINTS))
    assert read_glb(str(path)).meshes[0][0].positions.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
