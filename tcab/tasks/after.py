"""The tasks test types contribute after a run (``validate:``, ``build:``, ...).

A test type names its after-run tasks (``TestType.after_run``: a doit
basename and the ``"module:object"`` of an :class:`AfterRunTask`). This
module turns them into doit tasks: one group per basename of every known
type (an empty group when no run of the plan has that type, so that the
manifest's dependency on it holds), one sub-task per run of a case of that
type, ``<basename>:<run name>``, depending on the run's task. Nothing here
knows a type by name: the end-to-end validation (tcab.tasks.validate), the
adversarial build (tcab.tasks.arena) and a type a test registers come the
same way.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcab.catalog.typetable import get_type, type_names
from tcab.errors import PlanError
from tcab.plan import RunSpec
from tcab.tasks.context import SweepContext
from tcab.tasks.run import run_task_name


@dataclass(frozen=True, slots=True)
class AfterRunTask:
    """What one kind of after-run task does for one run.

    ``record(ctx, spec)`` is its target, keyed by ``inputs(ctx, spec)``;
    ``action(ctx, spec)`` writes it (True, or a doit ``TaskFailed``).
    ``others(ctx)`` yields ``(name, record, deps, inputs, action, args, doc)``
    of tasks of the same group that no run has (the baselines a tournament
    builds); ``doc`` is the group's help line and ``subdoc`` a run's
    (``{name}``: the run's name). ``after`` names the basenames of the
    same run's other after-run tasks this one depends on (a score on its
    build)."""

    doc: str
    subdoc: str
    record: Callable[[SweepContext, RunSpec], Path | str]
    inputs: Callable[[SweepContext, RunSpec], dict[str, str]]
    action: Callable[[SweepContext, RunSpec], Any]
    others: Callable[[SweepContext], Iterator[tuple]] | None = None
    after: tuple[str, ...] = ()


def load_task(target: str, type_name: str) -> AfterRunTask:
    """The AfterRunTask named ``"module:object"`` by the type ``type_name``.
    Raises PlanError when it cannot be loaded (a broken type fails loudly)."""
    module, _, attr = target.partition(":")
    try:
        found = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise PlanError(f"test type {type_name!r}: after-run task {target}: cannot load it: {exc}") from exc
    if not isinstance(found, AfterRunTask):
        raise PlanError(f"test type {type_name!r}: after-run task {target} is not an AfterRunTask")
    return found


@dataclass(frozen=True, slots=True)
class Group:
    """One basename's tasks: each run with the task its type contributes, and
    every distinct AfterRunTask of the group (for their other tasks)."""

    basename: str
    runs: tuple[tuple[RunSpec, AfterRunTask], ...]
    tasks: tuple[AfterRunTask, ...]


def groups(ctx: SweepContext) -> tuple[Group, ...]:
    """The after-run groups of the sweep, computed once per process: every
    basename of every known type, in the order of the type table."""
    return ctx.lookups.once(("after-run-groups",), lambda: _groups(ctx))


def _groups(ctx: SweepContext) -> tuple[Group, ...]:
    by_type: dict[str, tuple[tuple[str, AfterRunTask], ...]] = {}
    names: dict[str, list[AfterRunTask]] = {}
    for type_name in type_names():
        entries = tuple((a.basename, load_task(a.task, type_name)) for a in get_type(type_name).after_run)
        by_type[type_name] = entries
        for basename, task in entries:
            known = names.setdefault(basename, [])
            if task not in known:
                known.append(task)
    runs: dict[str, list[tuple[RunSpec, AfterRunTask]]] = {b: [] for b in names}
    for spec in ctx.sweep.runs:
        for basename, task in by_type[ctx.lookups.case(spec.case, spec.version).type]:
            runs[basename].append((spec, task))
    return tuple(Group(b, tuple(runs[b]), tuple(tasks)) for b, tasks in names.items())


def records(ctx: SweepContext) -> Iterator[tuple[str, Path | str]]:
    """``(task name, record)`` of every after-run task of the sweep (for the manifest)."""
    for group in groups(ctx):
        seen = set()
        for spec, task in group.runs:
            seen.add(spec.name)
            yield f"{group.basename}:{spec.name}", task.record(ctx, spec)
        for task in group.tasks:
            for name, record, *_ in (task.others(ctx) if task.others else ()):
                if name not in seen:
                    seen.add(name)
                    yield f"{group.basename}:{name}", record


def task_after_run(ctx: SweepContext) -> Iterator[dict]:
    """The after-run tasks of every test type: one group per basename."""
    for group in groups(ctx):
        doc = "; ".join(dict.fromkeys(t.doc for t in group.tasks))
        yield {"basename": group.basename, "name": None, "doc": doc}
        names = []
        for spec, task in group.runs:
            names.append(f"{group.basename}:{spec.name}")
            yield ctx.keyed_task(
                group.basename, spec.name, task.record(ctx, spec),
                [run_task_name(spec), *(f"{b}:{spec.name}" for b in task.after)],
                lambda s=spec, t=task: t.inputs(ctx, s), task.action, ctx, spec,
                doc=task.subdoc.format(name=spec.name),
            )
        seen = set(names)
        for task in group.tasks:
            for name, record, deps, inputs, action, args, doc in (task.others(ctx) if task.others else ()):
                if f"{group.basename}:{name}" in seen:
                    continue
                seen.add(f"{group.basename}:{name}")
                names.append(f"{group.basename}:{name}")
                yield ctx.keyed_task(group.basename, name, record, deps, inputs, action, ctx, *args, doc=doc)
        ctx.freshness.settle_group(group.basename, names)


def basenames(ctx: SweepContext) -> list[str]:
    """The after-run groups' names (the manifest depends on each)."""
    return [g.basename for g in groups(ctx)]
