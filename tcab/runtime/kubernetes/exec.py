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
process, so no root is needed). The exit code comes from the status
channel (3); a stream that closes without one is a backend failure (what a
kubelet does at its ``streamingConnectionIdleTimeout``), never a result.
"""

from __future__ import annotations

import json
import re
import shlex
import time
import uuid

from tcab.errors import RuntimeBackendError
from tcab.runtime.base import ExecEnd, ExecOptions, ExecResult
from tcab.runtime.exec import _KILL_SCRIPT, _Lines

STDIN, STDOUT, STDERR, STATUS = 0, 1, 2, 3
_POLL_S = 0.2
_DRAIN_S = 5.0
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
        if not _ENV_NAME.match(key):
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


class ExecStream:
    """One exec WebSocket, read from the calling thread only."""

    def __init__(self, ws):
        self.ws = ws
        self.status = b""

    def poll(self, timeout: float) -> tuple[bytes, bytes]:
        """Wait up to ``timeout`` for frames; return (stdout, stderr) bytes read."""
        try:
            self.ws.update(timeout=timeout)
        except Exception:  # a dropped socket: treated as closed, judged by the status
            self.ws._connected = False
        out = self.ws.read_channel(STDOUT) or b""
        err = self.ws.read_channel(STDERR) or b""
        self.status += self.ws.read_channel(STATUS) or b""
        return out, err

    @property
    def open(self) -> bool:
        return self.ws.is_open()

    def send(self, data: bytes, chunk: int = 1 << 18) -> None:
        for i in range(0, len(data), chunk):
            self.ws.write_channel(STDIN, data[i:i + chunk])

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:  # already gone
            pass


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
    end = ExecEnd.EXITED
    try:
        if env:
            stream.send(env)
        while stream.open:
            o, e = stream.poll(_POLL_S)
            if o:
                out.feed(o)
            if e:
                err.feed(e)
            now = time.monotonic()
            if o or e:
                last_output = now
            if not stream.open:
                break
            if deadline is not None and now >= deadline:
                end = ExecEnd.TIMED_OUT
            elif options.idle_timeout_s is not None and now - last_output >= options.idle_timeout_s:
                end = ExecEnd.IDLE
            elif options.cancel is not None and options.cancel():
                end = ExecEnd.CANCELED
            if end is not ExecEnd.EXITED:
                kill(open_stream, pidfile)
                _drain(stream, out, err)
                break
        o, e = stream.poll(0)  # frames that arrived with the close
        out.feed(o)
        err.feed(e)
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


def kill(open_stream, pidfile: str) -> None:
    """SIGKILL the command's process group and session inside the pod."""
    stream = open_stream(["sh", "-c", _KILL_SCRIPT, "kill", pidfile], False)
    try:
        until = time.monotonic() + _DRAIN_S
        while stream.open and time.monotonic() < until:
            stream.poll(_POLL_S)
    finally:
        stream.close()


def _drain(stream: ExecStream, out: _Lines, err: _Lines) -> None:
    """Keep what the killed command wrote until its stream closes (bounded)."""
    until = time.monotonic() + _DRAIN_S
    while stream.open and time.monotonic() < until:
        o, e = stream.poll(0.1)
        out.feed(o)
        err.feed(e)
