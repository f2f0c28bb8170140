"""Atomic writes: a target is either absent or complete, never half-written.

A killed sweep must leave no corrupt target, so every file tcab produces is
written to a temporary sibling and renamed into place (rename is atomic on
one filesystem). Directories are built under a temporary sibling name and
renamed the same way.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_bytes(path: Path | str, data: bytes, *, mode: int = 0o666) -> None:
    """Write ``data`` to ``path`` atomically (temp file, fsync, rename).

    The file gets ``mode`` less the umask, as ``open`` would give it; the
    private mode of the temporary file does not leak into the target.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


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
    other process's folder stays).
    """
    path = Path(path)
    if path.exists() and not replace:
        raise FileExistsError(path)
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
