"""Run one command in a pod over the API's exec WebSocket.

Kubernetes exec has no user, working directory or environment parameter,
and the command line travels in the request URL (which API server audit
logs record). So the command is wrapped in a small ``sh`` script that reads
the environment from stdin (``head -c N``: it never waits for an EOF, which
the ``v4.channel.k8s.io`` protocol cannot send), changes to the working
directory, and starts the command under ``setsid`` with its pid file, as
:mod:`tcab.runtime.exec` does for the docker backend: secrets never appear
on a command line or in a URL.

On timeout, idle window or cancel a second exec SIGKILLs the whole process
group and session *inside the pod* (the pod's single user owns every
process, so no root is needed).

Output is hostile and may be endless (``yes``). The client library's
``WSClient.update`` reads every frame already waiting before it returns,
so a flood kept it reading (and buffering) forever, past any deadline.
:class:`ExecStream` reads frames itself, at most ``_POLL_BYTES`` per poll:
what it has not read waits in the socket, so the server's writes block and
the command's pipe fills in the pod (backpressure, as the docker backend's
bounded queue). What it read reaches the sink in ``_SLICE``-byte pieces
with the clock asked between them, so a slow sink cannot hold the loop
past its deadline either. The exit code comes from the status
channel (3); a stream that closes without one is a backend failure (what a
kubelet does at its ``streamingConnectionIdleTimeout``), never a result.

Opening the stream is bounded too (:func:`bound_exec_handshake`): the
client library connects its WebSocket with no timeout at all, so a kubelet
or proxy that accepts the connection and never answers the upgrade would
hold the run forever.
"""

from __future__ import annotations

import json
import re
import select
import shlex
import ssl
import time
import uuid

from tcab.errors import RuntimeBackendError
from tcab.runtime.base import ExecEnd, ExecOptions, ExecResult
from tcab.runtime.exec import _KILL_SCRIPT, _Lines

STDIN, STDOUT, STDERR, STATUS, CLOSE = 0, 1, 2, 3, 255
_POLL_S = 0.2
#: After a timeout, idle window or cancel: how long the kill, then the
#: killed command's last output, may take together before the result is in.
_DRAIN_S = 5.0
#: Bytes one poll reads at most; the rest waits in the socket (backpressure).
_POLL_BYTES = 1 << 16
#: Bytes handed to a sink between two looks at the clock.
_SLICE = 1 << 10
#: A frame that has begun must arrive within this (a stalled server is a dropped stream).
_FRAME_S = 60.0
_STATUS_MAX = 1 << 16  # a Status document is small; more is not kept
#: Connecting an exec WebSocket and its upgrade handshake must finish within this.
CONNECT_S = 30.0
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# $0 pid file, $1 workdir, $2 bytes of environment script on stdin, then argv.
_WRAPPER = (
    'p=$0; d=$1; n=$2; shift 2; '
    'if [ "$n" -gt 0 ]; then e=$(head -c "$n") || exit 126; eval "$e"; fi; '
    'cd "$d" || exit 126; '
    'exec setsid -w sh -c \'echo $$ > "$0" && exec "$@"\' "$p" "$@" </dev/null'
)


def env_script(env) -> bytes:
    """``export K='v'`` lines for ``env``; names are checked, values quoted."""
    lines = []
    for key, value in env.items():
        if not _ENV_NAME.fullmatch(key):
            raise RuntimeBackendError(f"exec: {key!r} is not a valid environment variable name")
        lines.append(f"export {key}={shlex.quote(str(value))}\n")
    return "".join(lines).encode()


def wrap(argv: list[str], options: ExecOptions, pidfile: str, env_bytes: int) -> list[str]:
    return ["sh", "-c", _WRAPPER, pidfile, options.workdir, str(env_bytes), *argv]


