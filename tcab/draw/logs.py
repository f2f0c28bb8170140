"""Action logs: JSON Lines, one operation object per line.

Parsing is bounded before any JSON is read: the byte size, the number of
lines, the length of a line and the nesting of its brackets (a line nested
10^5 deep is refused by counting, never handed to the parser). Reading a
log from disk never blocks and never follows a link (``read_log_file``);
appending writes one whole line with one ``write`` on an ``O_APPEND``
descriptor, so a concurrent reader sees the line whole or not at all.
"""

from __future__ import annotations

import os
import stat

from tcab.draw.errors import LogError
from tcab.draw.limits import MAX_LINE_BYTES, MAX_LOG_BYTES, MAX_NESTING, MAX_OPS
from tcab.draw.ops import Op, check_op


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number this log may hold")


_DECODER = None  # made at the first parse: a call whose logs need none never imports json


def _decoder():
    global _DECODER
    if _DECODER is None:
        import json
        _DECODER = json.JSONDecoder(parse_constant=_reject_constant)
    return _DECODER


def parse_log(data: bytes, label: str, *, layered: bool, max_ops: int = MAX_OPS) -> list[tuple[Op, dict]]:
    """The checked operations of a log's bytes; LogError ``<label>: op N: ...``."""
    if len(data) > MAX_LOG_BYTES:
        raise LogError(f"{label}: {len(data)} bytes, over the {MAX_LOG_BYTES}-byte limit (MAX_LOG_BYTES)")
    if data.count(b"\n") > max_ops + 1:
        raise LogError(f"{label}: more than {max_ops} operations (MAX_OPS)")
    lines: list[tuple[int, bytes]] = []
    for number, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        where = f"{label}: op {len(lines) + 1} (line {number})"
        if len(lines) >= max_ops:
            raise LogError(f"{where}: more than {max_ops} operations (MAX_OPS)")
        if len(line) > MAX_LINE_BYTES:
            raise LogError(f"{where}: {len(line)} bytes, over the {MAX_LINE_BYTES}-byte line limit")
        if line.count(b"[") + line.count(b"{") > MAX_NESTING:
            raise LogError(f"{where}: nested deeper than {MAX_NESTING} brackets")
        lines.append((number, line))
    objects = _all_at_once(lines)
    if objects is None:  # something does not parse: find which line, and say so
        objects = [_one(line, f"{label}: op {i} (line {number})") for i, (number, line) in enumerate(lines, 1)]
    return [check_op(obj, f"{label}: op {i} (line {number})", layered=layered)
            for i, ((number, _), obj) in enumerate(zip(lines, objects, strict=True), 1)]


def _all_at_once(lines: list[tuple[int, bytes]]) -> list | None:
    """Every line's value from one parse of them as a JSON array (the C
    scanner once, not once a line); None when that is not exactly one value a
    line, so the slow path names the culprit."""
    try:
        values = _decoder().decode("[" + b",".join(line for _, line in lines).decode("utf-8") + "]")
    except (ValueError, RecursionError):
        return None
    return values if len(values) == len(lines) else None


def _one(line: bytes, where: str) -> object:
    try:
        return _decoder().decode(line.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise LogError(f"{where}: not valid JSON: {exc}") from None


def read_log_file(path: str, max_bytes: int = MAX_LOG_BYTES) -> bytes:
    """The bytes of the log at ``path``: a regular file, not a link, at most
    ``max_bytes`` (refused by its size before it is read). An absent file is
    an empty log only for the tool's own use; the validator decides itself.
    Raises LogError naming the path and why."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        why = "a symbolic link (not followed)" if os.path.islink(path) else (exc.strerror or str(exc))
        raise LogError(f"{path}: {why}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a directory" if stat.S_ISDIR(info.st_mode) \
                else "not a regular file"
            raise LogError(f"{path}: {kind}, not a log")
        if info.st_size > max_bytes:
            raise LogError(f"{path}: {info.st_size} bytes, over the {max_bytes}-byte limit (MAX_LOG_BYTES)")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise LogError(f"{path}: grew over the {max_bytes}-byte limit while read")
        return b"".join(chunks)
    finally:
        os.close(fd)


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.#")


def _plain(value: object) -> str | None:
    """``value`` as compact JSON when it is an int, None, a plain string or a
    pair of ints (all an op holds); None otherwise."""
    if value is None:
        return "null"
    if type(value) is int:
        return str(value)
    if type(value) is str and all(c in _PLAIN for c in value):
        return f'"{value}"'
    if type(value) in (list, tuple) and all(type(v) is int for v in value):
        return "[" + ",".join(map(str, value)) + "]"
    return None


def op_line(name: str, values: dict) -> bytes:
    """The log line of an op (keys in field order, compact, ASCII), exactly
    what ``json.dumps(..., separators=(",", ":"))`` writes; by hand, so a call
    needs no json import."""
    parts = []
    for key, value in {"op": name, **values}.items():
        text = _plain(value)
        if text is None or not all(c in _PLAIN for c in key):
            import json
            return (json.dumps({"op": name, **values}, separators=(",", ":")) + "\n").encode()
        parts.append(f'"{key}":{text}')
    return ("{" + ",".join(parts) + "}\n").encode()


def append_line(path: str, line: bytes) -> None:
    """Append ``line`` with one write; refuse a link or a non-regular file.
    A log whose last line lacks its newline gets one first (in the same write)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                 0o644)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LogError(f"{path}: not a regular file")
        if info.st_size:
            with open(path, "rb") as tail:
                tail.seek(info.st_size - 1)
                if tail.read(1) != b"\n":
                    line = b"\n" + line
        if os.write(fd, line) != len(line):
            raise LogError(f"{path}: short write")
    finally:
        os.close(fd)


def write_atomic(path: str, data: bytes) -> None:
    """Replace ``path`` by ``data`` whole (a temporary file, then a rename)."""
    folder = os.path.dirname(path) or "."
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
