"""The preview listener of one watched run: a TCP socket on one host address.

It binds only the address it is given (the run network's gateway, which
only the run's containers can reach: never ``0.0.0.0``), reads one frame per
connection (:mod:`tcab.watch.frames`) and posts what passes to the watch's
:class:`~tcab.watch.board.Board`. It runs an asyncio loop in a thread of its
own, so the run's lifecycle never waits on it.

Every rule is enforced while reading, never after: the header line is read
through a stream whose buffer is capped, a declared body over the cap is
refused before one byte of it is read, each connection has one deadline for
its header and body, a connection past the cap on open connections is closed
as it is accepted, and a frame past the per-second cap is dropped before its
body is read. Memory is so bounded by ``max_connections`` x (header + body).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import socket
import struct
import threading
import time

from tcab.watch.board import Board
from tcab.watch.frames import Drop, check_glb, parse_header, png_size
from tcab.watch.limits import WatchLimits

_BACKLOG = 128


def _reset(conn: socket.socket) -> None:
    """Close with a reset (linger 0): no FIN handshake, no TIME_WAIT kept."""
    try:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    conn.close()


class Listener:
    """Listens on ``host`` for ``run_id``'s frames carrying ``token``.

    :meth:`bind` takes a free port (so the port can go into the run's
    workspace before anything is served), :meth:`start` serves, :meth:`close`
    stops and waits; it is also a context manager. Raises OSError from
    :meth:`bind` when the address is not one of this host's."""

    def __init__(self, host: str, board: Board, run_id: str, token: str, limits: WatchLimits) -> None:
        self.host, self.board, self.run_id = host, board, run_id
        self._token, self.limits = token, limits
        self._sock: socket.socket | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._open = 0
        self._recent: collections.deque[float] = collections.deque()
        #: The addresses a frame may come from (None: any). A run's listener
        #: takes none until its container's address is known, then that one.
        self.peers: frozenset[str] | None = None

    @property
    def port(self) -> int:
        if self._sock is None:
            raise RuntimeError("the listener is not bound")
        return self._sock.getsockname()[1]

    def bind(self) -> int:
        """Bind ``host`` on a free port and return the port."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, 0))
            sock.listen(_BACKLOG)
            sock.setblocking(False)
        except BaseException:
            sock.close()
            raise
        self._sock = sock
        return self.port

    def start(self) -> None:
        if self._sock is None:
            self.bind()
        self._thread = threading.Thread(target=self._serve, name=f"tcab-watch-{self.port}", daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def close(self) -> None:
        """Stop serving and close the socket (again: nothing)."""
        thread, self._thread = self._thread, None
        if thread is not None and self._loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                self._loop.call_soon_threadsafe(self._stop.set)
            thread.join(10)
        if self._sock is not None:
            self._sock.close()

    def __enter__(self) -> Listener:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the loop's thread ------------------------------------------------------

    def _serve(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        accepting = asyncio.ensure_future(self._accept())
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            # Connections still being read end with the listener: abort them.
            for task in [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]:
                task.cancel()
            await asyncio.gather(accepting, return_exceptions=True)

    async def _accept(self) -> None:
        """Accept for ever; a connection past the cap is reset at once, before
        any stream, buffer or task is made for it (a flood costs a syscall each)."""
        loop, sock = self._loop, self._sock
        tasks: set[asyncio.Task] = set()
        while True:
            try:
                conn, peer = await loop.sock_accept(sock)
            except OSError:  # out of descriptors, a reset in the queue: the next one may do
                await asyncio.sleep(0.01)
                continue
            peers = self.peers
            if peers is not None and peer[0] not in peers:
                _reset(conn)  # another container of the run network, or the host itself
                self.board.drop("wrong peer")
                continue
            if self._open >= self.limits.max_connections:
                _reset(conn)
                self.board.drop("too many connections")
                continue
            self._open += 1
            task = asyncio.ensure_future(self._connection(conn))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            # Let the connections already accepted read before the next accept:
            # a burst of frames (a sheet's render sends one per frame) is then
            # read as it comes instead of filling the cap with accepted sockets.
            await asyncio.sleep(0)

    async def _connection(self, conn: socket.socket) -> None:
        reason: str | None = "connection error"
        try:
            # The stream's limit caps its buffer while a header line is read.
            reader, writer = await asyncio.open_connection(sock=conn, limit=self.limits.max_header_bytes)
            try:
                async with asyncio.timeout(self.limits.read_timeout_s):
                    reason = await self._frame(reader)
            except TimeoutError:
                reason = "read timeout"
            finally:
                writer.transport.abort()  # nothing is ever written back; no lingering close
        except (ConnectionError, OSError):
            pass
        finally:
            self._open -= 1
            conn.close()
        if reason is not None:
            self.board.drop(reason)

    async def _frame(self, reader: asyncio.StreamReader) -> str | None:
        """Read and post one frame; the reason it was dropped, or None."""
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.LimitOverrunError:
            return "header too large"
        except asyncio.IncompleteReadError:
            return "header cut short"
        header = parse_header(line, self._token, self.limits)
        if isinstance(header, Drop):
            return header.reason
        if not self._take_rate_slot():
            return "over the frame rate"
        try:
            body = await reader.readexactly(header.length)
        except asyncio.IncompleteReadError:
            return "body cut short"
        size = png_size(body, self.limits)
        if isinstance(size, Drop):
            return size.reason
        mesh = b""
        if header.mesh_length:
            try:
                mesh = await reader.readexactly(header.mesh_length)
            except asyncio.IncompleteReadError:
                return "mesh cut short"
            bad = check_glb(mesh)
            if bad is not None:
                return bad.reason
        self.board.post(self.run_id, header.frame, header.op, header.count, size[0], size[1], body, mesh)
        return None

    def _take_rate_slot(self) -> bool:
        now = time.monotonic()
        while self._recent and now - self._recent[0] >= 1.0:
            self._recent.popleft()
        if len(self._recent) >= self.limits.max_frames_per_second:
            return False
        self._recent.append(now)
        return True
