"""The report's statistics: per case × harness × model, across cases, and A against B.

What counts as a success is the test type's (``TestType.success``, a
``SuccessRule``: a validated end-to-end build, a built controller, a
regenerated asset, a correct performance engine), either a count the report
makes anyway (``builds_ok``: no extra query) or an SQL query of the run ids
that succeeded; the results layer sits below the types, so the commands hand
it down as a function of the type name (:func:`tcab.catalog.typetable.success_rule`).
Only runs that measured the harness count (``RunStatus.is_result``): an
``infrastructure``, ``canceled`` or ``internal_error`` run says nothing
about the model, so it is neither a success nor a failure.

A "case" across cases is one case version and variant: the same plan's
repeats are its runs, and the mean over cases is bootstrapped by resampling
cases (:func:`tcab.results.stats.bootstrap_mean`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tcab.errors import InputError
from tcab.outcomes import RunStatus
from tcab.results.stats import Interval, Paired, bootstrap_mean, paired, pass_at_k, wilson

#: The k of every pass@k the report shows (each only where a group has at least k measured runs).
PASS_K = (1, 5, 10)
MEASURED = tuple(s.value for s in RunStatus if s.is_result)
_MEASURED_SQL = "(" + ", ".join(f"'{s}'" for s in MEASURED) + ")"

Key = tuple  # (case_slug, case_version, variant, harness, model)


def success_counts(conn: sqlite3.Connection, queries: Iterable[tuple[str, str]], where: str = "",
                   params: Sequence = ()) -> dict[Key, int]:
    """The measured runs that succeeded, per (case, version, variant, harness,
    model), for each (case type, query of the run ids that succeeded) of ``queries``.

    ``where``/``params`` restrict the runs (alias ``r``, as the report's filters).
    """
    found: dict[Key, int] = {}
    for case_type, query in sorted(set(queries)):
        clause = (where + " AND" if where else " WHERE")
        # The type's successes are the outer loop (far fewer than runs): one
        # run lookup each by primary key, as the report's builds query does.
        for row in conn.execute(
            f"""SELECT r.case_slug, r.case_version, r.variant, r.harness, r.model, count(*)
                FROM ({query}) s CROSS JOIN runs r ON r.id = s.run_id{clause}
                r.case_type = ? AND r.status IN {_MEASURED_SQL}
                GROUP BY 1, 2, 3, 4, 5""", [*params, case_type]):
            found[tuple(row[:5])] = row[5]
    return found


def review_means(conn: sqlite3.Connection, where: str = "", params: Sequence = ()) -> dict[Key, float]:
    """The mean of the current reviews' checklist score / max score per group."""
    clause = (where + " AND" if where else " WHERE")
    return {tuple(row[:5]): row[5] for row in conn.execute(
        f"""SELECT r.case_slug, r.case_version, r.variant, r.harness, r.model, avg(v.score / v.max_score)
            FROM reviews v CROSS JOIN runs r ON r.id = v.run_id{clause} v.current = 1 AND v.max_score > 0
            GROUP BY 1, 2, 3, 4, 5""", params)}


def similarity_means(conn: sqlite3.Connection, where: str = "", params: Sequence = ()) -> dict[Key, float]:
    """The mean ``[[check]]`` similarity per group (``check_scores``, one row per run and check)."""
    clause = (where + " AND" if where else " WHERE")
    return {tuple(row[:5]): row[5] for row in conn.execute(
        f"""SELECT r.case_slug, r.case_version, r.variant, r.harness, r.model, avg(c.similarity)
            FROM check_scores c CROSS JOIN runs r ON r.id = c.run_id{clause} c.similarity IS NOT NULL
            GROUP BY 1, 2, 3, 4, 5""", params)}


@dataclass(frozen=True, slots=True)
class Success:
    """One group's success: measured runs, successes, the rate with its
    Wilson 95% interval, and pass@k for each k of PASS_K it has repeats for."""

    measured: int
    successes: int
    rate: Interval | None
    pass_at: dict[int, float]


def success_of(measured: int, successes: int) -> Success:
    at = {k: v for k in PASS_K if (v := pass_at_k(measured, successes, k)) is not None}
    return Success(measured, successes, wilson(successes, measured), at)


def summary_fields(success: Success) -> dict[str, Any]:
    """The flat ``RunSummary`` fields of ``success`` (what CSV and JSON carry)."""
    rate = success.rate
    return {"measured": success.measured, "successes": success.successes,
            "success_rate": rate.estimate if rate else None, "success_low": rate.low if rate else None,
            "success_high": rate.high if rate else None,
            **{f"pass_at_{k}": success.pass_at.get(k) for k in PASS_K}}


def success_from(summary) -> Success | None:
    """A ``RunSummary``'s success figures, or None where its type defines none."""
    if summary.measured is None or summary.successes is None:
        return None
    return success_of(summary.measured, summary.successes)


@dataclass(frozen=True, slots=True)
class AcrossCases:
    """One harness and model over every case (version and variant) it has a success rate on."""

    harness: str
    model: str | None
    cases: int
    mean: Interval | None  # the mean of the per-case success rates, bootstrap 95% over cases


def across_cases(rates: dict[tuple[str, str | None], list[float]]) -> tuple[AcrossCases, ...]:
    """``rates``: (harness, model) -> the success rate of each case it ran, any order."""
    out = [AcrossCases(h, m, len(v), bootstrap_mean(v)) for (h, m), v in rates.items()]
    out.sort(key=lambda a: (-(a.mean.estimate if a.mean else 0.0), a.harness, a.model or ""))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class CaseDifference:
    case_slug: str
    case_version: str
    variant: str
    a: Success
    b: Success
    difference: float  # a's rate − b's rate


@dataclass(frozen=True, slots=True)
class Comparison:
    """``tcab report --compare A B``: the cases both ran, their differences
    and the paired bootstrap interval of the mean difference."""

    a: str
    b: str
    cases: tuple[CaseDifference, ...]
    summary: Paired
    only_a: int  # cases only A ran (left out)
    only_b: int


def parse_subject(text: str) -> tuple[str, str | None]:
    """``HARNESS`` or ``HARNESS/MODEL`` (a model may hold slashes itself).

    Raises InputError naming the argument for an empty part."""
    harness, sep, model = text.partition("/")
    if not harness or (sep and not model):
        raise InputError(f"--compare: expected HARNESS or HARNESS/MODEL, got {text!r}")
    return harness, (model or None)


def compare(groups: Sequence, a: str, b: str) -> Comparison:
    """Compare subjects ``a`` and ``b`` (``HARNESS[/MODEL]``) over ``groups``
    (the report's :class:`GroupReport` objects, statistics filled in).

    Raises InputError when a subject has no success figure anywhere."""
    subjects = (parse_subject(a), parse_subject(b))
    per = ({}, {})
    for g in groups:
        for s in g.runs:
            success = success_from(s)
            if success is None or success.rate is None:
                continue
            for i, (harness, model) in enumerate(subjects):
                if s.harness == harness and (model is None or s.model == model):
                    key = (g.case_slug, g.case_version, g.variant)
                    if key in per[i]:
                        raise InputError(f"--compare: {(a, b)[i]!r} names several models on "
                                         f"{key[0]} {key[1]} {key[2]}; name one as HARNESS/MODEL")
                    per[i][key] = success
    for i, name in enumerate((a, b)):
        if not per[i]:
            raise InputError(f"--compare: no runs with a success figure for {name!r}")
    both = sorted(set(per[0]) & set(per[1]))
    cases = tuple(CaseDifference(*key, per[0][key], per[1][key],
                                 per[0][key].rate.estimate - per[1][key].rate.estimate) for key in both)
    summary = paired([c.a.rate.estimate for c in cases], [c.b.rate.estimate for c in cases])
    return Comparison(a, b, cases, summary, len(per[0]) - len(both), len(per[1]) - len(both))


def fill_statistics(conn: sqlite3.Connection, groups: dict, types: dict, success_rule: Callable[[str], Any],
                    where: str, params: Sequence) -> tuple[AcrossCases, ...]:
    """Fill in each :class:`RunSummary` of ``groups`` (the report's
    (case, version, variant) -> {"runs": [...]} being built) with its
    statistics and cost, in place; return the across-cases means.

    ``types`` maps (case, version) to its test type, as the report found it;
    ``success_rule`` a type to its ``SuccessRule`` (or None).
    """
    import dataclasses

    from tcab.results.costs import group_costs

    rules = {t: rule for t in set(types.values()) if t and (rule := success_rule(t)) is not None}
    successes = success_counts(conn, [(t, r.runs) for t, r in rules.items() if r.runs], where, params)
    reviews = review_means(conn, where, params)
    similarity = similarity_means(conn, where, params) if _has_table(conn, "check_scores") else {}
    costs = group_costs(conn, where, params) if _has_table(conn, "run_cost_totals") else {}
    rates: dict[tuple[str, str | None], list[float]] = {}
    for key, parts in groups.items():
        rule = rules.get(types.get(key[:2]))
        filled = []
        for s in parts["runs"]:
            full = (*key, s.harness, s.model)
            values: dict[str, Any] = {"mean_similarity": similarity.get(full), "mean_review": reviews.get(full)}
            if rule is not None:
                measured = sum(s.outcomes.get(status, 0) for status in MEASURED)
                won = getattr(s, rule.count) if rule.count else successes.get(full, 0)
                success = success_of(measured, min(won, measured))
                values.update(summary_fields(success))
                if success.rate is not None:
                    rates.setdefault((s.harness, s.model), []).append(success.rate.estimate)
            cost = costs.get(full)
            if cost is not None:
                values.update(cost=cost.total if cost.priced else None, currency=cost.currency,
                              unpriced_runs=cost.unpriced)
            filled.append(dataclasses.replace(s, **values))
        parts["runs"] = filled
    return across_cases(rates)


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).fetchone() is not None


__all__ = ["fill_statistics", "success_from", "summary_fields", "MEASURED", "PASS_K", "AcrossCases", "CaseDifference", "Comparison", "Success", "across_cases",
           "compare", "parse_subject", "review_means", "similarity_means", "success_counts", "success_of"]
