"""Paths taken from a URL, confined to one folder.

Everything a run left behind is hostile: a collected tree may hold a
symlink to ``/etc/passwd`` and a URL may say ``..`` or hide a slash as
``%2F``. A path is accepted only if it is made of plain names and, resolved
physically (every symlink followed), still lies inside its root.
"""

from __future__ import annotations

from pathlib import Path

# Percent-escapes that could smuggle a separator, a NUL or a dot-dot past
# the router's own split of the path; refused in the raw request path.
_SMUGGLED = ("%2f", "%5c", "%00", "%2e")


# The longest file name (one path component) in bytes: a longer one names nothing.
NAME_MAX = 255


class PathRefused(Exception):
    """A URL path that would leave its root, or is not a plain relative path."""


class PathMissing(Exception):
    """A path that names no file: a symlink loop, a name longer than NAME_MAX."""


def _resolve(path: Path, shown: str) -> Path:
    """``path`` resolved physically; a symlink loop or an unusable name is PathMissing."""
    try:
        return path.resolve()
    except RuntimeError as exc:  # Python < 3.13: "Symlink loop from ..."
        raise PathMissing(f"{shown!r}: a symlink loop") from exc
    except OSError as exc:
        raise PathMissing(f"{shown!r}: {exc.strerror or exc}") from exc


def smuggled(raw_path: bytes) -> bool:
    """True when the undecoded request path hides a separator, NUL or dot."""
    lowered = raw_path.lower()
    return any(code.encode() in lowered for code in _SMUGGLED)


def check_relative(rel: str) -> tuple[str, ...]:
    """The parts of ``rel``, a plain relative path; raises PathRefused for an
    absolute path, ``..`` or ``.``, a backslash, a NUL or a control character."""
    if rel.startswith("/") or "\\" in rel or any(ord(c) < 32 or c == "\x7f" for c in rel):
        raise PathRefused(f"{rel!r}: not a plain relative path")
    parts = tuple(p for p in rel.split("/") if p != "")
    if any(p in (".", "..") for p in parts):
        raise PathRefused(f"{rel!r}: '.' and '..' are refused")
    if any(len(p.encode("utf-8", "surrogateescape")) > NAME_MAX for p in parts):
        raise PathMissing(f"{rel[:80]!r}...: a name longer than {NAME_MAX} bytes")
    return parts


def confined(root: Path, rel: str) -> Path:
    """``root/rel`` resolved physically; raises PathRefused unless it stays inside
    ``root`` (itself resolved), PathMissing for a symlink loop or an overlong
    name. The target need not exist."""
    parts = check_relative(rel)
    base = _resolve(root, str(root))
    target = _resolve(base.joinpath(*parts), rel)
    if not target.is_relative_to(base):
        raise PathRefused(f"{rel!r}: leaves {base}")
    return target


def inside(root: Path, stored: str | Path) -> Path:
    """A path recorded in results.db (absolute, or relative to ``root``) resolved
    physically; raises PathRefused unless it lies inside ``root``."""
    base = _resolve(root, str(root))
    path = Path(stored)
    target = _resolve(path if path.is_absolute() else base / path, str(stored))
    if not target.is_relative_to(base):
        raise PathRefused(f"{stored}: outside {base}")
    return target
