"""Writing a seed plan as a fresh git repository with pygit2.

Branch ``main``, exactly one commit, no remote, no other refs. Author,
committer, time and message are fixed, so the commit id is a pure function
of the seeded tree: the same inputs give the same id on any machine (doit
caches on it). Objects are written straight into the object database and the
working tree is checked out from the commit, so the index matches the files
and ``git status`` is clean.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pygit2
from pygit2.enums import CheckoutStrategy, FileMode

from tcab.atomic import atomic_dir
from tcab.errors import SeedError
from tcab.seeding.plan import SeedEntry

BRANCH = "main"
AUTHOR_NAME = "tcab"
AUTHOR_EMAIL = "tcab@localhost"
COMMIT_TIME = 946_684_800  # 2000-01-01T00:00:00Z: fixed, so the commit id is reproducible
MESSAGE = "Initial commit\n"


@dataclass(frozen=True, slots=True)
class SeedResult:
    """A seeded repository: its commit id, where it is, and the paths it holds."""

    commit: str
    path: Path
    files: tuple[str, ...]


def _signature() -> pygit2.Signature:
    return pygit2.Signature(AUTHOR_NAME, AUTHOR_EMAIL, COMMIT_TIME, 0)


def _tree(repo: pygit2.Repository, entries: Iterable[tuple[list[str], SeedEntry]]) -> pygit2.Oid:
    """Write a (nested) tree of ``entries`` keyed by their remaining path parts."""
    files: dict[str, SeedEntry] = {}
    folders: dict[str, list[tuple[list[str], SeedEntry]]] = {}
    for parts, entry in entries:
        if len(parts) == 1:
            files[parts[0]] = entry
        else:
            folders.setdefault(parts[0], []).append((parts[1:], entry))
    builder = repo.TreeBuilder()
    for name, entry in files.items():
        builder.insert(name, repo.create_blob(entry.data), entry.mode)
    for name, children in folders.items():
        builder.insert(name, _tree(repo, children), FileMode.TREE)
    return builder.write()


def write_repository(entries: tuple[SeedEntry, ...], dest: Path) -> str:
    """Create the repository at the (empty) folder ``dest``; return the commit id."""
    repo = pygit2.init_repository(str(dest), initial_head=BRANCH)
    # No reflog: its entries carry the wall clock, and nothing reads them.
    repo.config["core.logAllRefUpdates"] = False
    tree = _tree(repo, [(e.dest.split("/"), e) for e in entries])
    sig = _signature()
    commit = repo.create_commit(f"refs/heads/{BRANCH}", sig, sig, MESSAGE, tree, [])
    repo.checkout_tree(repo[tree], strategy=CheckoutStrategy.FORCE)
    return str(commit)


def create_repository(
    entries: tuple[SeedEntry, ...], dest: Path | str, *, replace: bool = False
) -> SeedResult:
    """Write ``entries`` as a new repository at ``dest`` atomically.

    Raises SeedError if ``dest`` exists (unless ``replace``) or git fails; on
    failure ``dest`` is left as it was.
    """
    dest = Path(dest)
    try:
        with atomic_dir(dest, replace=replace) as tmp:
            tmp.chmod(0o755)  # mkdtemp makes it 0700; the run user must be able to enter it
            commit = write_repository(entries, tmp)
    except FileExistsError as exc:
        raise SeedError(f"{dest}: already exists; choose another --out or remove it") from exc
    except pygit2.GitError as exc:
        raise SeedError(f"{dest}: git failed: {exc}") from exc
    files = tuple(sorted(e.dest for e in entries))
    return SeedResult(commit, dest.resolve(), files)
