"""``manifest`` and ``report`` tasks: the sweep's aggregate and the report over results.db.

doit's bookkeeping grows quadratically when one task lists thousands of
file dependencies, so the report does not depend on every run: the
``manifest`` task folds every run and tournament record into ONE file
(``results/sweep/manifest.json``: name -> digest of its record), and
``report`` depends on that file alone. Checking the manifest costs a stat
per record (their digests are cached by the run checks of the same pass).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from tcab.tasks.context import SweepContext
from tcab.tasks.keys import done, fresh, inputs_digest, key_check, keyed, write_target


def _records(ctx: SweepContext) -> dict[str, object]:
    out: dict[str, object] = {}
    for spec in ctx.sweep.runs:
        out[f"run:{spec.name}"] = ctx.run_record(spec)
    for name in ctx.module_names():
        out[f"build:{name}"] = ctx.module_record(name)
    for t in ctx.sweep.tournaments:
        out[f"tournament:{t.name}"] = ctx.tournament_dir(t) / "standings.json"
        out[f"replay:{t.name}"] = ctx.tournament_dir(t) / "replays.json"
    return out


def _stamps(ctx: SweepContext, seen: dict | None) -> tuple[dict[str, str], dict[str, list]]:
    """Each record's stamp, and its stat signature for the next check. A record
    whose stat matches ``seen`` (the manifest task's values) is not opened."""
    digests: dict[str, str] = {}
    stats: dict[str, list] = {}
    for name, path in _records(ctx).items():
        try:
            st = os.stat(path)
        except FileNotFoundError:
            # A run that failed (infrastructure) has no record: the manifest says so.
            digests[name] = "missing"
            continue
        old = seen.get(name) if seen else None
        if old is not None and old[0] == st.st_mtime_ns and old[1] == st.st_size:
            digests[name] = old[2]
        else:
            doc = ctx.cache.json(path, st)
            stamp = doc.get("stamp") if isinstance(doc, dict) else None
            digests[name] = stamp if isinstance(stamp, str) else (ctx.cache.sha256(path) or "missing")
        stats[name] = [st.st_mtime_ns, st.st_size, digests[name]]
    return digests, stats


def manifest_inputs(ctx: SweepContext, seen: dict | None = None) -> dict[str, str]:
    return {"records": inputs_digest(_stamps(ctx, seen)[0])}


def write_manifest(ctx: SweepContext) -> dict:
    digests, stats = _stamps(ctx, None)
    inputs = {"records": inputs_digest(digests)}
    if fresh(ctx.manifest, inputs, ctx.cache) is None:
        entries = {}
        for name, path in _records(ctx).items():
            doc = ctx.cache.json(path)
            entries[name] = None if not isinstance(doc, dict) else {
                "record": ctx.rel(path), "stamp": digests[name],
                **{k: doc[k] for k in ("run_id", "status", "run_dir", "ok", "sha256") if k in doc},
            }
        write_target(ctx.manifest, inputs, {"plan": ctx.sweep.plan.name, "entries": entries})
    return {**done(ctx.manifest, ctx.cache), "records": stats}


def _manifest_check(ctx: SweepContext):
    """Like key_check, but the manifest's inputs are thousands of records: their
    stat signatures live in the manifest task's values, so a no-op sweep stats
    each record instead of reading it."""
    holder: dict = {}
    check = key_check(ctx.manifest, lambda: manifest_inputs(ctx, holder.get("records")), ctx.cache)

    def manifest_check(task, values) -> bool:
        holder["records"] = (values or {}).get("records")
        return check(task, values)

    manifest_check.__signature__ = check.__signature__
    manifest_check.__qualname__ = "manifest inputs"
    return manifest_check


def report_inputs(ctx: SweepContext) -> dict[str, str]:
    sha = ctx.cache.stamp(ctx.manifest)
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
    # The groups, not each sub-task: one dependency edge per kind. Seeds,
    # prompts and fields are not inputs of the manifest; they are listed so
    # that a sweep visits (and reports) every task even when fresh tasks
    # carry no edges of their own.
    uptodate, deps = ctx.settle(
        "manifest", ["seed", "prompt", "run", "build", "entrants", "tournament", "replay"], _manifest_check(ctx),
        keep_deps=True,
    )
    yield {
        "basename": "manifest",
        "actions": [(write_manifest, (ctx,))],
        "task_dep": deps,
        "clean": True,
        "targets": [ctx.rel(ctx.manifest)],
        "uptodate": uptodate,
        "doc": task_manifest.__doc__,
    }


def task_report(ctx: SweepContext) -> Iterator[dict]:
    """The static report over results.db (results/report/index.html)."""
    if not ctx.sweep.plan.report:
        return
    record = ctx.report_dir / "report.json"
    uptodate, deps = ctx.settle(
        "report", ["manifest"], key_check(record, lambda: report_inputs(ctx), ctx.cache), keep_deps=True)
    yield {
        "basename": "report",
        "actions": [(keyed, (record, ctx.cache, write_report, ctx))],
        "task_dep": deps,
        "clean": True,
        "targets": [ctx.rel(record)],
        "uptodate": uptodate,
        "doc": task_report.__doc__,
    }
