"""tcab report on databases filled through the record_* API, with known numbers."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tcab.catalog.typetable import report_columns
from tcab.cli import cli
from tcab.results import (
    MIGRATIONS,
    SCHEMA_VERSION,
    Migration,
    open_db,
    record_build,
    record_match,
    record_run,
    record_tournament,
    record_validation,
    schema_version,
)
from tcab.results.report import Filters, build_report, connect
from tests.support.results_rows import match_row, run_row, seat

# (harness, model, variant, status, tokens_input, duration_s, build status or None)
RUNS = [
    ("reference", None, "base", "completed", 0, 10.0, "ok"),
    ("reference", None, "base", "completed", 0, 20.0, "ok"),
    ("claude", "sonnet", "base", "completed", 1000, 100.0, "ok"),
    ("claude", "sonnet", "base", "timed_out", 5000, 3600.0, "failed"),
    ("claude", "sonnet", "base", "hung", 200, 1800.0, None),
    ("claude", "sonnet", "fog", "harness_error", 300, 5.0, None),
    ("codex", "gpt", "base", "infrastructure", 0, 1.0, None),
    ("codex", "gpt", "base", "canceled", 50, 2.0, None),
]


def _fill(db, results_dir: Path) -> None:
    for i, (harness, model, variant, status, tokens, duration, build) in enumerate(RUNS):
        run_id = f"run{i}"
        (results_dir / "runs" / run_id).mkdir(parents=True, exist_ok=True)
        record_run(db, run_row(run_id, harness=harness, model=model, variant=variant,
                               status=status, tokens_input=tokens, tokens_output=tokens // 10,
                               duration_s=duration, started_at=f"2026-11-29T10:0{i}:00Z"),
                   [{"stage": "pull", "status": "ok"}])
        if build:
            record_build(db, {"source": run_id, "case_slug": "capture", "case_version": "v1.0.0",
                              "status": build, "module_sha256": f"mod-{run_id}" if build == "ok" else None})
    for name in ("greedy", "random"):
        record_build(db, {"source": f"baseline:capture@v1.0.0/{name}", "case_slug": "capture",
                          "case_version": "v1.0.0", "status": "ok", "module_sha256": f"mod-{name}"})
    # greedy beats random 3 times, draws once; reference beats greedy twice; random forfeits once.
    games = [("greedy", "random", 0)] * 3 + [("greedy", "random", None)] + \
            [("reference", "greedy", 0)] * 2 + [("reference", "random", "forfeit")]
    modules = {"greedy": "mod-greedy", "random": "mod-random", "reference": "mod-run0"}
    keys = []
    for n, (a, b, winner) in enumerate(games):
        if winner is None:
            outcomes = ("draw", "draw")
        elif winner == "forfeit":
            outcomes = ("win", "forfeit")
        else:
            outcomes = ("win", "loss")
        (results_dir / "matches").mkdir(exist_ok=True)
        (results_dir / "matches" / f"{n}.jsonl").write_text("{}\n")
        keys.append(record_match(
            db, match_row(n, winner_seat=None if winner is None else 0,
                          replay_path=f"matches/{n}.jsonl"),
            [seat(0, modules[a], outcomes[0], a), seat(1, modules[b], outcomes[1], b)]))
    record_tournament(
        db,
        {"id": "t1", "case_slug": "capture", "case_version": "v1.0.0", "variant": "base",
         "structure": "round-robin", "rounds": 1, "seed": 9, "participants": list(modules)},
        [{"match_key": k, "round": 1, "pairing": f"p{i}"} for i, k in enumerate(keys)],
        [{"module_sha256": "mod-greedy", "label": "greedy", "rank": 2, "rating": 0.1,
          "ci_low": -0.4, "ci_high": 0.6, "wins": 3, "draws": 1, "losses": 2, "forfeits": 0},
         {"module_sha256": "mod-run0", "label": "reference", "rank": 1, "rating": 1.5,
          "ci_low": 0.9, "ci_high": 2.1, "wins": 3, "draws": 0, "losses": 0, "forfeits": 0},
         {"module_sha256": "mod-random", "label": "random", "rank": 3, "rating": -1.6,
          "ci_low": -2.5, "ci_high": -0.7, "wins": 0, "draws": 1, "losses": 4, "forfeits": 1}],
    )


@pytest.fixture
def filled(db, db_path):
    _fill(db, db_path.parent)
    return db_path


def _report(path, **filters):
    conn = connect(path)
    try:
        return build_report(conn, Filters(**filters), str(path), type_columns=report_columns)
    finally:
        conn.close()


def _invoke(path, *args):
    # The group reads Settings from the environment, as the real command does.
    return CliRunner().invoke(cli, ["report", *args], env={"TCAB_RESULTS": str(path.parent)},
                              catch_exceptions=False)


def test_run_outcomes_tokens_durations_and_builds_per_harness_and_model(filled):
    report = _report(filled)
    assert [(g.case_slug, g.case_version, g.variant) for g in report.groups] == [
        ("capture", "v1.0.0", "base"), ("capture", "v1.0.0", "fog")]
    base, fog = report.groups
    by = {(s.harness, s.model): s for s in base.runs}
    assert list(by) == [("claude", "sonnet"), ("codex", "gpt"), ("reference", None)]
    claude = by["claude", "sonnet"]
    assert claude.runs == 3
    assert claude.outcomes == {"completed": 1, "timed_out": 1, "hung": 1, "harness_error": 0,
                               "limit_exceeded": 0, "infrastructure": 0, "canceled": 0, "catastrophic": 0}
    assert (claude.tokens_input, claude.tokens_output) == (6200, 620)
    assert claude.mean_duration_s == pytest.approx((100 + 3600 + 1800) / 3)
    assert (claude.builds_ok, claude.builds) == (1, 2)
    assert by["codex", "gpt"].outcomes["infrastructure"] == 1
    assert by["codex", "gpt"].outcomes["canceled"] == 1
    assert (by["reference", None].builds_ok, by["reference", None].builds) == (2, 2)
    assert [(s.harness, s.outcomes["harness_error"]) for s in fog.runs] == [("claude", 1)]
    assert [b.source for b in base.baselines] == ["baseline:capture@v1.0.0/greedy",
                                                  "baseline:capture@v1.0.0/random"]
    assert report.totals == {"runs": 8, "builds": 6, "validations": 0, "matches": 7, "tournaments": 1}


def test_match_records_and_tournament_standings(filled):
    base = _report(filled).groups[0]
    players = {p.label: p for p in base.players}
    assert [p.label for p in base.players] == ["reference", "greedy", "random"]  # by win rate
    assert (players["greedy"].matches, players["greedy"].wins, players["greedy"].draws,
            players["greedy"].losses) == (6, 3, 1, 2)
    assert (players["random"].losses, players["random"].forfeits) == (3, 1)
    assert players["reference"].win_rate == 1.0
    (tournament,) = base.tournaments
    assert tournament.matches == 7
    assert [s.label for s in tournament.standings] == ["reference", "greedy", "random"]
    ref = tournament.standings[0]
    assert (ref.source, ref.harness, ref.model) == ("run0", "reference", None)
    assert (ref.ci_low, ref.rating, ref.ci_high) == (0.9, 1.5, 2.1)
    assert tournament.standings[1].source == "baseline:capture@v1.0.0/greedy"


def test_filters(filled):
    assert [g.variant for g in _report(filled, variant="fog").groups] == ["fog"]
    assert _report(filled, case="snake").groups == ()
    only_codex = _report(filled, harness="codex").groups
    assert [[s.harness for s in g.runs] for g in only_codex] == [["codex"]]


def test_terminal_tables_show_the_numbers(filled):
    result = _invoke(filled)
    assert result.exit_code == 0, result.output
    assert "capture v1.0.0 · base" in result.output
    # An adversarial case: no validation column (an end-to-end type's column, tcab.results.columns).
    assert re.search(r"claude\s+sonnet\s+3\s+1\s+1\s+1\s+0\s+0\s+0\s+0\s+0\s+1/2\s+6,200\s+620\s+30\.6m",
                     result.output)
    assert "[0.90, 2.10]" in result.output
    assert re.search(r"greedy\s+ok\s+mod-greedy", result.output) and re.search(r"random\s+ok", result.output)


def test_json_output(filled):
    result = _invoke(filled, "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["totals"]["runs"] == 8
    base = data["groups"][0]
    assert base["runs"][0]["outcomes"]["timed_out"] == 1
    assert base["tournaments"][0]["standings"][0]["label"] == "reference"


def test_csv_output(filled):
    rows = list(csv.DictReader(io.StringIO(_invoke(filled, "--csv").output)))
    assert len(rows) == 4
    claude = next(r for r in rows if r["harness"] == "claude" and r["variant"] == "base")
    assert (claude["runs"], claude["completed"], claude["hung"], claude["tokens_input"]) == (
        "3", "1", "1", "6200")
    standings = list(csv.DictReader(io.StringIO(
        _invoke(filled, "--csv", "--table", "standings").output)))
    assert [(r["rank"], r["label"], r["ci_low"]) for r in standings] == [
        ("1", "reference", "0.9"), ("2", "greedy", "-0.4"), ("3", "random", "-2.5")]


def test_json_and_csv_together_is_a_usage_error(filled):
    result = CliRunner().invoke(cli, ["report", "--db", str(filled), "--json", "--csv"])
    assert result.exit_code == 2
    assert "exclusive" in result.output


def test_html_report_has_charts_and_working_links(filled, tmp_path):
    out = tmp_path / "site" / "report"
    result = _invoke(filled, "--html", str(out))
    assert result.exit_code == 0
    page = (out / "index.html").read_text()
    assert page.count("<svg") == 3  # outcomes for base and fog, ratings for t1
    assert 'aria-label="ratings with confidence intervals"' in page
    hrefs = re.findall(r'href="([^"#]+)"', page)
    assert any(h.endswith("runs/run0") for h in hrefs)
    assert any(h.endswith("matches/0.jsonl") for h in hrefs)
    # A standing traces its module to the run that produced it, linked to the run folder.
    assert re.search(r'href="[^"]*runs/run0">reference</a>', page)
    for href in hrefs:
        assert (out / href).exists(), href  # relative links resolve from the page
    assert "<script" not in page and "http" not in page.replace("http://www.w3.org/2000/svg", "").replace(
        '<meta http-equiv="Content-Security-Policy"', "")


def test_empty_database_reports_nothing_yet(db, db_path):
    result = _invoke(db_path)
    assert result.exit_code == 0
    assert "No results recorded yet" in result.output


def test_missing_database_is_a_clear_error_naming_the_path(tmp_path):
    path = tmp_path / "nowhere" / "results.db"
    proc = subprocess.run([sys.executable, "-m", "tcab", "report", "--db", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert str(path) in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not path.parent.exists()  # reporting never creates a database


def test_an_older_database_is_migrated_before_reporting(db_path):
    open_db(db_path, migrations=MIGRATIONS[:1]).close()
    assert _report(db_path).groups == ()
    db = open_db(db_path)
    assert schema_version(db) == SCHEMA_VERSION
    db.close()


def test_a_newer_database_is_refused_by_the_report(db_path):
    open_db(db_path, migrations=(*MIGRATIONS, Migration("0099_x", ("SELECT 1",)))).close()
    proc = subprocess.run([sys.executable, "-m", "tcab", "report", "--db", str(db_path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "newer than this tcab knows" in proc.stderr


def test_validations_passed_over_total_per_harness_and_model(db, db_path):
    e2e = {"case_slug": "lights-out", "case_type": "end-to-end", "variant": "classic"}
    outcomes = {"ref-a": ("reference", None, "passed"), "ref-b": ("reference", None, "passed"),
                "cl-a": ("claude", "sonnet", "passed"), "cl-b": ("claude", "sonnet", "failed"),
                "cl-c": ("claude", "sonnet", None)}
    for run_id, (harness, model, status) in outcomes.items():
        record_run(db, run_row(run_id, harness=harness, model=model, **e2e), [])
        if status:
            record_validation(db, {"run_id": run_id, "case_slug": "lights-out", "case_version": "v1.0.0",
                                   "variant": "classic", "status": status,
                                   "checks": [{"name": "errors", "ok": status == "passed"}]})
    (group,) = _report(db_path).groups
    by = {s.harness: (s.validations_passed, s.validations, s.runs) for s in group.runs}
    assert by == {"claude": (1, 2, 3), "reference": (2, 2, 2)}
    assert _report(db_path, harness="claude").groups[0].runs[0].validations == 2

    out = _invoke(db_path, "--csv").output
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["harness"], r["validations_passed"], r["validations"]) for r in rows] == [
        ("claude", "1", "2"), ("reference", "2", "2")]
    data = json.loads(_invoke(db_path, "--json").output)
    assert data["totals"]["validations"] == 4
    assert data["groups"][0]["runs"][0]["validations_passed"] == 1
    text = _invoke(db_path).output
    assert "valid" in text and "1/2" in text and "2/2" in text
