"""The sweep's progress line set up from its context (:class:`tcab.tasks.progress.Progress`).

A finished run's status is not read here: it comes back from doit's worker
with the task (``task.result``, see :meth:`tcab.tasks.summary.SweepReporter.add_success`)."""

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


__all__ = ["make_progress"]
