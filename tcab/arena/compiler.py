"""Compile untrusted wasm in a worker process bounded in wall time and memory.

wasmtime compiles before fuel counts anything, and what a body does inside
the size the preflight admits (``tcab.arena.preflight``) can still be
expensive. So the host never compiles a controller itself: a worker process
(``python -S -E``, the same engine settings) runs under an address-space
limit (``RLIMIT_AS``) of ``compile_memory_bytes`` over its size at start,
receives the wasm on a pipe, compiles it and sends back the serialized
artifact. The host waits at most ``compile_seconds``;
past that, or when the worker dies (an allocation refused by the address
space limit aborts it), the worker is killed and the module refused.

Protocol, all integers little-endian::

    request   u64 length, wasm bytes
    response  status byte (b"O" compiled, b"E" invalid module), the sha256 of
              the bytes the worker compiled, u64 length, payload (the
              serialized module, or the error text)

``Module.deserialize`` trusts its input, so the host deserializes only a
payload from its own worker whose sha256 matches the bytes it sent. One
worker serves a host process (started on first use, restarted after any
failure, never shared with a forked child); a worker that dies after it has
already compiled other modules is replaced and the module tried once more
in the fresh one, so a verdict never depends on what was compiled before.
"""

from __future__ import annotations

import hashlib
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import tcab
from tcab.arena.preflight import LoadLimits, ModuleRejected

OK, INVALID = b"O", b"E"
MAX_ERROR_TEXT = 4096
_HEAD = 1 + 32 + 8


class _Failed(Exception):
    """The worker died or timed out; ``fresh`` says whether it was a new one."""

    def __init__(self, detail: str, fresh: bool, timed_out: bool):
        super().__init__(detail)
        self.fresh, self.timed_out = fresh, timed_out


class _Worker:
    def __init__(self, memory_bytes: int):
        import wasmtime  # slow import; the parent only needs its path for the worker

        paths = [str(Path(tcab.__file__).resolve().parents[1]), str(Path(wasmtime.__file__).resolve().parents[1])]
        boot = (f"import sys; sys.path[:0] = {paths!r}; "
                f"from tcab.arena.compiler import worker_main; worker_main({memory_bytes})")
        self.owner = os.getpid()
        self.memory_bytes = memory_bytes
        self.used = 0
        # -S -E: no site hooks, no PYTHON* variables; an empty environment: the
        # worker needs nothing of the host's.
        self.proc = subprocess.Popen([sys.executable, "-S", "-E", "-c", boot], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={},
                                     close_fds=True)

    def compile(self, wasm: bytes, seconds: float) -> tuple[bytes, bytes, bytes]:
        """Send ``wasm``; return (status, sha256, payload). Raises ``_Failed``."""
        deadline = time.monotonic() + seconds
        out = bytearray()
        need = _HEAD
        request = memoryview(len(wasm).to_bytes(8, "little") + wasm)
        stdin, stdout = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        os.set_blocking(stdin, False)
        with selectors.DefaultSelector() as sel:
            sel.register(stdin, selectors.EVENT_WRITE)
            sel.register(stdout, selectors.EVENT_READ)
            while len(out) < need:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self._fail(f"compiling took over {seconds:g} s, over the limit "
                                     f"compile_seconds={seconds:g}", timed_out=True)
                for key, _ in sel.select(left):
                    if key.fd == stdin:
                        try:
                            sent = os.write(stdin, request[:1 << 20])
                        except BrokenPipeError:
                            sent, request = 0, request[:0]
                        request = request[sent:]
                        if not request:
                            sel.unregister(stdin)
                        continue
                    chunk = os.read(stdout, max(need - len(out), 1 << 16))
                    if not chunk:
                        raise self._fail(self._death(), timed_out=False)
                    out += chunk
                    if need == _HEAD and len(out) >= _HEAD:
                        size = int.from_bytes(out[33:_HEAD], "little")
                        need = _HEAD + size
        self.used += 1
        return bytes(out[:1]), bytes(out[1:33]), bytes(out[_HEAD:need])

    def _death(self) -> str:
        code = self.proc.wait()
        how = f"died ({signal.Signals(-code).name})" if code < 0 else f"exited with status {code}"
        # Rust aborts when an allocation is refused, so a death is almost
        # always the address-space limit.
        return f"the compiler {how}, most likely over the limit compile_memory_bytes={self.memory_bytes}"

    def _fail(self, detail: str, timed_out: bool) -> _Failed:
        fresh = self.used == 0
        self.close()
        return _Failed(detail, fresh, timed_out)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass


