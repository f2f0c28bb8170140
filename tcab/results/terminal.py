"""The report as styled tables in the terminal (rich console, rules, colours).

The tables are laid out by :class:`Grid`, not ``rich.table.Table``: rich
measures and renders every cell through several layers (about 80 µs a cell
here), which alone took 0.3 s on the 100,000-run benchmark database. A Grid
sizes its columns once and emits one styled ``Text`` per table, which looks
the same as rich's ``SIMPLE_HEAD`` box and costs a tenth.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from tcab.results.columns import group_tables
from tcab.results.report import GroupReport, Report
from tcab.results.stats import interval_text


def print_report(report: Report, console: Console | None = None) -> None:
    """Print one block of tables per case version and variant."""
    if console is None:
        console = Console(highlight=False, emoji=False)
        if not console.is_terminal:
            # Piped into a file or a pager: do not squeeze the tables to 80 columns.
            console = Console(highlight=False, emoji=False, width=max(console.width, 140))
    totals = ", ".join(f"{n:,} {t}" for t, n in report.totals.items())
    console.print(Text.assemble(("tcab report ", "bold"), report.database, (f" ({totals})", "dim")))
    if not report.groups:
        console.print("No results recorded yet (or none match the filters).")
        return
    for group in report.groups:
        _group(console, group)
    if report.across:
        print_across(console, report.across)
    if report.retried:
        _retried(console, report.retried)


def _retried(console: Console, retried) -> None:
    """Plan entries a sweep retried (infrastructure), each attempt's status in order."""
    console.rule(Text("retried runs", style="bold"))
    grid = Grid("attempts of runs that ended infrastructure and were tried again",
                [("run", "left"), ("attempts", "right"), ("statuses", "left"), ("last detail", "left")])
    for item in retried:
        grid.add_row(item["entry"], str(item["attempts"]), " → ".join(item["statuses"]), item["detail"][:80])
    console.print(grid.render())


class Grid:
    """A titled table of plain or styled cells, rendered as one ``Text``."""

    def __init__(self, title: str, columns: list[tuple[str, str]]):
        self.title = title
        self.columns = columns  # (header, "left" | "right")
        self.rows: list[tuple[Text | str, ...]] = []

    def add_row(self, *cells: Text | str) -> None:
        self.rows.append(cells)

    def render(self) -> Text:
        widths = [cell_len(name) for name, _ in self.columns]
        for row in self.rows:
            for i, cell in enumerate(row):
                widths[i] = max(widths[i], cell_len(cell.plain if isinstance(cell, Text) else cell))
        out = Text(self.title + "\n", style="italic", no_wrap=True, overflow="ignore")
        header = "   ".join(self._pad(name, w, j) for (name, j), w in zip(self.columns, widths, strict=True))
        out.append(header + "\n", style="bold")
        out.append("─" * cell_len(header) + "\n")
        for row in self.rows:
            for i, (cell, width, (_, justify)) in enumerate(zip(row, widths, self.columns, strict=True)):
                if i:
                    out.append("   ")
                if isinstance(cell, Text):
                    out.append(self._pad(cell.plain, width, justify), style=cell.style)
                else:
                    out.append(self._pad(cell, width, justify))
            out.append("\n")
        return out

    @staticmethod
    def _pad(text: str, width: int, justify: str) -> str:
        gap = " " * (width - cell_len(text))
        return gap + text if justify == "right" else text + gap


_STYLE = {"good": "green", "bad": "red", "muted": "dim", "": ""}


def _group(console: Console, group: GroupReport) -> None:
    title = f"{group.case_slug} {group.case_version}" + (f" · {group.variant}" if group.variant else "")
    console.rule(Text(title, style="bold"))
    for table in group_tables(group):
        grid = Grid(table.title, [(c.title, c.align) for c in table.columns])
        for row in table.rows:
            grid.add_row(*(_cell(c, row) for c in table.columns))
        console.print(grid.render())


def _cell(column, row) -> Text | str:
    text = column.text(row)
    style = _STYLE[column.tone(row)] if column.tone else ""
    return Text(text, style=style) if style else text


def across_grid(across) -> Grid:
    grid = Grid("Success across cases · mean of the per-case rates, bootstrap 95% over cases",
                [("harness", "left"), ("model", "left"), ("cases", "right"), ("mean success (95% CI)", "right")])
    for a in across:
        grid.add_row(a.harness, a.model or "—", f"{a.cases:,}", interval_text(a.mean))
    return grid


def print_across(console: Console, across) -> None:
    """Each harness and model's mean success over cases (``Report.across``), best first."""
    if across:
        console.rule(Text("All cases", style="bold"))
        console.print(across_grid(across).render())
