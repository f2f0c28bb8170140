"""Everything a sweep's task generators share: folders, the expanded plan, the
catalog, the executors, a digest cache, and where each target lives.

Built once when ``dodo.py`` loads and passed explicitly to the generators;
nothing here reads the environment after construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tcab.plan import RunSpec, Sweep, TournamentSpec
from tcab.settings import Settings
from tcab.tasks.executors import Executors
from tcab.tasks.keys import FileDigests, key_check, keyed


@dataclass(frozen=True, slots=True)
class SweepContext:
    """A loaded sweep: what to do and where it goes."""

    settings: Settings
    sweep: Sweep
    catalog: object  # tcab.catalog.Catalog
    executors: Executors
    cache: FileDigests = field(default_factory=FileDigests)
    _memo: dict = field(default_factory=dict)
    fresh: dict = field(default_factory=dict)  # task name -> up to date when dodo.py loaded

    def __post_init__(self) -> None:
        # Targets name the files they require relative to the project root.
        self.cache.root = str(self.settings.root)

    def settle(self, name: str, deps: list[str], check, *, keep_deps: bool = False) -> tuple[list, list]:
        """``(uptodate, task_dep)`` of the task ``name``, decided when dodo.py loads.

        A task whose dependencies were all up to date at load time, and whose
        own check passes, stays up to date for the whole sweep (nothing
        upstream of it will run), so doit gets ``uptodate: [True]`` and no
        dependency edges: a no-op sweep of 10,000 tasks then costs doit what
        10,000 trivial tasks cost. Otherwise the check is deferred to doit
        (it runs after the dependencies) and the edges order the work. A
        dependency not decided yet counts as stale, which is always safe.
        ``keep_deps`` keeps the edges of a fresh aggregate (manifest, report),
        so that doit still visits, and reports, every task of the sweep.
        """
        fresh = all(self.fresh.get(d, False) for d in deps) and check(None, None)
        self.fresh[name] = fresh
        if fresh:
            return [True], list(deps) if keep_deps else []
        return [check], list(deps)

    def keyed_task(self, basename: str, name: str | None, record: Path | str, deps: list[str],
                   inputs, action, *args, doc: str | None = None, keep_deps: bool = False) -> dict:
        """The doit dict of a task whose target ``record`` is keyed by ``inputs()``.

        Every tcab task has this shape: ``action(*args)`` (through :func:`keyed`)
        writes ``record``; freshness is settled at load time (:meth:`settle`)
        against ``deps`` (task names) and the record's input digests.
        """
        task = basename if name is None else f"{basename}:{name}"
        uptodate, task_dep = self.settle(task, deps, key_check(record, inputs, self.cache),
                                         keep_deps=keep_deps)
        built = {
            "basename": basename,
            "actions": [(keyed, (action, *args), {"task_name": task, "record": self.rel(record), "cache": self.cache})],
            "task_dep": task_dep,
            "clean": True,
            "targets": [self.rel(record)],
            "uptodate": uptodate,
        }
        if name is not None:
            built["name"] = name
        if doc is not None:
            built["doc"] = doc
        return built

    def settled_json(self, path: Path | str, task: str):
        """The record ``path`` of ``task`` if whole (None if absent or damaged); read
        once per sweep when ``task`` was fresh at load time (then it cannot
        change during the sweep), else through the stat-checked cache (it may
        be rewritten mid-sweep)."""
        if not self.fresh.get(task, False):
            return self.cache.target(path)
        key = ("settled", str(path))
        if key not in self._memo:
            self._memo[key] = self.cache.target(path)
        return self._memo[key]

    def recall(self, key: tuple):
        """A value :meth:`remember` kept for this process, or None."""
        return self._memo.get(key)

    def remember(self, key: tuple, value) -> None:
        """Keep ``value`` for the rest of this process (inputs that cannot change)."""
        self._memo[key] = value

    def settle_group(self, group: str, names: list[str]) -> None:
        """A group task is fresh when all of its sub-tasks are."""
        self.fresh[group] = all(self.fresh.get(n, False) for n in names)

    # ---- inputs that are the same for every task of a process, computed once

    def case(self, slug: str, version: str):
        key = ("case", slug, version)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self.catalog.resolve(slug, version)
        return found

    def image_digest(self, case_type: str) -> str:
        key = ("image", case_type)
        if key not in self._memo:
            self._memo[key] = self.executors.image_digest(case_type, self.sweep.plan.runtime)
        return self._memo[key]

    def harness(self, slug: str):
        """The harness's HarnessInfo (definition digest, whether it reads the solution)."""
        key = ("harness", slug)
        if key not in self._memo:
            self._memo[key] = self.executors.harness(slug, self.settings)
        return self._memo[key]

    # ---- where targets live (relative names keep doit's output short)

    def rel(self, path: Path | str) -> str:
        """``path`` relative to the project root when inside it (string work: hot path)."""
        text, root = str(path), self._root_prefix()
        return text[len(root):] if text.startswith(root) else text

    def _root_prefix(self) -> str:
        found = self._memo.get("root/")
        if found is None:
            found = self._memo["root/"] = str(self.settings.root).rstrip("/") + "/"
        return found

    def seed_dir(self, case: str, version: str, variant: str) -> Path:
        return self.settings.build_dir / "seeds" / case / version / variant

    # Record paths are asked for on every check of a no-op sweep: built once.

    def seed_record(self, case: str, version: str, variant: str) -> Path:
        key = ("seed", case, version, variant)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self.seed_dir(case, version, variant) / "seed.json"
        return found

    def prompt_record(self, case: str, version: str, variant: str) -> Path:
        key = ("prompt", case, version, variant)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self.settings.build_dir / "prompts" / case / version / f"{variant}.json"
        return found

    def run_record(self, spec: RunSpec) -> str:
        """A string, not a Path: built for each of thousands of runs when dodo.py loads."""
        key = ("run", spec.name)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = f"{self.settings.results_dir}/sweep/runs/{spec.name}.json"
        return found

    def module_record(self, name: str) -> Path:
        """``name``: ``case/version/variant/agent/repeat`` or ``case/version/baseline/x``."""
        return self.settings.build_dir / "modules" / f"{name}.json"

    def module_names(self) -> list[str]:
        """Every module the sweep builds: of adversarial runs, then of tournament baselines."""
        names = [r.name for r in self.sweep.runs if self.case(r.case, r.version).type == "adversarial"]
        for t in self.sweep.tournaments:
            for p in t.participants:
                if p.baseline is not None:
                    name = baseline_build_name(t.case, t.version, p.baseline)
                    if name not in names:
                        names.append(name)
        return names

    def tournament_dir(self, t: TournamentSpec) -> Path:
        return self.settings.results_dir / "sweep" / "tournaments" / t.name

    @property
    def stat_index(self) -> Path:
        """The manifest's stat index of every target (a cache, see keys.key_check)."""
        return self.settings.results_dir / "sweep" / ".stat-index.json"

    @property
    def manifest(self) -> Path:
        return self.settings.results_dir / "sweep" / "manifest.json"

    @property
    def report_dir(self) -> Path:
        return self.settings.results_dir / "report"


def baseline_build_name(case: str, version: str, baseline: str) -> str:
    return f"{case}/{version}/baseline/{baseline}"
