"""The outcome of validating one end-to-end run: a ``ValidationRecord``.

``status`` is one of :data:`VALIDATION_STATUSES`:

- ``passed``: every check passed;
- ``catastrophic``: the build never produced a loadable page (install or
  build failed, no output folder, no ``index.html``, the page never fired
  ``load``): the original's load check, "the clearest possible signal";
- ``failed``: the page loaded, and a later check failed (an uncaught or
  console error, a renderer crash, a page too busy to capture);
- ``error``: the infrastructure failed (the container engine or the
  browser): says nothing about the run.

``checks`` lists each check that ran, in order, with ``ok`` and a
``detail``; ``detail`` names the first failure. A ``catastrophic``
validation of a ``completed`` run makes the run itself ``catastrophic``
(:func:`run_status_after`). ``check_results`` are the case's ``[[check]]``
similarity scores (in full in ``validation.json``; name, view, similarity
and error also as results.db ``check_scores`` rows, for the report's mean).

``toolchain`` holds the case's ``[toolchain]`` results
(:mod:`tcab.validation.toolchain`); ``rating`` is ``"broken"`` when a
typecheck ran and failed (the original's gate), else None. A failed
typecheck is also the check ``typecheck``, so a page that loads is
``failed``, never ``passed``.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tcab.browser.page import Check
from tcab.outcomes import VALIDATION_STATUSES, run_status_after
from tcab.validation.proofs import ProofRecord
from tcab.validation.toolchain import ToolResult, gate_of

if TYPE_CHECKING:  # checks.py imports the browser check, which imports this module
    from tcab.validation.checks import ViewCheckResult
    from tcab.validation.scripts import ItemDecision

__all__ = ["LOAD_CHECK", "VALIDATION_STATUSES", "Check", "ValidationRecord", "judge", "run_status_after"]
#: The check whose success means "the page loaded" (tcab.browser.page).
LOAD_CHECK = "load"


@dataclass(frozen=True, slots=True)
class ValidationRecord:
    """What ``validate_run`` found (a row of ``validations``, docs/results.md)."""

    run_id: str
    case_slug: str
    case_version: str
    case_digest: str
    variant: str
    status: str                     # VALIDATION_STATUSES
    checks: tuple[Check, ...]
    detail: str
    build_log: str
    screenshots: tuple[str, ...]    # paths relative to the run folder
    image_digest: str | None
    duration_s: float
    validated_at: str = field(
        default_factory=lambda: datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"))
    # The case's [[check]]s (tcab.validation.checks): similarity signals, not
    # pass/fail, so they leave ``status`` alone; in full in validation.json, the row carries check_scores.
    check_results: tuple[ViewCheckResult, ...] = ()
    toolchain: tuple[ToolResult, ...] = ()
    # The case's [[proof]]s as found in the run's tree (informational); in the
    # row they go to the ``proofs`` table (``record_validation``).
    proofs: tuple[ProofRecord, ...] = ()
    # The review items decided by the case's validation scripts
    # (tcab.validation.scripts): in validation.json and ``item_decisions``
    # (record_item_decisions); they leave ``status`` alone.
    item_decisions: tuple[ItemDecision, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def rating(self) -> str | None:
        """``"broken"`` when the typecheck ran and failed (it gates the run), else None."""
        return gate_of(self.toolchain)

    def row(self) -> dict:
        """The ``validations`` row for ``record_validation``, its
        ``toolchain_results`` rows under ``toolchain``."""
        return {
            "run_id": self.run_id, "case_slug": self.case_slug, "case_version": self.case_version,
            "case_digest": self.case_digest, "variant": self.variant, "status": self.status,
            "checks": [c.to_json() for c in self.checks], "detail": self.detail,
            "screenshots": list(self.screenshots), "image_digest": self.image_digest,
            "duration_s": round(self.duration_s, 3), "validated_at": self.validated_at,
            "toolchain": [t.row() for t in self.toolchain],
            "proofs": [p.to_json() for p in self.proofs],
            # The report's mean similarity reads these (results.db check_scores).
            "check_scores": [{"name": r.name, "view": r.view, "similarity": r.similarity, "detail": r.error}
                             for r in self.check_results],
        }

    def to_json(self) -> dict:
        """The row plus the build log excerpt (what ``validation.json`` and ``--json`` show)."""
        return {**self.row(), "build_log": self.build_log, "rating": self.rating,
                "check_results": [r.to_json() for r in self.check_results],
                "item_decisions": [d.to_json() for d in self.item_decisions]}


def judge(checks: tuple[Check, ...] | list[Check]) -> tuple[str, str]:
    """The status and detail of a validation whose checks all ran (the
    infrastructure did not fail): ``catastrophic`` unless the page fired
    ``load``, else ``failed`` on any failed check, else ``passed``."""
    failed = [c for c in checks if not c.ok]
    detail = f"{failed[0].name}: {failed[0].detail}" if failed else "all checks passed"
    if not any(c.name == LOAD_CHECK and c.ok for c in checks):
        # Nothing to look at: a build that fails, no site, a page that never
        # loads. A check that failed before "load" ran names why; a list with
        # no failure and no load (impossible today) still never passes.
        return "catastrophic", detail if failed else "the page was never loaded"
    return ("failed" if failed else "passed"), detail

