"""The report as rich tables in the terminal."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from tcab.results.report import GroupReport, Report
from tcab.results.schema import RUN_STATUSES

_SHORT = {"completed": "done", "timed_out": "timeout", "hung": "hung",
          "harness_error": "error", "infrastructure": "infra", "canceled": "cancel"}


def print_report(report: Report, console: Console | None = None) -> None:
    """Print one block of tables per case version and variant."""
    if console is None:
        console = Console()
        if not console.is_terminal:
            # Piped into a file or a pager: do not squeeze the tables to 80 columns.
            console = Console(width=max(console.width, 140))
    totals = ", ".join(f"{n:,} {t}" for t, n in report.totals.items())
    console.print(f"[bold]tcab report[/] {report.database} [dim]({totals})[/]")
    if not report.groups:
        console.print("No results recorded yet (or none match the filters).")
        return
    for group in report.groups:
        _group(console, group)


def _group(console: Console, group: GroupReport) -> None:
    title = f"{group.case_slug} {group.case_version}" + (f" · {group.variant}" if group.variant else "")
    console.rule(f"[bold]{title}")
    if group.runs:
        table = Table(title="Runs", title_justify="left", show_edge=False)
        table.add_column("harness")
        table.add_column("model")
        for column in ("runs", *(_SHORT[s] for s in RUN_STATUSES), "builds", "tok in",
                       "tok out", "mean time"):
            table.add_column(column, justify="right")
        for s in group.runs:
            table.add_row(
                s.harness, s.model or "—", f"{s.runs:,}",
                *(_count(s.outcomes[k], k) for k in RUN_STATUSES),
                f"{s.builds_ok}/{s.builds}" if s.builds else "—",
                _tokens(s.tokens_input), _tokens(s.tokens_output), _secs(s.mean_duration_s),
            )
        console.print(table)
    if group.baselines:
        console.print("Baselines: " + ", ".join(
            f"{b.source.rsplit('/', 1)[-1]} [{'green' if b.status == 'ok' else 'red'}]{b.status}[/]"
            for b in group.baselines))
    for t in group.tournaments:
        table = Table(
            title=f"Tournament {t.id} · {t.structure or '?'} · {t.rounds or '?'} rounds · "
                  f"{t.matches} matches",
            title_justify="left", show_edge=False,
        )
        for column, justify in (("#", "right"), ("participant", "left"), ("from", "left"),
                                ("rating", "right"), ("interval", "right"), ("W", "right"),
                                ("D", "right"), ("L", "right"), ("F", "right")):
            table.add_column(column, justify=justify)
        for s in t.standings:
            origin = (f"{s.harness}" + (f" / {s.model}" if s.model else "")) if s.harness else (
                "baseline" if (s.source or "").startswith("baseline:") else "—")
            table.add_row(
                str(s.rank or "—"), s.label, origin,
                "—" if s.rating is None else f"{s.rating:.2f}",
                "—" if s.ci_low is None or s.ci_high is None else f"[{s.ci_low:.2f}, {s.ci_high:.2f}]",
                *(str(v if v is not None else "—") for v in (s.wins, s.draws, s.losses, s.forfeits)),
            )
        console.print(table)
    if group.players:
        table = Table(title="All recorded matches", title_justify="left", show_edge=False)
        table.add_column("participant")
        for column in ("matches", "W", "D", "L", "F", "win rate"):
            table.add_column(column, justify="right")
        for p in group.players:
            table.add_row(p.label, f"{p.matches:,}", f"{p.wins:,}", f"{p.draws:,}", f"{p.losses:,}",
                          f"{p.forfeits:,}", f"{p.win_rate:.1%}")
        console.print(table)


def _count(n: int, status: str) -> str:
    if not n:
        return "[dim]0[/]"
    return f"[green]{n:,}[/]" if status == "completed" else f"{n:,}"


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
