"""Keeping secret values out of a collected tree.

After collection, every entry of ``work/`` is checked against the run's
secret values and removed (listed in ``refused``, the value never repeated)
when its path (file, folder or symlink name), a symlink's target, a file's
bytes, or, for git objects, their *decompressed* bytes hold one:

- a folder whose name holds a value is removed with everything in it;
- files are read in chunks with an overlap, so memory stays bounded and a
  value across a chunk boundary is still found;
- a loose git object holding a value is removed; a pack holding one is
  removed with its ``.idx``. The git scan is bounded
  (``CollectLimits.max_git_*``); object files past a bound are removed
  unchecked and listed, so nothing unchecked is kept.

What the collection itself refused is listed with the values redacted too
(a refused name or a link target can hold one).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from tcab.runs import gitobjects
from tcab.runtime import CollectLimits, Refusal

_CHUNK = 1 << 20
#: Longest value an environment variable can carry into a command (Linux
#: MAX_ARG_STRLEN): a value cut by a chunk boundary is inside this overlap.
OVERLAP = 128 * 1024

FoundIn = Callable[[bytes], str | None]
Redact = Callable[[str], str]


def _file_chunks(fd: int) -> Iterator[bytes]:
    while chunk := os.read(fd, _CHUNK):
        yield chunk


class _Scrubber:
    def __init__(self, root: Path, found_in: FoundIn, redact: Redact, limits: CollectLimits):
        self.root, self.found_in, self.redact = str(root), found_in, redact
        self.budget = gitobjects.GitBudget(limits)
        self.over: str | None = None
        self.refused: list[Refusal] = []

    def refuse(self, rel: str, reason: str) -> None:
        self.refused.append(Refusal(self.redact(rel), reason))

    def name_hit(self, rel: str) -> str | None:
        return self.found_in(os.fsencode(rel))

    def walk(self) -> None:
        for dirpath, dirs, files in os.walk(self.root, followlinks=False):
            for name in list(dirs):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, self.root)
                if os.path.islink(path):
                    dirs.remove(name)  # never descended into; checked as a link
                    files.append(name)
                elif hit := self.name_hit(rel):
                    dirs.remove(name)
                    shutil.rmtree(path)
                    self.refuse(rel, f"folder name contains the value of secret {hit}")
            for name in files:
                self.entry(os.path.join(dirpath, name))

    def entry(self, path: str) -> None:
        rel = os.path.relpath(path, self.root)
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return  # the .idx of a pack removed a moment ago
        if stat.S_ISLNK(mode):
            hit = self.name_hit(rel) or self.found_in(os.fsencode(os.readlink(path)))
            if hit:
                os.unlink(path)
                self.refuse(rel, f"symlink name or target contains the value of secret {hit}")
            return
        hit = self.name_hit(rel) or self.content_hit(path)
        if hit:
            os.unlink(path)
            self.refuse(rel, f"contains the value of secret {hit}")
            return
        kind = gitobjects.kind(rel)
        if kind:
            self.git_object(path, rel, kind)

    def content_hit(self, path: str) -> str | None:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            return gitobjects.scan(_file_chunks(fd), self.found_in, OVERLAP)
        finally:
            os.close(fd)

    def git_object(self, path: str, rel: str, kind: str) -> None:
        why = None
        if self.over is None:
            try:
                with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW)) as fh:
                    if kind == "loose":
                        hit = gitobjects.scan(gitobjects.loose_chunks(fh, self.budget), self.found_in, OVERLAP)
                    else:
                        hit = next(filter(None, (self.found_in(obj) for obj in
                                                 gitobjects.pack_objects(fh, self.budget))), None)
            except gitobjects.OverBudget as exc:
                self.over = str(exc)
            except gitobjects.Unreadable as exc:
                why = f"git object could not be checked for secrets ({exc})"
            else:
                if not hit:
                    return
                why = f"git object contains the value of secret {hit}"
        why = why or f"git object not checked for secrets: the scan went {self.over}"
        os.unlink(path)
        self.refuse(rel, why)
        if kind == "pack":
            idx = path[: -len(".pack")] + ".idx"
            if os.path.lexists(idx):
                os.unlink(idx)
                self.refuse(rel[: -len(".pack")] + ".idx", "index of a removed pack")


def scrub_tree(root: Path, refused: Iterable[Refusal], *, found_in: FoundIn, redact: Redact,
               active: bool = True, limits: CollectLimits | None = None) -> list[Refusal]:
    """Remove what under ``root`` holds a secret value (see the module
    docstring); return ``refused`` (redacted) followed by what was removed.
    ``active`` False (no secrets) only redacts the list."""
    listed = [Refusal(redact(r.path), redact(r.reason)) for r in refused]
    if not active or not os.path.isdir(root):
        return listed
    scrubber = _Scrubber(root, found_in, redact, limits or CollectLimits())
    scrubber.walk()
    return [*listed, *scrubber.refused]
