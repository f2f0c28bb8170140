"""``watch`` in a sweep plan: globally or per run matrix (the matrix wins),
typed and placed (``file:line: key``); it is not part of a run's digest."""

from __future__ import annotations

import pytest

from tcab.catalog import load_catalog
from tcab.errors import PlanError
from tcab.plan import expand, parse_plan
from tests.support.paths import CATALOG

PLAN = """name: watched
watch: {top}
runs:
  - cases:
      - lights-out
    harnesses:
      - reference
{first}  - cases:
      - lights-out
    harnesses:
      - scripted
"""


def _sweep(top: str, first: str = ""):
    plan = parse_plan(PLAN.format(top=top, first=first), "benchmark.yaml")
    return plan, expand(plan, load_catalog(CATALOG))


def test_the_plan_watches_every_run_unless_a_matrix_says_otherwise() -> None:
    plan, sweep = _sweep("yes", "    watch: no\n")
    assert plan.watch is True and [m.watch for m in plan.matrices] == [False, None]
    assert {r.harness: r.watch for r in sweep.runs} == {"reference": False, "scripted": True}
    _, unwatched = _sweep("no", "    watch: yes\n")
    assert {r.harness: r.watch for r in unwatched.runs} == {"reference": True, "scripted": False}
    # Watching looks on: the same entries, the same digests.
    assert [r.entry_digest for r in sweep.runs] == [r.entry_digest for r in unwatched.runs]


def test_watch_defaults_to_off() -> None:
    plan = parse_plan("runs:\n  - cases:\n      - lights-out\n    harnesses:\n      - reference\n",
                      "benchmark.yaml")
    assert plan.watch is False
    assert [r.watch for r in expand(plan, load_catalog(CATALOG)).runs] == [False]


def test_a_watch_that_is_not_a_boolean_names_its_line() -> None:
    with pytest.raises(PlanError, match=r"^benchmark.yaml:8: watch: .*boolean"):
        _sweep("no", "    watch: sometimes\n")
