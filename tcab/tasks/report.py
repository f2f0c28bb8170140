"""``manifest`` and ``report`` tasks: the sweep's aggregate and the report over results.db.

doit's bookkeeping grows quadratically when one task lists thousands of
file dependencies, so the report does not depend on every run: the
``manifest`` task folds every run and tournament record into ONE file
(``results/sweep/manifest.json``: name -> digest of its record), and
``report`` depends on that file alone. Checking the manifest costs a stat
per record (their digests are cached by the run checks of the same pass).
"""

from __future__ import annotations

from collections.abc import Iterator

from tcab.tasks.context import SweepContext
from tcab.tasks.keys import KeyCheck, fresh, inputs_digest, write_target


def _records(ctx: SweepContext) -> dict[str, object]:
    out: dict[str, object] = {}
    for spec in ctx.sweep.runs:
        out[f"run:{spec.name}"] = ctx.run_record(spec)
    for name in ctx.module_names():
        out[f"build:{name}"] = ctx.module_record(name)
    for t in ctx.sweep.tournaments:
        out[f"tournament:{t.name}"] = ctx.tournament_dir(t) / "standings.json"
    return out


def manifest_inputs(ctx: SweepContext) -> dict[str, str]:
    digests = {}
    for name, path in _records(ctx).items():
        # A run that failed (infrastructure) has no record: the manifest says so.
        digests[name] = ctx.cache.sha256(path) or "missing"
    return {"records": inputs_digest(digests)}


def write_manifest(ctx: SweepContext) -> bool:
    inputs = manifest_inputs(ctx)
    if fresh(ctx.manifest, inputs, ctx.cache) is not None:
        return True
    entries = {}
    for name, path in _records(ctx).items():
        doc = ctx.cache.json(path)
        entries[name] = None if not isinstance(doc, dict) else {
            "record": ctx.rel(path), "record_sha256": ctx.cache.sha256(path),
            **{k: doc[k] for k in ("run_id", "status", "run_dir", "ok", "sha256") if k in doc},
        }
    write_target(ctx.manifest, inputs, {"plan": ctx.sweep.plan.name, "entries": entries})
    return True


def report_inputs(ctx: SweepContext) -> dict[str, str]:
    sha = ctx.cache.sha256(ctx.manifest)
    if sha is None:
        raise KeyError("manifest not written")
    return {"manifest": sha}


def write_report(ctx: SweepContext) -> bool:
    inputs = report_inputs(ctx)
    record = ctx.report_dir / "report.json"
    if fresh(record, inputs, ctx.cache) is not None:
        return True
    ctx.executors.report(ctx.settings, ctx.report_dir)
    write_target(record, inputs, {"html": ctx.rel(ctx.report_dir / "index.html")})
    return True


def task_manifest(ctx: SweepContext) -> Iterator[dict]:
    """The sweep's one aggregate file: every run and tournament record and its digest."""
    yield {
        "basename": "manifest",
        "actions": [(write_manifest, (ctx,))],
        # The groups, not each sub-task: one dependency edge per kind.
        "task_dep": ["run", "build", "tournament"],
        "clean": True,
            "targets": [ctx.rel(ctx.manifest)],
        "uptodate": [KeyCheck(ctx.manifest, lambda: manifest_inputs(ctx), ctx.cache)],
        "doc": task_manifest.__doc__,
    }


def task_report(ctx: SweepContext) -> Iterator[dict]:
    """The static report over results.db (results/report/index.html)."""
    if not ctx.sweep.plan.report:
        return
    record = ctx.report_dir / "report.json"
    yield {
        "basename": "report",
        "actions": [(write_report, (ctx,))],
        "task_dep": ["manifest"],
        "clean": True,
            "targets": [ctx.rel(record)],
        "uptodate": [KeyCheck(record, lambda: report_inputs(ctx), ctx.cache)],
        "doc": task_report.__doc__,
    }
