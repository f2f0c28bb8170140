"""The content digest of a case version folder.

Framing (version 1), so that the same content gives the same digest on any
machine whatever order the filesystem lists entries in:

    sha256( b"tcab-case-digest/1\\n"
            + for each entry, sorted by its path's UTF-8 bytes:
                kind (1 byte) + u64be(len(path)) + path + u64be(len(data)) + data )

- ``path`` is the POSIX path relative to the version folder, as the bytes
  the filesystem holds (UTF-8 for every case; a collected tree's name that
  is not UTF-8 is refused at collection, but the digest stays defined).
- ``kind`` is ``f`` (regular file), ``x`` (regular file with an owner exec
  bit; git keeps that bit, so it is content) or ``l`` (symlink).
- ``data`` is the file's bytes, or for a symlink its target text as stored
  (the link is not followed, so a symlink to a folder is one entry).
- Folders contribute only through their files (git does not track empty
  folders). ``__pycache__`` folders and ``*.pyc`` files are skipped: importing
  a case's rules module writes them and must not change the case's identity.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from tcab.reading import open_regular

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion

MAGIC = b"tcab-case-digest/1\n"
_CHUNK = 1 << 20


def _entries(root: Path) -> list[tuple[bytes, bytes, Path]]:
    found: list[tuple[bytes, bytes, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        keep = []
        for name in dirnames:
            full = here / name
            if full.is_symlink():
                filenames.append(name)  # a symlinked folder is one link entry
            elif name != "__pycache__":
                keep.append(name)
        dirnames[:] = keep
        for name in filenames:
            if name.endswith(".pyc"):
                continue
            full = here / name
            rel = os.fsencode(full.relative_to(root).as_posix())
            mode = full.lstat().st_mode
            if stat.S_ISLNK(mode):
                kind = b"l"
            elif mode & stat.S_IXUSR:
                kind = b"x"
            else:
                kind = b"f"
            found.append((rel, kind, full))
    found.sort(key=lambda e: e[0])
    return found


def tree_digest(root: Path | str) -> str:
    """SHA-256 hex digest of the folder ``root`` in the framing above.

    Files are read in chunks (a collected tree may hold large ones).
    Raises OSError if a file cannot be read or is not a regular file (a FIFO,
    socket or device: none is content, and opening a FIFO could block).
    """
    import hashlib  # ~4 ms of OpenSSL at import: not for commands that digest nothing (`tcab prompt`)

    root = Path(root)
    h = hashlib.sha256(MAGIC)
    for rel, kind, full in _entries(root):
        h.update(kind)
        h.update(len(rel).to_bytes(8, "big"))
        h.update(rel)
        if kind == b"l":
            data = os.readlink(os.fsencode(full))
            h.update(len(data).to_bytes(8, "big"))
            h.update(data)
            continue
        # Non-blocking, regular files only (a FIFO would wait for a writer): tcab.reading.
        fd = open_regular(full, follow=False)
        try:
            size = os.fstat(fd).st_size
            h.update(size.to_bytes(8, "big"))
            done = 0
            while chunk := os.read(fd, _CHUNK):
                h.update(chunk)
                done += len(chunk)
        finally:
            os.close(fd)
        if done != size:
            raise OSError(f"{full}: changed size while it was read")
    return h.hexdigest()


def case_digest(case: CaseVersion) -> str:
    """SHA-256 hex digest of a case version folder (see the module docstring);
    a case naming shared packages folds each package folder's digest in:
    ``sha256(b"tcab-case-packages/1\n" + folder digest + (name, digest)...)``."""
    digest = tree_digest(case.root)
    if not case.packages:
        return digest
    import hashlib

    h = hashlib.sha256(b"tcab-case-packages/1\n" + digest.encode())
    for name in sorted(case.packages):
        h.update(b"\n" + name.encode() + b" " + tree_digest(case.package_path(name)).encode())
    return h.hexdigest()
