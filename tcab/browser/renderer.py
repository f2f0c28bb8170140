"""What, besides a page, decides the pixels of its screenshot: the browser
and the host's fonts, as a fingerprint for the mockup cache's key.

Both are fingerprinted by file metadata (inode, size, modification time),
so no process is started: upgrading the Chromium package puts a new file
at ``CHROMIUM`` (``dpkg`` renames the new one into place: a new inode), and
installing, removing or changing a font or fontconfig's configuration
changes a file under ``FONT_DIRS``. A stale shot is then rendered again
instead of being reused. The font folders are the host's (trusted), but
the walk is still bounded.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from tcab.browser import chromium

#: fontconfig's configuration and Debian's default font folders (system,
#: local, the user's); a folder that does not exist contributes nothing.
FONT_DIRS = ("/etc/fonts", "/usr/share/fonts", "/usr/local/share/fonts",
             "~/.local/share/fonts", "~/.fonts")
MAX_FONT_FILES = 50_000  # past this many, the rest is not looked at


def _stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _font_files(font_dirs: tuple[str, ...]) -> list[list]:
    found: list[list] = []
    for top in font_dirs:
        for folder, dirs, files in os.walk(os.path.expanduser(top)):
            dirs.sort()
            for name in sorted(files):
                if len(found) >= MAX_FONT_FILES:
                    return found
                path = os.path.join(folder, name)
                found.append([path, _stat(path)])
    return found


def _fingerprint(browser: str, font_dirs: tuple[str, ...]) -> str:
    doc = {"browser": [str(Path(browser).resolve()), _stat(browser)], "fonts": _font_files(font_dirs)}
    return hashlib.sha256(json.dumps(doc).encode()).hexdigest()


@functools.cache
def renderer_fingerprint() -> str:
    """SHA-256 hex of the browser's and the fonts' file metadata, read once
    per process (a seed asks per mockup, a sweep per seed task)."""
    return _fingerprint(chromium.CHROMIUM, FONT_DIRS)
