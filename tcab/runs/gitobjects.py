"""Reading the objects of a collected git repository, decompressed, to look
for secret values in them (a committed secret is zlib-compressed on disk, so
a plain scan of the bytes never sees it).

Loose objects (``objects/xx/<38 hex>``) are one zlib stream. A pack
(``objects/pack/*.pack``) is parsed object by object; deltas are applied to
their base, because a delta's own bytes may cut a value in two or copy it
together from pieces of its base. Everything is bounded by a
:class:`GitBudget` (decompressed bytes, objects, seconds): past a bound the
caller removes what it could not check.
"""

from __future__ import annotations

import hashlib
import re
import time
import zlib
from collections.abc import Callable, Iterator
from typing import BinaryIO

from tcab.runtime import CollectLimits

_CHUNK = 1 << 20
_LOOSE = re.compile(r"(^|/)objects/[0-9a-f]{2}/[0-9a-f]{38}$")
_PACK = re.compile(r"(^|/)objects/pack/[^/]+\.pack$")
_TYPES = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}
_OFS_DELTA, _REF_DELTA = 6, 7


class OverBudget(Exception):
    """A scan bound was reached; the message names it."""


class Unreadable(Exception):
    """The object file is not what git writes (truncated, bad delta)."""


class GitBudget:
    """What is left of the scan bounds for one collected tree."""

    def __init__(self, limits: CollectLimits):
        self.bytes = limits.max_git_bytes
        self.objects = limits.max_git_objects
        self.deadline = time.monotonic() + limits.max_git_scan_s
        self._limits = limits

    def spend(self, nbytes: int = 0, objects: int = 0) -> None:
        self.bytes -= nbytes
        self.objects -= objects
        if self.bytes < 0:
            raise OverBudget(f"over {self._limits.max_git_bytes} decompressed bytes")
        if self.objects < 0:
            raise OverBudget(f"over {self._limits.max_git_objects} objects")
        if time.monotonic() > self.deadline:
            raise OverBudget(f"over {self._limits.max_git_scan_s:g} s")


def kind(rel: str) -> str | None:
    """'loose', 'pack' or None for a path inside a collected tree."""
    if _LOOSE.search(rel):
        return "loose"
    if _PACK.search(rel):
        return "pack"
    return None


def loose_chunks(fh: BinaryIO, budget: GitBudget) -> Iterator[bytes]:
    """The decompressed bytes of a loose object, in bounded chunks."""
    d = zlib.decompressobj()
    pending = b""
    while not d.eof:
        if not pending:
            pending = fh.read(_CHUNK)
            if not pending:
                raise Unreadable("truncated zlib stream")
        try:
            out = d.decompress(pending, _CHUNK)
        except zlib.error as exc:
            raise Unreadable(f"not a zlib stream ({exc})") from None
        pending = d.unconsumed_tail
        budget.spend(len(out))
        if out:
            yield out
    budget.spend(objects=1)


class _PackReader:
    """A pack file read forward, with the offset of each byte."""

    def __init__(self, fh: BinaryIO):
        self._fh, self._buf, self.offset = fh, b"", 0

    def _fill(self) -> None:
        if not self._buf:
            self._buf = self._fh.read(_CHUNK)
            if not self._buf:
                raise Unreadable("pack ends early")

    def take(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            self._fill()
            piece, self._buf = self._buf[: n - len(out)], self._buf[n - len(out):]
            out += piece
        self.offset += n
        return out

    def byte(self) -> int:
        return self.take(1)[0]

    def inflate(self, size: int, budget: GitBudget) -> bytes:
        budget.spend(size)  # before inflating: a bomb is refused unread
        d = zlib.decompressobj()
        out = bytearray()
        while not d.eof:
            self._fill()
            before = len(self._buf)
            try:
                out += d.decompress(self._buf, size + 1 - len(out))
            except zlib.error as exc:
                raise Unreadable(f"bad zlib data in pack ({exc})") from None
            self._buf = d.unused_data if d.eof else d.unconsumed_tail
            self.offset += before - len(self._buf)
            if len(out) > size:
                raise Unreadable("object larger than its header says")
        if len(out) != size:
            raise Unreadable("object smaller than its header says")
        return bytes(out)


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if i >= len(data):
            raise Unreadable("delta ends early")
        c = data[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return value, i


def _apply_delta(base: bytes, delta: bytes, budget: GitBudget) -> bytes:
    src, i = _varint(delta, 0)
    size, i = _varint(delta, i)
    if src != len(base):
        raise Unreadable("delta does not fit its base")
    budget.spend(size)
    out = bytearray()
    while i < len(delta):
        op = delta[i]
        i += 1
        if op & 0x80:
            off = length = 0
            for k in range(4):
                if op & (1 << k):
                    off |= delta[i] << (8 * k)
                    i += 1
            for k in range(3):
                if op & (1 << (4 + k)):
                    length |= delta[i] << (8 * k)
                    i += 1
            out += base[off:off + (length or 0x10000)]
        elif op:
            out += delta[i:i + op]
            i += op
        else:
            raise Unreadable("bad delta opcode")
        if len(out) > size:
            raise Unreadable("delta result larger than it says")
    if len(out) != size:
        raise Unreadable("delta result smaller than it says")
    return bytes(out)


def pack_objects(fh: BinaryIO, budget: GitBudget) -> Iterator[bytes]:
    """Every object of a pack, whole (deltas applied), in pack order."""
    r = _PackReader(fh)
    if r.take(4) != b"PACK":
        raise Unreadable("not a git pack")
    version = int.from_bytes(r.take(4), "big")
    count = int.from_bytes(r.take(4), "big")
    if version not in (2, 3):
        raise Unreadable(f"pack version {version}")
    by_offset: dict[int, tuple[bytes, bytes]] = {}
    by_sha: dict[bytes, tuple[bytes, bytes]] = {}
    for _ in range(count):
        budget.spend(objects=1)
        start = r.offset
        c = r.byte()
        otype, size, shift = (c >> 4) & 7, c & 15, 4
        while c & 0x80:
            c = r.byte()
            size |= (c & 0x7F) << shift
            shift += 7
        if otype == _OFS_DELTA:
            c = r.byte()
            back = c & 0x7F
            while c & 0x80:
                c = r.byte()
                back = ((back + 1) << 7) | (c & 0x7F)
            base = by_offset.get(start - back)
        elif otype == _REF_DELTA:
            base = by_sha.get(r.take(20))
        elif otype in _TYPES:
            base = None
        else:
            raise Unreadable(f"object type {otype}")
        data = r.inflate(size, budget)
        if otype in (_OFS_DELTA, _REF_DELTA):
            if base is None:
                raise Unreadable("delta whose base is not in the pack")
            name, data = base[0], _apply_delta(base[1], data, budget)
        else:
            name = _TYPES[otype]
        by_offset[start] = (name, data)
        by_sha[hashlib.sha1(b"%s %d\0" % (name, len(data)) + data).digest()] = (name, data)
        yield data


def scan(chunks: Iterator[bytes], found_in: Callable[[bytes], str | None], overlap: int) -> str | None:
    """The first secret found in the concatenation of ``chunks`` (a value
    cut by a chunk boundary is found: the last ``overlap`` bytes are kept)."""
    tail = b""
    for chunk in chunks:
        window = tail + chunk
        hit = found_in(window)
        if hit:
            return hit
        tail = window[-overlap:]
    return None
