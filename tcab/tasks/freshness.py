"""Which tasks were up to date when ``dodo.py`` loaded, and what follows from it.

A task whose dependencies were all up to date at load time, and whose own
check passes, stays up to date for the whole sweep (nothing upstream of it
will run): doit gets ``uptodate: [True]`` and no dependency edges, so a
no-op sweep of 10,000 tasks costs doit what 10,000 trivial tasks cost.
Otherwise the check is deferred to doit (it runs after the dependencies)
and the edges order the work. A task not decided yet counts as stale,
which is always safe.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tcab.tasks.keys import FileDigests


class Freshness:
    """The load-time verdicts of one sweep (task name -> up to date), and the
    records of settled tasks, read once (they cannot change during the sweep)."""

    __slots__ = ("_cache", "_verdicts", "_settled")

    def __init__(self, cache: FileDigests) -> None:
        self._cache = cache
        self._verdicts: dict[str, bool] = {}
        self._settled: dict[str, dict | None] = {}

    def is_fresh(self, task: str) -> bool:
        """Up to date when dodo.py loaded (False when not decided)."""
        return self._verdicts.get(task, False)

    def settle(self, task: str, deps: list[str], check: Callable[..., bool],
               *, keep_deps: bool = False) -> tuple[list, list]:
        """``(uptodate, task_dep)`` of ``task`` for its doit dict (see the module docstring).

        ``keep_deps`` keeps the edges of a fresh aggregate (manifest, report),
        so that doit still visits, and reports, every task of the sweep.
        """
        fresh = all(self._verdicts.get(d, False) for d in deps) and check(None, None)
        self._verdicts[task] = fresh
        if fresh:
            return [True], list(deps) if keep_deps else []
        return [check], list(deps)

    def settle_group(self, group: str, tasks: list[str]) -> None:
        """A group task is fresh when all of its sub-tasks are."""
        self._verdicts[group] = all(self._verdicts.get(n, False) for n in tasks)

    def record(self, path: Path | str, task: str) -> dict | None:
        """The record ``path`` of ``task`` if whole (None if absent or damaged): read
        once when ``task`` was fresh at load time, else through the stat-checked
        cache (a stale task may rewrite it mid-sweep)."""
        if not self.is_fresh(task):
            return self._cache.target(path)
        key = str(path)
        if key not in self._settled:
            self._settled[key] = self._cache.target(path)
        return self._settled[key]
