"""Reading a file tcab is given by name: never blocks, never balloons.

Every file tcab reads because a user (or a restored ``build/`` folder) named
it — a plan, a harness definition, a replay, a renderer page, a seed-cache
answer — is opened here:

- non-blocking (``O_NONBLOCK``): opening a FIFO for reading would otherwise
  wait for a writer forever;
- checked with ``fstat`` on the descriptor that is then read (no race
  between a check and the open): only a regular file is read, never a
  FIFO, device (``/dev/zero`` is endless) or socket;
- with ``follow=False``, ``O_NOFOLLOW``: the name itself may not be a
  symlink (for files under ``build/``, which tcab wrote as plain files);
- size-bounded: a file whose size is over the caller's bound is refused
  before it is read, and one that grows while it is read stops at the bound.

Refusals are :class:`ReadRefused`, an ``OSError`` whose ``filename`` is the
path and whose ``strerror`` says why, so the CLI prints ``error: PATH: why``
and callers that wrap it in their own error keep the file's name.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_CHUNK = 1 << 20


class ReadRefused(OSError):
    """A file that is not read: not a regular file, a link where none may be, too large."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: Path | str, *, follow: bool = True) -> int:
    """A read-only descriptor of the regular file ``path`` (the caller closes it).

    Raises ReadRefused when ``path`` is not a regular file (or, without
    ``follow``, is a symlink); other OSErrors (missing, permission) as ``open``.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if not follow and exc.errno == errno.ELOOP and os.path.islink(path):
            raise ReadRefused(errno.ELOOP, "a symbolic link, not a regular file", str(path)) from None
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO opened for writing
            raise ReadRefused(errno.ENXIO, "not a regular file", str(path)) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):  # what open() says of a folder, so callers keep their message
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise ReadRefused(errno.EINVAL, f"{_kind(mode)}, not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_fd(fd: int, max_bytes: int, path: Path | str, what: str = "file") -> bytes:
    """At most ``max_bytes`` of the open regular file ``fd``; ReadRefused past that."""
    size = os.fstat(fd).st_size
    if size > max_bytes:
        raise ReadRefused(errno.EFBIG, f"{what} of {size} bytes is larger than the "
                          f"{max_bytes} bytes allowed", str(path))
    parts: list[bytes] = []
    done = 0
    while done <= max_bytes:
        chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - done))
        if not chunk:
            break
        parts.append(chunk)
        done += len(chunk)
    if done > max_bytes:
        raise ReadRefused(errno.EFBIG, f"{what} grew past the {max_bytes} bytes allowed "
                          "while it was read", str(path))
    return b"".join(parts)


def read_bytes(path: Path | str, max_bytes: int, *, follow: bool = True, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them.

    Raises ReadRefused (not a regular file, a link without ``follow``, over
    ``max_bytes``) or the OSError of the open.
    """
    fd = open_regular(path, follow=follow)
    try:
        return read_fd(fd, max_bytes, path, what)
    finally:
        os.close(fd)


def read_text(path: Path | str, max_bytes: int, *, follow: bool = True, what: str = "file") -> str:
    """:func:`read_bytes` decoded as UTF-8 (UnicodeDecodeError, a ValueError, otherwise)."""
    return read_bytes(path, max_bytes, follow=follow, what=what).decode("utf-8")


def open_binary(path: Path | str, max_bytes: int, *, follow: bool = True, what: str = "file"):
    """A binary file object over the regular file ``path`` whose size is at
    most ``max_bytes`` (for streaming readers such as gzip); ReadRefused otherwise."""
    fd = open_regular(path, follow=follow)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise ReadRefused(errno.EFBIG, f"{what} of {size} bytes is larger than the "
                              f"{max_bytes} bytes allowed", str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
