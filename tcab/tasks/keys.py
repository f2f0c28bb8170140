"""Keyed targets: every sweep target records the digests of the inputs that made it.

Why not doit's own state alone: doit's state backends (dbm, json, sqlite3)
keep every change in memory and write it once, when doit exits. A SIGKILL in
the middle of a sweep therefore loses the state of every task that finished
before it, and the next ``doit`` would redo completed runs. So each target
tcab writes is a small JSON document holding ``inputs`` (name -> digest) next
to its payload, written atomically; a task is up to date when its target
exists and its recorded inputs equal the inputs computed now. The filesystem
is the state: a SIGKILL loses at most the task in flight, and a CI cache that
restores ``build/`` is up to date on any machine (digests, not times).

:class:`KeyCheck` is the ``uptodate`` callable doit calls; its ``repr`` says
which inputs changed, so ``doit info TASK`` answers "why will this re-run".
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tcab import atomic

Inputs = Mapping[str, str]


class FileDigests:
    """Content digests and parsed JSON of files, cached by (path, mtime_ns, size).

    A sweep asks for the same small files many times (every run of a seed
    reads the seed's record); the stat key makes a rewritten file miss.
    """

    __slots__ = ("_sha", "_json", "_trees")

    def __init__(self) -> None:
        self._sha: dict[tuple[str, int, int], str] = {}
        self._json: dict[tuple[str, int, int], Any] = {}
        self._trees: dict[str, str] = {}

    @staticmethod
    def _stat_key(path: Path) -> tuple[str, int, int] | None:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        return (str(path), st.st_mtime_ns, st.st_size)

    def _read(self, key: tuple[str, int, int], parse: bool) -> None:
        data = Path(key[0]).read_bytes()
        self._sha[key] = hashlib.sha256(data).hexdigest()
        if parse:
            try:
                self._json[key] = json.loads(data)
            except ValueError:
                self._json[key] = None

    def sha256(self, path: Path) -> str | None:
        """SHA-256 hex of the file at ``path``, or None if it does not exist."""
        key = self._stat_key(path)
        if key is None:
            return None
        if key not in self._sha:
            self._read(key, parse=False)
        return self._sha[key]

    def json(self, path: Path) -> Any | None:
        """The parsed JSON document at ``path``; None if missing or unparsable
        (a target from an older tcab or a foreign file counts as absent).
        Reading it also caches its digest, so a manifest check costs a stat."""
        key = self._stat_key(path)
        if key is None:
            return None
        if key not in self._json:
            try:
                self._read(key, parse=True)
            except OSError:
                return None
        return self._json[key]

    def tree(self, path: Path, compute: Callable[[Path], str]) -> str:
        """A folder digest, computed once per process (inputs do not change mid-sweep)."""
        key = str(path)
        if key not in self._trees:
            self._trees[key] = compute(path)
        return self._trees[key]


def inputs_digest(inputs: Inputs) -> str:
    data = json.dumps(dict(inputs), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def write_target(path: Path, inputs: Inputs, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Write a keyed target atomically: ``{"key", "inputs", **payload}``; return it."""
    doc = {"key": inputs_digest(inputs), "inputs": dict(sorted(inputs.items())), **payload}
    atomic.write_text(path, json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return doc


class KeyCheck:
    """doit ``uptodate`` callable: is ``target`` present with these ``inputs``?

    ``inputs`` is called at check time, after the task's dependencies ran,
    so it may read their targets. If it raises a missing-input error
    (``KeyError``/``FileNotFoundError``: an upstream task failed or was not
    built), the task counts as stale and its action reports why.
    """

    __slots__ = ("target", "inputs", "cache", "changed")

    def __init__(self, target: Path, inputs: Callable[[], Inputs], cache: FileDigests):
        self.target = target
        self.inputs = inputs
        self.cache = cache
        self.changed: tuple[str, ...] = ()

    def __call__(self) -> bool:
        doc = self.cache.json(self.target)
        if not isinstance(doc, dict):
            self.changed = ("target missing",)
            return False
        try:
            now = dict(self.inputs())
        except (KeyError, FileNotFoundError) as exc:
            self.changed = (f"input unavailable: {exc}",)
            return False
        was = doc.get("inputs") or {}
        self.changed = tuple(sorted(k for k in now.keys() | was.keys() if now.get(k) != was.get(k)))
        return not self.changed and doc.get("key") == inputs_digest(now)

    def __repr__(self) -> str:
        why = ", ".join(self.changed) if self.changed else "unchanged"
        return f"KeyCheck({self.target}: {why})"


def fresh(target: Path, inputs: Inputs, cache: FileDigests) -> dict[str, Any] | None:
    """The target document if it already holds exactly ``inputs``, else None.

    Actions call this first, so a task that doit re-executes after losing its
    state (SIGKILL) finds its finished work and does not redo it.
    """
    doc = cache.json(target)
    if isinstance(doc, dict) and doc.get("key") == inputs_digest(inputs):
        return doc
    return None
