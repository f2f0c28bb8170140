"""The performance type's own report table: each scored run of a group with
its total fuel and its efficiency against the case version's best correct run
(``TestType.report_table``; the per harness/model columns are the typed
``perf_*``/``fuel_*`` columns of the runs table)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from tcab.results.columns import Column, TypeTable

KEY = "perf-scores"


@dataclass(frozen=True, slots=True)
class ScoredRun:
    run_id: str
    harness: str
    model: str | None
    status: str                 # correct | incorrect | no_module
    total_fuel: int | None
    efficiency: float | None    # the case version's best total fuel / this run's (correct runs)
    failing: str                # the first scenario not correct, "name: status"


def _failing(cases: str | None) -> str:
    try:
        for case in json.loads(cases or "[]"):
            if case.get("status") != "correct":
                return f"{case.get('name')}: {case.get('status')}"
    except (ValueError, AttributeError):
        return "unreadable"
    return ""


def scored_runs(conn, key: tuple[str, str, str], filters) -> list[ScoredRun]:
    slug, version, variant = key
    best = conn.execute("SELECT min(total_fuel) FROM performance_scores WHERE case_slug = ? AND case_version = ? "
                        "AND status = 'correct'", (slug, version)).fetchone()[0]
    params: list = [slug, version, variant]
    where = ""
    if getattr(filters, "harness", None):
        where, params = " AND r.harness = ?", [*params, filters.harness]
    rows = conn.execute(
        f"""SELECT r.id, r.harness, r.model, p.status, p.total_fuel, p.cases
            FROM performance_scores p JOIN runs r ON r.id = p.source
            WHERE r.case_slug = ? AND r.case_version = ? AND r.variant = ?{where}
            ORDER BY p.total_fuel IS NULL, p.total_fuel, r.id""", params).fetchall()
    return [ScoredRun(run_id, harness, model, status, fuel,
                      best / fuel if best and fuel and status == "correct" else None, _failing(cases))
            for run_id, harness, model, status, fuel, cases in rows]


def _fuel(v: int | None) -> str:
    return "—" if v is None else f"{v:,}"


TABLE = TypeTable(
    key=KEY, title="Performance scores (wasm fuel on the held-out stress scenarios; lower is better)",
    columns=(
        Column("perf_run", "run", KEY, lambda r: r.run_id, (("run_id", lambda r: r.run_id),), align="left"),
        Column("perf_harness", "harness", KEY, lambda r: r.harness + (f" / {r.model}" if r.model else ""),
               (("harness", lambda r: r.harness), ("model", lambda r: r.model or "")), align="left"),
        Column("perf_status", "status", KEY, lambda r: r.status, (("status", lambda r: r.status),), align="left",
               tone=lambda r: "good" if r.status == "correct" else "bad"),
        Column("perf_fuel", "total fuel", KEY, lambda r: _fuel(r.total_fuel),
               (("total_fuel", lambda r: r.total_fuel),)),
        Column("perf_efficiency", "efficiency", KEY,
               lambda r: "—" if r.efficiency is None else f"{r.efficiency:.0%}",
               (("efficiency", lambda r: r.efficiency),), help="the case version's best correct run / this run"),
        Column("perf_failing", "first failing scenario", KEY, lambda r: r.failing or "—",
               (("failing", lambda r: r.failing),), align="left"),
    ),
    rows=scored_runs,
)
