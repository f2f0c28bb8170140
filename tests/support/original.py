"""The catalog fixtures written in the original Test Cabinet's format
(tests/fixtures/catalogs/original) and the helpers their tests share."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tcab.catalog import load_version
from tests.support.paths import CATALOG_FIXTURES, REPO

ORIGINAL = CATALOG_FIXTURES / "original"
COIL = ORIGINAL / "end-to-end/easy/coil/v1.0.0"
GLINT = ORIGINAL / "end-to-end/easy/glint/v1.0.0"
SKIRMISH = ORIGINAL / "adversarial/easy/skirmish/v1.0.0"
FORAY = ORIGINAL / "adversarial/easy/foray/v1.0.0"
PNG = b"\x89PNG\r\n\x1a\n"


def load(root: Path):
    """The case version at ``root``, which must load without a problem."""
    case, problems = load_version(root)
    assert problems == [], [str(p) for p in problems]
    assert case is not None
    return case


def copy(src: Path, tmp_path: Path) -> Path:
    """A writable copy of a version folder, at the same <type>/<difficulty>/<slug>/ depth."""
    dest = tmp_path / src.relative_to(ORIGINAL)
    shutil.copytree(src, dest)
    return dest


def problems(root: Path) -> list[tuple[str, int | None, str | None, str]]:
    """(file name, line, key, message) of each problem of a version that must not load."""
    case, found = load_version(root)
    assert case is None
    return [(Path(p.path).name, p.line, p.key, p.message) for p in found]


def edit(path: Path, old: str, new: str) -> None:
    """Replace the first ``old`` in the file (which must hold it) by ``new``."""
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def tcab(*args: str, catalog: Path, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m tcab ARGS`` over ``catalog``, as an operator types it."""
    env = {**os.environ, "TCAB_CATALOG": str(catalog), "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "tcab", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)
