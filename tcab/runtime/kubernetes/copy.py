"""Copy trees in and out of a pod as tar over exec.

In: the host folder is packed (entries owned by the run user, links kept as
links) and sent on stdin to ``head -c N | tar -x``: the byte count ends the
stream, so neither protocol version needs a stdin close. Out: ``tar -c``
in the pod, its stdout read as a file and handed to
:func:`tcab.runtime.collect.extract_tree`, the same safe extraction and
refusals as the docker backend. Files the run user cannot read in the pod
are listed as refused (tar skips them and says so on stderr).
"""

from __future__ import annotations

import io
import posixpath
import re
import shutil
import tarfile
from pathlib import Path

from tcab.errors import RuntimeBackendError
from tcab.runtime.base import CollectLimits, CollectReport, Refusal
from tcab.runtime.collect import extract_tree
from tcab.runtime.kubernetes.exec import ExecStream, parse_status
from tcab.runtime.pack import pack_tree

_UNPACK = 'head -c "$0" | tar -x -f - -C "$1"'
_PACK = 'cd "$0" && exec tar -c -f - -- "$1"'
_TAR_SKIPPED = re.compile(r"^tar: (.+?): (Cannot open|Cannot stat|Cannot readlink|Read error)[^:]*: (.+)$")


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
    """The stdout of a ``tar -c`` exec as a readable file; stderr kept aside."""

    def __init__(self, stream: ExecStream):
        self.stream = stream
        self._buf = b""
        self.stderr = b""

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while not self._buf:
            if not self.stream.open:
                out, err = self.stream.poll(0)
                self.stderr += err
                if not out:
                    return 0
                self._buf = out
                break
            out, err = self.stream.poll(0.5)
            self.stderr += err
            self._buf = out
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def finish(self) -> tuple[int | None, str]:
        """Read to the end; (exit code or None, stderr text)."""
        while self.stream.open:
            _o, err = self.stream.poll(0.5)
            self.stderr += err
        code, message = parse_status(self.stream.status) if self.stream.status else (None, "no status frame")
        text = self.stderr.decode("utf-8", "replace")
        return code, text if code is not None else (text + "\n" + message).strip()

    def close(self) -> None:
        self.stream.close()
        super().close()


def open_archive(open_stream, src: str) -> ArchiveReader:
    parent, name = posixpath.split(src.rstrip("/") or "/")
    return ArchiveReader(open_stream(["sh", "-c", _PACK, parent or "/", name or "."], False))


def copy_out(open_stream, src: str, dest: Path, limits: CollectLimits | None) -> CollectReport:
    """Extract ``src`` from the pod into the new host folder ``dest``."""
    strip = src.rstrip("/").rsplit("/", 1)[-1]
    reader = open_archive(open_stream, src)
    # Held here: a collected BufferedReader would close the stream before its status arrives.
    buffered = io.BufferedReader(reader, 1 << 20)
    try:
        try:
            report = extract_tree(buffered, Path(dest), strip=strip, limits=limits)
        except (tarfile.TarError, OSError) as exc:
            code, text = reader.finish()
            raise RuntimeBackendError(f"copy {src} out failed (exit {code}): {text.strip()[-500:] or exc}") from exc
        if report.truncated:
            return report  # stop reading: the rest of an over-limit tree is not wanted
        code, text = reader.finish()
    finally:
        reader.close()
    if code == 0:
        return report
    skipped = [m for m in map(_TAR_SKIPPED.match, text.splitlines()) if m]
    if code == 2 and skipped:
        # A non-fatal tar error: the tree arrived without what the run user cannot read.
        extra = tuple(Refusal(m.group(1).removeprefix(strip + "/"), f"unreadable in the pod ({m.group(3)})")
                      for m in skipped)
        return CollectReport(report.files, report.bytes, report.refused + extra, report.truncated)
    shutil.rmtree(dest, ignore_errors=True)  # nothing half-collected stays behind
    raise RuntimeBackendError(f"copy {src} out failed (exit {code}): {text.strip()[-500:]}")
