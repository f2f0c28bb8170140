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

:func:`key_check` makes the ``uptodate`` callable doit calls; its name says
which inputs changed, so ``doit info TASK`` answers "why will this re-run".
:class:`FileDigests` caches what checks read, and the stat index lets a
no-op sweep check 10,000 targets with a stat each.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from doit.exceptions import TaskFailed

from tcab import atomic
from tcab.errors import TcabError

Inputs = Mapping[str, str]


class FileDigests:
    """Parsed JSON and content digests of files, cached by (path, mtime_ns, size).

    A sweep asks for the same small files many times (every run of a seed
    reads the seed's record); the stat key makes a rewritten file miss.
    Hot path of a no-op sweep: plain ``os`` calls on strings, no hashing of
    keyed targets (they carry their own ``stamp``).
    """

    __slots__ = ("_sha", "_json", "_trees", "_index")

    def __init__(self) -> None:
        self._sha: dict[tuple[str, int, int], str] = {}
        self._json: dict[tuple[str, int, int], Any] = {}
        self._trees: dict[str, str] = {}
        self._index: dict[str, list] = {}

    # ---- the stat index: a cache of (mtime_ns, size) -> key, stamp of keyed targets

    def load_index(self, path: Path | str) -> None:
        """Read the stat index written by the last manifest (a cache: a missing or
        unreadable index only means that targets are opened to read their key)."""
        try:
            with open(path, "rb") as fh:
                found = json.loads(fh.read().decode("utf-8"))
        except (OSError, ValueError):
            return
        if isinstance(found, dict):
            self._index = found

    def indexed(self, path: str, st: os.stat_result) -> list | None:
        """``[mtime_ns, size, key, stamp]`` of ``path`` if the index has it with this stat."""
        entry = self._index.get(path)
        if entry is not None and entry[0] == st.st_mtime_ns and entry[1] == st.st_size:
            return entry
        return None

    def write_index(self, path: Path | str, targets: list[str]) -> None:
        """Index ``targets`` (keyed targets that exist) by their current stat, atomically."""
        index = {}
        for target in targets:
            try:
                st = os.stat(target)
            except FileNotFoundError:
                continue
            doc = self.json(target, st)
            if isinstance(doc, dict) and "key" in doc:
                index[target] = [st.st_mtime_ns, st.st_size, doc["key"], doc.get("stamp")]
        atomic.write_text(path, json.dumps(index, separators=(",", ":")))

    @staticmethod
    def _stat_key(path: Path | str) -> tuple[str, int, int] | None:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        return (path if isinstance(path, str) else str(path), st.st_mtime_ns, st.st_size)

    def sha256(self, path: Path | str) -> str | None:
        """SHA-256 hex of the file at ``path``, or None if it does not exist."""
        key = self._stat_key(path)
        if key is None:
            return None
        found = self._sha.get(key)
        if found is None:
            with open(key[0], "rb") as fh:
                found = self._sha[key] = hashlib.sha256(fh.read()).hexdigest()
        return found

    def json(self, path: Path | str, st: os.stat_result | None = None) -> Any | None:
        """The parsed JSON document at ``path``; None if missing or unparsable
        (a target from an older tcab or a foreign file counts as absent).
        ``st``: the caller's fresh ``os.stat`` of ``path``, to save a second one."""
        if st is None:
            key = self._stat_key(path)
            if key is None:
                return None
        else:
            key = (path if isinstance(path, str) else str(path), st.st_mtime_ns, st.st_size)
        try:
            return self._json[key]
        except KeyError:
            pass
        try:
            with open(key[0], "rb") as fh:
                doc = json.loads(fh.read().decode("utf-8"))
        except (OSError, ValueError):
            doc = None
        self._json[key] = doc
        return doc

    def stamp(self, path: Path | str) -> str | None:
        """The content identity of a keyed target (its ``stamp``), else its SHA-256."""
        doc = self.json(path)
        if isinstance(doc, dict) and isinstance(doc.get("stamp"), str):
            return doc["stamp"]
        return self.sha256(path)

    def tree(self, path: Path, compute: Callable[[Path], str]) -> str:
        """A folder digest, computed once per process (inputs do not change mid-sweep)."""
        key = str(path)
        if key not in self._trees:
            self._trees[key] = compute(path)
        return self._trees[key]


