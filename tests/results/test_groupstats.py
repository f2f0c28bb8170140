"""The report's statistics on a real results.db: success per test type,
Wilson intervals, pass@k, the mean over cases and ``tcab report --compare``."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tcab.catalog.typetable import success_rule
from tcab.cli import _main, cli
from tcab.errors import ResultsError
from tcab.results import record_build, record_run, record_validation
from tcab.results.report import build_report, connect
from tcab.results.stats import bootstrap_mean, paired, pass_at_k, wilson
from tests.support.results_rows import run_row

# (case, harness, model, [(status, built)]) on adversarial cases: success is a built controller.
PLAN = [
    ("capture", "claude", "sonnet", [("completed", True)] * 4 + [("completed", False)]),
    ("capture", "codex", "gpt", [("completed", True)] * 2 + [("harness_error", False)] * 3),
    ("snake", "claude", "sonnet", [("completed", True)] * 2 + [("timed_out", False)] * 3
     + [("infrastructure", False)] * 2),  # not measured: neither success nor failure
    ("snake", "codex", "gpt", [("completed", True)] * 3 + [("completed", False)] * 2),
    ("maze", "claude", "sonnet", [("completed", True)] * 5),
    ("maze", "codex", "gpt", [("hung", False)] * 5),
    ("solo", "claude", "sonnet", [("completed", True)]),  # only claude ran it
]


def _fill(db):
    n = 0
    for case, harness, model, runs in PLAN:
        for status, built in runs:
            n += 1
            run_id = f"r{n:03d}"
            record_run(db, run_row(run_id, case_slug=case, harness=harness, model=model, status=status,
                                   tokens_input=1_000_000, tokens_output=100_000), [])
            if status == "completed":
                record_build(db, {"source": run_id, "case_slug": case, "case_version": "v1.0.0",
                                  "status": "ok" if built else "failed",
                                  "module_sha256": f"m{n}" if built else None})


@pytest.fixture
def filled(db, db_path):
    _fill(db)
    return db_path


def _report(path):
    conn = connect(path)
    try:
        return build_report(conn, success_rule=success_rule)
    finally:
        conn.close()


def _runs(report, case):
    (group,) = [g for g in report.groups if g.case_slug == case]
    return {s.harness: s for s in group.runs}


def test_success_counts_measured_runs_and_wilson(filled):
    report = _report(filled)
    claude = _runs(report, "capture")["claude"]
    assert (claude.successes, claude.measured) == (4, 5)
    expected = wilson(4, 5)
    assert (claude.success_rate, claude.success_low, claude.success_high) == (0.8, expected.low, expected.high)
    assert (claude.pass_at_1, claude.pass_at_5, claude.pass_at_10) == (pytest.approx(0.8), 1.0, None)
    snake = _runs(report, "snake")["claude"]
    # two infrastructure runs are left out of the 7
    assert (snake.successes, snake.measured) == (2, 5)
    assert snake.pass_at_5 == pytest.approx(pass_at_k(5, 2, 5))
    assert _runs(report, "maze")["codex"].successes == 0
    solo = _runs(report, "solo")["claude"]
    assert (solo.pass_at_1, solo.pass_at_5) == (1.0, None)  # 1 run: no pass@5


def test_no_success_without_the_type_query(filled):
    conn = connect(filled)
    try:
        report = build_report(conn)  # the results layer alone knows no success
    finally:
        conn.close()
    assert all(s.measured is None for g in report.groups for s in g.runs) and report.across == ()


def test_mean_over_cases_is_the_bootstrap_of_per_case_rates(filled):
    across = {a.harness: a for a in _report(filled).across}
    assert across["claude"].cases == 4 and across["codex"].cases == 3
    assert across["claude"].mean == bootstrap_mean([0.8, 0.4, 1.0, 1.0])
    assert across["codex"].mean.estimate == pytest.approx((0.4 + 0.6 + 0.0) / 3)
    assert [a.harness for a in _report(filled).across] == ["claude", "codex"]  # best first


def test_end_to_end_success_is_a_passed_validation(db, db_path):
    for i, status in enumerate(("passed", "failed", "passed")):
        record_run(db, run_row(f"e{i}", case_slug="todo", case_type="end-to-end", harness="h"), [])
        record_validation(db, {"run_id": f"e{i}", "case_slug": "todo", "case_version": "v1.0.0",
                               "variant": "base", "status": status, "checks": [], "detail": ""})
    (s,) = _report(db_path).groups[0].runs
    assert (s.successes, s.measured) == (2, 3)


def test_mean_similarity_and_review(db, db_path):
    for i, sims in enumerate(([0.9, 0.7], [0.5, None])):
        record_run(db, run_row(f"e{i}", case_slug="todo", case_type="end-to-end", harness="h"), [])
        record_validation(db, {"run_id": f"e{i}", "case_slug": "todo", "case_version": "v1.0.0",
                               "variant": "base", "status": "passed", "checks": [], "detail": "",
                               "check_scores": [{"name": f"c{j}", "view": "home", "similarity": s}
                                                for j, s in enumerate(sims)]})
    (s,) = _report(db_path).groups[0].runs
    assert s.mean_similarity == pytest.approx((0.9 + 0.7 + 0.5) / 3)
    assert s.mean_review is None
    with pytest.raises(ResultsError, match="check_scores.similarity"):
        record_validation(db, {"run_id": "e0", "case_slug": "todo", "case_version": "v1.0.0", "variant": "base",
                               "status": "passed", "check_scores": [{"name": "c", "similarity": 2.0}]})


def _cli(path, *args):
    return CliRunner().invoke(cli, ["report", "--db", str(path), *args])


def test_compare_pairs_cases_both_ran(filled):
    result = _cli(filled, "--compare", "claude/sonnet", "codex", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert [c["case_slug"] for c in doc["cases"]] == ["capture", "maze", "snake"]
    diffs = [c["difference"] for c in doc["cases"]]
    assert diffs == pytest.approx([0.8 - 0.4, 1.0 - 0.0, 0.4 - 0.6])
    expected = paired([0.8, 1.0, 0.4], [0.4, 0.0, 0.6])
    assert doc["summary"]["a_wins"] == 2 and doc["summary"]["b_wins"] == 1 and doc["summary"]["ties"] == 0
    assert doc["summary"]["difference"]["low"] == pytest.approx(expected.difference.low)
    assert doc["summary"]["difference"]["high"] == pytest.approx(expected.difference.high)
    assert (doc["only_a"], doc["only_b"]) == (1, 0)


def test_compare_in_the_terminal(filled):
    result = _cli(filled, "--compare", "claude", "codex/gpt")
    assert result.exit_code == 0, result.output
    assert "Cases both ran: 3" in result.output
    assert "cases won: claude 2, codex/gpt 1, tied 0" in result.output
    assert "mean difference" in result.output and "+40.0%" in result.output
    assert "left out: 1 case(s) only claude ran" in result.output


@pytest.mark.parametrize("a,b,message", [
    ("nobody", "codex", "no runs with a success figure for 'nobody'"),
    ("claude/", "codex", "expected HARNESS or HARNESS/MODEL"),
    ("claude/opus", "codex", "no runs with a success figure for 'claude/opus'"),
])
def test_compare_bad_subjects(filled, a, b, message, capsys):
    assert _main(["report", "--db", str(filled), "--compare", a, b]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_terminal_report_shows_success_and_the_mean_over_cases(filled):
    result = _cli(filled)
    assert result.exit_code == 0, result.output
    assert "success (95% CI)" in result.output and "pass@k" in result.output
    assert "4/5 80% [38%, 96%]" in result.output
    assert "Success across cases" in result.output


def test_csv_carries_the_interval(filled):
    result = _cli(filled, "--csv")
    header, *rows = result.output.splitlines()
    for field in ("measured", "successes", "success_rate", "success_low", "success_high", "pass_at_5"):
        assert field in header.split(",")


def test_html_report_shows_success_and_the_mean_over_cases(filled, tmp_path):
    out = tmp_path / "html"
    result = _cli(filled, "--html", str(out))
    assert result.exit_code == 0, result.output
    page = (out / "index.html").read_text()
    assert "success (95% CI)" in page and "4/5 80% [38%, 96%]" in page
    assert 'id="across"' in page and "All cases" in page


def test_compare_is_not_csv(filled, capsys):
    assert _main(["report", "--db", str(filled), "--compare", "claude", "codex", "--csv"]) == 2
    assert "--compare" in capsys.readouterr().err
