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

from tcab.outcomes import RunStatus
from tcab.results.report import GroupReport, Report

_DIM = Text("0", style="dim")


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


def _typecheck(s) -> Text:
    """``[toolchain].typecheck`` passed/ran; a failure rates its run broken."""
    if not s.typechecks:
        return Text("—")
    return Text(f"{s.typechecks_passed}/{s.typechecks}" + (f" ({s.broken} broken)" if s.broken else ""),
                style="red" if s.broken else "")


def _group(console: Console, group: GroupReport) -> None:
    title = f"{group.case_slug} {group.case_version}" + (f" · {group.variant}" if group.variant else "")
    console.rule(Text(title, style="bold"))
    if group.runs:
        # The typecheck column only where a case declares [toolchain] (and it ran).
        types = any(s.typechecks for s in group.runs)
        table = Grid("Runs", [("harness", "left"), ("model", "left")] + [
            (c, "right") for c in ("runs", *(s.label for s in RunStatus), "builds",
                                   "valid", *(("types",) if types else ()), "tok in", "tok out", "mean time")])
        for s in group.runs:
            table.add_row(
                Text(s.harness), Text(s.model or "—"), Text(f"{s.runs:,}"),
                *(_count(s.outcomes[k], k) for k in RunStatus),
                Text(f"{s.builds_ok}/{s.builds}" if s.builds else "—"),
                Text(f"{s.validations_passed}/{s.validations}" if s.validations else "—",
                     style="" if s.validations_passed == s.validations else "red"),
                *((_typecheck(s),) if types else ()),
                Text(_tokens(s.tokens_input)), Text(_tokens(s.tokens_output)),
                Text(_secs(s.mean_duration_s)),
            )
        console.print(table.render())
    if group.baselines:
        line = Text("Baselines: ")
        for i, b in enumerate(group.baselines):
            line.append((", " if i else "") + b.source.rsplit("/", 1)[-1] + " ")
            line.append(b.status, style="green" if b.status == "ok" else "red")
        console.print(line)
    for t in group.tournaments:
        table = Grid(
            f"Tournament {t.id} · {t.structure or '?'} · {t.rounds or '?'} rounds · "
            f"{t.matches} matches",
            [("#", "right"), ("participant", "left"), ("from", "left"), ("rating", "right"),
             ("interval", "right"), ("W", "right"), ("D", "right"), ("L", "right"),
             ("F", "right")],
        )
        for s in t.standings:
            origin = (f"{s.harness}" + (f" / {s.model}" if s.model else "")) if s.harness else (
                "baseline" if (s.source or "").startswith("baseline:") else "—")
            table.add_row(*(Text(cell) for cell in (
                str(s.rank or "—"), s.label, origin,
                "—" if s.rating is None else f"{s.rating:.2f}",
                "—" if s.ci_low is None or s.ci_high is None else f"[{s.ci_low:.2f}, {s.ci_high:.2f}]",
                *(str(v if v is not None else "—") for v in (s.wins, s.draws, s.losses, s.forfeits)),
            )))
        console.print(table.render())
    if group.reviews:
        table = Grid("Human reviews", [("run", "left"), ("harness", "left"), ("model", "left"),
                                       ("reviewer", "left"), ("checklist", "right"), ("rating", "left"),
                                       ("reviews", "right"), ("reviewed", "left")])
        for r in group.reviews:
            table.add_row(Text(r.run_id), Text(r.harness), Text(r.model or "—"), Text(r.reviewer),
                          Text(f"{_points(r.score)}/{_points(r.max_score)}"),
                          Text(r.rating or "—", style="red" if r.rating == "broken" else ""),
                          Text(str(r.reviews)), Text(r.reviewed_at))
        console.print(table.render())
    if group.players:
        table = Grid("Recorded matches", [("participant", "left")] + [
            (c, "right") for c in ("matches", "W", "D", "L", "F", "win rate")])
        for p in group.players:
            table.add_row(*(Text(cell) for cell in (
                p.label, f"{p.matches:,}", f"{p.wins:,}", f"{p.draws:,}", f"{p.losses:,}",
                f"{p.forfeits:,}", f"{p.win_rate:.1%}")))
        console.print(table.render())


def _points(value: float) -> str:
    """A checklist score: weights are whole numbers in practice, shown without ``.0``."""
    return f"{value:g}"


def _count(n: int, status: RunStatus) -> Text:
    if not n:
        return _DIM
    return Text(f"{n:,}", style="green" if status is RunStatus.COMPLETED else "")


def _tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    return f"{n:,}"


def _secs(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.1f}s" if value < 120 else f"{value / 60:.1f}m"
