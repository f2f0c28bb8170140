"""Manifest paths: relative to the version folder and never leading out of it."""

from __future__ import annotations

import errno
from pathlib import Path, PurePosixPath

from tcab.catalog.fields import Fields, show


def normalize(rel: str) -> str | None:
    """A clean POSIX relative path, or None if ``rel`` is absolute, has ``..`` or is empty."""
    if "\\" in rel or rel.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
        return None
    parts = [p for p in PurePosixPath(rel).parts if p != "."]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def resolve_inside(root: Path, rel: str) -> tuple[Path | None, str | None]:
    """Resolve ``root/rel`` following symlinks; return (path, None) or (None, why not)."""
    full = root / rel
    try:
        resolved = full.resolve(strict=True)
    except RuntimeError:  # Python 3.11 reports a symlink loop this way
        return None, "symlink loop"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, "symlink loop"
        if full.is_symlink():
            return None, f"dangling symlink to {show(str(full.readlink()))}"
        return None, "no such file or folder"
    if not resolved.is_relative_to(root.resolve()):
        return None, f"leads outside the version folder (to {resolved})"
    return resolved, None


def check_path(
    fields: Fields, key: str, root: Path, value: str | None, kind: str, *, suffix: str | None = None
) -> str | None:
    """Check a manifest path of ``kind`` ``"file"`` or ``"dir"``; record a problem and
    return None when it is absolute, has ``..``, is missing, loops, or leads out."""
    if value is None:
        return None
    rel = normalize(value)
    if rel is None:
        fields.problem(
            key, f"expected a path relative to the version folder without '..', got {show(value)}"
        )
        return None
    resolved, why = resolve_inside(root, rel)
    if resolved is None:
        fields.problem(key, f"{show(value)}: {why}")
        return None
    if kind == "file" and not resolved.is_file():
        fields.problem(key, f"{show(value)}: expected a file, found a folder")
        return None
    if kind == "dir" and not resolved.is_dir():
        fields.problem(key, f"{show(value)}: expected a folder, found a file")
        return None
    if suffix is not None and not rel.endswith(suffix):
        fields.problem(key, f"expected a {suffix} file, got {show(value)}")
        return None
    return rel


def check_dest(fields: Fields, key: str, value: str | None) -> str | None:
    """A seeding destination: relative, no ``..``, not inside ``.git``."""
    if value is None:
        return None
    rel = normalize(value)
    if rel is None or rel.split("/")[0] == ".git":
        fields.problem(
            key, f"expected a relative path without '..' outside .git/, got {show(value)}"
        )
        return None
    return rel
