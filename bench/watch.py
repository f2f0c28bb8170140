"""Watch benchmark: the preview listener against a bare server, side by side.

1. frames/s through the listener (every rule checked, the frame posted to
   the board) against a bare asyncio server that only reads the header line
   and ``length`` bytes of each connection, both fed by the draw tool's own
   client (tcab.draw.live.send_frame), one connection per frame, on loopback;
2. a flood: 10^4 connections opened and closed at once-held waves of 200,
   handled by the listener (reset past its cap of 8) against the bare server
   (which accepts and closes each).

Target: the listener within 2x the bare server's time on both.
Run: python bench/watch.py [--frames N]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tcab.draw.config import Live  # noqa: E402
from tcab.draw.live import send_frame  # noqa: E402
from tcab.draw.png import encode  # noqa: E402
from tcab.watch import Watch, WatchLimits  # noqa: E402


class Bare:
    """Reads a header line and its body per connection; checks nothing."""

    def __init__(self) -> None:
        self.count = 0
        self.sock = socket.create_server(("127.0.0.1", 0), backlog=128)
        self.port = self.sock.getsockname()[1]
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result()

    async def _start(self) -> None:
        await asyncio.start_server(self._one, sock=self.sock, limit=4096)

    async def _one(self, reader, writer) -> None:
        try:
            line = await reader.readuntil(b"\n")
            length = int(line.split(b'"length":')[1].split(b"}")[0]) if b'"length":' in line else 0
            await reader.readexactly(length)
        except Exception:  # noqa: BLE001 - a floor: it checks nothing
            pass
        self.count += 1
        writer.transport.abort()


def _wait(done, total: int) -> None:
    end = time.monotonic() + 60
    while done() < total and time.monotonic() < end:
        time.sleep(0.001)


def frames(address, token: str, n: int, image: bytes, done) -> float:
    live = Live(f"http://{address[0]}:{address[1]}/frame", token)
    t0 = time.perf_counter()
    for i in range(n):
        send_frame(live, i % 16, "fill-rect", i, image, timeout=5)
    _wait(done, n)
    return time.perf_counter() - t0


def flood(address, n: int, done) -> float:
    t0 = time.perf_counter()
    for _ in range(n // 200):
        held = []
        for _ in range(200):
            try:
                held.append(socket.create_connection(address, timeout=5))
            except OSError:
                pass
        for s in held:
            s.close()
    _wait(done, n * 0.95)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=2000)
    args = parser.parse_args()
    image = encode(64, 64, bytes(range(256)) * 64)
    watch = Watch(WatchLimits(max_frames_per_second=10**6, read_timeout_s=0.5))
    run = watch.listener("127.0.0.1", "bench")
    run._listener.start()  # loopback: no firewall hole to open
    bare = Bare()
    board = watch.board

    def handled() -> int:
        return board.accepted + sum(board.dropped.values())

    lt = frames(run.address, run.live.token, args.frames, image, handled)
    bt = frames(("127.0.0.1", bare.port), "x", args.frames, image, lambda: bare.count)
    assert board.accepted == args.frames, board.state()["dropped"]
    print(f"frames ({args.frames} x {len(image)} B PNG): listener {args.frames / lt:,.0f}/s, "
          f"bare {args.frames / bt:,.0f}/s, ratio {lt / bt:.2f}x (target <= 2x)")
    before, base = handled(), bare.count
    lf = flood(run.address, 10_000, lambda: handled() - before)
    bf = flood(("127.0.0.1", bare.port), 10_000, lambda: bare.count - base)
    print(f"flood (10^4 connections): listener {lf:.2f} s, bare {bf:.2f} s, ratio {lf / bf:.2f}x (target <= 2x); "
          f"dropped {dict(board.dropped)}")
    run.close()


if __name__ == "__main__":
    main()
