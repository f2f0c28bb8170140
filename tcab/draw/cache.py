"""The tool's render cache: a frame's canvas after its log, so that a call
applies only its new op instead of replaying every recorded one.

Keyed by the library version, the canvas, and the length and SHA-256 of
the log bytes it was drawn from. It lives in the run's workspace, where the
model could write it: only the tool's own preview ever comes from it (a
forged cache misleads the model's own preview, which the divergence check
then flags). Regeneration never reads it: it always replays the log.
"""

from __future__ import annotations

import os

try:  # the built-in module: hashlib would load OpenSSL (~10 ms of a fresh process)
    from _sha256 import sha256
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import sha256

from tcab.draw import VERSION
from tcab.draw.logs import write_atomic
from tcab.draw.raster import Surface

_MAGIC = b"tcab-draw-cache\n"


def path_for(config_path: str, frame: int | None) -> str:
    folder = os.path.join(os.path.dirname(os.path.abspath(config_path)), "draw-cache")
    return os.path.join(folder, "sprite.bin" if frame is None else f"frame-{frame}.bin")


def _key(config, log: bytes) -> bytes:
    """One header line (no json: a fresh process should not import it)."""
    return (f"{VERSION} {config.width}x{config.height} {config.background} {len(log)} "
            f"{sha256(log).hexdigest()}").encode()


def load(path: str, config, log: bytes) -> tuple[Surface, int] | None:
    """``(canvas, op count)`` drawn from exactly ``log``, or None (absent, stale, malformed)."""
    size = config.width * config.height * 4
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            if not f.read(len(_MAGIC)) == _MAGIC:
                return None
            key, _, count_text = f.readline(1024).rstrip(b"\n").rpartition(b" ")
            if key != _key(config, log) or not count_text.isdigit() or len(count_text) > 9:
                return None
            count = int(count_text)
            pixels = f.read(size + 1)
    except (OSError, ValueError):
        return None
    if len(pixels) != size:
        return None
    surface = Surface.__new__(Surface)
    surface.width, surface.height, surface.buf, surface.work = config.width, config.height, bytearray(pixels), 0
    return surface, count


def store(path: str, config, log: bytes, canvas: Surface, count: int) -> None:
    """Best effort: a cache that cannot be written only costs the next call a replay."""
    header = _key(config, log) + b" %d\n" % count
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, _MAGIC + header + bytes(canvas.buf))
    except OSError:
        pass
