"""Plan limits: defaults, TCAB_PLAN_MAX_* overrides, and refusals before any work."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tcab.bounds import ENV
from tcab.catalog import load_catalog
from tcab.errors import PlanError
from tcab.plan import PlanLimits, expand, load_plan, parse_plan

TOP = ENV["TCAB_PLAN_MAX_BYTES"].maximum
CATALOG = Path(__file__).resolve().parents[1] / "tasks" / "fixtures" / "catalog"

PLAN = "runs:\n  - cases:\n      - duel\n    harnesses:\n      - reference\n    repeats: {n}\n"


def test_defaults_and_overrides():
    assert PlanLimits.from_env({}) == PlanLimits()
    limits = PlanLimits.from_env({"TCAB_PLAN_MAX_REPEATS": " 5 ", "TCAB_PLAN_MAX_DEPTH": "8", "TCAB_PLAN_MAX_RUNS": ""})
    assert (limits.max_repeats, limits.max_depth, limits.max_runs) == (5, 8, PlanLimits().max_runs)


@pytest.mark.parametrize("raw", ["0", "-1", "1e3", "inf", "nan", "1.5", "lots", str(TOP + 1), "9" * 5000])
def test_a_bad_override_names_the_variable(raw):
    with pytest.raises(PlanError, match=rf"^TCAB_PLAN_MAX_BYTES: expected an integer from 1 to {TOP}, got"):
        PlanLimits.from_env({"TCAB_PLAN_MAX_BYTES": raw})


def test_an_overridden_limit_holds_at_its_edge():
    limits = PlanLimits(max_repeats=5)
    assert parse_plan(PLAN.format(n=5), "b.yaml", limits).matrices[0].repeats == 5
    with pytest.raises(PlanError, match=r"^b.yaml:6: repeats: expected an integer from 1 to 5, got 6$"):
        parse_plan(PLAN.format(n=6), "b.yaml", limits)


@pytest.mark.parametrize("value", ["9" * 5000, "-" + "9" * 21, "1_000_000_000_000_000_000_000"])
def test_an_integer_too_long_to_be_a_count_is_refused_by_its_length(value):
    text = f"runtime:\n  settings:\n    idle_timeout_s: {value}\n" + PLAN.format(n=1)
    started = time.perf_counter()
    with pytest.raises(PlanError, match=r"^b.yaml:3: idle_timeout_s: found an integer of \d+ digits "
                                        r"\(when expecting an integer of at most 20 digits\)"):
        parse_plan(text, "b.yaml")
    assert time.perf_counter() - started < 2


def test_the_runs_limit_stops_expansion_early():
    catalog = load_catalog(CATALOG)
    plan = parse_plan(PLAN.format(n=10_000), "b.yaml")
    started = time.perf_counter()
    with pytest.raises(PlanError, match=r"^b.yaml:2: runs: the plan expands to more than 100 runs"):
        expand(plan, catalog, limits=PlanLimits(max_runs=100))
    assert time.perf_counter() - started < 1
    assert len(expand(plan, catalog, limits=PlanLimits(max_runs=10_000)).runs) == 10_000


def test_size_is_checked_before_reading_the_whole_file(tmp_path):
    path = tmp_path / "b.yaml"
    path.write_text(PLAN.format(n=1) + "#" * 2000 + "\n")
    with pytest.raises(PlanError, match=r"b.yaml: larger than 1000 bytes \(TCAB_PLAN_MAX_BYTES\)$"):
        load_plan(path, PlanLimits(max_bytes=1000))
    with pytest.raises(PlanError, match=r"^b.yaml: larger than 1000 bytes"):
        parse_plan(path.read_text(), "b.yaml", PlanLimits(max_bytes=1000))
    assert load_plan(path).matrices[0].repeats == 1


def test_depth_at_the_limit_parses_and_one_more_is_refused():
    # The real plan's deepest path: map > runs > matrix > cases > case > variants.
    text = "runs:\n  - cases:\n      - case: mini\n        variants:\n          - one\n    harnesses:\n      - x\n"
    assert parse_plan(text, "b.yaml", PlanLimits(max_depth=6)).matrices[0].cases[0].variants == ("one",)
    with pytest.raises(PlanError, match=r"^b.yaml:5: nested more than 5 levels deep"):
        parse_plan(text, "b.yaml", PlanLimits(max_depth=5))
