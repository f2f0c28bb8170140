"""Operation logs: JSON Lines, one flat operation object per line, and their replay.

Parsing is bounded before any JSON is read: the byte size, the number of
lines, the length of a line, and no nesting at all (an op is one flat
object). Reading never blocks and never follows a link; appending writes one
whole line with one ``write`` on an ``O_APPEND`` descriptor.
"""

from __future__ import annotations

import json
import os
import stat

from tcab.voxel.errors import VoxelLogError
from tcab.voxel.limits import MAX_LINE_BYTES, MAX_LOG_BYTES, MAX_OPS, MAX_WORK
from tcab.voxel.ops import VoxelOp, check_op


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number a log may hold")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def parse_log(data: bytes, label: str, max_ops: int = MAX_OPS) -> list[tuple[VoxelOp, dict]]:
    """The checked operations of a log's bytes; VoxelLogError ``<label>: op N (line L): ...``."""
    if len(data) > MAX_LOG_BYTES:
        raise VoxelLogError(f"{label}: {len(data)} bytes, over the {MAX_LOG_BYTES}-byte limit (MAX_LOG_BYTES)")
    if data.count(b"\n") > max_ops + 1:
        raise VoxelLogError(f"{label}: more than {max_ops} operations (MAX_OPS)")
    lines: list[tuple[int, bytes]] = []
    for number, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        where = f"{label}: op {len(lines) + 1} (line {number})"
        if len(lines) >= max_ops:
            raise VoxelLogError(f"{where}: more than {max_ops} operations (MAX_OPS)")
        if len(line) > MAX_LINE_BYTES:
            raise VoxelLogError(f"{where}: {len(line)} bytes, over the {MAX_LINE_BYTES}-byte line limit")
        if b"[" in line or line.count(b"{") > 1:
            raise VoxelLogError(f"{where}: an operation is one flat object (no nesting)")
        lines.append((number, line))
    try:  # the C scanner once over every line; line by line only to name a culprit
        values = _DECODER.decode("[" + b",".join(line for _, line in lines).decode("utf-8") + "]")
        if len(values) != len(lines):
            raise ValueError("not one value a line")
    except ValueError:
        values = [_one(line, f"{label}: op {i} (line {number})") for i, (number, line) in enumerate(lines, 1)]
    return [check_op(obj, f"{label}: op {i} (line {number})")
            for i, ((number, _), obj) in enumerate(zip(lines, values, strict=True), 1)]


def _one(line: bytes, where: str) -> object:
    try:
        return _DECODER.decode(line.decode("utf-8"))
    except ValueError as exc:  # UnicodeDecodeError is a ValueError
        raise VoxelLogError(f"{where}: not valid JSON: {exc}") from None


def read_file(path: str, max_bytes: int = MAX_LOG_BYTES, what: str = "MAX_LOG_BYTES") -> bytes:
    """The bytes of a regular file at ``path``, not a link, at most ``max_bytes``.
    Raises VoxelLogError naming the path and why."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        why = "a symbolic link (not followed)" if os.path.islink(path) else (exc.strerror or str(exc))
        raise VoxelLogError(f"{path}: {why}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise VoxelLogError(f"{path}: not a regular file")
        if info.st_size > max_bytes:
            raise VoxelLogError(f"{path}: {info.st_size} bytes, over the {max_bytes}-byte limit ({what})")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise VoxelLogError(f"{path}: grew over the {max_bytes}-byte limit while read ({what})")
        return b"".join(chunks)
    finally:
        os.close(fd)


def op_line(name: str, values: dict) -> bytes:
    """The log line of an op: keys in field order, compact."""
    return (json.dumps({"op": name, **values}, separators=(",", ":")) + "\n").encode()


def append_line(path: str, line: bytes) -> None:
    """Append ``line`` with one write; refuse a link or a non-regular file. A log
    whose last line lacks its newline gets one first (in the same write)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise VoxelLogError(f"{path}: not a regular file")
        if info.st_size:
            with open(path, "rb") as tail:
                tail.seek(info.st_size - 1)
                if tail.read(1) != b"\n":
                    line = b"\n" + line
        if os.write(fd, line) != len(line):
            raise VoxelLogError(f"{path}: short write")
    finally:
        os.close(fd)


def write_atomic(path: str, data: bytes) -> None:
    """Replace ``path`` by ``data`` whole (a temporary file, then a rename)."""
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def replay_ops(ops: list[tuple[VoxelOp, dict]], bounds: tuple[int, int, int], label: str = "log",
               volume=None, max_work: int = MAX_WORK):
    """Apply ``ops`` in order to an empty volume of ``bounds`` (or to ``volume``);
    the Volume. (numpy is imported here, not by a sculpting call.)"""
    from tcab.voxel.volume import Volume
    vol = Volume(*bounds) if volume is None else volume
    for i, (op, values) in enumerate(ops, 1):
        vol.apply(op.name, values)
        if vol.work > max_work:
            raise VoxelLogError(f"{label}: op {i}: the replay's work passed {max_work} voxels visited "
                           f"(MAX_WORK, or what MAX_RIG_WORK left)")
    return vol


def replay_bytes(data: bytes, bounds: tuple[int, int, int], label: str = "log"):
    return replay_ops(parse_log(data, label), bounds, label)


def replay(log_path: str, bounds: tuple[int, int, int]):
    """The volume a recorded log produces: read (bounded, no link followed),
    parsed, checked and replayed. VoxelLogError names the file, op and field."""
    return replay_bytes(read_file(log_path), bounds, log_path)
