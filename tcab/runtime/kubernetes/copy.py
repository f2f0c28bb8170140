"""Copy trees in and out of a pod as tar over exec.

In: the host folder is packed (entries owned by the run user, links kept as
links) and sent on stdin to ``head -c N | tar -x``: the byte count ends the
stream, so neither protocol version needs a stdin close. Out, in order:

1. the pod's PID 1 is asked (:data:`~tcab.runtime.kubernetes.pods.REAP_SIGNAL`)
   to SIGKILL every other process, and an exec checks that none is left:
   the pod has one user, so the copy's own ``tar`` runs as the run user, and
   only the absence of any other process of the run keeps it from being
   stopped, traced, or fed a forged archive on its stdout, and keeps the
   tree from changing under it (``file changed as we read it``);
2. the regular files ``tar`` can read are counted and their apparent sizes
   added up in the pod: a tree over ``max_bytes`` is refused there, before
   a byte of it is read (sparse files cost the engine their whole length);
3. ``tar -c`` streams the tree, read as a file by
   :func:`tcab.runtime.collect.extract_tree` (the same safe extraction,
   refusals and limits as the docker backend) under the copy's
   :class:`~tcab.runtime.collect.Tally`: its clock bounds the whole copy,
   and the files ``tar`` skips (unreadable: listed on its stderr, parsed as
   it comes, never kept whole) are refusals that count against
   ``max_entries``;
4. an archive that holds another number of regular files than step 2
   counted does not match the tree: the tree is refused whole and the
   reason recorded, never passed off as complete.

What the run left (a tree that changed, files it made unreadable) is the
run's outcome: tar's "some files differ" exit is a note, not a failure.
"""

from __future__ import annotations

import io
import os
import posixpath
import re
import shutil
import tarfile
import time
from pathlib import Path

from tcab.errors import RuntimeBackendError
from tcab.runtime.base import CollectLimits, CollectReport
from tcab.runtime.collect import (
    Tally,
    TreeRefused,
    extract_tree,
    measure_command,
    over_cap,
    parse_measure,
    refuse_tree,
    refused_whole,
    shown,
)
from tcab.runtime.kubernetes.exec import ExecStream, parse_status
from tcab.runtime.kubernetes.pods import REAP_SIGNAL
from tcab.runtime.pack import pack_tree

_UNPACK = 'head -c "$0" | tar -x -f - -C "$1"'
_PACK = 'cd "$0" && exec tar -c -f - -- "$1"'
_TAR_SKIPPED = re.compile(r"^tar: (.+?): (Cannot open|Cannot stat|Cannot readlink|Read error)[^:]*: (.+)$")
#: Processes of the pod other than PID 1 and this shell (a builtin loop: no child of its own).
#: Zombies do not count (an exec's are reaped by the runtime, outside the pod's PID namespace).
_OTHERS = ('n=0; for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = 1 ] || [ "$p" = $$ ] && continue; '
           'read -r l < "$d/stat" 2>/dev/null || continue; s=${l##*) }; [ "${s%% *}" = Z ] || n=$((n+1)); '
           'done; echo "$n"')
_REAP_ROUNDS = 3
#: One line of tar's stderr is kept at most this long (a longer one is cut).
_LINE_MAX = 8192


def copy_in(open_stream, src: Path, dest: str, uid: int) -> None:
    """Unpack the contents of host folder ``src`` into ``dest`` in the pod."""
    src = Path(src)
    if not src.is_dir():
        raise RuntimeBackendError(f"copy in: {src} is not a folder")
    with pack_tree(src, uid) as buf:
        size = buf.seek(0, io.SEEK_END)
        buf.seek(0)
        stream: ExecStream = open_stream(["sh", "-c", _UNPACK, str(size), dest], True)
        errors = b""
        try:
            while chunk := buf.read(1 << 18):
                stream.send(chunk)
            while stream.open:
                _o, e = stream.poll(0.5)
                errors = (errors + e)[-4096:]  # the end says why; bounded whatever tar prints
        finally:
            stream.close()
    code, message = parse_status(stream.status) if stream.status else (None, "no status frame")
    if code != 0:
        detail = errors.decode("utf-8", "replace").strip()[-500:] or message
        raise RuntimeBackendError(f"copy {src} in to {dest} failed (exit {code}): {detail}")




class ArchiveReader(io.RawIOBase):
    """The stdout of a ``tar -c`` exec as a readable file. Its stderr is
    parsed line by line as it comes (the files tar skipped become refusals
    in ``tally``); only the last 4 KiB of it are kept, for the message."""

    def __init__(self, stream: ExecStream, tally: Tally | None = None, strip: str = ""):
        self.stream, self.tally, self.strip = stream, tally, strip
        self._buf = b""
        self._line = b""
        self.stderr = b""

    def readable(self) -> bool:
        return True

    def _err(self, data: bytes) -> None:
        if not data:
            return
        self.stderr = (self.stderr + data)[-4096:]
        if self.tally is None:
            return
        lines = (self._line + data).split(b"\n")
        self._line = lines.pop()[-_LINE_MAX:]
        for line in lines:
            match = _TAR_SKIPPED.match(line[:_LINE_MAX].decode("utf-8", "replace"))
            if match:
                name = match.group(1).removeprefix(self.strip + "/")
                self.tally.refuse(shown(name), f"unreadable in the pod ({match.group(3)})", outside=True)

    def readinto(self, b) -> int:
        while not self._buf:
            if self.tally is not None:
                self.tally.check()
            if not self.stream.open:
                out, err = self.stream.poll(0)
                self._err(err)
                if not out:
                    return 0
                self._buf = out
                break
            out, err = self.stream.poll(0.5)
            self._err(err)
            self._buf = out
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def finish(self, until: float | None = None) -> tuple[int | None, str]:
        """Read to the end (until ``until`` at most); (exit code or None, stderr's tail)."""
        while self.stream.open and (until is None or time.monotonic() < until):
            _o, err = self.stream.poll(0.5)
            self._err(err)
        code, message = parse_status(self.stream.status) if self.stream.status else (None, "no status frame")
        text = self.stderr.decode("utf-8", "replace")
        return code, text if code is not None else (text + "\n" + message).strip()

    def close(self) -> None:
        self.stream.close()
        super().close()


