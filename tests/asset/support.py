"""What the asset-generation tests share: the original's three cases (copied
as fixtures, tests/fixtures/catalogs/original/asset-generation/) and helpers
to edit a writable copy and read its problems."""

from __future__ import annotations

import shutil
from pathlib import Path

from tcab.catalog import load_version
from tests.support.original import ORIGINAL

ASSETS = ORIGINAL / "asset-generation"
LATTICE = ASSETS / "easy/lattice-sink/v1.0.0"
ICONS = ASSETS / "easy/rpg-item-icons/v1.0.0"
HERO = ASSETS / "medium/platformer-hero-run/v1.0.0"


def copy(src: Path, tmp_path: Path) -> Path:
    dest = tmp_path / src.relative_to(ORIGINAL)
    shutil.copytree(src, dest)
    return dest


def edit(root: Path, old: str, new: str) -> None:
    path = root / "test-case.toml"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def problems(root: Path) -> list[str]:
    case, found = load_version(root)
    assert case is None, "a broken manifest must not load"
    return [str(p) for p in found]


def line(root: Path, needle: str) -> int:
    return next(i for i, text in enumerate((root / "test-case.toml").read_text().splitlines(), 1) if needle in text)
PIPE_HUB = ASSETS / "easy/caldera-pipe-hub/v1.0.0"
CORE = ASSETS / "medium/caldera-core/v1.0.0"


def edit_file(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))
