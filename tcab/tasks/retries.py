"""Retries inside the sweep: an ``infrastructure`` run is tried again (docs/sweeps.md).

``infrastructure`` means the runtime failed (daemon gone, image pull, pod
evicted), not the model, so the same run may well work a moment later. The
plan's ``retries`` says how many more attempts and the first wait (doubled
each time, at most an hour). Each attempt is a new run under a new run id,
holds its concurrency slots only while it runs (not while it waits), and
keeps its row in ``run_attempts`` (every attempt of every run, when the plan
sets retries); the plan entry's result is its last attempt. Outcomes the model is responsible for (completed, harness_error,
timed_out, hung, limit_exceeded), ``canceled`` and ``internal_error`` are
never retried here. A retry is a new run that may spend tokens, so the
plan's budget is checked before each one, as before the first: once it is
reached the last attempt is the result, its detail saying why.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable

from tcab.naming import new_run_id
from tcab.outcomes import RunStatus
from tcab.plan import RunSpec
from tcab.results.attempts import record_attempt
from tcab.tasks import slots
from tcab.tasks.context import SweepContext
from tcab.tasks.executors import RunOutcome

#: The wait between attempts (a name of its own, so a test can watch it).
_sleep = time.sleep

RETRIED = frozenset({RunStatus.INFRASTRUCTURE.value})


def attempt_runs(ctx: SweepContext, spec: RunSpec, first_run_id: str,
                 perform: Callable[[str], RunOutcome]) -> RunOutcome:
    """``perform(run_id)`` under the run's concurrency slots, again while it ends
    ``infrastructure`` and attempts are left; every attempt is recorded."""
    policy = ctx.sweep.plan.retries
    harness = ctx.lookups.harness(spec.harness)
    caps = slots.caps_for(ctx.sweep.plan.concurrency, spec.harness, spec.model,
                          (*harness.secrets, *ctx.sweep.plan.runtime.secrets))
    run_id = first_run_id
    attempt = 1
    while True:
        with slots.hold(ctx.settings.results_dir, caps, who=f"run:{spec.name}"):
            outcome = perform(run_id)
        if policy.infrastructure:
            # Without retries an entry has one attempt, its run: no row (a
            # results.db write per run costs 10-40 ms on a busy disk).
            # Numbered by the database, per entry across sweeps: a later sweep's
            # attempts go on after this one's (results/attempts.py).
            record_attempt(ctx.settings.results_db, spec.name, None, outcome.run_id, str(outcome.status),
                           outcome.detail)
        if str(outcome.status) not in RETRIED or attempt > policy.infrastructure:
            return outcome
        stop = _budget_stop(ctx)
        if stop is None:
            wait = policy.wait_before(attempt + 1)
            print(f"tcab: run:{spec.name}: attempt {attempt} ended {outcome.status} ({outcome.detail}); "
                  f"attempt {attempt + 1} of {policy.infrastructure + 1} in {wait:g}s", file=sys.stderr, flush=True)
            _sleep(wait)
            stop = _budget_stop(ctx)  # runs that ended during the wait were priced too
        if stop is not None:
            # The reason first: the sweep's end cuts a failure's line to 300 characters.
            return dataclasses.replace(outcome, detail=f"not retried: {stop} (attempt {attempt}: {outcome.detail})")
        attempt += 1
        run_id = new_run_id(spec.case, spec.variant, spec.harness)


def _budget_stop(ctx: SweepContext) -> str | None:
    """Why no new run may start (tasks/budget.py), or None."""
    return None if ctx.costs is None else ctx.costs.stop_reason(ctx.settings.results_db)
