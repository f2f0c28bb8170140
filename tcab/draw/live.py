"""The tool's side of the live preview: one frame per connection.

Protocol (the listener of ``tcab run --watch`` reads exactly this): connect
to the host and port of ``live.url``, write one JSON header line
``{"token": str, "frame": int|null, "op": str, "count": int, "length": int}\\n``,
then exactly ``length`` bytes of PNG, and close. Nothing is read back.
Best effort: any failure is swallowed, and the whole send is bounded by
``timeout`` seconds, so drawing never waits on the host.
"""

from __future__ import annotations

import json
import socket
import time

from tcab.draw.config import Live


def endpoint(url: str) -> tuple[str, int] | None:
    """``(host, port)`` of ``http://host:port/...``, or None when it is not of that form."""
    if not url.startswith("http://"):
        return None
    authority = url[len("http://"):].split("/", 1)[0]
    host, sep, port = authority.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host.strip("[]"), int(port)


def header(live: Live, frame: int | None, op: str, count: int, length: int) -> bytes:
    return (json.dumps({"token": live.token, "frame": frame, "op": op, "count": count, "length": length},
                       separators=(",", ":")) + "\n").encode()


def send_frame(live: Live, frame: int | None, op: str, count: int, png: bytes, timeout: float = 0.5) -> bool:
    """Send one preview frame; True when it was written whole. Never raises."""
    try:
        where = endpoint(live.url)
        if where is None:
            return False
        deadline = time.monotonic() + timeout
        with socket.create_connection(where, timeout=timeout) as sock:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            sock.sendall(header(live, frame, op, count, len(png)) + png)
        return True
    except Exception:  # best effort by contract: a listener that is gone never fails a drawing
        return False
