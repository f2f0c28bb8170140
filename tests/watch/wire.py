"""A test's side of the preview wire: tiny PNGs and a client that follows the
protocol (the draw tool's client does the same, tcab/draw/live.py)."""

from __future__ import annotations

import json
import socket
import struct
import time
import zlib

from tcab.watch import Watch, WatchLimits


def png(width: int = 2, height: int = 2, rgba: bytes = b"\xff\x00\x00\xff") -> bytes:
    """A real RGBA PNG of one colour."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + rgba * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def header(token: str, body: bytes, **over) -> bytes:
    doc = {"token": token, "frame": None, "op": "fill-rect", "count": 1, "length": len(body), **over}
    return json.dumps(doc).encode() + b"\n"


def send(address: tuple[str, int], data: bytes, timeout: float = 5.0) -> None:
    """Send ``data`` on one connection and wait until the listener closes it."""
    with socket.create_connection(address, timeout=timeout) as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
            sock.recv(1)  # the listener writes nothing: this returns when it closes
        except OSError:  # reset at accept (ENOTCONN, EPIPE, ECONNRESET): the listener's answer
            pass


def wait_for(predicate, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting")
        time.sleep(0.01)


class Loopback:
    """A watch with one run's listener serving on 127.0.0.1 (tests only: a real
    run's listener binds the run network's gateway)."""

    def __init__(self, limits: WatchLimits | None = None, run_id: str = "run-1") -> None:
        self.watch = Watch(limits)
        self.run = self.watch.listener("127.0.0.1", run_id)
        self.token = self.run.live.token
        self.address = self.run.address
        self._listener = self.run._listener

    def __enter__(self) -> Loopback:
        self._listener.start()  # no firewall hole: loopback is not the run network
        return self

    def __exit__(self, *exc) -> None:
        self._listener.close()

    @property
    def board(self):
        return self.watch.board

    def handled(self) -> int:
        return self.board.accepted + sum(self.board.dropped.values())
