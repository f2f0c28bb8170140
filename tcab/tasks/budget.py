"""A sweep's cost: each finished run priced into ``run_costs``, and the budget gate.

The price table is the plan's ``prices`` (relative to the plan) or
``TCAB_PRICES``; it is read and checked when the sweep loads, so a bad one
stops the sweep before anything runs (exit 2). Once the recorded cost of the
sweep's runs reaches the plan's ``budget``, no new run starts: a run task
that would start one fails saying why and how much was spent (runs already
going finish and are priced; doit's ``continue`` lets the rest report the
same). What the sweep spent is the total of its runs' costs, the runs of
every plan entry it expands to (``runs.plan_digest``), across invocations.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from tcab.errors import PlanError
from tcab.results.costs import money, price_runs
from tcab.results.prices import PriceTable, load_prices


@dataclass(frozen=True, slots=True)
class CostGate:
    prices: PriceTable
    budget: float | None
    digests: str  # JSON list of the sweep's plan entry digests

    def price(self, db_path: Path, run_id: str) -> None:
        """Write the run's cost (or its "no price") into ``run_costs``."""
        with closing(_connect(db_path)) as conn:
            price_runs(conn, self.prices, [run_id])

    def spent(self, db_path: Path) -> tuple[float, int]:
        """The recorded cost of the sweep's runs, and how many of them have no price."""
        if not db_path.is_file():
            return 0.0, 0
        with closing(_connect(db_path)) as conn:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'run_costs'").fetchone() is None:
                return 0.0, 0  # a database from before costs: nothing priced yet
            row = conn.execute(
                "SELECT total(cost), total(priced = 0) FROM run_costs "
                "WHERE plan_digest IN (SELECT value FROM json_each(?))", [self.digests]).fetchone()
        return float(row[0]), int(row[1])

    def stop_reason(self, db_path: Path) -> str | None:
        """Why no new run may start (the budget is reached), or None."""
        if self.budget is None:
            return None
        spent, unpriced = self.spent(db_path)
        if spent < self.budget:
            return None
        extra = f"; {unpriced} run(s) without a price not counted" if unpriced else ""
        return (f"budget reached: {money(spent, self.prices.currency)} spent of "
                f"{money(self.budget, self.prices.currency)} (plan key budget){extra}; no new run starts")


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA busy_timeout = 10000")
    return conn


def cost_gate(plan, runs: Sequence, env: Mapping[str, str]) -> CostGate | None:
    """The sweep's gate over ``runs`` (its RunSpecs), or None when it has no price table.

    Raises InputError for a bad price table; PlanError for a budget without
    one, or with a model of the plan that has no price (its runs would cost
    something the budget could not count)."""
    source = plan.prices or (Path(env["TCAB_PRICES"]).resolve() if env.get("TCAB_PRICES") else None)
    if source is None:
        if plan.budget is not None:
            raise PlanError(f"{plan.path}: budget: a budget needs a price table "
                            "(plan key prices, or TCAB_PRICES)")
        return None
    prices = load_prices(source)
    if plan.budget is not None:
        unpriced = sorted({(r.model or "", r.harness) for r in runs if prices.price_of(r.model) is None})
        if unpriced:
            names = ", ".join(f"{m} ({h})" if m else f"the default model of {h}" for m, h in unpriced)
            raise PlanError(f"{plan.path}: budget: no price in {prices.path} for {names}; a budget needs "
                            "a price for every model the plan runs (name the model in the plan)")
    return CostGate(prices, plan.budget, json.dumps(sorted({r.entry_digest for r in runs})))


__all__ = ["CostGate", "cost_gate"]
