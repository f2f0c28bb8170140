"""The report as plain data: a JSON document, or flat tables for CSV."""

from __future__ import annotations

import csv
import dataclasses
import io
import json

from tcab.results.report import Report
from tcab.results.schema import RUN_STATUSES

CSV_TABLES = ("runs", "players", "standings", "baselines")


def report_json(report: Report) -> str:
    """The whole report as indented JSON (the dataclasses as nested objects)."""
    return json.dumps(dataclasses.asdict(report), indent=2)


def report_csv(report: Report, table: str) -> str:
    """One section of the report as CSV, each row led by its case, version and variant.

    ``table`` is one of runs, players, standings, baselines.
    """
    if table not in CSV_TABLES:
        raise ValueError(f"unknown table {table!r}: expected one of {', '.join(CSV_TABLES)}")
    headers, rows = _flatten(report, table)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["case_slug", "case_version", "variant", *headers])
    writer.writerows(rows)
    return buf.getvalue()


def _flatten(report: Report, table: str) -> tuple[list[str], list[list]]:
    rows: list[list] = []
    if table == "runs":
        headers = ["harness", "model", "runs", *RUN_STATUSES, "builds_ok", "builds",
                   "validations_passed", "validations", "tokens_input", "tokens_output", "tokens_cache_read", "tokens_cache_write",
                   "mean_duration_s", "total_duration_s"]
        for g in report.groups:
            for s in g.runs:
                rows.append([g.case_slug, g.case_version, g.variant, s.harness, s.model or "",
                             s.runs, *(s.outcomes[k] for k in RUN_STATUSES), s.builds_ok, s.builds,
                             s.validations_passed, s.validations, s.tokens_input, s.tokens_output, s.tokens_cache_read,
                             s.tokens_cache_write, _f(s.mean_duration_s), _f(s.total_duration_s)])
    elif table == "players":
        headers = ["label", "matches", "wins", "draws", "losses", "forfeits", "win_rate"]
        for g in report.groups:
            for p in g.players:
                rows.append([g.case_slug, g.case_version, g.variant, p.label, p.matches, p.wins,
                             p.draws, p.losses, p.forfeits, _f(p.win_rate)])
    elif table == "standings":
        headers = ["tournament", "rank", "label", "module_sha256", "rating", "ci_low", "ci_high",
                   "wins", "draws", "losses", "forfeits", "source", "harness", "model"]
        for g in report.groups:
            for t in g.tournaments:
                for s in t.standings:
                    rows.append([g.case_slug, g.case_version, g.variant, t.id, s.rank, s.label,
                                 s.module_sha256, _f(s.rating), _f(s.ci_low), _f(s.ci_high),
                                 s.wins, s.draws, s.losses, s.forfeits, s.source or "",
                                 s.harness or "", s.model or ""])
    else:
        headers = ["source", "status", "module_sha256"]
        for g in report.groups:
            for b in g.baselines:
                rows.append([g.case_slug, g.case_version, g.variant, b.source, b.status,
                             b.module_sha256 or ""])
    return headers, rows


def _f(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"
