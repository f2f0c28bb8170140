"""A sweep's cost: each run priced as it ends, and no new run once the budget is reached."""

from __future__ import annotations

import sqlite3

import pytest

from tcab.errors import InputError, PlanError

PLAN = """\
name: paid
runs:
  - cases:
      - case: mini
        variants: all
    harnesses:
      - harness: scripted
        models: m1
    repeats: 3
prices: prices.toml
"""
PRICES = """\
currency = "USD"
[models."m1"]
input = 0.6
output = 2.0
"""


@pytest.fixture
def paid(project, monkeypatch):
    monkeypatch.setenv("TCAB_FAKE_TOKENS", "1000000")  # $0.60 a run
    project.path("prices.toml").write_text(PRICES)
    return project


def _costs(project):
    with sqlite3.connect(project.path("results/results.db")) as conn:
        return conn.execute("SELECT priced, cost, currency FROM run_costs ORDER BY priced_at").fetchall()


def test_each_run_is_priced_as_it_ends(paid):
    paid.path("paid.yaml").write_text(PLAN)
    code, ran, out = paid.doit("plan=paid.yaml")
    assert code == 0, out
    costs = _costs(paid)
    assert len(costs) == 6 and all(c == (1, pytest.approx(0.6), "USD") for c in costs)


def test_the_budget_stops_new_runs_and_says_how_much_was_spent(paid):
    paid.path("paid.yaml").write_text(PLAN + "budget: 1\n")
    code, ran, out = paid.doit("plan=paid.yaml", "--continue")
    assert code != 0, "a budget stop is a failed sweep"
    assert len([c for c in paid.calls() if c.startswith("run ")]) == 2  # 0.60, then 1.20 >= 1
    assert "budget reached: $1.20 spent of $1.00 (plan key budget); no new run starts" in out
    assert len(_costs(paid)) == 2
    code, ran, out = paid.doit("plan=paid.yaml", "--continue")
    assert code != 0 and len([c for c in paid.calls() if c.startswith("run ")]) == 2, "still stopped"


def test_a_model_without_a_price_is_recorded_as_no_price(paid):
    paid.path("prices.toml").write_text(PRICES.replace('"m1"', '"other"'))
    paid.path("paid.yaml").write_text(PLAN)
    code, ran, out = paid.doit("plan=paid.yaml")
    assert code == 0, out
    assert {c[:2] for c in _costs(paid)} == {(0, None)}


@pytest.mark.parametrize("budget", ["nan", "-5", "0", "lots", "inf", "1e13"])
def test_a_bad_budget_is_refused_at_its_line(paid, budget):
    paid.path("paid.yaml").write_text(PLAN + f"budget: {budget}\n")
    with pytest.raises(PlanError, match=r"paid\.yaml:11: budget: expected a positive amount"):
        paid.doit("plan=paid.yaml")


def test_a_budget_needs_prices(paid):
    paid.path("paid.yaml").write_text(PLAN.replace("prices: prices.toml\n", "") + "budget: 3\n")
    with pytest.raises(PlanError, match="budget: a budget needs a price table"):
        paid.doit("plan=paid.yaml")


def test_a_budget_needs_every_model_priced(paid):
    paid.path("prices.toml").write_text(PRICES.replace('"m1"', '"other"'))
    paid.path("paid.yaml").write_text(PLAN + "budget: 3\n")
    with pytest.raises(PlanError, match=r"budget: no price in .*prices\.toml for m1 \(scripted\)"):
        paid.doit("plan=paid.yaml")
    assert paid.calls() == []


def test_a_bad_price_table_stops_the_sweep_before_anything_runs(paid):
    paid.path("prices.toml").write_text(PRICES.replace("0.6", "-1"))
    paid.path("paid.yaml").write_text(PLAN)
    with pytest.raises(InputError, match=r'prices\.toml:3: \[models\."m1"\]\.input: expected a finite price'):
        paid.doit("plan=paid.yaml")
    assert paid.calls() == [] and not paid.path("results/results.db").exists()
