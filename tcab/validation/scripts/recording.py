"""Recording what the validation scripts decided into results.db
(:func:`tcab.results.decisions.record_decision`, one row per item)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tcab.catalog import case_digest
from tcab.catalog.model import CaseVersion
from tcab.validation.scripts.run import ItemDecision

#: How the view reads a script's decision (``item_decisions.verdict``).
PASS, FAIL, UNDECIDED = "pass", "fail", "undecided"


def verdict_of(decision: ItemDecision) -> str:
    if decision.passed is None:
        return UNDECIDED
    return PASS if decision.passed else FAIL


def _digest(path: Path) -> tuple[str | None, int | None]:
    try:
        data = path.read_bytes()
    except OSError:
        return None, None
    return hashlib.sha256(data).hexdigest(), len(data)


def _failure(a: dict) -> str:
    if "expected" not in a and "actual" not in a:
        return f"FAILED {a['label']}"
    # The runner drops a side that was undefined (a build's call that answered nothing).
    return f"FAILED {a['label']}: expected {a.get('expected', 'undefined')}, got {a.get('actual', 'undefined')}"


def log_tail(decision: ItemDecision) -> str:
    """The log tail, with the failed assertions last (what the reviewer reads):
    results.db keeps the end of a long tail (``MAX_LOG_TAIL``)."""
    failed = [_failure(a) for a in decision.assertions if not a.get("pass")]
    return "\n".join([*decision.log, *failed])


def record_item_decisions(db, case: CaseVersion, run_id: str, variant: str, run_dir: Path,
                          decisions: tuple[ItemDecision, ...], *, digest: str | None = None) -> int:
    """Record each decision as the script decision of its item of ``run_id``
    (the run's earlier script decision becomes history; an override stays),
    the case's review material beside them with ``digest`` (the validation
    record's ``case_digest``; by default the case's digest now).
    Returns how many were recorded. Raises ``ResultsError`` (tcab.errors) for
    an item or output the run's case does not declare."""
    from tcab.results.decisions import DecisionOutput, record_decision
    from tcab.results.reviews import ReviewMaterial

    if not decisions:
        return 0
    # Without a digest the material would overwrite the review items' case_digest with NULL.
    material = ReviewMaterial.of_case(case, variant, digest if digest is not None else case_digest(case))
    kinds = {i.id: {o.id: o.kind for o in i.validation.outputs}
             for i in case.review_items_for(case.variant(variant)) if i.validation is not None}
    for decision in decisions:
        outputs = []
        for oid, rel in decision.outputs.items():
            sha256, size = _digest(run_dir / rel)
            outputs.append(DecisionOutput(oid, kinds.get(decision.item, {}).get(oid, ""), rel, sha256, size))
        verdict = verdict_of(decision)
        record_decision(db, run_id, decision.item, verdict, outputs, log_tail(decision), material=material,
                        detail=decision.reason or ("no reason given" if verdict == UNDECIDED else None))
    return len(decisions)
