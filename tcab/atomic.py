"""Atomic writes: a target is either absent or complete, never half-written.

A killed sweep must leave no corrupt target, so every file tcab produces is
written to a temporary sibling and renamed into place (rename is atomic on
one filesystem). Directories are built under a temporary sibling name and
renamed the same way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class DestinationRefused(OSError):
    """A destination tcab will not write: it exists and is not a regular file
    (a folder for :func:`atomic_dir`), or it is one of the command's inputs."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "something else"


def _existing(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def check_file_target(path: Path | str) -> None:
    """Raise DestinationRefused unless ``path`` is absent or a regular file.

    Renaming over a device node would replace it (as root, ``/dev/null``), over
    a symlink would replace the link: neither is what writing a file means.
    """
    found = _existing(Path(path))
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise DestinationRefused(errno.EEXIST, f"exists and is {_kind(found.st_mode)}, not a regular file; "
                                 "tcab writes only regular files (choose another name)", str(path))


def refuse_inputs(out: Path | str, inputs) -> None:
    """Raise DestinationRefused when ``out`` is the same file (device and inode,
    through any link or alias) as one of ``inputs``: writing it would replace an input."""
    try:
        target = os.stat(out)
    except (FileNotFoundError, NotADirectoryError):
        return
    for given in inputs:
        try:
            source = os.stat(given)
        except OSError:
            continue
        if (source.st_dev, source.st_ino) == (target.st_dev, target.st_ino):
            raise DestinationRefused(errno.EEXIST, f"is also an input of this command ({given}); "
                                     "choose another output", str(out))


def write_bytes(path: Path | str, data: bytes, *, mode: int = 0o666) -> None:
    """Write ``data`` to ``path`` atomically (temp file, fsync, rename).

    The file gets ``mode`` less the umask, as ``open`` would give it; the
    private mode of the temporary file does not leak into the target.
    Raises DestinationRefused when ``path`` exists and is not a regular file
    (checked before and again just before the rename).
    """
    path = Path(path)
    check_file_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        check_file_target(path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_cache_bytes(path: Path | str, data: bytes, *, mode: int = 0o666) -> None:
    """:func:`write_bytes` for a file tcab owns in its own cache (``build/``,
    ``results/matches``): a restored cache is input, so a link or FIFO forged
    at its place is removed (never written through) before the write. A
    folder there still raises DestinationRefused."""
    path = Path(path)
    found = _existing(path)
    if found is not None and not stat.S_ISREG(found.st_mode) and not stat.S_ISDIR(found.st_mode):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
    write_bytes(path, data, mode=mode)


def write_text(path: Path | str, text: str, *, mode: int = 0o666) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes(path, text.encode("utf-8"), mode=mode)


@contextlib.contextmanager
def atomic_dir(path: Path | str, *, replace: bool = False) -> Iterator[Path]:
    """Yield a temporary directory that becomes ``path`` only if the block succeeds.

    On any exception the temporary directory is removed and ``path`` is left
    as it was. With ``replace`` an existing ``path`` is swapped out; without
    it an existing ``path`` raises FileExistsError, before anything is built
    or, when another process completed ``path`` meanwhile, at the end (the
    other process's folder stays). An existing ``path`` that is not a folder
    (a file, a symlink, a device) raises DestinationRefused: it is never
    swapped out.
    """
    path = Path(path)
    found = _existing(path)
    if found is not None and not replace:
        raise FileExistsError(path)
    if found is not None and not stat.S_ISDIR(found.st_mode):
        raise DestinationRefused(errno.EEXIST, f"exists and is {_kind(found.st_mode)}, not a folder; "
                                 "tcab replaces only folders it made (remove it or choose another)", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        if replace and path.exists():
            old = path.with_name(f".{path.name}.old-{os.getpid()}")
            os.replace(path, old)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            try:
                os.rename(tmp, path)
            except OSError as exc:
                # Someone else completed ``path`` while we built ours: theirs stays.
                if path.exists():
                    raise FileExistsError(path) from exc
                raise
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
