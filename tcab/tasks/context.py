"""Everything a sweep's task generators share, each part with one owner:

- ``layout`` (tasks/layout.py): where each target lives;
- ``freshness`` (tasks/freshness.py): which tasks were up to date at load;
- ``lookups`` (tasks/lookups.py): cases, image and harness digests, once;
- ``cache`` (tasks/keys.py): file digests, keyed targets, the stat index.

Built once when ``dodo.py`` loads (:meth:`SweepContext.create`) and passed
explicitly to the generators; nothing here reads the environment after
construction. The context itself is immutable; the parts keep their own
caches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcab.catalog import Catalog
from tcab.plan import Sweep
from tcab.settings import Settings
from tcab.tasks.executors import Executors
from tcab.tasks.freshness import Freshness
from tcab.tasks.keys import FileDigests, Inputs, key_check, keyed
from tcab.tasks.layout import TargetLayout
from tcab.tasks.lookups import Lookups


@dataclass(frozen=True, slots=True)
class SweepContext:
    """A loaded sweep: what to do, where it goes, and what is already done."""

    settings: Settings
    sweep: Sweep
    catalog: Catalog
    executors: Executors
    cache: FileDigests
    layout: TargetLayout
    freshness: Freshness
    lookups: Lookups
    costs: Any = None  # tasks/budget.py CostGate: prices each run, stops at the budget; None without prices
    progress: bool = True  # the progress line (tasks/progress.py); TCAB_PROGRESS=0 turns it off

    @classmethod
    def create(cls, settings: Settings, sweep: Sweep, catalog: Catalog, executors: Executors,
               costs: Any = None, progress: bool = True) -> SweepContext:
        """The context of ``sweep``, with the stat index of the last manifest loaded."""
        # Targets name the files they require relative to the project root.
        cache = FileDigests(root=settings.root)
        layout = TargetLayout(settings)
        cache.load_index(layout.stat_index)
        return cls(
            settings=settings, sweep=sweep, catalog=catalog, executors=executors, cache=cache, layout=layout,
            freshness=Freshness(cache), lookups=Lookups(catalog, executors, sweep.plan.runtime, settings),
            costs=costs, progress=progress,
        )

    def keyed_task(self, basename: str, name: str | None, record: Path | str, deps: list[str],
                   inputs: Callable[[], Inputs], action, *args, doc: str | None = None,
                   keep_deps: bool = False) -> dict:
        """The doit dict of a task whose target ``record`` is keyed by ``inputs()``.

        Every tcab task has this shape: ``action(*args)`` (through :func:`keyed`)
        writes ``record``; freshness is settled at load time
        (:meth:`Freshness.settle`) against ``deps`` (task names) and the
        record's input digests.
        """
        task = basename if name is None else f"{basename}:{name}"
        uptodate, task_dep = self.freshness.settle(task, deps, key_check(record, inputs, self.cache),
                                                   keep_deps=keep_deps)
        rel = self.layout.rel(record)
        built = {
            "basename": basename,
            "actions": [(keyed, (action, *args), {"task_name": task, "record": rel, "cache": self.cache})],
            "task_dep": task_dep,
            "clean": True,
            "targets": [rel],
            "uptodate": uptodate,
        }
        if name is not None:
            built["name"] = name
        if doc is not None:
            built["doc"] = doc
        return built
