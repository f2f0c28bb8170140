"""One vocabulary for outcomes: how a run ended and how a seat ended a match.

:class:`RunStatus` is what ``run.json``, the ``runs`` table, the sweep's
records and the reports say about a run; :class:`SeatOutcome` what a
``match_seats`` row says about one seat. Both are ``str`` enums, so JSON and
the database hold the same plain strings as before (``"completed"``,
``"forfeit"``), and a member compares equal to its string.

The module sits at the top of the package and imports nothing from it: the
harness adapters (below ``runs``) produce statuses, and ``results`` reads
them without paying for importing the run lifecycle.
"""

from __future__ import annotations

from enum import StrEnum


class RunStatus(StrEnum):
    """How one run ended (docs/runs.md, "Statuses")."""

    #: The session exited 0 and the harness reported no failure.
    COMPLETED = "completed"
    #: The max runtime ran out; whatever the harness wrote is kept.
    TIMED_OUT = "timed_out"
    #: No output for the idle window (retry lines count as silence).
    HUNG = "hung"
    #: A non-zero exit, or the harness failing to reach or use its model.
    HARNESS_ERROR = "harness_error"
    #: The harness stopped at its own turn or budget ceiling.
    LIMIT_EXCEEDED = "limit_exceeded"
    #: Pull, start, install, probe, init, copy or the engine itself failed.
    INFRASTRUCTURE = "infrastructure"
    #: Interrupted (Ctrl-C, SIGTERM, a canceled sweep).
    CANCELED = "canceled"
    #: Set by validation on a completed run: the build never produced a loadable page.
    CATASTROPHIC = "catastrophic"
    #: A bug in tcab stopped the run (neither the harness nor the platform):
    #: its traceback is in the run folder's ``internal-error.txt``.
    INTERNAL_ERROR = "internal_error"

    @property
    def is_result(self) -> bool:
        """Whether the run measured the harness: the sweep keeps it and never
        retries it. ``infrastructure``, ``canceled`` and ``internal_error``
        say nothing about the harness."""
        return self not in _NOT_RESULTS

    @property
    def is_retried(self) -> bool:
        """Whether a sweep runs it again by itself: only when the platform
        failed or the run was interrupted. A bug in tcab (``internal_error``)
        is not retried: it would fail the same way each time, at a model's
        cost; the sweep reports it until the operator asks for a new run."""
        return self in _RETRIED

    @property
    def label(self) -> str:
        """The short column heading of the reports."""
        return _LABELS[self]

    @property
    def colour(self) -> str:
        """The colour of the status in the HTML report's charts."""
        return _COLOURS[self]


_RETRIED = frozenset({RunStatus.INFRASTRUCTURE, RunStatus.CANCELED})
_NOT_RESULTS = _RETRIED | {RunStatus.INTERNAL_ERROR}
_LABELS = {
    RunStatus.COMPLETED: "done", RunStatus.TIMED_OUT: "timeout", RunStatus.HUNG: "hung",
    RunStatus.HARNESS_ERROR: "error", RunStatus.LIMIT_EXCEEDED: "limit",
    # Not "broken": that is the original's worst review rating (a person's
    # verdict after playing); catastrophic is the machine's "never loaded".
    RunStatus.INFRASTRUCTURE: "infra", RunStatus.CANCELED: "cancel", RunStatus.CATASTROPHIC: "no page",
    RunStatus.INTERNAL_ERROR: "bug",
}
_COLOURS = {
    RunStatus.COMPLETED: "#2e7d32", RunStatus.TIMED_OUT: "#f9a825", RunStatus.HUNG: "#ef6c00",
    RunStatus.HARNESS_ERROR: "#c62828", RunStatus.LIMIT_EXCEEDED: "#ad1457",
    RunStatus.INFRASTRUCTURE: "#6a1b9a", RunStatus.CANCELED: "#757575", RunStatus.CATASTROPHIC: "#212121",
    RunStatus.INTERNAL_ERROR: "#0277bd",
}

#: Every run status as its string, in report order.
RUN_STATUSES: tuple[str, ...] = tuple(s.value for s in RunStatus)
#: The statuses a sweep keeps as results (never retried).
KEPT_STATUSES: frozenset[str] = frozenset(s.value for s in RunStatus if s.is_result)
#: The statuses a sweep runs again by itself.
RETRIED_STATUSES: frozenset[str] = frozenset(s.value for s in RunStatus if s.is_retried)


#: How validating an end-to-end run ended (docs/validation.md): every check
#: passed; the page loaded but a check failed; the build never produced a
#: loadable page (the run becomes ``catastrophic``); the engine or the
#: browser failed (not a result).
VALIDATION_STATUSES: tuple[str, ...] = ("passed", "failed", "catastrophic", "error")


def run_status_after(status: RunStatus | str, validation_status: str) -> RunStatus:
    """The run's status once validated: a ``completed`` run whose page never
    loaded becomes ``catastrophic``; a ``catastrophic`` run validated again
    with a page that loads is ``completed`` again (only a completed run is
    ever made catastrophic, so that is what it was). Any other run keeps the
    status its session earned (a timeout says more than its half-built page),
    and so does every run when the validation could not run (``error``)."""
    status = RunStatus(status)  # ValueError for a string that is no status
    if validation_status == "catastrophic" and status is RunStatus.COMPLETED:
        return RunStatus.CATASTROPHIC
    if validation_status in ("passed", "failed") and status is RunStatus.CATASTROPHIC:
        return RunStatus.COMPLETED
    return status


def validated_run(status: RunStatus | str, validation_status: str, validation_detail: str,
                  status_detail: str = "") -> tuple[RunStatus, str]:
    """The run's status and detail once validated: the one owner of completed
    <-> catastrophic, for both of its records (``run.json``, rewritten by the
    validation, and the ``runs`` row, moved by ``record_validation``). A run
    made catastrophic says which check failed; one made completed again
    drops that detail; any other run keeps its detail."""
    before = RunStatus(status)
    after = run_status_after(before, validation_status)
    if after is before:
        return before, status_detail
    return after, f"validation: {validation_detail or ''}" if after is RunStatus.CATASTROPHIC else ""


class SeatOutcome(StrEnum):
    """How one seat ended a match. A forfeit (the controller broke a rule,
    ran out of fuel, trapped) is its own outcome, whatever the score said."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    FORFEIT = "forfeit"

    @classmethod
    def of(cls, seat: dict) -> SeatOutcome:
        """The outcome of a seat of a match result (``result.seats[i]``): its
        ``outcome``, or ``forfeit`` when it carries a forfeit."""
        return cls.FORFEIT if seat.get("forfeit") else cls(seat["outcome"])


SEAT_OUTCOMES: tuple[str, ...] = tuple(s.value for s in SeatOutcome)
