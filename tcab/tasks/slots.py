"""Concurrency slots: at most N runs per harness, model or secret at once.

A cap of N on a key is N lock files ``results/sweep/.slots/<kind>-<name>.<i>``;
a run holds one ``fcntl.flock`` of each key it is capped by for the time of
its session. The kernel is the bookkeeper, so the caps hold across doit's
worker processes and across two sweeps started on the same results folder,
and a worker killed with SIGKILL leaks nothing: its locks go with its file
descriptors. A slot file's content is never read (the holder's pid is
written on its first line for a human looking), so a corrupted one is still just a lock
file; anything at a slot's path that is not a regular file (a link, a
folder) is refused with its path, never followed.

Keys are taken in one global order (kind, name), so two runs that need the
same two keys never hold one each while waiting for the other.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import os
import re
import stat
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from tcab.errors import TcabError
from tcab.plan.throttle import Concurrency

#: How often a waiting run looks for a free slot (seconds); grows to POLL_MAX.
POLL_START = 0.02
POLL_MAX = 0.5


def slots_dir(results_dir: Path) -> Path:
    return Path(results_dir) / "sweep" / ".slots"


def caps_for(concurrency: Concurrency, harness: str, model: str | None,
             secrets: Iterable[str]) -> list[tuple[str, str, int]]:
    """The caps a run of ``harness`` with ``model`` using ``secrets`` is subject to, in lock order."""
    if not concurrency:
        return []
    wanted = [("harness", harness), ("model", model), *(("secret", s) for s in sorted(set(secrets)))]
    found = []
    for kind, name in wanted:
        limit = concurrency.cap(kind, name) if name is not None else None
        if limit is not None:
            found.append((kind, name, limit))
    return sorted(found)


@functools.lru_cache(maxsize=4096)
def _file_name(kind: str, name: str) -> str:
    """A safe, distinct file stem for a key (model names hold '/', secrets anything)."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:60]
    return f"{kind}-{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def _open_slot(path: str) -> int:
    """The slot file's descriptor; a link or a non-regular file there is refused."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
            raise TcabError(f"{path}: a concurrency slot must be a regular file; "
                            f"remove what is there ({exc.strerror})") from exc
        raise TcabError(f"{path}: cannot open the concurrency slot: {exc.strerror}") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise TcabError(f"{path}: a concurrency slot must be a regular file; remove what is there")
    return fd


def _try_take(folder: str, kind: str, name: str, limit: int) -> int | None:
    """A descriptor holding one free slot of the key, or None when all ``limit`` are held."""
    # Plain strings: pathlib's joins were most of a slot's cost.
    stem = f"{folder}/{_file_name(kind, name)}"
    for i in range(limit):
        fd = _open_slot(f"{stem}.{i}")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        except OSError:
            os.close(fd)
            raise
        with contextlib.suppress(OSError):  # for a human looking only: the first line
            # Fixed width and no truncate: ext4 flushes a file truncated to zero
            # when it is closed (auto_da_alloc), 3 ms a slot.
            os.pwrite(fd, b"%-11d\n" % os.getpid(), 0)
        return fd
    return None


#: Slot folders this process has made sure of, by results folder (checked once).
_READY: dict[object, str] = {}


def _ready(results_dir: Path) -> str:
    found = _READY.get(results_dir)
    if found is None:
        folder = slots_dir(results_dir)
        folder.mkdir(parents=True, exist_ok=True)
        if folder.is_symlink() or not folder.is_dir():
            # Slot files are created here: a link would put them wherever it points.
            raise TcabError(f"{folder}: the concurrency slots folder must be a folder, not a link; remove it")
        found = _READY[results_dir] = str(folder)
    return found


@contextlib.contextmanager
def hold(results_dir: Path, caps: list[tuple[str, str, int]], *, who: str = "") -> Iterator[None]:
    """Hold one slot of every cap in ``caps`` (from :func:`caps_for`) for the block.

    Waits (polling, no busy loop) while a key's slots are all held; says once
    on stderr what it waits for. Raises TcabError for a slot path that is not
    a regular file.
    """
    if not caps:
        yield
        return
    folder = _ready(results_dir)
    held: list[int] = []
    try:
        for kind, name, limit in caps:
            delay, said = POLL_START, False
            while (fd := _try_take(folder, kind, name, limit)) is None:
                if not said:
                    print(f"tcab: {who}: waiting for a slot of {kind} {name} (cap {limit})",
                          file=sys.stderr, flush=True)
                    said = True
                time.sleep(delay)
                delay = min(delay * 2, POLL_MAX)
            held.append(fd)
        yield
    finally:
        for fd in reversed(held):
            os.close(fd)  # closing releases the flock
