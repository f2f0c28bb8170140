"""How a catalog folder is laid out: ``<type>/<difficulty>/<slug>/<version>/``.

The names each level may take, and finding a case's folder by its slug,
without parsing anything (the one-case commands' first step, and the whole
of a repeated one's: ``tcab.seeding.memo``).
"""

from __future__ import annotations

import re
from pathlib import Path

TYPES = ("end-to-end", "adversarial")
DIFFICULTIES = ("easy", "medium", "hard")
KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SLUG_MAX = 255  # a slug names a folder: no longer than a file name may be


def case_folders(root: Path, slug: str) -> list[tuple[str, str, Path]]:
    """``(type, difficulty, folder)`` of every case folder named ``slug`` in
    the catalog folder ``root``; none for a slug that cannot name one."""
    if not KEBAB.match(slug) or len(slug) > SLUG_MAX:
        return []
    found = []
    for case_type in TYPES:
        for difficulty in DIFFICULTIES:
            cdir = root / case_type / difficulty / slug
            if cdir.is_dir():
                found.append((case_type, difficulty, cdir))
    return found
