"""The tool's side of the live preview of a watched voxel run: one frame per connection.

The protocol of tcab/draw/live.py with the mesh after the PNG: connect to
the host and port of ``live.url``, write one JSON header line ``{"token":
str, "frame": int, "op": "render", "count": int, "length": int,
"meshLength": int}\\n``, then ``length`` bytes of PNG, then ``meshLength``
bytes of the part's .glb, and close. ``frame`` is the part's index in the
rig (0 for a static model); ``count`` is the part's op count. A PNG-only
listener reads ``length`` bytes and ignores the rest. Best effort: any
failure is swallowed, and a whole ``render`` call spends at most
``BUDGET_S`` on sending.
"""

from __future__ import annotations

import json
import socket
import time

BUDGET_S = 0.5
MAX_LIVE_CHARS = 512


def check_live(live: object) -> str | None:
    """Why a config's ``live`` is refused, or None."""
    if not isinstance(live, dict) or set(live) != {"url", "token"}:
        return "expected an object with exactly url and token"
    if not isinstance(live["url"], str) or endpoint(live["url"]) is None or len(live["url"]) > MAX_LIVE_CHARS:
        return f"url: expected http://host:port/..., got {live['url']!r}"[:160]
    if not isinstance(live["token"], str) or not 1 <= len(live["token"]) <= MAX_LIVE_CHARS:
        return "token: expected a non-empty string"
    return None


def endpoint(url: str) -> tuple[str, int] | None:
    if not url.startswith("http://"):
        return None
    authority = url[len("http://"):].split("/", 1)[0]
    host, sep, port = authority.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host.strip("[]"), int(port)


class Sender:
    """Sends the frames of one call within one budget; stops at the first failure."""

    def __init__(self, live: dict | None) -> None:
        self.live = live
        self.deadline = time.monotonic() + BUDGET_S
        self.broken = live is None

    def send(self, frame: int, count: int, png: bytes, glb: bytes) -> bool:
        if self.broken:
            return False
        left = self.deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            header = json.dumps({"token": self.live["token"], "frame": frame, "op": "render", "count": count,
                                 "length": len(png), "meshLength": len(glb)}, separators=(",", ":"))
            with socket.create_connection(endpoint(self.live["url"]), timeout=left) as sock:
                sock.settimeout(max(0.01, self.deadline - time.monotonic()))
                sock.sendall(header.encode() + b"\n" + png + glb)
            return True
        except Exception:  # best effort by contract: a listener that is gone never fails a render
            self.broken = True
            return False
