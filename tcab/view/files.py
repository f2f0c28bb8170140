"""The collected tree of a run as a file browser: listings and highlighted source.

Files are hostile: a listing never follows a symlink (it names it and where
it points), a file is shown only if it resolves inside its root (checked by
the caller with :func:`tcab.view.paths.confined`), and at most ``MAX_SHOWN``
bytes of it are read; binary files are offered raw, images shown inline.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

# Imported from their own modules, once: the packages' lazy attribute loading
# is not safe when many request threads first ask for a name at once.
from pygments import format as pyg_format
from pygments.formatters.html import HtmlFormatter
from pygments.lexers import find_lexer_class_for_filename
from pygments.lexers.special import TextLexer

# Entries of one folder listed; the rest are counted.
MAX_ENTRIES = 2000
# Bytes of a file read for the page; beyond them the page says it was cut.
MAX_SHOWN = 512 * 1024
# A lexer is a pile of regular expressions, and some take quadratic time or
# worse on one repeated character (Pygments' Makefile lexer: minutes on
# 32 KiB, seconds inside one regular expression call), holding the
# interpreter lock all along. So highlighting runs in a child process of its
# own, at most HIGHLIGHT_JOBS at once, which stops lexing after
# HIGHLIGHT_SECONDS (the rest is plain text) and is killed HIGHLIGHT_GRACE
# seconds later; a file larger than MAX_HIGHLIGHT, or one asked for while the
# jobs are busy, is shown as plain text at once. The page says why.
MAX_HIGHLIGHT = 256 * 1024
HIGHLIGHT_SECONDS = 2.0
HIGHLIGHT_GRACE = 5.0
HIGHLIGHT_JOBS = 2
_JOBS = threading.BoundedSemaphore(HIGHLIGHT_JOBS)
_LOOKUP = threading.Lock()
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
    plain: str = ""       # why the text is shown plain (not highlighted), or ""


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
    html, plain = highlight(path.name, text)
    return Shown(html=html, size=size, cut=size > MAX_SHOWN, plain=plain)


def highlight(name: str, text: str, *, max_chars: int = MAX_HIGHLIGHT,
              seconds: float = HIGHLIGHT_SECONDS) -> tuple[str, str]:
    """(``text`` as Pygments HTML, why it is plain or ""): the lexer chosen by
    file name (plain text when unknown), within the bounds above."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > max_chars:
        return plain_html(text), f"plain text: larger than {max_chars:,} characters"
    with _LOOKUP:  # Pygments loads its lexer modules lazily, not safely from many threads
        known = find_lexer_class_for_filename(name) is not None
    if not known:
        return plain_html(text), ""
    if not _JOBS.acquire(blocking=False):
        return plain_html(text), "plain text: the highlighter is busy with other files"
    try:
        proc = subprocess.run([sys.executable, "-c", _WORKER, name, repr(seconds)], input=text.encode(),
                              capture_output=True, timeout=seconds + HIGHLIGHT_GRACE)
    except subprocess.TimeoutExpired:
        return plain_html(text), f"plain text: highlighting took over {seconds:g} s"
    finally:
        _JOBS.release()
    reason, sep, html = proc.stdout.decode("utf-8", "replace").partition("\n")
    if proc.returncode != 0 or not sep:
        return plain_html(text), "plain text: the highlighter failed"
    return html, reason


def plain_html(text: str) -> str:
    """``text`` in the highlighted page's layout, unlexed (linear time)."""
    return _format(TextLexer().get_tokens(text))


_WORKER = "from tcab.view.files import _work; _work()"


def _work() -> None:
    """The highlighting child: argv name and seconds, the text on stdin; prints
    the reason line (empty when whole) and the HTML."""
    from pygments.lexers import get_lexer_for_filename
    from pygments.token import Text

    name, seconds = sys.argv[1], float(sys.argv[2])
    text = sys.stdin.buffer.read().decode("utf-8", "replace")
    lexer = get_lexer_for_filename(name, stripnl=False, ensurenl=False)
    deadline = time.monotonic() + seconds
    tokens, done, reason = [], 0, ""
    for kind, value in lexer.get_tokens(text):
        tokens.append((kind, value))
        done += len(value)
        if time.monotonic() > deadline:
            if done < len(text):
                tokens.append((Text, text[done:]))
                reason = f"plain text past character {done:,}: highlighting took over {seconds:g} s"
            break
    sys.stdout.buffer.write(reason.encode() + b"\n" + _format(tokens).encode())


def _format(tokens) -> str:
    return pyg_format(tokens, HtmlFormatter(linenos="table", cssclass="src"))


def source_css() -> str:
    """The Pygments stylesheet of highlighted source."""
    return HtmlFormatter(cssclass="src").get_style_defs(".src")
