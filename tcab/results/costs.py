"""Each run's cost in ``run_costs``, and the cost per group the report shows.

A run is priced from its recorded tokens and the operator's price table
(:mod:`tcab.results.prices`); a run whose model has no price gets a row with
``priced = 0`` and no cost, which every presenter shows as "no price", never
as $0. Pricing is idempotent: a run is priced again only when the price
table changed (its digest) or the run's row was replaced.
"""

from __future__ import annotations

import datetime
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the report reads costs without parsing a price table
    from tcab.results.prices import PriceTable


@dataclass(frozen=True, slots=True)
class GroupCost:
    """What one group's runs cost: the priced runs' total, and the runs without a price."""

    currency: str | None
    total: float
    priced: int
    unpriced: int


def price_runs(conn: sqlite3.Connection, prices: PriceTable, run_ids: Sequence[str] | None = None) -> int:
    """Write the ``run_costs`` row of every run (or of ``run_ids``) that has
    none, or one from another price table, in one transaction. Returns how
    many rows were written."""
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    where = "WHERE (c.run_id IS NULL OR c.prices_digest IS NOT ? OR c.model IS NOT r.model)"
    params: list = [prices.digest]
    if run_ids is not None:
        where += f" AND r.id IN ({', '.join('?' * len(run_ids))})"
        params += list(run_ids)
    rows = conn.execute(
        f"""SELECT r.id, r.case_slug, r.case_version, r.variant, r.harness, r.model, r.plan_digest,
                   coalesce(r.tokens_input, 0), coalesce(r.tokens_output, 0),
                   coalesce(r.tokens_cache_read, 0), coalesce(r.tokens_cache_write, 0)
            FROM runs r LEFT JOIN run_costs c ON c.run_id = r.id {where}""", params).fetchall()
    out = []
    for run_id, slug, version, variant, harness, model, plan, t_in, t_out, t_read, t_write in rows:
        price = prices.price_of(model)
        group = (run_id, slug, version, variant, harness, model, prices.currency)
        if price is None:
            detail = "no model recorded" if model is None else f"no price for {model} in {prices.path}"
            out.append((*group, 0, None, plan, prices.digest, detail, now))
        else:
            out.append((*group, 1, price.cost(t_in, t_out, t_read, t_write), plan, prices.digest, None, now))
    with conn:
        conn.executemany("INSERT OR REPLACE INTO run_costs (run_id, case_slug, case_version, variant, harness, model, "
                         "currency, priced, cost, plan_digest, prices_digest, detail, priced_at) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", out)
    return len(out)


def group_costs(conn: sqlite3.Connection, where: str = "", params: Sequence = ()) -> dict[tuple, GroupCost]:
    """The cost of each (case, version, variant, harness, model) that has priced runs.

    ``where``/``params`` restrict the runs (alias ``r``, as the report's filters)."""
    # One row per group and currency, kept by run_costs' triggers (0016): no scan of every run.
    return {tuple(row[:5]): GroupCost(row[5], float(row[6]), int(row[7]), int(row[8])) for row in conn.execute(
        f"""SELECT r.case_slug, r.case_version, r.variant, r.harness, r.model, max(r.currency),
                   total(r.cost), total(r.priced), total(r.unpriced)
            FROM run_cost_totals r{where}
            GROUP BY 1, 2, 3, 4, 5""", params)}


def money(value: float, currency: str | None) -> str:
    """A cost as shown: ``$1.23`` for USD, ``1.23 EUR`` otherwise; small amounts keep their digits."""
    digits = f"{value:,.2f}" if value >= 1 or value == 0 else f"{value:.4f}"
    return f"${digits}" if currency in (None, "USD") else f"{digits} {currency}"


__all__ = ["GroupCost", "group_costs", "money", "price_runs"]