_lock = threading.Lock()
_workers: dict[int, _Worker] = {}
# A module refused for its compile cost is refused again without another
# 20 s of work every time a tournament meets it in this process.
_refused: dict[tuple[bytes, float, int], str] = {}
MAX_REFUSED = 1024


def compile_serialized(wasm: bytes, limits: LoadLimits) -> bytes:
    """Compile ``wasm`` in the bounded worker and return the serialized module
    (for ``wasmtime.Module.deserialize`` on the engine of ``tcab.arena.engine``).

    Raises ``ModuleRejected`` for an invalid module (wasmtime's message), a
    compile over ``compile_seconds`` or a worker that died (over
    ``compile_memory_bytes``).
    """
    digest = hashlib.sha256(wasm).digest()
    key = (digest, limits.compile_seconds, limits.compile_memory_bytes)
    with _lock:
        if key in _refused:
            raise ModuleRejected(_refused[key])
        for attempt in (0, 1):
            worker = _workers.get(limits.compile_memory_bytes)
            if worker is None or worker.owner != os.getpid() or worker.proc.poll() is not None:
                worker = _workers[limits.compile_memory_bytes] = _Worker(limits.compile_memory_bytes)
            try:
                status, echoed, payload = worker.compile(wasm, limits.compile_seconds)
            except _Failed as failed:
                del _workers[limits.compile_memory_bytes]
                if failed.fresh or failed.timed_out or attempt:
                    if len(_refused) >= MAX_REFUSED:
                        _refused.clear()
                    _refused[key] = str(failed)
                    raise ModuleRejected(str(failed)) from None
                continue
            if echoed != digest:
                worker.close()
                del _workers[limits.compile_memory_bytes]
                raise RuntimeError("compile worker answered for other bytes than it was sent")
            if status == INVALID:
                raise ModuleRejected(payload.decode("utf-8", "replace"))
            return payload
    raise AssertionError("unreachable")


def close_workers() -> None:
    """Stop this process's compile workers (they also exit on their own when
    the host process ends and their stdin closes)."""
    with _lock:
        for memory_bytes, worker in list(_workers.items()):
            if worker.owner == os.getpid():
                worker.close()
            del _workers[memory_bytes]


def worker_main(memory_bytes: int) -> None:
    """The worker's loop (runs in the child): compile each request until EOF."""
    import resource

    import wasmtime

    from tcab.arena.wasm import get_engine  # slow import (wasmtime): the worker's own

    engine = get_engine()
    # The limit is set on top of what the interpreter, wasmtime and the engine
    # already reserve, so it measures what compiling costs.
    base = _address_space()
    resource.setrlimit(resource.RLIMIT_AS, (base + memory_bytes, base + memory_bytes))
    # fd 1 is the protocol; anything else printing goes to stderr.
    proto = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    while True:
        head = inp.read(8)
        if len(head) < 8:
            return
        wasm = inp.read(int.from_bytes(head, "little"))
        digest = hashlib.sha256(wasm).digest()
        try:
            payload, status = wasmtime.Module(engine, wasm).serialize(), OK
        except wasmtime.WasmtimeError as exc:
            payload, status = str(exc).encode("utf-8", "replace")[:MAX_ERROR_TEXT], INVALID
        proto.write(status + digest + len(payload).to_bytes(8, "little") + payload)
        proto.flush()


def _address_space() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")
