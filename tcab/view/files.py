"""The collected tree of a run as a file browser: listings and highlighted source.

Files are hostile: a listing never follows a symlink (it names it and where
it points), a file is shown only if it resolves inside its root (checked by
the caller with :func:`tcab.view.paths.confined`), and at most ``MAX_SHOWN``
bytes of it are read; binary files are offered raw, images shown inline.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

# Entries of one folder listed; the rest are counted.
MAX_ENTRIES = 2000
# Bytes of a file read for the page; beyond them the page says it was cut.
MAX_SHOWN = 512 * 1024
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".gif": "image/gif", ".webp": "image/webp"}


@dataclass(frozen=True, slots=True)
class Item:
    name: str
    kind: str        # dir | file | link | other
    size: int
    target: str = ""  # where a symlink points (shown, never followed)


def listing(folder: Path) -> tuple[list[Item], int]:
    """The entries of ``folder`` (folders first, then by name) and how many more were left out."""
    items: list[Item] = []
    skipped = 0
    with os.scandir(folder) as it:
        for entry in it:
            if len(items) >= MAX_ENTRIES:
                skipped += 1
                continue
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                try:
                    target = os.readlink(entry.path)
                except OSError:
                    target = "?"
                items.append(Item(entry.name, "link", 0, target))
            elif stat.S_ISDIR(st.st_mode):
                items.append(Item(entry.name, "dir", 0))
            elif stat.S_ISREG(st.st_mode):
                items.append(Item(entry.name, "file", st.st_size))
            else:
                items.append(Item(entry.name, "other", 0))
    items.sort(key=lambda i: (i.kind != "dir", i.name))
    return items, skipped


@dataclass(frozen=True, slots=True)
class Shown:
    html: str = ""        # highlighted source (Pygments), when text
    binary: bool = False
    image: bool = False
    size: int = 0
    cut: bool = False


def show_file(path: Path) -> Shown:
    """``path`` (a regular file) as highlighted HTML, or marked binary or image."""
    size = path.stat().st_size
    if path.suffix.lower() in IMAGE_TYPES:
        return Shown(image=True, size=size)
    with open(path, "rb") as fh:
        data = fh.read(MAX_SHOWN)
    if b"\0" in data[:8192]:
        return Shown(binary=True, size=size)
    text = data.decode("utf-8", "replace")
    return Shown(html=highlight(path.name, text), size=size, cut=size > MAX_SHOWN)


def highlight(name: str, text: str) -> str:
    """``text`` as Pygments HTML, the lexer chosen by file name (plain text when unknown)."""
    from pygments import highlight as pyg_highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import TextLexer, get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_for_filename(name, stripnl=False)
    except ClassNotFound:
        lexer = TextLexer(stripnl=False)
    return pyg_highlight(text, lexer, HtmlFormatter(linenos="table", cssclass="src"))


def source_css() -> str:
    """The Pygments stylesheet of highlighted source."""
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(cssclass="src").get_style_defs(".src")