def parse_status(raw: bytes | str) -> tuple[int | None, str]:
    """(exit code, message) from a channel-3 ``Status``; code None when the
    failure is not a command's exit (the message says what it was)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    try:
        doc = json.loads(text)
    except ValueError:
        return None, f"unreadable status frame {text[:200]!r}"
    if doc.get("status") == "Success":
        return 0, ""
    if doc.get("reason") == "NonZeroExitCode":
        for cause in (doc.get("details") or {}).get("causes") or []:
            if cause.get("reason") == "ExitCode":
                try:
                    return int(cause.get("message")), ""
                except (TypeError, ValueError):
                    break
    return None, str(doc.get("message") or doc.get("reason") or text[:200])


_bounded_class = None


def bound_exec_handshake() -> None:
    """Give the client library's exec WebSockets a connect and handshake timeout.

    ``kubernetes.stream.ws_client.create_websocket`` builds a
    ``websocket.WebSocket`` and connects it with no ``timeout`` (so the socket
    blocks forever), and none of its options can be passed through
    ``stream()``. So the class that module uses is replaced, once, by a
    subclass whose ``connect`` defaults ``timeout`` to ``CONNECT_S`` (read at
    each connect). :class:`ExecStream` then sets its own per-frame bound.
    """
    global _bounded_class
    from kubernetes.stream import ws_client

    if _bounded_class is None:
        class BoundedWebSocket(ws_client.WebSocket):
            def connect(self, url, **options):
                options.setdefault("timeout", CONNECT_S)
                return super().connect(url, **options)

        _bounded_class = BoundedWebSocket
    ws_client.WebSocket = _bounded_class


def _dropped() -> tuple[type[BaseException], ...]:
    """What a dropped or broken exec WebSocket raises (a bug in the reading code is not one of them)."""
    from websocket import WebSocketException

    return (WebSocketException, OSError)


class ExecStream:
    """One exec WebSocket, read from the calling thread only, a frame at a
    time (never through ``WSClient.update``, which reads all that waits)."""

    def __init__(self, ws):
        self.ws = ws
        self.status = b""
        if ws.sock is not None:
            ws.sock.settimeout(_FRAME_S)

    def poll(self, timeout: float, max_bytes: int = _POLL_BYTES) -> tuple[bytes, bytes]:
        """Wait up to ``timeout`` for a frame, then read the frames already
        waiting until ``max_bytes``; return the (stdout, stderr) bytes read."""
        out, err = bytearray(), bytearray()
        wait = timeout
        try:
            while self.open and len(out) + len(err) < max_bytes and self._readable(wait):
                wait = 0
                self._read_frame(out, err)
        except _dropped():  # a dropped socket: treated as closed, judged by the status
            self.ws._connected = False
        return bytes(out), bytes(err)

    def _readable(self, timeout: float) -> bool:
        sock = self.ws.sock
        if sock is None or not sock.connected:
            self.ws._connected = False
            return False
        raw = sock.sock
        if isinstance(raw, ssl.SSLSocket) and raw.pending():
            return True  # decrypted bytes already read off the socket: poll() cannot see them
        poller = select.poll()
        poller.register(raw, select.POLLIN)
        return bool(poller.poll(max(0.0, timeout) * 1000))

    def _read_frame(self, out: bytearray, err: bytearray) -> None:
        from websocket import ABNF

        op, frame = self.ws.sock.recv_data_frame(True)
        if op == ABNF.OPCODE_CLOSE:
            self.ws._connected = False
            return
        if op not in (ABNF.OPCODE_BINARY, ABNF.OPCODE_TEXT):
            return  # ping and pong: the library answers pings itself
        data = frame.data.encode() if isinstance(frame.data, str) else frame.data
        if not data or data[0] == CLOSE:  # v5 "close channel": only stdin's matters, and we close it
            return
        channel, payload = data[0], data[1:]
        if channel == STDOUT:
            out += payload
        elif channel == STDERR:
            err += payload
        elif channel == STATUS:
            self.status = (self.status + payload)[:_STATUS_MAX]

    @property
    def open(self) -> bool:
        return self.ws.is_open()

    def send(self, data: bytes, chunk: int = 1 << 18) -> None:
        for i in range(0, len(data), chunk):
            self.ws.write_channel(STDIN, data[i:i + chunk])

    def offer(self, data: bytes) -> bool:
        """Send ``data`` unless the stream is gone (a command that ended reads nothing more); False then."""
        try:
            self.send(data)
            return True
        except _dropped():
            return False

    def close(self) -> None:
        try:
            self.ws.close()
        except _dropped():  # already gone
            pass


def _never() -> bool:
    return False


def _feed(lines: _Lines, data: bytes, stop) -> bool:
    """Hand ``data`` to ``lines`` a slice at a time, asking ``stop()`` before
    each; False when it said stop (the rest is dropped: it came too late)."""
    for i in range(0, len(data), _SLICE):
        if stop():
            return False
        lines.feed(data[i:i + _SLICE])
    return True


def run_exec(open_stream, check_pod, argv: list[str], options: ExecOptions) -> ExecResult:
    """Run ``argv`` through ``open_stream(command, stdin) -> ExecStream``.

    ``check_pod()`` raises RuntimeBackendError when the pod is gone or not
    running; it is asked whenever the outcome could be the pod's fault (no
    status frame, a signal exit), so a deleted or evicted pod is never
    recorded as the command's result.
    """
    if not argv:
        raise RuntimeBackendError("exec: empty command")
    pidfile = f"/tmp/.tcab-exec-{uuid.uuid4().hex[:16]}.pid"
    env = env_script(options.env)
    stream = open_stream(wrap(argv, options, pidfile, len(env)), True)
    start = time.monotonic()
    out, err = _Lines("stdout", options), _Lines("stderr", options)
    deadline = start + options.timeout_s if options.timeout_s else None
    last_output = start

    def due() -> ExecEnd | None:
        """The end the clock or a cancel calls for now, None while the command may go on."""
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            return ExecEnd.TIMED_OUT
        if options.idle_timeout_s is not None and now - last_output >= options.idle_timeout_s:
            return ExecEnd.IDLE
        if options.cancel is not None and options.cancel():
            return ExecEnd.CANCELED
        return None

    end = ExecEnd.EXITED
    try:
        if env:
            stream.send(env)
        while stream.open:
            o, e = stream.poll(_POLL_S)
            if o or e:
                last_output = time.monotonic()
            # A stream that closed holds the last of an ended command's
            # output (one poll at most): all of it is kept.
            stop = due if stream.open else _never
            if _feed(out, o, stop):
                _feed(err, e, stop)
            if not stream.open:
                break  # ended on its own: the status frame says how
            end = due() or ExecEnd.EXITED
            if end is not ExecEnd.EXITED:
                until = time.monotonic() + _DRAIN_S
                kill(open_stream, pidfile, until)
                _drain(stream, out, err, until)
                break
    finally:
        stream.close()
    out.flush()
    err.flush()
    duration = time.monotonic() - start
    if not stream.status:
        if end is ExecEnd.EXITED:
            check_pod()
            raise RuntimeBackendError("exec stream closed without a status frame (the kubelet's "
                                      "streamingConnectionIdleTimeout or a dropped connection)")
        code = None
    else:
        code, message = parse_status(stream.status)
        if code is None and end is ExecEnd.EXITED:
            check_pod()
            raise RuntimeBackendError(f"exec failed: {message}")
    if end is ExecEnd.EXITED and code is not None and code >= 128:
        check_pod()  # SIGKILL from a deleted or evicted pod is not the command's doing
    return ExecResult(end=end, exit_code=code, duration_s=duration, stdout=out.text(), stderr=err.text())


def kill(open_stream, pidfile: str, until: float) -> None:
    """SIGKILL the command's process group and session inside the pod;
    wait for the kill's own stream to close until ``until`` at most."""
    stream = open_stream(["sh", "-c", _KILL_SCRIPT, "kill", pidfile], False)
    try:
        while stream.open and time.monotonic() < until:
            stream.poll(_POLL_S)
    finally:
        stream.close()


def _drain(stream: ExecStream, out: _Lines, err: _Lines, until: float) -> None:
    """Keep what the killed command wrote until its stream closes, or until
    ``until`` (a flood's backlog is cut there)."""

    def late() -> bool:
        return time.monotonic() >= until

    while stream.open and not late():
        o, e = stream.poll(0.1)
        if _feed(out, o, late):
            _feed(err, e, late)