def inputs_digest(inputs: Inputs) -> str:
    """SHA-256 of ``name=digest`` lines in name order (names and digests hold no newline).
    Cheaper than canonical JSON: every check of a no-op sweep computes one."""
    data = "\n".join(f"{k}={inputs[k]}" for k in sorted(inputs))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def write_target(path: Path, inputs: Inputs, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Write a keyed target atomically: ``{"key", "inputs", "stamp", **payload}``; return it.

    ``stamp`` is the SHA-256 of the rest of the document, so a reader knows
    the content's identity without hashing the file.
    """
    doc = {"key": inputs_digest(inputs), "inputs": dict(sorted(inputs.items())), **payload}
    doc["stamp"] = hashlib.sha256(json.dumps(doc, sort_keys=True).encode("utf-8")).hexdigest()
    atomic.write_text(path, json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return doc


def key_check(target: Path, inputs: Callable[[], Inputs], cache: FileDigests) -> Callable[..., bool]:
    """The doit ``uptodate`` callable: is ``target`` present with these ``inputs``?

    ``inputs`` is called at check time, after the task's dependencies ran,
    so it may read their targets. If it raises a missing-input error
    (``KeyError``/``FileNotFoundError``: an upstream task failed or was not
    built), the task counts as stale and its action reports why.

    Fast path: the manifest task writes a stat index of every target
    (:meth:`FileDigests.write_index`). When a target's stat still matches its
    entry, its key is taken from there and the file is not opened; when the
    index is gone or stale (SIGKILL before the manifest, a target restored on
    another machine with a new mtime), the key is read from the target
    itself. A cache, never the truth. doit's own state is not used at all
    (its values would be decoded for every task of every sweep).

    A plain function, not an object with ``__call__``: doit inspects the
    signature of every uptodate callable on every check, and a function is
    several times cheaper to inspect. Its ``__qualname__`` carries the last
    verdict, which is what ``doit info TASK`` prints ("why will this re-run").
    """
    where = str(target)

    def check(task, values) -> bool:
        try:
            st = os.stat(where)
        except FileNotFoundError:
            check.__qualname__ = f"inputs[{where}: target missing]"
            return False
        entry = cache.indexed(where, st)
        known = entry[2] if entry is not None else None
        try:
            now = inputs()
        except (KeyError, FileNotFoundError, TcabError) as exc:
            # Stale; the action computes the inputs again and reports the error.
            check.__qualname__ = f"inputs[{where}: input unavailable: {exc}]"
            return False
        # The target is unchanged since the last manifest noted its key.
        if known is not None and known == inputs_digest(now):
            return True
        # Otherwise the target itself says (inputs as data: the key is their digest).
        doc = cache.json(where, st)
        if isinstance(doc, dict) and doc.get("inputs") == now:
            return True
        doc = cache.json(where)
        was = (doc.get("inputs") if isinstance(doc, dict) else None) or {}
        changed = sorted(k for k in now.keys() | was.keys() if now.get(k) != was.get(k))
        check.__qualname__ = f"inputs[{where}: changed {', '.join(changed) or 'key'}]"
        return False

    check.__qualname__ = f"inputs[{where}]"
    # doit calls inspect.signature on every check; a precomputed signature
    # is returned as is instead of being rebuilt 10,000 times per sweep.
    check.__signature__ = _CHECK_SIGNATURE
    return check


def _check_signature() -> inspect.Signature:
    def check(task, values) -> bool: ...

    return inspect.signature(check)


_CHECK_SIGNATURE = _check_signature()


def fresh(target: Path, inputs: Inputs, cache: FileDigests) -> dict[str, Any] | None:
    """The target document if it already holds exactly ``inputs``, else None.

    Actions call this first, so a task that doit re-executes after losing its
    state (SIGKILL) finds its finished work and does not redo it.
    """
    doc = cache.json(target)
    if isinstance(doc, dict) and doc.get("inputs") == dict(inputs):
        return doc
    return None


def keyed(action: Callable[..., Any], *args: Any) -> Any:
    """Run ``action(*args)``, turning a TcabError into a task failure with its message."""
    try:
        result = action(*args)
    except TcabError as exc:
        # Bad input or infrastructure: a task failure with our message, no traceback.
        return TaskFailed(f"{type(exc).__name__}: {exc}")
    return True if result is None else result
