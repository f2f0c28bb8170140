"""PNG in and out, standard library only.

``encode`` is deterministic: 8-bit RGBA, filter 0 on every row, one IDAT,
zlib level 6, no ancillary chunk, so the same pixels give the same bytes
on the host and in the run image (both use Debian's zlib).

``decode`` reads a PNG someone else may have written (a model's preview)
within bounds: the signature, the chunk CRCs, the declared size against
``max_pixels`` before anything is inflated, the inflated size exactly what
the header implies (a zlib bomb stops at that many bytes), 8-bit colour
types 0/2/3/4/6, no interlace. It returns RGBA.
"""

from __future__ import annotations

import struct
import zlib

from tcab.draw.errors import PngError
from tcab.draw.limits import MAX_PNG_BYTES, MAX_PNG_CHUNKS, MAX_SIDE

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode(width: int, height: int, rgba: bytes | bytearray) -> bytes:
    """The PNG of ``width`` x ``height`` RGBA pixels (``rgba`` is row-major, 4 bytes each)."""
    stride = width * 4
    if width < 1 or height < 1 or len(rgba) != stride * height:
        raise PngError(f"encode: {width}x{height} needs {stride * height} bytes, got {len(rgba)}")
    raw = bytearray((stride + 1) * height)  # filter byte 0 starts each row
    view = memoryview(rgba)
    for y in range(height):
        start = y * (stride + 1) + 1
        raw[start:start + stride] = view[y * stride:(y + 1) * stride]
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(bytes(raw), 6)) \
        + _chunk(b"IEND", b"")


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(raw: bytes, width: int, height: int, bpp: int) -> bytearray:
    stride = width * bpp
    out = bytearray(stride * height)
    prev = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                up_left = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + _paeth(left, prev[i], up_left)) & 255
        elif kind != 0:
            raise PngError(f"row {y}: unknown filter type {kind}")
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return out


def decode(data: bytes, max_pixels: int) -> tuple[int, int, bytes]:
    """``(width, height, rgba)`` of the PNG ``data``; PngError when it is not
    one this reads or is over ``max_pixels`` (checked before inflating)."""
    if len(data) > MAX_PNG_BYTES:
        raise PngError(f"{len(data)} bytes: over the {MAX_PNG_BYTES}-byte limit")
    if not data.startswith(SIGNATURE):
        raise PngError("not a PNG (no PNG signature)")
    pos, chunks, header, palette, trns = len(SIGNATURE), 0, None, None, None
    inflater, raw, expected = None, bytearray(), 0
    while True:
        if pos + 8 > len(data):
            raise PngError("truncated: no IEND chunk")
        chunks += 1
        if chunks > MAX_PNG_CHUNKS:
            raise PngError(f"more than {MAX_PNG_CHUNKS} chunks")
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length or pos + 12 + length > len(data):
            raise PngError(f"truncated {kind!r} chunk")
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise PngError(f"{kind!r} chunk: bad CRC")
        pos += 12 + length
        if header is None:
            if kind != b"IHDR" or length != 13:
                raise PngError("the first chunk is not IHDR")
            width, height, depth, ctype, _comp, _filt, interlace = struct.unpack(">IIBBBBB", body)
            if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE) or width * height > max_pixels:
                raise PngError(f"{width}x{height} pixels: over the limit "
                               f"({MAX_SIDE} a side, {max_pixels} in all)")
            if depth != 8 or ctype not in _CHANNELS or interlace:
                raise PngError(f"unsupported PNG: bit depth {depth}, colour type {ctype}, "
                               f"interlace {interlace} (8-bit, no interlace only)")
            header = (width, height, ctype)
            expected = height * (1 + width * _CHANNELS[ctype])
            inflater = zlib.decompressobj()
        elif kind == b"PLTE":
            palette = body
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            try:
                raw += inflater.decompress(inflater.unconsumed_tail + body, expected + 1 - len(raw))
            except zlib.error as exc:
                raise PngError(f"IDAT: {exc}") from None
            if len(raw) > expected:
                raise PngError("IDAT inflates past the image's size")
        elif kind == b"IEND":
            break
    if header is None or len(raw) != expected:
        raise PngError(f"image data: {len(raw)} bytes, expected {expected}")
    width, height, ctype = header
    pixels = _unfilter(bytes(raw), width, height, _CHANNELS[ctype])
    return width, height, _to_rgba(pixels, width * height, ctype, palette, trns)


def _to_rgba(px: bytearray, count: int, ctype: int, palette: bytes | None, trns: bytes | None) -> bytes:
    if ctype == 6:
        return bytes(px)
    out = bytearray(count * 4)
    if ctype == 2:
        for c in range(3):
            out[c::4] = px[c::3]
        out[3::4] = b"\xff" * count
    elif ctype == 0:
        for c in range(3):
            out[c::4] = px
        out[3::4] = b"\xff" * count
    elif ctype == 4:
        for c in range(3):
            out[c::4] = px[0::2]
        out[3::4] = px[1::2]
    else:  # palette
        if palette is None or len(palette) % 3:
            raise PngError("palette image without a valid PLTE chunk")
        alpha = trns or b""
        table = [palette[i * 3:i * 3 + 3] + (alpha[i:i + 1] or b"\xff") for i in range(len(palette) // 3)]
        try:
            out = bytearray(b"".join(table[i] for i in px))
        except IndexError:
            raise PngError("palette index out of range") from None
    return bytes(out)
