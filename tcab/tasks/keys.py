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

Targets are verified on read: a target that does not parse, is not a keyed
document, or whose ``stamp`` (the SHA-256 of the rest of the document) does
not match its content is *damaged* and counts as stale, with a reason
(:meth:`FileDigests.read_target`). A target may also name files its work
lives in (``requires``: path relative to the project root -> SHA-256, or
None when only presence matters: a run's folder, a tournament's replays);
one of them missing or changed makes the target stale too. Both checks run
only when a file's stat differs from the stat index, so a no-op sweep still
hashes nothing.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from doit.exceptions import TaskFailed

from tcab import atomic
from tcab.errors import TcabError

Inputs = Mapping[str, str]


class Requirement(NamedTuple):
    """A file a target requires, as the stat index noted it."""

    path: str  # absolute
    sha256: str | None  # None: only presence matters
    mtime_ns: int  # -1: missing or changed when indexed (never matches a stat)
    size: int


class IndexEntry(NamedTuple):
    """What the stat index knows of a whole keyed target with this stat."""

    mtime_ns: int
    size: int
    key: str
    stamp: str
    requires: Sequence[Requirement] = ()  # as stored: rows of [path, sha256, mtime_ns, size]

    def row(self) -> list:
        """The entry as stored: ``[mtime_ns, size, key, stamp(, requires)]``."""
        row: list = [self.mtime_ns, self.size, self.key, self.stamp]
        if self.requires:
            row.append([list(r) for r in self.requires])
        return row

    @classmethod
    def from_row(cls, row: Any) -> IndexEntry | None:
        """The entry of a stored row; None for a row of the wrong shape (the index
        is a cache: a garbled entry only means the target itself is read).
        Hot: 20,000 rows per load of a no-op sweep, so the required files'
        rows are checked where they are read (:meth:`FileDigests.indexed_requirements`)."""
        if type(row) is not list or not 4 <= len(row) <= 5:
            return None
        mtime, size, key, stamp = row[0], row[1], row[2], row[3]
        if type(mtime) is not int or type(size) is not int or type(key) is not str or type(stamp) is not str:
            return None
        requires = row[4] if len(row) == 5 else ()
        if type(requires) is not list and requires != ():
            return None
        return _new_entry((mtime, size, key, stamp, requires))


# tuple.__new__ on the class skips NamedTuple's Python-level __new__ (the row is checked above).
_new_entry = partial(tuple.__new__, IndexEntry)