def open_archive(open_stream, src: str, tally: Tally | None = None, strip: str = "") -> ArchiveReader:
    parent, name = posixpath.split(src.rstrip("/") or "/")
    return ArchiveReader(open_stream(["sh", "-c", _PACK, parent or "/", name or "."], False), tally, strip)


def _small(open_stream, argv: list[str], until: float) -> tuple[int | None, bytes]:
    """Run a short command; (exit code or None, its first 4 KiB of stdout)."""
    stream = open_stream(argv, False)
    out = b""
    try:
        while stream.open and time.monotonic() < until:
            o, _e = stream.poll(0.2)
            out = (out + o)[:4096]
    finally:
        stream.close()
    code = parse_status(stream.status)[0] if stream.status else None
    return code, out


def quiesce(open_stream, tally: Tally) -> bool:
    """Have PID 1 kill every other process of the pod; True once an exec saw
    none left (False: the copy goes on, the tree may change under it)."""
    for _ in range(_REAP_ROUNDS):
        until = time.monotonic() + min(10.0, tally.remaining())
        _small(open_stream, ["sh", "-c", f"kill -s {REAP_SIGNAL} 1; sleep 5"], until)  # killed with the rest
        code, out = _small(open_stream, ["sh", "-c", _OTHERS], until)
        if code == 0 and out.strip() == b"0":
            return True
        time.sleep(0.2)
    return False


def _measure(open_stream, src: str, tally: Tally) -> tuple[int, int] | None:
    """(readable regular files, the apparent bytes of those within the per-file cap) under ``src``,
    None when not known."""
    argv = measure_command(src, tally.limits, readable_only=True)
    code, out = _small(open_stream, argv, time.monotonic() + min(60.0, tally.remaining()))
    return parse_measure(out.decode("ascii", "replace")) if code == 0 else None


def _refuse_all(dest: Path, reason: str) -> CollectReport:
    """Empty ``dest`` (what was extracted is not kept) and say why."""
    for child in os.listdir(dest):
        path = dest / child
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    return refused_whole(reason)


def copy_out(open_stream, src: str, dest: Path, limits: CollectLimits | None) -> CollectReport:
    """Extract ``src`` from the pod into the new host folder ``dest`` (see the module docstring)."""
    limits = limits or CollectLimits()
    tally = Tally(limits)
    dest = Path(dest)
    strip = src.rstrip("/").rsplit("/", 1)[-1]
    quiet = quiesce(open_stream, tally)
    measured = _measure(open_stream, src, tally)
    reason = over_cap(measured, limits)
    if reason:
        return refuse_tree(dest, reason)
    expected = measured[0] if quiet and measured is not None else None
    reader = open_archive(open_stream, src, tally, strip)
    # Held here: a collected BufferedReader would close the stream before its status arrives.
    buffered = io.BufferedReader(reader, 1 << 20)
    try:
        try:
            report = extract_tree(buffered, dest, strip=strip, limits=limits, tally=tally)
        except (tarfile.TarError, OSError) as exc:
            code, text = reader.finish(time.monotonic() + 5)
            if code != 1:
                raise RuntimeBackendError(f"copy {src} out failed (exit {code}): {text.strip()[-500:] or exc}") from exc
            # tar's "some files differ" and an archive cut short: the tree changed under it (the run's doing).
            shutil.rmtree(dest, ignore_errors=True)
            dest.mkdir()
            return refused_whole(f"the tree changed while it was collected: {text.strip()[-300:]}")
        if report.truncated:
            if tally.remaining():
                quiesce(open_stream, tally)  # stops the pod's tar: the rest is not wanted
            return report
        try:
            code, text = reader.finish(time.monotonic() + max(5.0, tally.remaining()))
        except TreeRefused as exc:
            return _refuse_all(dest, str(exc))
    finally:
        reader.close()
    if code == 2 and tally.outside == 0 or code not in (0, 1, 2):
        shutil.rmtree(dest, ignore_errors=True)  # nothing half-collected stays behind
        raise RuntimeBackendError(f"copy {src} out failed (exit {code}): {text.strip()[-500:]}")
    if code == 1:  # GNU tar: "some files differ" (one changed while read); the archive itself is whole
        tally.refuse(".", f"the tree changed while it was collected (kept as read): {text.strip()[-200:]}")
    if expected is not None and tally.files != expected:
        return _refuse_all(dest, f"the archive does not match the tree in the pod: {expected} readable "
                                 f"regular files there, {tally.files} in the archive")
    return CollectReport(report.files, report.bytes, tally.refusals(), False, tally.count)
