"""Where an asset run's files are, shared by the asset panels of `tcab view`
(2D, voxel, Blender) and their scorers, so that no panel imports another."""

from __future__ import annotations

import os
import stat
from pathlib import Path

TREE_DIR = "work"  # tcab.runs.record.TREE_DIR, not imported: runs is a layer above


def _walk(folder: Path, rel: str) -> tuple[Path, int | None, str | None]:
    """``rel`` under ``folder`` part by part, never through a link: (its path,
    its mode or None when nothing is there, why it cannot be reached or None)."""
    here = folder
    for part in rel.split("/"):
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            return here, None, None
        except OSError as exc:
            return here, None, f"{here}: {exc.strerror or exc}"
        if stat.S_ISLNK(mode):
            return here, None, f"{here}: a symbolic link (not followed)"
    return here, mode, None


def present(folder: Path | None, rel: str) -> bool:
    """``rel`` is a regular file under ``folder``, reached without a link."""
    if folder is None:
        return False
    _, mode, why = _walk(folder, rel)
    return why is None and mode is not None and stat.S_ISREG(mode)


def refusal(folder: Path, rel: str) -> str | None:
    """Why ``rel`` under ``folder`` is there but not :func:`present` (a link on
    the way, a folder, a FIFO...); None when it is present or nothing is there."""
    here, mode, why = _walk(folder, rel)
    if why is not None or mode is None:
        return why
    return None if stat.S_ISREG(mode) else f"{here}: not a regular file"


def viewable(folder: Path | None, rel: str) -> bool:
    """The viewer can carry the glb: a regular file within MAX_VIEW_GLB (a
    larger one is still linked for download, just not turned here)."""
    from tcab.web3d import MAX_VIEW_GLB

    try:
        return folder is not None and present(folder, rel) and (folder / rel).lstat().st_size <= MAX_VIEW_GLB
    except OSError:  # gone since present() looked
        return False
