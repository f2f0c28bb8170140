"""PNG out (deterministic) and in (bounded: bombs, huge headers, non-PNGs),
checked against Pillow (tcab/draw/png.py)."""

from __future__ import annotations

import io
import struct
import time
import zlib

import pytest
from PIL import Image

from tcab.draw import blank_png, png
from tcab.draw.errors import PngError
from tcab.draw.limits import MAX_PIXELS


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png(width: int, height: int, idat: bytes, ctype: int = 6) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, 8, ctype, 0, 0, 0)
    return png.SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def test_encode_is_deterministic_and_pillow_reads_it() -> None:
    rgba = bytes(range(256)) * 3  # 192 pixels
    data = png.encode(16, 12, rgba)
    assert data == png.encode(16, 12, bytearray(rgba))
    image = Image.open(io.BytesIO(data))
    assert image.mode == "RGBA" and image.size == (16, 12) and image.tobytes() == rgba


def test_blank_png_is_the_background() -> None:
    data = blank_png(3, 2, "#10203080")
    assert png.decode(data, 100) == (3, 2, b"\x10\x20\x30\x80" * 6)
    assert png.decode(blank_png(2, 2, "transparent"), 100)[2] == b"\x00" * 16
    with pytest.raises(Exception, match="MAX_SIDE"):
        blank_png(10**6, 10**6, "transparent")


@pytest.mark.parametrize("mode", ["RGBA", "RGB", "L", "LA", "P"])
def test_decode_reads_what_pillow_writes_with_every_filter(mode: str) -> None:
    source = Image.new("RGBA", (23, 17))
    source.putdata([((x * 11) % 256, (y * 13) % 256, (x * y) % 256, 255 if mode not in ("RGBA", "LA") else (x * 7) % 256)
                    for y in range(17) for x in range(23)])
    image = source.convert(mode) if mode != "P" else source.convert("RGB").quantize(200)  # 8-bit palette (4-bit ones are refused by name)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False)  # Pillow picks adaptive filters per row
    width, height, rgba = png.decode(out.getvalue(), 10_000)
    assert (width, height) == (23, 17)
    assert rgba == image.convert("RGBA").tobytes()


def test_decode_refuses_what_is_not_a_png() -> None:
    for data, why in ((b"GIF89a....", "signature"), (b"", "signature"), (png.SIGNATURE, "truncated"),
                      (png.SIGNATURE + _chunk(b"IEND", b""), "IHDR")):
        with pytest.raises(PngError, match=why):
            png.decode(data, 100)
    good = png.encode(2, 2, b"\x01" * 16)
    broken = bytearray(good)
    broken[-20] ^= 0xFF  # inside the IDAT: its CRC no longer matches
    with pytest.raises(PngError, match="CRC"):
        png.decode(bytes(broken), 100)


def test_a_10k_by_10k_preview_is_refused_before_anything_is_inflated() -> None:
    bomb = zlib.compress(b"\x00" * (1 << 24))  # would inflate far past what this reads
    start = time.monotonic()
    with pytest.raises(PngError, match="over the limit"):
        png.decode(_png(10_000, 10_000, bomb), MAX_PIXELS)
    assert time.monotonic() - start < 1


def test_an_idat_that_inflates_past_the_declared_size_is_refused() -> None:
    bomb = zlib.compress(b"\x00" * (50 << 20), 9)  # 50 MB of zeros in ~50 kB
    with pytest.raises(PngError, match="past the image's size"):
        png.decode(_png(8, 8, bomb), 1000)
    with pytest.raises(PngError, match="expected"):
        png.decode(_png(8, 8, zlib.compress(b"\x00" * 10)), 1000)  # too short


def test_unsupported_depths_and_interlace_are_named() -> None:
    header = struct.pack(">IIBBBBB", 4, 4, 16, 6, 0, 0, 0)
    data = png.SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IEND", b"")
    with pytest.raises(PngError, match="bit depth 16"):
        png.decode(data, 100)
