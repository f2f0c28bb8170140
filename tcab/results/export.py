"""The report as plain data: a JSON document, or flat tables for CSV.

A CSV table's fields are its columns' fields as :mod:`tcab.results.columns`
defines them (every column, the ones only data carries included), each row
led by its case, version and variant (and a standings row by its
tournament).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json

from tcab.results.columns import csv_header, csv_values
from tcab.results.report import Report

CSV_TABLES = ("runs", "players", "standings", "baselines", "reviews", "checklists")


def report_json(report: Report) -> str:
    """The whole report as indented JSON (the dataclasses as nested objects;
    a field marked ``metadata={"json": False}`` (a type table's columns) left out)."""
    return json.dumps(_plain(report), indent=2)


def to_json(value) -> str:
    """Any report dataclass (a comparison, say) as indented JSON."""
    return json.dumps(_plain(value), indent=2)


def _plain(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.metadata.get("json", True)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def report_csv(report: Report, table: str) -> str:
    """One section of the report as CSV, each row led by its case, version and variant.

    ``table`` is one of CSV_TABLES, or the key of a table a test type adds
    (its columns' fields, from the first group that has it).
    """
    own = [t for g in report.groups for t in g.type_tables if t.key == table]
    if own:
        return _type_csv(report, table, own[0].columns)
    if table not in CSV_TABLES:
        raise ValueError(f"unknown table {table!r}: expected one of {', '.join(CSV_TABLES)}")
    lead = ["tournament"] if table == "standings" else []
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["case_slug", "case_version", "variant", *lead, *csv_header(table)])
    for g in report.groups:
        key = [g.case_slug, g.case_version, g.variant]
        if table == "standings":
            for t in g.tournaments:
                writer.writerows([*key, t.id, *map(_f, csv_values(table, s))] for s in t.standings)
        else:
            writer.writerows([*key, *map(_f, csv_values(table, row))] for row in getattr(g, table))
    return buf.getvalue()


def _type_csv(report: Report, table: str, columns) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["case_slug", "case_version", "variant", *(name for c in columns for name, _ in c.fields)])
    for g in report.groups:
        key = [g.case_slug, g.case_version, g.variant]
        for own in (t for t in g.type_tables if t.key == table):
            writer.writerows([*key, *(_f(get(row)) for c in columns for _, get in c.fields)] for row in own.rows)
    return buf.getvalue()


def _f(value):
    """A CSV cell: None empty, a float in 6 significant digits, the rest as it is."""
    if value is None:
        return ""
    return f"{value:.6g}" if isinstance(value, float) else value
