"""Recorded matches and tournament standings count from one source (issue 14, item 4).

Two entrants sharing one module play identical matches that are stored once;
counting seats by label gave one of them 2 matches and the other 8 while the
standings gave 8 each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CATALOG = Path(__file__).resolve().parents[1] / "arena" / "catalog"


def _tcab(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TCAB_CATALOG": str(CATALOG), "TCAB_RESULTS": str(tmp_path / "results"),
           "TCAB_BUILD": str(tmp_path / "build"), "TCAB_TMP": str(tmp_path / "tmp")}
    return subprocess.run([sys.executable, "-m", "tcab", *args], env=env, capture_output=True,
                          text=True, cwd=tmp_path, timeout=240)


def _players(report: dict) -> dict[str, dict]:
    [group] = [g for g in report["groups"] if g["players"]]
    return {p["label"]: p for p in group["players"]}


@pytest.mark.timeout(600)
def test_two_entrants_sharing_a_module_count_the_same_in_both_tables(tmp_path):
    played = _tcab(tmp_path, "tournament", "tally", "baseline:one", "baseline:one", "baseline:three",
                   "--rounds", "4", "-j", "2", "--json", "--id", "shared")
    assert played.returncode == 0, played.stderr
    standings = {s["label"]: s for s in json.loads(played.stdout)["standings"]}
    assert standings["baseline/one"]["played"] == standings["baseline/one#2"]["played"] == 8

    report = _tcab(tmp_path, "report", "--json")
    assert report.returncode == 0, report.stderr
    doc = json.loads(report.stdout)
    players = _players(doc)
    [group] = [g for g in doc["groups"] if g["tournaments"]]
    [tournament] = group["tournaments"]
    for s in tournament["standings"]:
        p = players[s["label"]]
        assert p["matches"] == standings[s["label"]]["played"], (s["label"], p, s)
        assert (p["wins"], p["draws"], p["losses"] + p["forfeits"]) == (s["wins"], s["draws"], s["losses"])

    # A match outside any tournament adds to the seats' labels, once each.
    single = _tcab(tmp_path, "match", "tally", "baseline:three", "baseline:one", "--seed", "12345")
    assert single.returncode == 0, single.stderr
    after = _players(json.loads(_tcab(tmp_path, "report", "--json").stdout))
    assert after["baseline/three"]["matches"] == players["baseline/three"]["matches"] + 1
    assert after["baseline/one"]["matches"] == players["baseline/one"]["matches"] + 1
    assert after["baseline/one#2"]["matches"] == players["baseline/one#2"]["matches"]


def _presented(html_text: str) -> list[tuple[str, list[str]]]:
    """(table key, column titles) of each report table of a page, in page order."""
    import html
    import re

    found = []
    for key, head in re.findall(r'<table data-table="(\w+)"><tr>(.*?)</tr>', html_text, re.DOTALL):
        titles = [html.unescape(re.sub(r"<[^>]+>", "", th)).strip()
                  for th in re.findall(r"<th[^>]*>(.*?)</th>", head, re.DOTALL)]
        found.append((key, titles))
    return found


def test_every_presenter_shows_the_columns_defined_once(tmp_path):
    """Terminal, static HTML, the app's home page and CSV all draw the tables of
    tcab.results.columns (issue 20: "the report's columns are defined once")."""
    import csv
    import io
    import re
    import sqlite3
    import urllib.request

    from rich.console import Console

    from tcab.catalog.typetable import report_columns, success_rule
    from tcab.results import open_db, record_run, record_validation
    from tcab.results.columns import COLUMNS, csv_header, group_tables, table_columns
    from tcab.results.export import CSV_TABLES, report_csv, report_json
    from tcab.results.html import write_html
    from tcab.results.report import build_report, connect
    from tcab.results.schema import RUN_STATUSES
    from tcab.results.terminal import print_report
    from tests.results.test_report import _fill
    from tests.support.results_rows import run_row
    from tests.support.settings import tmp_settings
    from tests.support.view_server import view_server

    settings = tmp_settings(tmp_path)
    settings.results_dir.mkdir(parents=True)
    db = open_db(settings.results_db)
    try:
        _fill(db, settings.results_dir)  # an adversarial case: builds, baselines, a tournament, matches
        for i, status in enumerate(("passed", "failed")):  # an end-to-end case: validations, a typecheck
            run_id = f"e2e-{i}"
            record_run(db, run_row(run_id, case_slug="lights-out", case_type="end-to-end", variant="classic"),
                       [])
            record_validation(db, {"run_id": run_id, "case_slug": "lights-out", "case_version": "v1.0.0",
                                   "variant": "classic", "status": status, "toolchain": [
                                       {"name": "typecheck", "command": "tsc", "status": status,
                                        "exit_code": 0 if status == "passed" else 2, "duration_s": 1.0,
                                        "output": "", "detail": ""}]})
    finally:
        db.close()
    with sqlite3.connect(settings.results_db) as conn:
        conn.execute("INSERT INTO reviews (run_id, current, reviewer, reviewed_at, note, score, max_score, "
                     "rating, case_slug, case_version, variant) VALUES ('e2e-0', 1, 'ada', "
                     "'2026-11-30T10:00:00Z', 'fine', 2, 3, 'broken', 'lights-out', 'v1.0.0', 'classic')")
    conn = connect(settings.results_db)
    try:
        report = build_report(conn, database=str(settings.results_db), type_columns=report_columns,
                              success_rule=success_rule)
        page = write_html(report, conn, tmp_path / "html", settings.results_dir).read_text()
    finally:
        conn.close()

    expected = [(t.key, [c.title for c in t.columns]) for g in report.groups for t in group_tables(g)]
    keys = {k for k, _ in expected}
    assert keys == {"runs", "baselines", "standings", "reviews", "players"}, keys
    by_type = {g.case_type: [c.title for t in group_tables(g) if t.key == "runs" for c in t.columns]
               for g in report.groups if g.runs}
    assert "validated" in by_type["end-to-end"] and "typecheck" in by_type["end-to-end"]
    assert "builds" in by_type["adversarial"] and "validated" not in by_type["adversarial"]
    assert "builds" not in by_type["end-to-end"]

    # Static HTML.
    assert _presented(page) == expected
    # The app's home page.
    with view_server(settings) as url:
        home = urllib.request.urlopen(url + "/", timeout=30).read().decode()
    assert _presented(home) == expected
    # The terminal: each table's title line, then its header line.
    out = io.StringIO()
    print_report(report, Console(file=out, width=400, highlight=False, emoji=False))
    lines = out.getvalue().splitlines()
    shown, at = [], 0
    for g in report.groups:
        for t in group_tables(g):
            at = next(i for i in range(at, len(lines)) if lines[i].strip() == t.title)
            shown.append((t.key, re.split(r" {3,}", lines[at + 1].strip())))
            at += 2
    assert shown == expected
    # CSV and JSON: every column's fields, those only data carries included.
    for table in CSV_TABLES:
        header = next(csv.reader(io.StringIO(report_csv(report, table))))
        lead = ["case_slug", "case_version", "variant"] + (["tournament"] if table == "standings" else [])
        assert header == lead + csv_header(table), table
        assert csv_header(table) == [f for c in table_columns(table) for f, _ in c.fields]
    assert {c.table for c in COLUMNS} == set(CSV_TABLES)
    doc = json.loads(report_json(report))
    runs_fields = {f for c in table_columns("runs") for f, _ in c.fields if f not in RUN_STATUSES}
    assert runs_fields <= set(doc["groups"][0]["runs"][0])
