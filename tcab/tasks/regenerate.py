"""``regenerate`` tasks: each asset run's frames regenerated from its logs.

The asset-generation type's after-run task (:data:`REGENERATE`, made into
doit tasks by :mod:`tcab.tasks.after`): ``regenerate:lattice-sink/v1.0.0/
base/claude-code/1`` follows ``run:<run>``, replays the run's collected logs
with the drawing library (:func:`tcab.testtypes.asset_score.score_tree`) into
``regenerated/<frame>.png`` in the run's folder, records the regeneration in
results.db (``asset_regenerations``, ``asset_frames``), for a sheet writes its
exports (atlas and animated PNGs, ``exports/`` in the run's folder, shown by
``tcab view``) and writes
``results/sweep/regenerations/<name>.json``. Its key is the run record's
stamp (its id and collected tree's digest), the case folder's digest and the
drawing library's version: a second sweep does nothing, a changed case or
library regenerates every run again.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from tcab.artifacts import key_digest
from tcab.plan import RunSpec
from tcab.tasks.after import AfterRunTask
from tcab.tasks.context import SweepContext
from tcab.tasks.keys import current_target, write_target

#: Bumped when what a regeneration records changes.
REGENERATOR = "2"  # 2: a sheet's exports (atlas, APNGs) written beside its frames


def regeneration_record(ctx: SweepContext, spec: RunSpec) -> Path:
    return ctx.settings.results_dir / "sweep" / "regenerations" / f"{spec.name}.json"


def _case_part(ctx: SweepContext, slug: str, version: str) -> str:
    from tcab.catalog import tree_digest

    return ctx.lookups.once(("regenerate-case", slug, version),
                            lambda: ctx.cache.tree(ctx.lookups.case(slug, version).root, tree_digest))


def regenerate_inputs(ctx: SweepContext, spec: RunSpec) -> dict[str, str]:
    """The run (its record's stamp), the case folder and the library version.
    Raises KeyError while the run is not recorded (its task failed)."""
    from tcab.draw import VERSION

    stamp = ctx.cache.stamp(ctx.layout.run_record(spec))
    if stamp is None:
        raise KeyError(f"run {spec.name} not recorded (or its record is damaged)")
    inputs = {"run": stamp, "case": _case_part(ctx, spec.case, spec.version), "draw": VERSION,
              "regenerator": REGENERATOR}
    if _is_voxel(ctx.lookups.case(spec.case, spec.version)):
        from tcab.voxel import VERSION as VOXEL_VERSION

        inputs["voxel"] = VOXEL_VERSION
    return inputs


def _is_voxel(case) -> bool:
    from tcab.testtypes.asset_voxel import VoxelSection

    return isinstance(case.section, VoxelSection)


def do_regenerate(ctx: SweepContext, spec: RunSpec) -> bool:
    inputs = regenerate_inputs(ctx, spec)
    record = regeneration_record(ctx, spec)
    if current_target(record, inputs, ctx.cache) is not None:
        return True
    from tcab.runs.record import TREE_DIR

    run = ctx.cache.target(ctx.layout.run_record(spec))
    case = ctx.lookups.case(spec.case, spec.version)
    run_dir = ctx.settings.root / run["run_dir"]
    if _is_voxel(case):
        from tcab.testtypes.asset_voxel_score import regeneration_row, score_voxel_tree

        volume = case.section.volume_for(case.variant(spec.variant))
        row = regeneration_row(score_voxel_tree(case.section, volume, run_dir / TREE_DIR, run_dir))
    else:
        if getattr(case.section, "blender", False):  # a Blender character: its glb checked, build.py re-run
            from tcab.testtypes.asset_blender import score_run

            score = score_run(ctx.settings, ctx.sweep.plan.runtime, case, spec.variant, run["run_id"], run_dir)
        else:
            from tcab.testtypes.asset_score import score_tree

            score = score_tree(case.section, run_dir / TREE_DIR, run_dir)
        if score.status == "regenerated" and case.section.sheet:
            from tcab.testtypes.asset_export import write_run_exports

            write_run_exports(case.section, run_dir)
        row = {"status": score.status, "draw_version": score.draw_version,
               "version_mismatch": int(score.version_mismatch), "flagged": int(score.flagged),
               "detail": score.detail, "frames": [f.row() for f in score.frames]}
    _record(ctx, case, run["run_id"], inputs, record, row)
    return True


def _record(ctx: SweepContext, case, run_id: str, inputs: dict, record: Path, row: dict) -> None:
    """Record a run's regeneration (``row``: status, frames, ...) in results.db, then its target."""
    from tcab.results import open_db, record_asset_regeneration

    db = open_db(ctx.settings.results_db)
    try:
        record_asset_regeneration(db, {
            "run_id": run_id, "case_slug": case.slug, "case_version": case.version,
            "case_digest": inputs["case"], "regen_key": key_digest(inputs),
            "regenerated_at": datetime.datetime.now(datetime.UTC).isoformat(), **row,
        })
    finally:
        db.close()
    write_target(record, inputs, {"run_id": run_id, **row})


#: The asset-generation type's after-run task (tcab.testtypes.asset_generation names it).
REGENERATE = AfterRunTask(
    doc="Asset regenerations: each run's frames replayed from its recorded logs alone.",
    subdoc="regeneration of run {name}",
    record=regeneration_record,
    inputs=regenerate_inputs,
    action=do_regenerate,
)
