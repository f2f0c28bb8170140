"""``score`` tasks: each performance run's module scored on the held-out scenarios.

The performance type's after-run task (:data:`SCORE`, made into doit tasks
by :mod:`tcab.tasks.after`): ``score:torus-life/v1.0.0/base/reference/1``
follows ``build:<run>`` (the arena's build path, in the type's image) and
writes ``results/sweep/scores/<name>.json``. Its key is the module's sha256
(from the build record; ``failed:<key>`` when the build failed) and the
scenarios' digest (the entry, the sandbox, the output schema and every
held-out file with its kind and runway), the same pair the score cache of
:mod:`tcab.performance.score` is keyed by; so a second sweep does nothing,
and a changed scenario file scores every run again. The score is recorded in
results.db (``performance_scores``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tcab.plan import RunSpec
from tcab.tasks.after import AfterRunTask
from tcab.tasks.context import SweepContext
from tcab.tasks.keys import current_target, write_target


def score_record(ctx: SweepContext, spec: RunSpec) -> Path:
    return ctx.settings.results_dir / "sweep" / "scores" / f"{spec.name}.json"


def _scenarios_part(ctx: SweepContext, slug: str, version: str) -> str:
    def compute() -> str:
        case = ctx.lookups.case(slug, version)
        sec = case.section
        files = [[c.input, c.expected, c.kind, c.fuel_runway, ctx.cache.sha256(case.path(c.input)),
                  ctx.cache.sha256(case.path(c.expected))] for c in sec.cases]
        doc = [sec.contract.entry, sec.sandbox.fuel_limit, sec.sandbox.max_memory_bytes,
               ctx.cache.sha256(case.path(sec.contract.output)), files]
        return hashlib.sha256(json.dumps(doc, separators=(",", ":")).encode()).hexdigest()

    return ctx.lookups.once(("score-scenarios", slug, version), compute)


def score_inputs(ctx: SweepContext, spec: RunSpec) -> dict[str, str]:
    """The module (from ``build:<run>``'s record) and the scenarios. Raises
    KeyError while the build is not recorded (an upstream task failed)."""
    build = ctx.cache.target(ctx.layout.module_record(spec.name))
    if build is None:
        raise KeyError(f"module of run {spec.name} not built (or its record is damaged)")
    module = build["sha256"] if build.get("ok") else f"failed:{build['key']}"
    return {"module": module, "scenarios": _scenarios_part(ctx, spec.case, spec.version), "scorer": "1"}


def do_score(ctx: SweepContext, spec: RunSpec) -> bool:
    inputs = score_inputs(ctx, spec)
    record = score_record(ctx, spec)
    if current_target(record, inputs, ctx.cache) is not None:
        return True
    # In the function: the scorer loads wasmtime; `doit list` must not pay for it.
    from tcab.performance.score import score_record as score_module_record
    from tcab.results import open_db, record_performance_score

    build = ctx.cache.target(ctx.layout.module_record(spec.name))
    run = ctx.cache.target(ctx.layout.run_record(spec))
    case = ctx.lookups.case(spec.case, spec.version)
    module = ctx.settings.root / build["module"] if build.get("ok") and build.get("module") else None
    scored = score_module_record(ctx.settings.build_dir, run["run_id"], case, module, build.get("detail", ""))
    db = open_db(ctx.settings.results_db)
    try:
        record_performance_score(db, scored.row())
    finally:
        db.close()
    write_target(record, inputs, {"run_id": run["run_id"], "status": scored.status,
                                  "total_fuel": scored.total_fuel, "score_key": scored.key,
                                  "cases": [{"name": c.name, "status": c.status, "fuel": c.fuel}
                                            for c in scored.cases]})
    return True


#: The performance type's after-run task (tcab.testtypes.performance names it).
SCORE = AfterRunTask(
    doc="Performance scores: each run's engine on the case's held-out scenarios (wasm fuel).",
    subdoc="score of run {name}",
    record=score_record,
    inputs=score_inputs,
    action=do_score,
    after=("build",),
)
