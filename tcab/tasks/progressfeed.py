"""What the sweep reporter needs to feed :class:`tcab.tasks.progress.Progress`:
the line's setup from the context, and a finished run's recorded status."""

from __future__ import annotations

import time
from typing import TextIO

from tcab.tasks.progress import Progress

#: How often the cost so far is read from results.db.
SPENT_EVERY_S = 2.0


def make_progress(ctx, stream: TextIO) -> Progress | None:
    """The sweep's progress line, or None: no context, no runs, or ``TCAB_PROGRESS=0``."""
    if ctx is None or not ctx.progress or not ctx.sweep.runs:
        return None
    live = bool(getattr(stream, "isatty", lambda: False)())
    spent = None
    if ctx.costs is not None:
        from tcab.results.costs import money

        gate, db = ctx.costs, ctx.settings.results_db
        last: list = [-SPENT_EVERY_S, ""]

        def spent() -> str:
            # One query a few seconds at most: the line is redrawn on every event.
            now = time.monotonic()
            if now - last[0] >= SPENT_EVERY_S:
                total, unpriced = gate.spent(db)
                last[:] = [now, money(total, gate.prices.currency) + (f" (+{unpriced} no price)" if unpriced else "")]
            return last[1]
    return Progress(len(ctx.sweep.runs), stream, live=live, **({"spent": spent} if spent else {}))


def run_status(ctx, task_name: str) -> str:
    """The status a finished run task recorded (its target), ``completed`` when unreadable."""
    spec = _specs(ctx).get(task_name)
    doc = ctx.cache.target(ctx.layout.run_record(spec)) if spec is not None else None
    status = doc.get("status") if isinstance(doc, dict) else None
    return status if isinstance(status, str) else "completed"


def _specs(ctx) -> dict:
    """The sweep's run specs by task name, built once per context. Kept by the
    context's own memo, never in a module dict keyed by ``id(ctx)``: an id is
    reused once its object is collected, and would hand out another sweep's runs."""
    return ctx.lookups.once(("run-specs-by-task",), lambda: {f"run:{spec.name}": spec for spec in ctx.sweep.runs})


__all__ = ["make_progress", "run_status"]
