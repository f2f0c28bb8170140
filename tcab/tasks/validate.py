"""``validate`` tasks: each end-to-end run's tree built and checked in a browser.

The end-to-end type's after-run task (:data:`VALIDATE`, made into doit tasks
by :mod:`tcab.tasks.after`):
``validate:lights-out/v1.0.0/classic/reference/1`` validates one run (see
docs/validation.md) and writes ``results/sweep/validations/<name>.json``.
It is keyed like a run's build: the run record's stamp (its artifact
digest, the collected tree, and its run id), the end-to-end image digest, and the digest of what it
reads of the case (``test-case.toml``: the ``[build]`` recipe and reference
views, plus the reference media), not the whole case digest: a variant's
file must not re-validate the other variant's runs. A ``failed`` validation is a result and is
kept; an ``error`` (the engine or the browser failed) fails the task, so the
next sweep tries again.
"""

from __future__ import annotations

from pathlib import Path

from doit.exceptions import TaskFailed

from tcab.artifacts import validation_case_part, validation_key
from tcab.catalog import tree_digest
from tcab.plan import RunSpec
from tcab.tasks.after import AfterRunTask
from tcab.tasks.context import SweepContext
from tcab.tasks.executors import RunOutcome
from tcab.tasks.keys import current_target, write_target

# Where tcab.validation writes validation.json inside a run's folder (not
# imported from there: doit list must not pay for the browser stack).
VALIDATION_DIR = "validation"


def _run_stamp(ctx: SweepContext, spec: RunSpec) -> str:
    """The stamp of the run's record. Raises KeyError (the run is not recorded yet)."""
    stamp = ctx.cache.stamp(ctx.layout.run_record(spec))
    if stamp is None:
        raise KeyError(f"run {spec.name} not recorded (or its record is damaged)")
    return stamp


def _case_inputs(ctx: SweepContext, slug: str, version: str) -> str:
    return ctx.lookups.once(("validation-inputs", slug, version), lambda: validation_case_part(
        ctx.lookups.case(slug, version), lambda path: ctx.cache.tree(path, tree_digest), ctx.cache.sha256))


def validate_inputs(ctx: SweepContext, spec: RunSpec) -> dict[str, str]:
    # The run record's stamp covers its artifact digest (the collected tree)
    # and its run id: a redone run is validated again (its row is its own).
    return validation_key(_run_stamp(ctx, spec), ctx.lookups.image_digest(
        ctx.lookups.case(spec.case, spec.version).test_type.build_image),
                          _case_inputs(ctx, spec.case, spec.version))


def do_validate(ctx: SweepContext, spec: RunSpec) -> bool | TaskFailed:
    inputs = validate_inputs(ctx, spec)
    record = ctx.layout.validation_record(spec)
    if current_target(record, inputs, ctx.cache) is not None:
        return True
    run = ctx.cache.target(ctx.layout.run_record(spec))
    if run is None:
        raise KeyError(f"run {spec.name} not recorded (or its record is damaged)")
    outcome = RunOutcome(run["run_id"], run["status"], ctx.settings.root / run["run_dir"], run.get("artifact_digest"))
    result = ctx.executors.validate(ctx.lookups.case(spec.case, spec.version), outcome, ctx.settings,
                                    ctx.sweep.plan.runtime)
    if result.status == "error":
        return TaskFailed(f"validation of {spec.name} ({outcome.run_id}) could not run: {result.detail}")
    # validation.json lives in the run's folder: a run redone after its folder
    # was lost (same run id, maybe the same tree) is validated again.
    report = ctx.layout.rel(outcome.run_dir / VALIDATION_DIR / "validation.json")
    write_target(Path(record), inputs, {"run_id": outcome.run_id, "status": result.status, "detail": result.detail},
                 requires={report: None})
    return True


#: The end-to-end type's after-run task (tcab.testtypes.end_to_end names it).
VALIDATE = AfterRunTask(
    doc="End-to-end validations: each run's tree built in a container, checked in Chromium.",
    subdoc="validation of run {name}",
    record=lambda ctx, spec: ctx.layout.validation_record(spec),
    inputs=lambda ctx, spec: validate_inputs(ctx, spec),
    action=lambda ctx, spec: do_validate(ctx, spec),
)
