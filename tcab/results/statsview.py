"""``tcab report --compare A B`` in the terminal (the mean over cases is :mod:`tcab.results.terminal`'s)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from tcab.results.groupstats import Comparison
from tcab.results.stats import interval_text
from tcab.results.terminal import Grid


def print_comparison(comparison: Comparison, console: Console | None = None) -> None:
    """Per-case differences, then the mean difference and who won how many."""
    console = console or Console(highlight=False, emoji=False)
    c = comparison
    console.rule(Text(f"{c.a}  vs  {c.b}", style="bold"))
    grid = Grid(f"Cases both ran: {len(c.cases)}", [("case", "left"), ("version", "left"), ("variant", "left"),
                                                     (c.a, "right"), (c.b, "right"), ("difference", "right")])
    for d in c.cases:
        grid.add_row(d.case_slug, d.case_version, d.variant or "—",
                     f"{d.a.successes}/{d.a.measured} {d.a.rate.estimate:.0%}",
                     f"{d.b.successes}/{d.b.measured} {d.b.rate.estimate:.0%}", f"{d.difference:+.0%}")
    console.print(grid.render())
    s = c.summary
    if not s.cases:
        console.print("No case was run by both: nothing to compare.")
    else:
        difference = interval_text(s.difference, signed=True)
        console.print(Text.assemble(("mean difference ", "bold"),
                                    f"({c.a} − {c.b}): {difference} (paired bootstrap over cases)"))
        console.print(f"cases won: {c.a} {s.a_wins}, {c.b} {s.b_wins}, tied {s.ties}")
    if c.only_a or c.only_b:
        console.print(Text(f"left out: {c.only_a} case(s) only {c.a} ran, {c.only_b} only {c.b} ran", style="dim"))


__all__ = ["print_comparison"]