class FileDigests:
    """Parsed JSON and content digests of files, cached by (path, mtime_ns, size).

    A sweep asks for the same small files many times (every run of a seed
    reads the seed's record); the stat key makes a rewritten file miss.
    Hot path of a no-op sweep: plain ``os`` calls on strings, no hashing of
    keyed targets (they carry their own ``stamp``).
    """

    __slots__ = ("_sha", "_json", "_targets", "_trees", "_index", "root")

    def __init__(self, root: Path | str = ".") -> None:
        self._sha: dict[tuple[str, int, int], str] = {}
        self._json: dict[tuple[str, int, int], Any] = {}
        self._targets: dict[tuple[str, int, int], tuple[dict | None, str | None]] = {}
        self._trees: dict[str, str] = {}
        self._index: dict[str, IndexEntry] = {}
        # What the relative paths of a target's ``requires`` are relative to.
        self.root = str(root)

    # ---- the stat index: a cache of (mtime_ns, size) -> key, stamp of keyed targets

    def load_index(self, path: Path | str) -> None:
        """Read the stat index written by the last manifest (a cache: a missing or
        unreadable index only means that targets are opened to read their key)."""
        try:
            with open(path, "rb") as fh:
                found = json.loads(fh.read().decode("utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(found, dict):
            return
        for path, row in found.items():
            entry = IndexEntry.from_row(row)
            if entry is not None:
                self._index[path] = entry

    def indexed(self, path: str, st: os.stat_result) -> IndexEntry | None:
        """The index entry of ``path`` if the index has it with this stat."""
        entry = self._index.get(path)
        if entry is not None and entry.mtime_ns == st.st_mtime_ns and entry.size == st.st_size:
            return entry
        return None

    def write_index(self, path: Path | str, targets: list[str]) -> None:
        """Index ``targets`` (whole keyed targets that exist) by their current stat, atomically.

        A target's required files are indexed with the stat they have now when
        their content is what the target recorded (hashed here, once), so that
        a later check stats them and hashes nothing.
        """
        index = {}
        for target in targets:
            try:
                st = os.stat(target)
            except FileNotFoundError:
                continue
            doc = self.target(target, st)
            if doc is None:
                continue
            requires = tuple(self._indexed_requirement(rel, sha) for rel, sha in (doc.get("requires") or {}).items())
            index[target] = IndexEntry(st.st_mtime_ns, st.st_size, doc["key"], doc["stamp"], requires).row()
        atomic.write_text(path, json.dumps(index, separators=(",", ":")))

    def _indexed_requirement(self, rel: str, sha: str | None) -> Requirement:
        where = os.path.join(self.root, rel)
        try:
            st = os.stat(where)
        except OSError:
            return Requirement(where, sha, -1, -1)  # missing now: the check will say so
        if sha is not None and self.sha256(where) != sha:
            return Requirement(where, sha, -1, -1)  # changed now: never matches a stat
        return Requirement(where, sha, st.st_mtime_ns, st.st_size)

    def indexed_requirements(self, requires: Sequence[Requirement]) -> str | None:
        """Why the required files of an index entry are not as recorded, or None."""
        problems = []
        try:
            for where, sha, mtime, size in requires:
                if type(where) is not str:
                    raise TypeError(where)
                try:
                    st = os.stat(where)
                except OSError:
                    problems.append(f"{self._rel(where)} is missing")
                    continue
                if sha is not None and (st.st_mtime_ns != mtime or st.st_size != size) and self.sha256(where) != sha:
                    problems.append(f"{self._rel(where)} {_CHANGED}")
        except (TypeError, ValueError):
            # A garbled row of the index (a cache): the target itself is read next time.
            return "its stat index entry is garbled"
        return _joined(problems)

    def requirements(self, doc: Mapping[str, Any]) -> str | None:
        """Why the files a whole target requires are not as it recorded them, or None."""
        problems = []
        for rel, sha in (doc.get("requires") or {}).items():
            where = os.path.join(self.root, rel)
            if not os.path.exists(where):
                problems.append(f"{rel} is missing")
            elif sha is not None and self.sha256(where) != sha:
                problems.append(f"{rel} {_CHANGED}")
        return _joined(problems)

    def _rel(self, where: str) -> str:
        prefix = self.root.rstrip("/") + "/"
        return where[len(prefix):] if where.startswith(prefix) else where

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
            digest = hashlib.sha256()
            with open(key[0], "rb") as fh:
                # In blocks: a required file (a replay) may be hostile and large.
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
            found = self._sha[key] = digest.hexdigest()
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

    def read_target(self, path: Path | str, st: os.stat_result | None = None) -> tuple[dict | None, str | None]:
        """``(document, None)`` for a whole keyed target, ``(None, why)`` for a damaged
        one (truncated, garbled, edited: its stamp no longer matches), ``(None, None)``
        when there is none. Verified once per stat of the file."""
        if st is None:
            try:
                st = os.stat(path)
            except FileNotFoundError:
                return None, None
        key = (path if isinstance(path, str) else str(path), st.st_mtime_ns, st.st_size)
        found = self._targets.get(key)
        if found is None:
            found = self._targets[key] = _verified(self.json(path, st), key[0])
        return found

    def target(self, path: Path | str, st: os.stat_result | None = None) -> dict | None:
        """The keyed target at ``path`` if it exists and is whole, else None."""
        return self.read_target(path, st)[0]

    def problem(self, path: Path | str) -> str | None:
        """Why an existing target cannot be used as it is (damaged, or a file it
        requires missing or changed); None when it is whole or absent."""
        doc, damage = self.read_target(path)
        if damage is not None:
            return damage
        return None if doc is None else self.requirements(doc)

    def stamp(self, path: Path | str, st: os.stat_result | None = None) -> str | None:
        """The content identity of a whole keyed target (its ``stamp``); None if
        absent or damaged. The one reader of a stamp: from the stat index when
        the target's stat is the indexed one (a stat, no parse), else from the
        verified target itself."""
        path = str(path)
        if st is None:
            try:
                st = os.stat(path)
            except FileNotFoundError:
                return None
        entry = self.indexed(path, st)
        if entry is not None:
            return entry.stamp
        doc = self.target(path, st)
        return None if doc is None else doc["stamp"]

    def tree(self, path: Path, compute: Callable[[Path], str]) -> str:
        """A folder digest, computed once per process (inputs do not change mid-sweep)."""
        key = str(path)
        if key not in self._trees:
            self._trees[key] = compute(path)
        return self._trees[key]


_CHANGED = "changed since it was recorded (damaged: its SHA-256 is not the recorded one)"


def _joined(problems: list[str], shown: int = 3) -> str | None:
    """One line: the first few problems and how many more (a tournament has many replays)."""
    if not problems:
        return None
    more = f"; and {len(problems) - shown} more" if len(problems) > shown else ""
    return "; ".join(problems[:shown]) + more


def _stamp_of(doc: Mapping[str, Any]) -> str:
    """SHA-256 of a keyed document without its ``stamp`` (how write_target computes it)."""
    body = {k: v for k, v in doc.items() if k != "stamp"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()


def _verified(doc: Any, where: str) -> tuple[dict | None, str | None]:
    """``(doc, None)`` when ``doc`` is a whole keyed target, else ``(None, why)``."""
    if doc is None:
        # FileDigests.json found it unreadable or not JSON.
        return None, "damaged: not JSON (truncated or garbled)"
    if not isinstance(doc, dict) or not isinstance(doc.get("inputs"), dict) \
            or not isinstance(doc.get("key"), str) or not isinstance(doc.get("stamp"), str):
        return None, "damaged: not a keyed target (no key, inputs or stamp)"
    requires = doc.get("requires")
    if requires is not None and not (isinstance(requires, dict) and all(
            isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in requires.items())):
        return None, "damaged: requires is not a map of paths to digests"
    if _stamp_of(doc) != doc["stamp"]:
        return None, "damaged: its content does not match its stamp (edited or garbled)"
    return doc, None


def inputs_digest(inputs: Inputs) -> str:
    """SHA-256 of ``name=digest`` lines in name order (names and digests hold no newline).
    Cheaper than canonical JSON: every check of a no-op sweep computes one."""
    data = "\n".join(f"{k}={inputs[k]}" for k in sorted(inputs))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def write_target(path: Path | str, inputs: Inputs, payload: Mapping[str, Any],
                 requires: Mapping[str, str | None] | None = None) -> dict[str, Any]:
    """Write a keyed target atomically: ``{"key", "inputs", "stamp", **payload}``; return it.

    ``stamp`` is the SHA-256 of the rest of the document, so a reader knows
    the content's identity without hashing the file, and can tell a damaged
    target from a whole one. ``requires`` (path relative to the project root
    -> SHA-256, or None for "must exist") names the files the task's work
    lives in; the target is stale when one is missing or changed.
    """
    doc = {"key": inputs_digest(inputs), "inputs": dict(sorted(inputs.items())), **payload}
    if requires:
        doc["requires"] = dict(sorted(requires.items()))
    # Stamped as a reader will see it (JSON turns tuples into lists, keys into strings).
    doc = json.loads(json.dumps(doc))
    doc["stamp"] = _stamp_of(doc)
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
        why = _why_stale(where, inputs, cache)
        if why is None:
            return True
        check.__qualname__ = f"inputs[{where}: {why}]"
        return False

    check.__qualname__ = f"inputs[{where}]"
    # doit calls inspect.signature on every check; a precomputed signature
    # is returned as is instead of being rebuilt 10,000 times per sweep.
    check.__signature__ = _CHECK_SIGNATURE
    return check


def _why_stale(where: str, inputs: Callable[[], Inputs], cache: FileDigests) -> str | None:
    """Why the target ``where`` is not up to date with ``inputs()``; None when it is."""
    try:
        st = os.stat(where)
    except FileNotFoundError:
        return "target missing"
    entry = cache.indexed(where, st)
    try:
        now = inputs()
    except (KeyError, FileNotFoundError, TcabError) as exc:
        # Stale; the action computes the inputs again and reports the error.
        return f"input unavailable: {exc}"
    # The target is unchanged since the last manifest noted its key (and
    # verified it): its required files are statted, nothing is read.
    if entry is not None and entry.key == inputs_digest(now):
        return cache.indexed_requirements(entry.requires) if entry.requires else None
    # Otherwise the target itself says (inputs as data: the key is their digest).
    doc, damage = cache.read_target(where, st)
    if damage is not None:
        return damage
    if doc["inputs"] == now:
        return cache.requirements(doc)
    was = doc["inputs"]
    changed = sorted(k for k in now.keys() | was.keys() if now.get(k) != was.get(k))
    return f"changed {', '.join(changed) or 'key'}"


def _check_signature() -> inspect.Signature:
    def check(task, values) -> bool: ...

    return inspect.signature(check)


_CHECK_SIGNATURE = _check_signature()


def current_target(target: Path | str, inputs: Inputs, cache: FileDigests) -> dict[str, Any] | None:
    """The target document if it is whole, holds exactly ``inputs`` and the files
    it requires are as it recorded them; else None.

    Actions call this first, so a task that doit re-executes after losing its
    state (SIGKILL) finds its finished work and does not redo it.
    """
    doc = cache.target(target)
    if doc is not None and doc["inputs"] == dict(inputs) and cache.requirements(doc) is None:
        return doc
    return None


def keyed(action: Callable[..., Any], *args: Any, task_name: str | None = None, record: str | None = None,
          cache: FileDigests | None = None) -> Any:
    """Run ``action(*args)``, turning a TcabError into a task failure with its message.

    When the task's target ``record`` exists but cannot be used (damaged, or
    a file it requires is gone), one line on stderr names the task, the
    target and why, before the task is redone. (Not ``task``/``targets``:
    doit fills parameters of those names itself.)
    """
    if record is not None and cache is not None:
        why = cache.problem(os.path.join(cache.root, record))
        if why is not None:
            print(f"tcab: {task_name}: {record}: {why}; the task is redone", file=sys.stderr, flush=True)
    try:
        result = action(*args)
    except TcabError as exc:
        # Bad input or infrastructure: a task failure with our message, no traceback.
        return TaskFailed(f"{type(exc).__name__}: {exc}")
    return True if result is None else result
