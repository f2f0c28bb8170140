"""Run one command in a container with hard time bounds and live output.

The command is started under ``setsid`` so it leads its own session and
process group, and writes that id to a pid file first. When the wall-clock
bound, the idle window or a cancel request fires, a second exec (as root)
SIGKILLs the whole group and session *inside the container*: the limit is
enforced where the process runs, not by abandoning a stream on the host.
Output read before the kill is kept.

The idle clock is reset only by output bytes: the engine's keep-alive
frames and empty chunks do not count, so a silent harness cannot look busy.

Output is hostile and may be endless (``yes``). The reader thread hands
chunks over through a bounded queue: when the consumer falls behind, the
reader blocks, the engine stops reading, and the command's pipe blocks in
the container, so tcab's memory stays flat whatever the rate. Each stream
passes ``ExecOptions.redact`` before it is cut into lines or a tail.
"""

from __future__ import annotations

import queue
import threading
import time
import uuid

from tcab.errors import RuntimeBackendError
from tcab.runtime.base import ExecEnd, ExecOptions, ExecResult

_END = object()
_MAX_LINE = 1 << 20  # a line longer than this is emitted in pieces
#: Chunks waiting for the consumer (the engine's frames are <= 8 KiB, so
#: about 2 MiB); beyond it the reader blocks instead of buffering.
_QUEUE_CHUNKS = 256
_POLL_S = 0.2
_DRAIN_S = 5.0  # how long to wait for the stream to close after a kill

_KILL_SCRIPT = (
    'p=$(cat "$1" 2>/dev/null); '
    'case "$p" in ""|*[!0-9]*) exit 0;; esac; '
    'kill -KILL -- "-$p" 2>/dev/null; pkill -KILL -s "$p" 2>/dev/null; exit 0'
)


class _Lines:
    """Splits one stream's bytes into lines for the sink and keeps a tail."""

    def __init__(self, name: str, options: ExecOptions):
        self.name = name
        self.sink = options.on_output
        self.filter = options.redact() if options.redact is not None else None
        self.tail_max = options.tail_bytes
        self.buf = bytearray()
        self.tail = bytearray()

    def feed(self, data: bytes) -> None:
        if self.filter is not None:
            data = self.filter.feed(data)
        self._keep(data)

    def _keep(self, data: bytes) -> None:
        self.tail += data
        if len(self.tail) > self.tail_max:
            del self.tail[: len(self.tail) - self.tail_max]
        if self.sink is None:
            return
        start = len(self.buf)  # only the new bytes can hold a newline
        self.buf += data
        while True:
            cut = self.buf.find(b"\n", start)
            start = 0
            if cut < 0:
                if len(self.buf) >= _MAX_LINE:
                    self._emit(bytes(self.buf[:_MAX_LINE]))
                    del self.buf[:_MAX_LINE]
                    continue
                return
            self._emit(bytes(self.buf[:cut]))
            del self.buf[: cut + 1]

    def flush(self) -> None:
        if self.filter is not None:
            self._keep(self.filter.flush())
        if self.sink is not None and self.buf:
            self._emit(bytes(self.buf))
            self.buf.clear()

    def _emit(self, raw: bytes) -> None:
        line = raw.decode("utf-8", errors="replace").rstrip("\r")
        self.sink(self.name, line, time.time())

    def text(self) -> str:
        return bytes(self.tail).decode("utf-8", errors="replace")


def _put(out: queue.Queue, item, stop: threading.Event) -> bool:
    """Block until ``item`` is queued (backpressure) or the consumer has gone."""
    while not stop.is_set():
        try:
            out.put(item, timeout=_POLL_S)
            return True
        except queue.Full:
            continue
    return False


def _pump(stream, out: queue.Queue, stop: threading.Event) -> None:
    try:
        for chunk in stream:
            if not _put(out, chunk, stop):
                # The consumer is done (after a kill): read on and discard
                # until the stream closes. An unread stream blocks the
                # engine's exec monitor, which then never reaps the killed
                # process, and removing the container fails.
                for _chunk in stream:
                    pass
                return
    except BaseException as exc:  # handed to the waiting thread
        _put(out, exc, stop)
    finally:
        _put(out, _END, stop)


