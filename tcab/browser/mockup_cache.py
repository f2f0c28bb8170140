"""Rendered mockups kept by content, so a warm seed starts no browser.

A screenshot is a function of the mockup and of every file of the case
folder it loaded (its CSS, images, fonts, scripts). Only the mockup is
known before rendering, so the cache is two levels deep::

    build/mockup-cache/<key>/<files>/shot.png
                                    /loaded.json   {"files": {rel: sha256}, "png_sha256", ...}

``<key>`` is the SHA-256 of the mockup's path in its version folder, its
bytes, the default viewport, tcab's version (a release that renders
differently never reuses an old shot) and the renderer's fingerprint (the
browser's and the host's fonts' files, :mod:`tcab.browser.renderer`:
upgrading Chromium or adding a font renders again); ``<files>`` is the SHA-256 of the
loaded set. A hit needs every recorded file to still have its recorded
digest (read as the site server would serve it: no link followed), and the
PNG its recorded digest (a damaged entry is a miss). Entries are written
with :func:`tcab.atomic.atomic_dir`, so a killed seed leaves none
half-written and two seeds storing the same shot keep one.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

from tcab import __version__, atomic
from tcab.browser.chromium import BrowserUnavailable
from tcab.browser.mockup import DEFAULT_VIEWPORT, MockupLimits, MockupSession
from tcab.browser.renderer import renderer_fingerprint
from tcab.browser.site_server import Refused, open_inside
from tcab.catalog.toml import display_path
from tcab.errors import BrowserError
from tcab.reading import read_bytes

RENDER_FORMAT = 1  # bump when the way a mockup is rendered changes
CACHE_FOLDER = "mockup-cache"


def mockup_cache_dir(build_dir: Path | str) -> Path:
    """Where rendered mockups are kept: beside the seed cache under ``build/``."""
    return Path(build_dir) / CACHE_FOLDER


# The cache lives in build/, which may be restored from elsewhere: what is
# read back is a regular file, never through a link, and bounded.
MAX_RECORD_BYTES = 1024**2
MAX_SHOT_BYTES = 64 * 1024**2


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def mockup_key(rel: str, mockup_sha: str) -> str:
    """The first level of the cache: what is known before rendering."""
    doc = {"format": RENDER_FORMAT, "tcab": __version__, "mockup": rel, "sha256": mockup_sha,
           "viewport": list(DEFAULT_VIEWPORT), "renderer": renderer_fingerprint()}
    return _sha256(json.dumps(doc, sort_keys=True).encode())


def files_digest(files: dict[str, str]) -> str:
    return _sha256(json.dumps(dict(sorted(files.items()))).encode())


class FolderReader:
    """Digests of files of a version folder, read as the site server reads them."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def sha256(self, rel: str) -> str | None:
        """SHA-256 of ``rel`` when it is a regular file physically inside the folder, else None."""
        try:
            root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            fd = open_inside(root_fd, rel.split("/"))
        except Refused:
            return None
        finally:
            os.close(root_fd)
        digest = hashlib.sha256()
        with os.fdopen(fd, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()


def _entries(key_dir: Path) -> list[tuple[Path, dict]]:
    """The stored shots of one mockup key with their records (unreadable ones skipped)."""
    found = []
    try:
        names = sorted(os.listdir(key_dir))
    except OSError:
        return found
    for name in names:
        if name.startswith("."):
            continue  # an entry being written
        try:
            record = json.loads(read_bytes(key_dir / name / "loaded.json", MAX_RECORD_BYTES, follow=False))
        except (OSError, ValueError):  # ReadRefused (a FIFO, a link, too large) is an OSError
            continue
        if isinstance(record, dict) and isinstance(record.get("files"), dict):
            found.append((key_dir / name, record))
    return found


def mockup_inputs(cache_dir: Path, case, variant, sha256: Callable[[Path], str | None]) -> str:
    """A digest of every mockup of ``case``'s ``variant`` and of every file its stored shots
    loaded, as they are now: it changes when a mockup or anything it loads
    changes (a sweep's seed input). ``sha256`` digests a file path (the
    sweep's cached digests)."""
    parts = {}
    for ref in case.mockups_for(variant):
        mockup_sha = sha256(case.path(ref.mockup)) or "missing"
        key_dir = Path(cache_dir) / mockup_key(ref.mockup, mockup_sha)
        files = set()
        for _, record in _entries(key_dir):
            files.update(f for f in record["files"] if isinstance(f, str))
        parts[ref.mockup] = {"sha256": mockup_sha,
                             "loads": {f: sha256(case.path(f)) or "missing" for f in sorted(files)}}
    return _sha256(json.dumps(parts, sort_keys=True).encode())


class MockupCache:
    """The ``render_mockup`` of one case version folder ``root``: a stored shot
    when one matches, else a render (one browser for the whole seed, started
    on the first miss). A context manager; ``renders`` and ``browser_starts``
    count what a seed cost."""

    def __init__(self, root: Path, cache_dir: Path, limits: MockupLimits | None = None):
        self.root = Path(root)
        self.cache_dir = Path(cache_dir)
        self.limits = limits or MockupLimits()
        self.reader = FolderReader(self.root)
        self.renders = 0
        self.hits = 0
        self._session: MockupSession | None = None

    @property
    def browser_starts(self) -> int:
        return 0 if self._session is None else self._session.browser_starts

    def __enter__(self) -> MockupCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._session is not None:
            self._session.close()

    def __call__(self, path: Path) -> bytes:
        """PNG bytes of the mockup at ``path``. Raises BrowserError naming the file."""
        rel = Path(path).relative_to(self.root).as_posix()
        mockup_sha = self.reader.sha256(rel)
        key_dir = self.cache_dir / mockup_key(rel, mockup_sha or "missing")
        if mockup_sha is not None:
            shot = self._lookup(key_dir)
            if shot is not None:
                self.hits += 1
                return shot
        if self._session is None:
            self._session = MockupSession(self.root, self.limits)
        try:
            rendered = self._session.render(Path(path))
        except BrowserUnavailable as exc:
            raise BrowserError(f"{display_path(Path(path))}: cannot render the mockup: {exc}") from exc
        self.renders += 1
        files = {rel: self.reader.sha256(rel) for rel in rendered.loaded}
        if mockup_sha is not None and files.get(rel) == mockup_sha and None not in files.values():
            self._store(key_dir, files, rendered)
        return rendered.png

    def _lookup(self, key_dir: Path) -> bytes | None:
        for entry, record in _entries(key_dir):
            if any(self.reader.sha256(f) != sha for f, sha in record["files"].items()):
                continue
            try:
                png = read_bytes(entry / "shot.png", MAX_SHOT_BYTES, follow=False)
            except OSError:
                continue
            if _sha256(png) == record.get("png_sha256"):
                return png
        return None

    def _store(self, key_dir: Path, files: dict[str, str], rendered) -> None:
        record = {"files": dict(sorted(files.items())), "png_sha256": _sha256(rendered.png),
                  "width": rendered.width, "height": rendered.height}
        try:
            # replace: an entry of this name that did not match was damaged.
            with atomic.atomic_dir(key_dir / files_digest(files), replace=True) as tmp:
                (tmp / "shot.png").write_bytes(rendered.png)
                (tmp / "loaded.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        except OSError:
            pass  # a cache that cannot be written only costs the next seed a render
