"""doit task generators for a sweep (see docs/sweeps.md).

``dodo.py`` stays thin::

    from doit import get_var
    from tcab.tasks import load_sweep_or_exit

    sweep = load_sweep_or_exit(get_var("plan"))   # a broken plan: one message, exit 2
    DOIT_CONFIG = sweep.doit_config
    task_seed = sweep.task_seed
    task_after_run = sweep.task_after_run
    ...

Task kinds, in dependency order: ``seed``, ``prompt`` -> ``run`` ->
the test types' after-run tasks (``build``, ``validate``, ...: :mod:`tcab.tasks.after`) -> ``entrants`` -> ``tournament`` -> ``replay`` -> ``manifest``
-> ``report``.
Every task is up to date when its target records the same input digests
(:mod:`tcab.tasks.keys`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

from tcab.catalog import load_catalog
from tcab.errors import TcabError
from tcab.plan import PlanLimits, expand, load_plan, plan_path
from tcab.settings import Settings
from tcab.tasks import preflight
from tcab.tasks.after import groups, task_after_run
from tcab.tasks.arena import task_entrants, task_replay, task_tournament
from tcab.tasks.context import SweepContext
from tcab.tasks.doitdb import backend_name
from tcab.tasks.executors import Executors
from tcab.tasks.real import real_executors
from tcab.tasks.report import task_manifest, task_report
from tcab.tasks.run import task_runs
from tcab.tasks.seed import task_prompt, task_seed
from tcab.tasks.summary import SweepReporter

__all__ = ["SweepContext", "SweepTasks", "load_sweep", "load_sweep_or_exit"]


class SweepTasks:
    """The task generators of one loaded sweep, as doit expects them (``task_*``)."""

    def __init__(self, ctx: SweepContext):
        self.ctx = ctx

    @property
    def doit_config(self) -> dict:
        return {
            "default_tasks": ["report"] if self.ctx.sweep.plan.report else ["manifest"],
            # 1 means doit's plain in-process runner; more, worker processes.
            "num_process": self.ctx.sweep.plan.parallelism if self.ctx.sweep.plan.parallelism > 1 else 0,
            # Processes, not threads: runs and matches hold the GIL-free
            # parts briefly; every run gets its own container either way.
            "par_type": "process",
            "check_file_uptodate": "md5",
            "dep_file": str(self.ctx.settings.root / ".doit.db"),
            # Python's dbm here falls back to dbm.dumb, slow on 20,000 keys;
            # doit's sqlite3, read in one query (tasks/doitdb.py).
            "backend": backend_name(),
            "reporter": SweepReporter.for_context(self.ctx),
            "verbosity": 1,
            # One failed run does not stop a sweep; the end lists what failed (tasks/failures.py).
            "continue": True,
        }

    def task_seed(self) -> Iterator[dict]:
        """Seeded repositories, one per case/version/variant (in the seed store, build/seed-cache/)."""
        return task_seed(self.ctx)

    def task_prompt(self) -> Iterator[dict]:
        """Rendered prompts, one per case/version/variant (build/prompts/)."""
        return task_prompt(self.ctx)

    def task_runs(self) -> Iterator[dict]:
        """Harness runs (run:CASE/VERSION/VARIANT/HARNESS[@MODEL]/REPEAT)."""
        return task_runs(self.ctx)

    def task_after_run(self) -> Iterator[dict]:
        """What each test type does after a run: end-to-end ``validate``, adversarial ``build``, ..."""
        return task_after_run(self.ctx)

    def task_entrants(self) -> Iterator[dict]:
        """Each tournament's field: the one manifest it depends on."""
        return task_entrants(self.ctx)

    def task_tournament(self) -> Iterator[dict]:
        """Tournaments: matches, replays, standings, ratings."""
        return task_tournament(self.ctx)

    def task_replay(self) -> Iterator[dict]:
        """Replay checks: every match re-simulated from its replay."""
        return task_replay(self.ctx)

    def task_manifest(self) -> Iterator[dict]:
        """The sweep's one aggregate file of every run and tournament record."""
        return task_manifest(self.ctx)

    def task_report(self) -> Iterator[dict]:
        """The static report over results.db (results/report/)."""
        return task_report(self.ctx)


def load_sweep(
    plan: str | os.PathLike | None = None,
    *,
    root: Path | str | None = None,
    executors: Executors | None = None,
    env: dict[str, str] | None = None,
) -> SweepTasks:
    """Load the catalog and the plan (``plan``, else ``TCAB_PLAN``, else
    ``benchmark.yaml`` in ``root``) and return the sweep's generators.

    Raises PlanError for a bad plan, CatalogError for a bad catalog.
    """
    env = dict(os.environ) if env is None else env
    settings = Settings.from_env(root, env)
    limits = PlanLimits.from_env(env)
    the_plan = load_plan(plan_path(settings.root, None if plan is None else str(plan), env), limits)
    catalog = load_catalog(settings.catalog_dir)
    if executors is None:
        executors = real_executors()
    harnesses = _harness_slugs(settings)
    sweep = expand(the_plan, catalog, harnesses, limits)
    from tcab.tasks.budget import cost_gate

    costs = cost_gate(the_plan, sweep.runs, env)
    ctx = SweepContext.create(settings, sweep, catalog, executors, costs=costs,
                              progress=env.get("TCAB_PROGRESS", "1") != "0")
    groups(ctx)  # every type's after-run tasks load now: a broken one is a PlanError here
    return SweepTasks(ctx)


def load_sweep_or_exit(plan: str | os.PathLike | None = None, *, argv: list[str] | None = None,
                       **kwargs) -> SweepTasks:
    """:func:`load_sweep` for ``dodo.py``: a broken plan or catalog is one line on
    stderr (``error: FILE:LINE: KEY: ...``) and exit code 2, for every doit command.

    doit itself prints any exception raised while it imports ``dodo.py`` as a
    ~50-line traceback and exits 3; ``SystemExit`` is the one exception it
    lets through, so the exit code is ours, and nothing (no ``.doit.db``) is
    written. ``TCAB_DEBUG=1`` raises instead: doit prints the traceback.

    With ``argv`` (doit's arguments) naming a whole sweep, the preflight
    (tasks/preflight.py) checks secrets, harnesses and images first: all that
    is missing in one message, exit 2.
    """
    env = kwargs.get("env")
    try:
        sweep = load_sweep(plan, **kwargs)
    except TcabError as exc:
        if (os.environ if env is None else env).get("TCAB_DEBUG") == "1":
            raise
        print(f"error: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
    if argv is not None and preflight.wants_preflight(argv):
        missing = preflight.problems(sweep.ctx, env)
        if missing:
            print(f"error: {preflight.message(sweep.ctx, missing)}", file=sys.stderr, flush=True)
            raise SystemExit(2)
    return sweep


def _harness_slugs(settings: Settings) -> list[str] | None:
    """Slugs of the harness definitions in ``harnesses/`` (None when the folder is empty,
    so a plan is not refused before any definition exists)."""
    folder = settings.harnesses_dir
    if not folder.is_dir():
        return None
    slugs = sorted({p.stem for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")})
    return slugs or None
