"""``run`` tasks: one harness run per plan entry, recorded under ``results/``.

A run is expensive and not deterministic, so it is never redone while its
inputs hold: the seeded commit, the prompt, the harness definition, the
image digest, and the plan entry (runtime settings included). The task's
target ``results/sweep/runs/<name>.json`` points at the run's own folder
``results/runs/<run-id>/`` and repeats its status. Outcomes the harness is
responsible for (completed, harness_error, timed_out, hung) are kept;
``infrastructure`` and ``canceled`` are not results, so the task fails and
the next sweep tries again.
"""

from __future__ import annotations

import datetime
import json
import secrets
from collections.abc import Iterator
from pathlib import Path

from doit.exceptions import TaskFailed

from tcab import atomic
from tcab.plan import RunSpec
from tcab.results.lookup import recorded_run
from tcab.tasks.context import SweepContext
from tcab.tasks.executors import KEPT_STATUSES, RunOutcome, RunRequest
from tcab.tasks.inputs import solution_inputs
from tcab.tasks.keys import fresh, write_target
from tcab.tasks.seed import prompt_task_name


def run_task_name(spec: RunSpec) -> str:
    return f"run:{spec.name}"


def _upstream(ctx: SweepContext, spec: RunSpec, name: str) -> dict:
    """A field of the seed or prompt record; KeyError when it was not built."""
    path = (ctx.seed_record if name == "seed" else ctx.prompt_record)(spec.case, spec.version, spec.variant)
    doc = ctx.settled_json(path, f"{name}:{spec.case_path}")
    if not isinstance(doc, dict):
        raise KeyError(f"{name} {spec.case_path} not built")
    return doc


def run_inputs(ctx: SweepContext, spec: RunSpec) -> dict[str, str]:
    """The digests a run depends on. Raises KeyError if the seed or prompt is missing."""
    group = (spec.case, spec.version, spec.variant, spec.harness)
    settled = ctx.fresh.get(f"prompt:{spec.case_path}") and ctx.fresh.get(f"seed:{spec.case_path}")
    # Every repeat and model of a harness on a variant shares all inputs but
    # the plan entry; with a settled seed and prompt they are computed once.
    shared = ctx.recall(("run-inputs", group)) if settled else None
    if shared is None:
        case = ctx.case(spec.case, spec.version)
        harness = ctx.harness(spec.harness)
        shared = {
            "seed": _upstream(ctx, spec, "seed")["commit"],
            "prompt": _upstream(ctx, spec, "prompt")["sha256"],
            "harness": harness.digest,
            "image": ctx.image_digest(case.type),
        }
        if harness.stage_solution:
            shared["solution"] = solution_inputs(case, case.variant(spec.variant), ctx.cache)
        if settled:
            ctx.remember(("run-inputs", group), shared)
    return {**shared, "entry": spec.entry_digest}


def _new_run_id(spec: RunSpec) -> str:
    """Sortable and unique, in the lifecycle's format: UTC time, case, variant, harness, random."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{now}-{spec.case}-{spec.variant}-{spec.harness}-{secrets.token_hex(3)}"


def _adoptable(ctx: SweepContext, pending: Path, inputs: dict[str, str]) -> RunOutcome | None:
    """The run a killed sweep finished but never marked done: the run id was
    written to ``pending`` before it started, and results.db holds its row
    (the row is the lifecycle's last write, after run.json)."""
    doc = ctx.cache.json(pending) if pending.exists() else None
    if not isinstance(doc, dict) or doc.get("inputs") != inputs:
        return None
    row = recorded_run(ctx.settings.results_db, doc["run_id"])
    if row is None or row["status"] not in KEPT_STATUSES:
        return None
    run_dir = Path(row["run_dir"] or ctx.settings.runs_dir / row["id"])
    if not run_dir.is_absolute():
        run_dir = ctx.settings.results_dir / run_dir
    return RunOutcome(row["id"], row["status"], run_dir, row["artifact_digest"], row["status_detail"] or "")


def do_run(ctx: SweepContext, spec: RunSpec) -> bool | TaskFailed:
    """Perform the run unless a finished one with the same inputs is recorded.

    The run id is written to a pending file before the run starts. A sweep
    killed after the run reached results.db but before its target was
    written adopts that run on resume instead of doing it again, so the
    database never holds two runs for one plan entry.
    """
    inputs = run_inputs(ctx, spec)
    record = ctx.run_record(spec)
    if fresh(record, inputs, ctx.cache) is not None:
        return True
    pending = Path(record).with_suffix(".pending")
    outcome = _adoptable(ctx, pending, inputs)
    if outcome is None:
        run_id = _new_run_id(spec)
        atomic.write_text(pending, json.dumps({"inputs": inputs, "run_id": run_id}, sort_keys=True))
        case = ctx.case(spec.case, spec.version)
        outcome = ctx.executors.run(
            RunRequest(
                spec=spec,
                case=case,
                seed_dir=ctx.seed_dir(spec.case, spec.version, spec.variant) / "repo",
                prompt=_upstream(ctx, spec, "prompt")["text"],
                runtime=ctx.sweep.plan.runtime,
                settings=ctx.settings,
                run_id=run_id,
            )
        )
    if outcome.status not in KEPT_STATUSES:
        pending.unlink(missing_ok=True)
        return TaskFailed(f"run {spec.name} ended {outcome.status} ({outcome.run_id}): {outcome.detail}")
    write_target(
        record,
        inputs,
        {
            "run_id": outcome.run_id,
            "status": outcome.status,
            "run_dir": ctx.rel(outcome.run_dir),
            "artifact_digest": outcome.artifact_digest,
            "case": spec.case, "version": spec.version, "variant": spec.variant,
            "harness": spec.harness, "model": spec.model, "repeat": spec.repeat,
        },
    )
    pending.unlink(missing_ok=True)
    return True


def task_runs(ctx: SweepContext) -> Iterator[dict]:
    """Harness runs, one per case/version/variant/harness[@model]/repeat (results/runs/)."""
    # Named ``run`` through ``basename``: doit refuses a generator called
    # task_run because ``run`` is also its command (``doit run run:...`` works).
    yield {"basename": "run", "name": None, "doc": task_runs.__doc__}
    names = []
    for spec in ctx.sweep.runs:
        names.append(run_task_name(spec))
        # The prompt task runs after the seed (see task_prompt): one edge
        # per run instead of two keeps doit's dispatcher cheap at 10,000 runs.
        yield ctx.keyed_task(
            "run", spec.name, ctx.run_record(spec),
            [prompt_task_name(spec.case, spec.version, spec.variant)],
            lambda s=spec: run_inputs(ctx, s), do_run, ctx, spec,
        )
    ctx.settle_group("run", names)
