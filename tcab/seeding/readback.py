"""A seed-cache entry read back from ``build/``: checked as strictly as a run's output.

``build/`` may be restored from a CI cache another job wrote, so an entry
is input. Before one is served (``tcab seed``, ``tcab run``), every part is
checked; a check that fails makes the entry damaged, and the caller seeds
it again instead of serving it:

- the entry, ``repo/`` and every file read are real (``lstat``; no link at
  their place) regular files or folders, opened non-blocking and bounded
  (``tcab.reading``): a FIFO never blocks, ``/dev/zero`` is never read;
- ``commit`` is a commit id and the one ``repo/.git`` has on ``main``;
  ``prompt.txt`` is UTF-8; ``files.json`` a list of relative paths that the
  repository holds;
- the repository holds only folders, regular files and symlinks that
  resolve inside it (``tcab.links``, the check a collected tree
  gets), at most :data:`MAX_ENTRIES` of them and :data:`MAX_TREE_BYTES`
  bytes of apparent size (counted from ``lstat``, never read);
- its ``.git`` is what seeding writes: a config with only the ``[core]``
  keys pygit2 sets (no ``core.fsmonitor``, ``core.hooksPath``, aliases…)
  and hooks that are only ``*.sample`` files, so that no git command a user
  runs on the copy (``git -C tmp/seeds/… log``) runs a command.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from tcab.reading import read_bytes, read_text

#: Bounds of one entry (a seeded case is a few MiB; docs/security.md).
MAX_TREE_BYTES = 1024 * 1024 * 1024
MAX_ENTRIES = 100_000
MAX_PROMPT_BYTES = 4 * 1024 * 1024
MAX_FILES_JSON_BYTES = 16 * 1024 * 1024
_SMALL = 4096  # commit, HEAD, a ref, the git config

_COMMIT = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")
_CONFIG_KEYS = {"bare", "repositoryformatversion", "filemode", "logallrefupdates"}


class EntryDamaged(Exception):
    """Why an entry is not served (it is seeded again)."""


@dataclass(frozen=True, slots=True)
class StoredSeed:
    """The checked contents of an entry."""

    commit: str
    prompt: str
    files: tuple[str, ...]


def _real(path: Path, want) -> None:
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        raise EntryDamaged(f"{path}: {exc.strerror or exc}") from None
    if not want(mode):
        raise EntryDamaged(f"{path}: not what seeding writes (a link, device, FIFO or other kind)")


def _small(path: Path, limit: int = _SMALL) -> str:
    try:
        return read_text(path, limit, follow=False)
    except (OSError, ValueError) as exc:
        raise EntryDamaged(f"{path}: {exc}") from None


def _walk(repo: Path) -> set[str]:
    """The paths of regular files and links under ``repo``, checked (see module docstring)."""
    # Here, not at the top: tcab.runtime's package import is ~0.1 s that `tcab prompt` must not pay.
    from tcab.links import LinkRefused, LinkResolver

    resolver = LinkResolver(str(repo), budget=MAX_ENTRIES * 8)
    found: set[str] = set()
    entries = size = 0
    for dirpath, dirnames, filenames in os.walk(repo, followlinks=False):
        here = Path(dirpath)
        for name in [*dirnames, *filenames]:
            entries += 1
            if entries > MAX_ENTRIES:
                raise EntryDamaged(f"{repo}: more than {MAX_ENTRIES} entries")
            full = here / name
            rel = full.relative_to(repo).as_posix()
            info = os.lstat(full)
            if stat.S_ISLNK(info.st_mode):
                try:
                    resolver.check(rel)
                except LinkRefused as exc:
                    raise EntryDamaged(f"{full}: {exc}") from None
                found.add(rel)
            elif stat.S_ISREG(info.st_mode):
                size += info.st_size
                if size > MAX_TREE_BYTES:
                    raise EntryDamaged(f"{repo}: more than {MAX_TREE_BYTES} bytes")
                found.add(rel)
            elif not stat.S_ISDIR(info.st_mode):
                raise EntryDamaged(f"{full}: not a regular file, folder or link")
        dirnames[:] = [d for d in dirnames if not (here / d).is_symlink()]
    return found


def _git(repo: Path, commit: str, found: set[str]) -> None:
    git = repo / ".git"
    _real(git, stat.S_ISDIR)
    section = None
    for line in _small(git / "config").splitlines():
        text = line.strip()
        if not text or text.startswith(("#", ";")):
            continue
        if text.startswith("["):
            section = text
            if section != "[core]":
                raise EntryDamaged(f"{git / 'config'}: section {section[:40]!r} is not one seeding writes")
            continue
        key = text.partition("=")[0].strip().lower()
        if section != "[core]" or key not in _CONFIG_KEYS:
            raise EntryDamaged(f"{git / 'config'}: {key[:40]!r} is not a key seeding writes")
    hooks = {p for p in found if p.startswith(".git/hooks/")}
    if any(not p.endswith(".sample") for p in hooks):
        raise EntryDamaged(f"{git / 'hooks'}: holds a hook that is not a sample")
    head = _small(git / "HEAD").strip()
    if not head.startswith("ref: refs/heads/") or ".." in head:
        raise EntryDamaged(f"{git / 'HEAD'}: not a branch reference")
    ref = _small(git / head.removeprefix("ref: ")).strip()
    if ref != commit:
        raise EntryDamaged(f"{git / head.removeprefix('ref: ')}: is not the entry's commit {commit}")


def read_entry(entry: Path) -> StoredSeed:
    """The checked contents of the seed-cache ``entry``; EntryDamaged naming the part that is not right."""
    entry = Path(entry)
    _real(entry, stat.S_ISDIR)
    commit = _small(entry / "commit").strip()
    if not _COMMIT.match(commit):
        raise EntryDamaged(f"{entry / 'commit'}: not a commit id")
    try:
        prompt = read_text(entry / "prompt.txt", MAX_PROMPT_BYTES, follow=False, what="prompt")
        files = json.loads(read_bytes(entry / "files.json", MAX_FILES_JSON_BYTES, follow=False))
    except (OSError, ValueError) as exc:
        raise EntryDamaged(f"{entry}: {exc}") from None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise EntryDamaged(f"{entry / 'files.json'}: not a list of paths")
    repo = entry / "repo"
    _real(repo, stat.S_ISDIR)
    found = _walk(repo)
    missing = [f for f in files if f not in found or f.startswith(".git/")]
    if missing:
        raise EntryDamaged(f"{entry / 'files.json'}: names {missing[0][:80]!r}, which the repository lacks")
    _git(repo, commit, found)
    return StoredSeed(commit, prompt, tuple(files))
