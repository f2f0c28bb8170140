"""Reading one TOML file of the catalog into a table, or into a problem."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import tomli

from tcab.catalog.fields import Source
from tcab.errors import Problem


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it, else absolute."""
    try:
        return str(path.relative_to(Path(os.getcwd()).resolve()))
    except ValueError:
        return str(path)


def read_toml(path: Path) -> tuple[Source, dict[str, Any] | None]:
    """Parse ``path``; on failure the returned source carries one problem and the
    table is None (unreadable, symlink loop, binary garbage, empty, invalid TOML)."""
    source = Source(path, display_path(path), "")
    try:
        if path.exists() and not path.is_file():  # a FIFO or device would block or never end
            source.problems.append(Problem(source.display, "cannot read: not a regular file"))
            return source, None
        raw = path.read_bytes()
    except RuntimeError:
        source.problems.append(Problem(source.display, "cannot read: symlink loop"))
        return source, None
    except OSError as exc:
        source.problems.append(Problem(source.display, f"cannot read: {exc.strerror or exc}"))
        return source, None
    if b"\x00" in raw:
        source.problems.append(Problem(source.display, "not a TOML file: it contains NUL bytes"))
        return source, None
    try:
        source.text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        source.problems.append(
            Problem(source.display, f"not a TOML file: invalid UTF-8 at byte {exc.start}")
        )
        return source, None
    if not source.text.strip():
        source.problems.append(Problem(source.display, "empty file: expected a TOML document"))
        return source, None
    try:
        data = tomli.loads(source.text)
    except tomli.TOMLDecodeError as exc:
        message = getattr(exc, "msg", None) or str(exc)
        line = getattr(exc, "lineno", None)
        source.problems.append(Problem(source.display, f"invalid TOML: {message}", line=line))
        return source, None
    return source, data
