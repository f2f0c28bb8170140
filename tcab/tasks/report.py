"""``manifest`` and ``report`` tasks: the sweep's aggregate and the report over results.db.

doit's bookkeeping grows quadratically when one task lists thousands of
file dependencies, so the report does not depend on every run: the
``manifest`` task folds every run, build, validation, tournament and replay record into
ONE file (``results/sweep/manifest.json``: name -> stamp of its record), and
``report`` depends on that file alone. The manifest also writes the stat
index (keys.FileDigests.write_index), so checking it costs a stat per record.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from tcab.tasks import after
from tcab.tasks.context import SweepContext
from tcab.tasks.keys import current_target, inputs_digest, write_target


def _records(ctx: SweepContext) -> dict[str, object]:
    out: dict[str, object] = {}
    for spec in ctx.sweep.runs:
        out[f"run:{spec.name}"] = ctx.layout.run_record(spec)
    # What the test types do after a run (build, validate, ...: tcab.tasks.after).
    out.update(after.records(ctx))
    for t in ctx.sweep.tournaments:
        out[f"tournament:{t.name}"] = ctx.layout.standings_record(t)
        out[f"replay:{t.name}"] = ctx.layout.replays_record(t)
    return out


def _stamps(ctx: SweepContext) -> dict[str, str]:
    """Each record's stamp (a no-op sweep stats each record: keys.FileDigests.stamp).
    A run that failed (infrastructure) has no record, and a damaged record is
    redone by its task before the manifest: the manifest says which."""
    digests: dict[str, str] = {}
    for name, path in _records(ctx).items():
        stamp = ctx.cache.stamp(path)
        if stamp is None:
            stamp = "damaged" if os.path.exists(path) else "missing"
        digests[name] = stamp
    return digests


def manifest_inputs(ctx: SweepContext) -> dict[str, str]:
    return {"records": inputs_digest(_stamps(ctx))}


def write_manifest(ctx: SweepContext) -> bool:
    digests = _stamps(ctx)
    inputs = {"records": inputs_digest(digests)}
    if current_target(ctx.layout.manifest, inputs, ctx.cache) is None:
        entries = {}
        for name, path in _records(ctx).items():
            doc = ctx.cache.target(path)
            entries[name] = None if doc is None else {
                "record": ctx.layout.rel(path), "stamp": digests[name],
                **{k: doc[k] for k in ("run_id", "status", "run_dir", "ok", "sha256", "detail") if k in doc},
            }
        write_target(ctx.layout.manifest, inputs, {"plan": ctx.sweep.plan.name, "entries": entries})
    # Every target as it is now, for the checks of the next sweep's load.
    seeds = [str(f(*s)) for s in ctx.sweep.seeds() for f in (ctx.layout.seed_record, ctx.layout.prompt_record)]
    ctx.cache.write_index(ctx.layout.stat_index, seeds + [str(p) for p in _records(ctx).values()] + [str(ctx.layout.manifest)])
    return True


def report_inputs(ctx: SweepContext) -> dict[str, str]:
    sha = ctx.cache.stamp(ctx.layout.manifest)
    if sha is None:
        raise KeyError("manifest not written")
    return {"manifest": sha}


def write_report(ctx: SweepContext) -> bool:
    inputs = report_inputs(ctx)
    record = ctx.layout.report_record
    if current_target(record, inputs, ctx.cache) is not None:
        return True
    ctx.executors.report(ctx.settings, ctx.layout.report_dir)
    write_target(record, inputs, {"html": ctx.layout.rel(ctx.layout.report_dir / "index.html")})
    return True


def task_manifest(ctx: SweepContext) -> Iterator[dict]:
    """The sweep's one aggregate file: every run and tournament record and its digest."""
    # The groups, not each sub-task: one dependency edge per kind. Seeds,
    # prompts and fields are not inputs of the manifest; they are listed so
    # that a sweep visits (and reports) every task even when fresh tasks
    # carry no edges of their own.
    yield ctx.keyed_task(
        "manifest", None, ctx.layout.manifest,
        ["seed", "prompt", "run", *after.basenames(ctx), "entrants", "tournament", "replay"],
        lambda: manifest_inputs(ctx), write_manifest, ctx, doc=task_manifest.__doc__, keep_deps=True,
    )


def task_report(ctx: SweepContext) -> Iterator[dict]:
    """The static report over results.db (results/report/index.html)."""
    if not ctx.sweep.plan.report:
        return
    yield ctx.keyed_task(
        "report", None, ctx.layout.report_record, ["manifest"], lambda: report_inputs(ctx),
        write_report, ctx, doc=task_report.__doc__, keep_deps=True,
    )
