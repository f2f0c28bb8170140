"""Copy trees in and out of a pod as tar over exec.

In: the host folder is packed (entries owned by the run user, links kept as
links) and sent on stdin to ``head -c N | tar -x``: the byte count ends the
stream, so neither protocol version needs a stdin close. Out, in two execs:

1. the pod's PID 1 is asked (:data:`~tcab.runtime.kubernetes.pods.REAP_SIGNAL`)
   to SIGKILL every other process, the asking exec among them (its stream
   closing says the kill was sent). It cannot be the exec that checks: a
   process that lives until the reap could have traced it before;
2. one exec, :data:`_COLLECT`, started after it, checks that no process but
   PID 1 and itself is left (the pod has one user, so the copy's own ``tar``
   runs as the run user, and only the absence of any other process of the
   run keeps it from being stopped, traced, or fed a forged archive on its
   stdout, and keeps the tree from changing under it: ``file changed as we
   read it``), counts the regular files ``tar`` can read and adds up their
   apparent sizes, and says all three as one JSON line. The driver decides
   (a process left: reap again, :data:`_REAP_ROUNDS` rounds at most; a tree
   over ``max_bytes``: refused before a byte of it is read, sparse files
   cost their whole length) and answers one byte on stdin; ``y`` makes the
   same exec ``tar -c`` the tree, with no gap after the check;
3. the archive is read as a file by :func:`tcab.runtime.collect.extract_tree`
   (the same safe extraction, refusals and limits as the docker backend)
   under the copy's :class:`~tcab.runtime.collect.Tally`: its clock bounds
   the whole copy, and the files ``tar`` skips (unreadable: listed on its
   stderr, parsed as it comes, never kept whole) are refusals that count
   against ``max_entries``;
4. an archive that holds another number of regular files than step 2
   counted does not match the tree: the tree is refused whole and the
   reason recorded, never passed off as complete.

When no round gives a readable report (the exec died, the line is not
one), the steps run as separate execs as before: measure, then ``tar``,
without the count check. What the run left (a tree that changed, files it
made unreadable) is the run's outcome: tar's "some files differ" exit is a
note, not a failure.
"""

from __future__ import annotations

import io
import json
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
    measure_script,
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
#: Processes of the pod other than PID 1 and this shell (a builtin loop: no child of its own) into $n.
#: Zombies do not count (an exec's are reaped by the runtime, outside the pod's PID namespace).
_OTHERS = ('n=0; for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = 1 ] || [ "$p" = $$ ] && continue; '
           'read -r l < "$d/stat" 2>/dev/null || continue; s=${l##*) }; [ "${s%% *}" = Z ] || n=$((n+1)); '
           'done; ')
#: The check, the measure and the archive in one exec ($0 parent folder, $1 name, $2 the tree,
#: $3 the per-file cap, $4 seconds to wait for the answer): the processes left and FILES BYTES
#: as one JSON line, then ``tar -c`` on a ``y`` from the driver; anything else, or none in time, ends it.
_COLLECT = (_OTHERS + "src=$2 cap=$3; m=$(" + measure_script(readable_only=True) + "); "
            'printf \'{"others": %s, "measure": "%s"}\\n\' "$n" "$m"; '
            'a=$(timeout "$4" head -c 1); [ "$a" = y ] || exit 0; '
            'cd "$0" && exec tar -c -f - -- "$1"')
_REAP_ROUNDS = 3
#: How long the collect exec waits for the driver's answer (it answers as soon as it read the line).
_ANSWER_S = 60
#: The report line is short; a longer one is no report.
_REPORT_MAX = 512
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
            match = _TAR_SKIPPED.fullmatch(line[:_LINE_MAX].decode("utf-8", "replace"))
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


def reap(open_stream, until: float) -> None:
    """Have PID 1 SIGKILL every other process of the pod (this exec's shell with
    them: its stream closing is the sign the kill was sent)."""
    _small(open_stream, ["sh", "-c", f"kill -s {REAP_SIGNAL} 1; sleep 5"], until)


def parse_report(line: bytes) -> tuple[int, tuple[int, int] | None] | None:
    """(processes left, (files, bytes) or None) from :data:`_COLLECT`'s line; None when it is not one."""
    try:
        doc = json.loads(line.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(doc, dict) or set(doc) != {"others", "measure"}:
        return None
    others, measure = doc["others"], doc["measure"]
    if type(others) is not int or others < 0 or not isinstance(measure, str):
        return None
    return others, parse_measure(measure)


def _report(stream: ExecStream, until: float) -> tuple[tuple[int, tuple[int, int] | None] | None, bytes]:
    """Read the collect exec's line (nothing may follow it before the answer); (report or None, stderr)."""
    out, err = b"", b""
    while b"\n" not in out and len(out) <= _REPORT_MAX and stream.open and time.monotonic() < until:
        o, e = stream.poll(0.2)
        out, err = out + o, (err + e)[-4096:]
    line, newline, rest = out.partition(b"\n")
    return (parse_report(line) if newline and not rest else None), err


def _collect_stream(open_stream, src: str, tally: Tally):
    """Reap, then the collect exec, until it reports no process left
    (:data:`_REAP_ROUNDS` rounds). (stream waiting for its answer, quiet,
    measured, stderr so far); stream None when no round gave a report."""
    parent, name = posixpath.split(src.rstrip("/") or "/")
    argv = ["sh", "-c", _COLLECT, parent or "/", name or ".", src, str(tally.limits.max_file_bytes), str(_ANSWER_S)]
    delay = 0.02
    for last in [False] * (_REAP_ROUNDS - 1) + [True]:
        reap(open_stream, time.monotonic() + min(10.0, tally.remaining()))
        stream = open_stream(argv, True)
        try:
            report, err = _report(stream, time.monotonic() + min(60.0, tally.remaining()))
        except BaseException:
            stream.close()
            raise
        if report is not None and (report[0] == 0 or last):
            return stream, report[0] == 0, report[1], err
        stream.offer(b"n")
        stream.close()
        time.sleep(delay)  # what PID 1 is still killing gets a moment
        delay *= 4
    return None, False, None, b""


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
    stream, quiet, measured, err = _collect_stream(open_stream, src, tally)
    if stream is None:  # no round reported: measure, then archive, each its own exec
        measured = _measure(open_stream, src, tally)
    reason = over_cap(measured, limits)
    if reason:
        if stream is not None:
            stream.offer(b"n")
            stream.close()
        return refuse_tree(dest, reason)
    expected = measured[0] if quiet and measured is not None else None
    if stream is None:
        reader = open_archive(open_stream, src, tally, strip)
    else:
        reader = ArchiveReader(stream, tally, strip)
        reader.stderr = err  # for the message only: no tar line comes before the answer
        stream.offer(b"y")
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
            if tally.remaining():  # stops the pod's tar: the rest is not wanted
                reap(open_stream, time.monotonic() + min(10.0, tally.remaining()))
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
