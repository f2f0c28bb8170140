"""The outcome of validating one end-to-end run: a ``ValidationRecord``.

``status`` is ``passed`` (every check passed), ``failed`` (a check failed:
the build, the output folder, ``index.html``, the page load, an uncaught
error or a console error) or ``error`` (the infrastructure failed: the
container engine or the browser). ``checks`` lists each check that ran, in
order, with ``ok`` and a ``detail``; ``detail`` names the first failure.
``check_results`` are the case's ``[[check]]`` similarity scores
(``validation.json`` only).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # checks.py imports the browser check, which imports this module
    from tcab.validation.checks import CheckResult


@dataclass(frozen=True, slots=True)
class Check:
    """One check: its name, whether it passed, and what was seen."""

    name: str
    ok: bool
    detail: str = ""

    def to_json(self) -> dict:
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class ValidationRecord:
    """What ``validate_run`` found (a row of ``validations``, docs/results.md)."""

    run_id: str
    case_slug: str
    case_version: str
    case_digest: str
    variant: str
    status: str                     # passed | failed | error
    checks: tuple[Check, ...]
    detail: str
    build_log: str
    screenshots: tuple[str, ...]    # paths relative to the run folder
    image_digest: str | None
    duration_s: float
    validated_at: str = field(
        default_factory=lambda: datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"))
    # The case's [[check]]s (tcab.validation.checks): similarity signals, not
    # pass/fail, so they leave ``status`` alone; in validation.json, not the row.
    check_results: tuple[CheckResult, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def row(self) -> dict:
        """The ``validations`` row for ``record_validation``."""
        return {
            "run_id": self.run_id, "case_slug": self.case_slug, "case_version": self.case_version,
            "case_digest": self.case_digest, "variant": self.variant, "status": self.status,
            "checks": [c.to_json() for c in self.checks], "detail": self.detail,
            "screenshots": list(self.screenshots), "image_digest": self.image_digest,
            "duration_s": round(self.duration_s, 3), "validated_at": self.validated_at,
        }

    def to_json(self) -> dict:
        """The row plus the build log excerpt (what ``validation.json`` and ``--json`` show)."""
        return {**self.row(), "build_log": self.build_log,
                "check_results": [r.to_json() for r in self.check_results]}