def run_exec(api, container: str, argv: list[str], options: ExecOptions) -> ExecResult:
    """Run ``argv`` in ``container`` through docker-py's low-level ``api``.

    Returns an ExecResult for every way the command can end. Raises what
    docker-py raises when the engine fails (exec cannot be created, the
    stream breaks before the command ended on its own): the backend turns
    it into RuntimeBackendError. An exception of ``options.on_output`` (our
    code) passes through as it is.
    """
    if not argv:
        raise RuntimeBackendError("exec: empty command")
    pidfile = f"/tmp/.tcab-exec-{uuid.uuid4().hex[:16]}.pid"
    wrapped = ["setsid", "-w", "sh", "-c", 'echo $$ > "$0" && exec "$@"', pidfile, *argv]
    exec_id = api.exec_create(
        container, wrapped, stdout=True, stderr=True, stdin=False, tty=False,
        environment=dict(options.env) or None, workdir=options.workdir, user=options.user,
    )["Id"]
    start = time.monotonic()
    stream = api.exec_start(exec_id, stream=True, demux=True)
    chunks: queue.Queue = queue.Queue(maxsize=_QUEUE_CHUNKS)
    stop = threading.Event()
    reader = threading.Thread(target=_pump, args=(stream, chunks, stop), daemon=True)
    reader.start()
    try:
        return _consume(api, container, exec_id, pidfile, chunks, options, start)
    finally:
        # Output after this point (the backlog of a killed flood, or a
        # process that escaped the kill and keeps writing) is dropped.
        stop.set()


def _consume(api, container: str, exec_id: str, pidfile: str, chunks: queue.Queue,
             options: ExecOptions, start: float) -> ExecResult:
    out, err = _Lines("stdout", options), _Lines("stderr", options)
    deadline = start + options.timeout_s if options.timeout_s else None
    idle_s = options.idle_timeout_s
    last_output = start
    end = ExecEnd.EXITED
    failure: BaseException | None = None
    while True:
        try:
            item = chunks.get(timeout=_POLL_S)
        except queue.Empty:
            item = None
        if item is _END:
            break
        if isinstance(item, BaseException):
            failure = item
            break
        if item is not None:
            o, e = item
            if o:
                out.feed(o)
            if e:
                err.feed(e)
            if o or e:
                last_output = time.monotonic()
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            end = ExecEnd.TIMED_OUT
        elif idle_s is not None and now - last_output >= idle_s:
            end = ExecEnd.IDLE
        elif options.cancel is not None and options.cancel():
            end = ExecEnd.CANCELED
        if end is not ExecEnd.EXITED:
            _kill(api, container, pidfile)
            _drain(chunks, out, err)
            break
    out.flush()
    err.flush()
    duration = time.monotonic() - start
    exit_code = _exit_code(api, exec_id, wait=end is ExecEnd.EXITED)
    if failure is not None and exit_code is None:
        # The stream broke before the command ended: raised as it came, for
        # the backend to translate (a transport error) or to let through (a bug).
        failure.add_note("exec stream broke before the command ended")
        raise failure
    # The pid file stays in the container's /tmp: it is tiny and goes with
    # the container, and removing it would cost one more exec per command.
    return ExecResult(end=end, exit_code=exit_code, duration_s=duration, stdout=out.text(), stderr=err.text())


def _kill(api, container: str, pidfile: str) -> None:
    """SIGKILL the command's process group and session inside the container."""
    kid = api.exec_create(container, ["sh", "-c", _KILL_SCRIPT, "kill", pidfile], user="root")["Id"]
    api.exec_start(kid)


def _drain(chunks: queue.Queue, out: _Lines, err: _Lines) -> None:
    """Keep what the killed command wrote until its stream closes (bounded)."""
    until = time.monotonic() + _DRAIN_S
    while time.monotonic() < until:
        try:
            item = chunks.get(timeout=0.1)
        except queue.Empty:
            continue
        if item is _END or isinstance(item, BaseException):
            return
        o, e = item
        if o:
            out.feed(o)
        if e:
            err.feed(e)


def _exit_code(api, exec_id: str, *, wait: bool) -> int | None:
    # Podman may report the exec as running for a moment after its stream ends.
    for _ in range(50 if wait else 5):
        info = api.exec_inspect(exec_id)
        if not info.get("Running"):
            code = info.get("ExitCode")
            return int(code) if code is not None else None
        time.sleep(0.05)
    return None

