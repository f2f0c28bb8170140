"""One preview frame as it arrives: the header line and the PNG's own header.

The wire format (one TCP connection per frame; the draw tool's client,
tcab.draw.live, sends it)::

    {"token": str, "frame": int|null, "op": str, "count": int, "length": int[, "meshLength": int]}\\n
    <exactly length bytes of PNG>[<exactly meshLength bytes of a glTF binary>]

(the mesh is a voxel render's, tcab.voxel.live: :func:`check_glb` reads
only its 12-byte header; the page hands the bytes to three.js.)

:func:`parse_header` and :func:`check_png` return a :class:`Drop` for
anything off that format instead of raising: a bad frame is data (counted),
never an error of the listener.
"""

from __future__ import annotations

import hmac
import json
import re
import struct
import zlib
from dataclasses import dataclass

from tcab.watch.limits import WatchLimits

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_KEYS = frozenset({"token", "frame", "op", "count", "length"})
_MESH_KEYS = _KEYS | {"meshLength"}
GLB_MAGIC = b"glTF"
GLB_HEADER = 12
_OP = re.compile(r"[a-z][a-z0-9-]*\Z")
_COUNT_MAX = 2**53  # a JSON integer every reader agrees on
# The signature and the whole IHDR chunk: length, type, 13 bytes of data, CRC.
IHDR_END = len(PNG_SIGNATURE) + 8 + 13 + 4


@dataclass(frozen=True, slots=True)
class Drop:
    """Why a frame was dropped: a short reason, the counter's key."""

    reason: str


@dataclass(frozen=True, slots=True)
class Header:
    """A frame's header line, checked: every field typed and bounded."""

    frame: int | None
    op: str
    count: int
    length: int
    mesh_length: int = 0


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_header(line: bytes, token: str, limits: WatchLimits) -> Header | Drop:
    """The header of one frame, or why it is dropped. ``line`` is the bytes up
    to and including the newline (the caller has bounded it); the token is
    compared in constant time, before any other field is looked at."""
    try:
        doc = json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return Drop("header not JSON")
    if not isinstance(doc, dict) or set(doc) not in (_KEYS, _MESH_KEYS):
        return Drop("header keys")
    given = doc["token"]
    if not isinstance(given, str) or not hmac.compare_digest(given.encode("utf-8", "replace"),
                                                             token.encode("utf-8")):
        return Drop("wrong token")
    frame, op, count, length = doc["frame"], doc["op"], doc["count"], doc["length"]
    if frame is not None and not (_is_int(frame) and 0 <= frame < limits.max_frame_index):
        return Drop("bad frame index")
    if not (isinstance(op, str) and len(op) <= limits.max_op_chars and _OP.match(op)):
        return Drop("bad op")
    if not (_is_int(count) and 0 <= count <= _COUNT_MAX):
        return Drop("bad count")
    if not _is_int(length) or length < IHDR_END:
        return Drop("bad length")
    if length > limits.max_body_bytes:
        return Drop("body too large")
    mesh = doc.get("meshLength", 0)
    if not _is_int(mesh) or mesh < 0 or 0 < mesh < GLB_HEADER:
        return Drop("bad mesh length")
    if mesh > limits.max_mesh_bytes:
        return Drop("mesh too large")
    return Header(frame, op, count, length, mesh)


def check_glb(data: bytes) -> Drop | None:
    """Why a frame's mesh is dropped (not a glTF 2.0 binary whose header
    declares its own length), or None. Nothing past the header is decoded."""
    if len(data) < GLB_HEADER or data[:4] != GLB_MAGIC:
        return Drop("mesh not a glb")
    version, total = struct.unpack("<II", data[4:12])
    if version != 2 or total != len(data):
        return Drop("bad glb header")
    return None


def png_size(data: bytes, limits: WatchLimits) -> tuple[int, int] | Drop:
    """The width and height a PNG's IHDR declares, checked against the cap,
    or why it is dropped (no signature, no IHDR first, a bad CRC, a side of
    zero or over the cap). Only the header is decoded: the page hands the
    bytes to the browser as an image, never to a decoder of tcab's."""
    if not data.startswith(PNG_SIGNATURE):
        return Drop("not a PNG")
    head = data[len(PNG_SIGNATURE):IHDR_END]
    if len(head) < IHDR_END - len(PNG_SIGNATURE):
        return Drop("not a PNG")
    size, kind = struct.unpack(">I4s", head[:8])
    body, crc = head[8:21], struct.unpack(">I", head[21:25])[0]
    if size != 13 or kind != b"IHDR" or zlib.crc32(kind + body) != crc:
        return Drop("bad PNG header")
    width, height = struct.unpack(">II", body[:8])
    if not (0 < width <= limits.max_side and 0 < height <= limits.max_side):
        return Drop("image too large")
    return width, height
