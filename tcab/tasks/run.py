"""``run`` tasks: one harness run per plan entry, recorded under ``results/``.

A run is expensive and not deterministic, so it is never redone while its
inputs hold: the seeded commit, the prompt, the harness definition, the
image digest, and the plan entry (runtime settings included). The task's
target ``results/sweep/runs/<name>.json`` points at the run's own folder
``results/runs/<run-id>/`` and repeats its status. Outcomes the harness is
responsible for (``RunStatus.is_result``: completed, harness_error,
limit_exceeded, timed_out, hung) are kept; ``infrastructure`` and
``canceled`` are not results, so the task fails and
the next sweep tries again. ``internal_error`` (a bug in tcab) is not
retried: the task fails, and keeps failing on every sweep with the run's id
and where its traceback is, until the operator deletes the claim file it
names (or the run's inputs change). The target requires the run folder's
``run.json``: a run whose folder is gone is redone (see :func:`do_run`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

from doit.exceptions import TaskFailed

from tcab import atomic
from tcab.naming import new_run_id
from tcab.outcomes import KEPT_STATUSES, RunStatus
from tcab.plan import RunSpec
from tcab.results.lookup import recorded_run
from tcab.tasks.context import SweepContext
from tcab.tasks.executors import RunOutcome, RunRequest
from tcab.tasks.inputs import solution_inputs
from tcab.tasks.keys import write_target
from tcab.tasks.retries import attempt_runs
from tcab.tasks.seed import prompt_task_name


def run_task_name(spec: RunSpec) -> str:
    return f"run:{spec.name}"


def _upstream(ctx: SweepContext, spec: RunSpec, name: str) -> dict:
    """A field of the seed or prompt record; KeyError when it was not built."""
    path = (ctx.layout.seed_record if name == "seed" else ctx.layout.prompt_record)(spec.case, spec.version, spec.variant)
    doc = ctx.freshness.record(path, f"{name}:{spec.case_path}")
    if not isinstance(doc, dict):
        raise KeyError(f"{name} {spec.case_path} not built")
    return doc


def run_inputs(ctx: SweepContext, spec: RunSpec) -> dict[str, str]:
    """The digests a run depends on. Raises KeyError if the seed or prompt is missing."""
    settled = ctx.freshness.is_fresh(f"prompt:{spec.case_path}") and ctx.freshness.is_fresh(f"seed:{spec.case_path}")
    # Every repeat and model of a harness on a variant shares all inputs but
    # the plan entry; with a settled seed and prompt they are computed once.
    if settled:
        group = ("run-inputs", spec.case, spec.version, spec.variant, spec.harness)
        shared = ctx.lookups.once(group, lambda: _shared_run_inputs(ctx, spec))
    else:
        shared = _shared_run_inputs(ctx, spec)
    return {**shared, "entry": spec.entry_digest}


def _shared_run_inputs(ctx: SweepContext, spec: RunSpec) -> dict[str, str]:
    """The inputs of a run but its plan entry: the same for every repeat and model."""
    case = ctx.lookups.case(spec.case, spec.version)
    harness = ctx.lookups.harness(spec.harness)
    shared = {
        "seed": _upstream(ctx, spec, "seed")["commit"],
        "prompt": _upstream(ctx, spec, "prompt")["sha256"],
        "harness": harness.digest,
        "image": ctx.lookups.image_digest(case.test_type.run_image_for(case)),
    }
    if harness.stage_solution:
        shared["solution"] = solution_inputs(case, case.variant(spec.variant), ctx.cache)
    return shared


def claim_path(record: str) -> Path:
    """Where a run task notes which run its plan entry owns (``<record>.claim``)."""
    return Path(record).with_suffix(".claim")


def _claim(ctx: SweepContext, path: Path) -> dict | None:
    """The claim at ``path``, if it is one."""
    doc = ctx.cache.json(path) if path.exists() else None
    if isinstance(doc, dict) and isinstance(doc.get("run_id"), str) and isinstance(doc.get("inputs"), dict):
        return doc
    return None


def _write_claim(path: Path, inputs: dict[str, str], run_id: str, state: str) -> None:
    atomic.write_text(path, json.dumps({"inputs": inputs, "run_id": run_id, "state": state}, sort_keys=True))


def _run_folder(ctx: SweepContext, run_id: str, row: dict | None) -> Path:
    run_dir = Path(row["run_dir"]) if row is not None and row.get("run_dir") else ctx.settings.runs_dir / run_id
    return run_dir if run_dir.is_absolute() else ctx.settings.results_dir / run_dir


def _resume(ctx: SweepContext, run_id: str) -> tuple[RunOutcome | None, str | None]:
    """What to do with the run ``run_id`` that this plan entry owns (same inputs).

    ``(outcome, None)``: adopt it: results.db holds its row with a kept status
    and its folder holds ``run.json`` (the lifecycle writes run.json, then the
    row). ``(None, run_id)``: its folder is gone: redo the run under the same
    id, so that its row (and its build and validation rows) is replaced, not
    doubled. ``(None, None)``: do a new run (never recorded, not a result, or
    a folder left half-made).
    """
    row = recorded_run(ctx.settings.results_db, run_id)
    folder = _run_folder(ctx, run_id, row)
    if (folder / "run.json").is_file():
        if row is None or row["status"] not in KEPT_STATUSES:
            return None, None
        return RunOutcome(row["id"], row["status"], folder, row["artifact_digest"], row["status_detail"] or ""), None
    if row is not None and row["status"] in KEPT_STATUSES and not folder.exists():
        return None, run_id
    return None, None


def _say(spec: RunSpec, text: str) -> None:
    print(f"tcab: {run_task_name(spec)}: {text}", file=sys.stderr, flush=True)


def do_run(ctx: SweepContext, spec: RunSpec) -> str | TaskFailed:
    """Perform the run unless a finished one with the same inputs is recorded;
    return its status. doit hands that back to its main process with the
    task (``task.result``), where the progress line counts it without
    reading the run's record again (:meth:`SweepReporter.add_success`).

    The run id is claimed (``<record>.claim``, state ``pending``) before the
    run starts and the claim is marked ``recorded`` after the target. So:

    - a sweep killed after the run reached results.db but before its target
      was written adopts that run on resume instead of doing it again;
    - a damaged target (truncated, garbled) adopts the run its claim names
      the same way: the database never holds two runs for one plan entry;
    - a target whose run folder is gone redoes the run under the same run id,
      which replaces its row;
    - a target the user deleted (``doit clean``: the claim is ``recorded``)
      means "forget it": a new run, the old one stays as history.
    """
    inputs = run_inputs(ctx, spec)
    record = ctx.layout.run_record(spec)
    claim = claim_path(record)
    owned = _claim(ctx, claim)
    if owned is not None and owned.get("state") == RunStatus.INTERNAL_ERROR and owned["inputs"] == inputs:
        return TaskFailed(_bug(ctx, spec, owned["run_id"], claim, "earlier; not run again"))
    recorded, outcome, run_id = _recorded(ctx, record, claim, inputs)
    if recorded is not None:
        return recorded
    if outcome is not None:
        _say(spec, f"adopted the recorded run {outcome.run_id} (not run again)")
    else:
        if run_id is not None:
            _say(spec, f"redoing the run under its id {run_id} (its results.db row is replaced)")
        if ctx.costs is not None and (stop := ctx.costs.stop_reason(ctx.settings.results_db)):
            return TaskFailed(f"run {spec.name} not started: {stop}")

        def perform(rid: str):
            outcome = _perform(ctx, spec, inputs, record, rid)
            if ctx.costs is not None:  # every attempt is priced: a retried one may have spent tokens
                ctx.costs.price(ctx.settings.results_db, outcome.run_id)
            return outcome

        # Under the plan's concurrency caps, retried while it ends infrastructure (tasks/retries.py).
        outcome = attempt_runs(ctx, spec, run_id or new_run_id(spec.case, spec.variant, spec.harness), perform)
    if outcome.status == RunStatus.INTERNAL_ERROR:
        # Not retried: a bug fails the same way again, at a model's cost.
        _write_claim(claim, inputs, outcome.run_id, RunStatus.INTERNAL_ERROR.value)
        return TaskFailed(_bug(ctx, spec, outcome.run_id, claim, f"({outcome.detail})"))
    if outcome.status not in KEPT_STATUSES:
        claim.unlink(missing_ok=True)
        return TaskFailed(f"run {spec.name} ended {outcome.status} ({outcome.run_id}): {outcome.detail}")
    _write_record(ctx, spec, inputs, record, outcome)
    return str(outcome.status)


def _bug(ctx: SweepContext, spec: RunSpec, run_id: str, claim: Path, how: str) -> str:
    from tcab.runs.record import INTERNAL_ERROR_FILE

    folder = _run_folder(ctx, run_id, recorded_run(ctx.settings.results_db, run_id))
    return (f"run {spec.name} hit a bug in tcab ({run_id}) {how}; its traceback: {folder / INTERNAL_ERROR_FILE}. "
            f"Not retried: delete {claim} to run it again")


def _recorded(ctx: SweepContext, record: str, claim: Path,
              inputs: dict[str, str]) -> tuple[str | None, RunOutcome | None, str | None]:
    """What is already known of this plan entry's run: ``(status, None, None)``
    when its target is current (the status it recorded, from this one read:
    another sweep on the same folder may replace the file after it); else
    ``(None, *``:func:`_resume`'s answer``)`` for the run its target or its
    claim names (``(None, None, None)``: nothing to adopt or redo)."""
    doc, damage = ctx.cache.read_target(record)
    if doc is not None and doc["inputs"] == inputs:
        if ctx.cache.requirements(doc) is None:
            return str(doc.get("status") or RunStatus.COMPLETED), None, None
        return (None, *_resume(ctx, doc["run_id"]))
    owned = _claim(ctx, claim)
    if owned is not None and owned["inputs"] == inputs and (owned.get("state") == "pending" or damage):
        return (None, *_resume(ctx, owned["run_id"]))
    return None, None, None


def _perform(ctx: SweepContext, spec: RunSpec, inputs: dict[str, str], record: str, run_id: str) -> RunOutcome:
    """Claim ``run_id`` for this plan entry, then do the run."""
    # The target goes first and comes back last: a redo that fails leaves
    # no target that could pass for the run it replaced.
    Path(record).unlink(missing_ok=True)
    _write_claim(claim_path(record), inputs, run_id, "pending")
    seed = _upstream(ctx, spec, "seed")
    return ctx.executors.run(
        RunRequest(
            spec=spec,
            case=ctx.lookups.case(spec.case, spec.version),
            seed_dir=ctx.settings.root / seed["repo"],
            prompt=_upstream(ctx, spec, "prompt")["text"],
            seed_commit=seed["commit"],
            case_digest=seed["case_digest"],
            runtime=ctx.sweep.plan.runtime,
            settings=ctx.settings,
            run_id=run_id,
        )
    )


def _write_record(ctx: SweepContext, spec: RunSpec, inputs: dict[str, str], record: str, outcome: RunOutcome) -> None:
    """The run's target, then its claim marked ``recorded``."""
    run_dir = ctx.layout.rel(outcome.run_dir)
    write_target(
        record,
        inputs,
        {
            "run_id": outcome.run_id,
            "status": outcome.status,
            "run_dir": run_dir,
            "artifact_digest": outcome.artifact_digest,
            "case": spec.case, "version": spec.version, "variant": spec.variant,
            "harness": spec.harness, "model": spec.model, "repeat": spec.repeat,
        },
        # A run whose folder is gone is redone (see do_run).
        requires={f"{run_dir}/run.json": None},
    )
    claim = claim_path(record)
    _write_claim(claim, inputs, outcome.run_id, "recorded")


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
            "run", spec.name, ctx.layout.run_record(spec),
            [prompt_task_name(spec.case, spec.version, spec.variant)],
            lambda s=spec: run_inputs(ctx, s), do_run, ctx, spec,
        )
    ctx.freshness.settle_group("run", names)
