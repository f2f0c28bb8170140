"""A host folder as a tar stream for copying into a run container, its
entries owned by the run user (links kept as links). Both backends send it:
docker through the engine's archive API, kubernetes on an exec's stdin."""

from __future__ import annotations

import tarfile
import tempfile
from pathlib import Path

from tcab.runtime.base import RUN_USER

_SPOOL_BYTES = 8 << 20  # kept in memory below this, spilled to a temporary file above


def pack_tree(src: Path, uid: int) -> tempfile.SpooledTemporaryFile:
    """The contents of ``src`` as a tar file, rewound; the caller closes it."""
    buf = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(src.rglob("*")):
            info = tar.gettarinfo(str(path), arcname=path.relative_to(src).as_posix())
            info.uid = info.gid = uid
            info.uname = info.gname = RUN_USER
            if info.isreg():
                with open(path, "rb") as fh:
                    tar.addfile(info, fh)
            else:
                tar.addfile(info)
    buf.seek(0)
    return buf
