"""Pod exec over WebSocket: the ``v4``/``v5.channel.k8s.io`` protocols,
bridged to a Podman exec on the pod's container.

Every frame is binary: one channel byte, then data (0 stdin, 1 stdout,
2 stderr, 3 status as a ``metav1.Status`` JSON; ``v5`` adds 255 "close
channel"). When the command ends the server sends its status on channel 3
and closes, as a kubelet does. ``Faults.stream_idle_timeout_s`` closes a
stream with no status after that long without a frame either way.

Output flows with backpressure, as a kubelet's blocking copy does: the
frames between Podman's socket and the WebSocket wait in a bounded queue,
so a client that reads slowly stops the reader thread, then Podman, then
the command's pipe in the container.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import socket
import struct
import threading
import time

from aiohttp import WSMsgType, web

from tests.kube_standin import node

STDIN, STDOUT, STDERR, STATUS, CLOSE = 0, 1, 2, 3, 255
#: Frames (Podman's, up to 64 KiB each) waiting for the WebSocket.
_QUEUE_FRAMES = 16


def status_frame(code: int | None) -> bytes:
    if code == 0:
        doc = {"metadata": {}, "status": "Success"}
    elif code is None:
        doc = {"metadata": {}, "status": "Failure", "reason": "InternalError",
               "message": "error executing command: the container is gone"}
    else:
        doc = {"metadata": {}, "status": "Failure", "reason": "NonZeroExitCode",
               "message": f"command terminated with non-zero exit code: exit status {code}",
               "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]}}
    return bytes([STATUS]) + json.dumps(doc).encode()


def _start(cid: str, command: list[str], stdin: bool):
    api = node.api()
    exec_id = api.exec_create(cid, command, stdin=stdin, stdout=True, stderr=True, tty=False)["Id"]
    sock = api.exec_start(exec_id, socket=True)
    return exec_id, sock._sock


def _read_frames(sock: socket.socket, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue,
                 gone: threading.Event) -> None:
    """Podman's multiplexed exec stream (8-byte headers) into ``queue``,
    blocking while it is full. Once ``gone`` is set (the WebSocket ended),
    read on and discard to the end: an unread exec stream keeps Podman from
    reaping the killed command, and the pod's container could not be
    removed (a kubelet's runtime reaps whatever its streams do). This thread
    owns ``sock`` and closes it."""

    def put(item) -> bool:
        future = asyncio.run_coroutine_threadsafe(queue.put(item), loop)
        while True:
            try:
                future.result(0.2)
                return True
            except concurrent.futures.TimeoutError:
                if gone.is_set():
                    future.cancel()
                    return False

    buf = b""
    try:
        while data := sock.recv(1 << 16):
            if gone.is_set():
                continue
            buf += data
            while len(buf) >= 8:
                kind, size = buf[0], struct.unpack(">I", buf[4:8])[0]
                if len(buf) < 8 + size:
                    break
                if not put((kind, buf[8:8 + size])):
                    buf = b""
                    break
                buf = buf[8 + size:]
    except OSError:
        pass
    finally:
        try:
            sock.close()
        except OSError:
            pass
    if not gone.is_set():
        put(None)


def _exit_code(exec_id: str) -> int | None:
    api = node.api()
    for _ in range(50):
        try:
            info = api.exec_inspect(exec_id)
        except Exception:  # noqa: BLE001 - the container was removed: killed with it
            return 137
        if not info.get("Running"):
            code = info.get("ExitCode")
            return int(code) if code is not None else None
        time.sleep(0.05)
    return None


async def handle_exec(request: web.Request, cid: str, faults) -> web.WebSocketResponse:
    query = request.query
    command = query.getall("command", [])
    stdin = query.get("stdin") == "true"
    ws = web.WebSocketResponse(protocols=faults.protocols, max_msg_size=0)
    await ws.prepare(request)
    if ws.ws_protocol is None:  # a kubelet refuses a client without a known protocol
        await ws.close(code=1002, message=b"no supported channel protocol")
        return ws
    loop = asyncio.get_running_loop()
    try:
        exec_id, sock = await loop.run_in_executor(None, _start, cid, command, stdin)
    except Exception as exc:  # noqa: BLE001 - e.g. the container vanished
        await ws.send_bytes(bytes([STATUS]) + json.dumps({"metadata": {}, "status": "Failure", "reason": "InternalError",
                                                          "message": f"error executing command: {exc}"}).encode())
        await ws.close()
        return ws
    queue: asyncio.Queue = asyncio.Queue(_QUEUE_FRAMES)
    gone = threading.Event()
    loop.run_in_executor(None, _read_frames, sock, loop, queue, gone)
    last = [time.monotonic()]

    async def pump_stdin() -> None:
        async for msg in ws:
            last[0] = time.monotonic()
            if msg.type != WSMsgType.BINARY or not msg.data:
                continue
            channel, data = msg.data[0], msg.data[1:]
            if channel == STDIN and data:
                try:
                    await loop.run_in_executor(None, sock.sendall, data)
                except OSError:  # the command's stream ended: what it did not read is lost
                    return
            elif channel == CLOSE and data[:1] == bytes([STDIN]) and ws.ws_protocol.startswith("v5"):
                try:
                    sock.shutdown(socket.SHUT_WR)
                except OSError:
                    pass

    stdin_task = asyncio.create_task(pump_stdin())
    idle = faults.stream_idle_timeout_s
    try:
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), 0.2)
            except TimeoutError:
                if ws.closed:
                    return ws
                if idle is not None and time.monotonic() - last[0] >= idle:
                    await ws.close()  # what the kubelet does: no status frame
                    return ws
                continue
            if item is None:
                break
            last[0] = time.monotonic()
            kind, data = item
            await ws.send_bytes(bytes([STDOUT if kind == 1 else STDERR]) + data)
        code = await loop.run_in_executor(None, _exit_code, exec_id)
        if not ws.closed:
            await ws.send_bytes(status_frame(code))
            await ws.close()
    except ConnectionResetError:
        pass
    finally:
        gone.set()  # the reader thread drains and closes the Podman stream
        stdin_task.cancel()
    return ws
