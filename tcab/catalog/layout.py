"""How a catalog folder is laid out: ``<type>/<difficulty>/<slug>/<version>/``.

The names each level may take (a version folder is ``vX.Y.Z``; the type
folders are the test types' names, :func:`tcab.testtypes.type_names`), and
finding a case's folder by its slug,
without parsing anything (the one-case commands' first step, and the whole
of a repeated one's: ``tcab.seeding.memo``).
"""

from __future__ import annotations

import re
from pathlib import Path

DIFFICULTIES = ("easy", "medium", "hard")
KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SLUG_MAX = 255  # a slug names a folder: no longer than a file name may be


# The catalog-level folder of shared packages (``packages = [name, ...]``):
# beside the type folders, never a type itself.
PACKAGES_FOLDER = "packages"


def case_folders(root: Path, slug: str) -> list[tuple[str, str, Path]]:
    """``(type, difficulty, folder)`` of every case folder named ``slug`` in
    the catalog folder ``root``; none for a slug that cannot name one. A
    folder under a type folder of no known type is listed too, so that the
    command says its type is unknown rather than that there is no such case."""
    if not KEBAB.fullmatch(slug) or len(slug) > SLUG_MAX:
        return []
    found = []
    try:
        type_dirs = sorted(p.name for p in root.iterdir() if not p.name.startswith(".") and p.is_dir())
    except OSError:
        return []
    for case_type in type_dirs:
        for difficulty in DIFFICULTIES:
            cdir = root / case_type / difficulty / slug
            if cdir.is_dir():
                found.append((case_type, difficulty, cdir))
    return found


def older_layout(data: dict) -> str | None:
    """The one message for a manifest in the original's older, pre-catalog
    layout (inline ``[[variant]]`` tables, no ``variants = [...]``), or None.
    Said once, instead of the cascade of key errors parsing it would give."""
    if not isinstance(data.get("variant"), list) or "variants" in data:
        return None
    missing = [k for k in ("slug", "changelog") if k not in data]
    add = f"; add {' and '.join(missing)}" if missing else ""
    return ("is in the original's older pre-catalog layout: move each [[variant]] table to "
            f"variants/<slug>.toml and list those files in variants = [...]{add}")


def version_key(version: str) -> tuple[int, int, int]:
    """``"v1.2.3"`` -> ``(1, 2, 3)``; raises ValueError for anything else."""
    text = version[1:] if version.startswith("v") else version
    parts = text.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"not a version vX.Y.Z: {version!r}")
    major, minor, patch = (int(p) for p in parts)
    return major, minor, patch
