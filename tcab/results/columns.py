"""The report's columns, defined once.

Every column of every report table is one :class:`Column` here: its key, its
title, which table it belongs to, how its cell is shown (text and tone),
and the machine values it stands for (the CSV fields). The terminal
(:mod:`tcab.results.terminal`), the static HTML (:mod:`tcab.results.html`),
the app's home page (``tcab view``) and CSV (:mod:`tcab.results.export`)
read these definitions and add only their own decoration (a link, a colour,
a swatch); none of them spells a column of its own.

A table's columns are the same for every presenter; a column marked
``shown=False`` is a detail only CSV and JSON carry. A ``typed`` column is
shown only for groups whose test type declares its key (the type module's
``report_columns``, handed down as :attr:`GroupReport.type_columns`), and a
column with ``when`` only where its rows have something to show (the
typecheck column only where a case declares ``[toolchain]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tcab.outcomes import RunStatus
from tcab.results.report import GroupReport

TABLES = ("runs", "baselines", "standings", "reviews", "checklists", "players")


@dataclass(frozen=True, slots=True)
class Column:
    key: str                                   # unique across tables
    title: str                                 # the heading every table shows
    table: str                                 # one of TABLES
    text: Callable[[Any], str]                 # the cell as shown
    fields: tuple[tuple[str, Callable[[Any], Any]], ...]  # (CSV header, raw value) pairs
    align: str = "right"                       # left | right
    tone: Callable[[Any], str] | None = None   # good | bad | muted | "" for one row
    help: str = ""                             # what the column means (hover text)
    shown: bool = True                         # False: only in CSV and JSON
    when: Callable[[Sequence[Any]], bool] | None = None  # shown only where true of the rows
    typed: bool = False                        # shown only for groups whose test type declares it


@dataclass(frozen=True, slots=True)
class TypeTable:
    """A table a test type adds to its groups (``TestType.report_table``).

    ``rows(conn, (case, version, variant), filters)`` returns the group's
    rows (dataclasses: JSON carries them as they are) from results.db, read
    only; ``columns`` draw them like any other table's, in every presenter
    (terminal, HTML, ``tcab view``) and CSV (``tcab report --csv --table KEY``).
    Column keys are the type's own: prefix them with the table's key."""

    key: str
    title: str
    columns: tuple[Column, ...]
    rows: Callable[..., Sequence[Any]]


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a group as every presenter draws it."""

    key: str                      # one of TABLES
    title: str
    columns: tuple[Column, ...]   # the shown columns, in order
    rows: tuple[Any, ...]
    subject: Any = None           # the tournament of a standings table


def _dash(value) -> str:
    return "—" if value is None else str(value)


def count(n: int) -> str:
    return f"{n:,}"


def tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    return f"{n:,}"


def secs(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.1f}s" if value < 120 else f"{value / 60:.1f}m"


def _ratio(ok: int, total: int) -> str:
    return f"{ok}/{total}" if total else "—"


def _status(status: RunStatus) -> Column:
    def n(s):
        return s.outcomes[status]

    return Column(status.value, status.label, "runs", lambda s: count(n(s)) if n(s) else "0",
                  ((status.value, n),), help=str(status),
                  tone=lambda s: ("good" if status is RunStatus.COMPLETED else "") if n(s) else "muted")


def _typecheck(s) -> str:
    if not s.typechecks:
        return "—"
    return f"{s.typechecks_passed}/{s.typechecks}" + (f" ({s.broken} broken)" if s.broken else "")


def _origin(s) -> str:
    if s.harness:
        return s.harness + (f" / {s.model}" if s.model else "")
    return "baseline" if (s.source or "").startswith("baseline:") else "—"


def _interval(s) -> str:
    return "—" if s.ci_low is None or s.ci_high is None else f"[{s.ci_low:.2f}, {s.ci_high:.2f}]"


def _attr(name: str):
    return lambda row: getattr(row, name)


def _plain(key: str, title: str, table: str, attr: str, text=_dash, **kw) -> Column:
    """A column of one field, shown through ``text``."""
    get = _attr(attr)
    return Column(key, title, table, lambda row: text(get(row)), ((attr, get),), **kw)


def _success(s) -> str:
    if s.success_rate is None:
        return "—"
    return f"{s.successes}/{s.measured} {s.success_rate:.0%} [{s.success_low:.0%}, {s.success_high:.0%}]"


def _pass_at(s) -> str:
    at = ((5, s.pass_at_5), (10, s.pass_at_10))
    return "  ".join(f"@{k} {v:.2f}" for k, v in at if v is not None) or "—"


def _cost(s) -> str:
    if s.unpriced_runs is None:
        return "—"
    if s.cost is None:
        return "no price"
    from tcab.results.costs import money

    return money(s.cost, s.currency) + (f" (+{s.unpriced_runs} no price)" if s.unpriced_runs else "")


def _share(v) -> str:
    return "—" if v is None else f"{v:.2f}"


def _fields(*names: str) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    return tuple((name, _attr(name)) for name in names)


COLUMNS: tuple[Column, ...] = (
    # runs: one harness and model on one case version and variant (RunSummary)
    _plain("harness", "harness", "runs", "harness", align="left"),
    Column("model", "model", "runs", lambda s: s.model or "—", (("model", lambda s: s.model or ""),),
           align="left"),
    _plain("runs", "runs", "runs", "runs", count),
    *(_status(status) for status in RunStatus),
    Column("builds", "builds", "runs", lambda s: _ratio(s.builds_ok, s.builds),
           (("builds_ok", _attr("builds_ok")), ("builds", _attr("builds"))), help="controller builds ok/all",
           typed=True),
    Column("validation", "validated", "runs", lambda s: _ratio(s.validations_passed, s.validations),
           (("validations_passed", _attr("validations_passed")), ("validations", _attr("validations"))),
           tone=lambda s: "" if s.validations_passed == s.validations else "bad",
           help="validations passed/run (tcab validate)", typed=True),
    Column("typecheck", "typecheck", "runs", _typecheck,
           (("typechecks_passed", _attr("typechecks_passed")), ("typechecks", _attr("typechecks")),
            ("broken", _attr("broken"))),
           tone=lambda s: "bad" if s.broken else "", when=lambda rows: any(s.typechecks for s in rows),
           help="[toolchain].typecheck passed/ran; a failure rates the run broken", typed=True),
    Column("perf_correct", "correct", "runs", lambda s: _ratio(s.perf_correct, s.perf_scored),
           (("perf_correct", _attr("perf_correct")), ("perf_scored", _attr("perf_scored"))),
           tone=lambda s: "" if s.perf_correct == s.perf_scored else "bad",
           help="performance runs whose engine was correct on every held-out scenario/scored", typed=True),
    _plain("fuel_best", "best fuel", "runs", "fuel_best", lambda v: "—" if v is None else tokens(v),
           help="least total fuel of a correct run on the stress scenarios (lower is better)", typed=True),
    _plain("fuel_median", "median fuel", "runs", "fuel_median", lambda v: "—" if v is None else tokens(v),
           help="median total fuel of the correct runs", typed=True),
    _plain("efficiency", "efficiency", "runs", "efficiency", lambda v: "—" if v is None else f"{v:.0%}",
           help="the case version's best correct run's fuel / this group's best (100%: the best)", typed=True),
    _plain("tokens_input", "tokens in", "runs", "tokens_input", tokens),
    _plain("tokens_output", "tokens out", "runs", "tokens_output", tokens),
    _plain("tokens_cache_read", "cache read", "runs", "tokens_cache_read", tokens, shown=False),
    _plain("tokens_cache_write", "cache write", "runs", "tokens_cache_write", tokens, shown=False),
    _plain("mean_duration_s", "mean time", "runs", "mean_duration_s", secs),
    _plain("total_duration_s", "total time", "runs", "total_duration_s", secs, shown=False),
    Column("success", "success (95% CI)", "runs", _success,
           _fields("measured", "successes", "success_rate", "success_low", "success_high"),
           when=lambda rows: any(s.measured is not None for s in rows),
           help="successes/runs that measured the harness, the rate and its Wilson 95% interval"),
    Column("pass_at", "pass@k", "runs", _pass_at, _fields("pass_at_1", "pass_at_5", "pass_at_10"),
           when=lambda rows: any(s.pass_at_5 is not None for s in rows),
           help="unbiased pass@k (chance that one of k runs succeeds), where there are >= k runs"),
    _plain("mean_similarity", "similarity", "runs", "mean_similarity", _share,
           when=lambda rows: any(s.mean_similarity is not None for s in rows),
           help="mean [[check]] similarity of its validated runs (1: identical to the reference)"),
    _plain("mean_review", "review", "runs", "mean_review", _share,
           when=lambda rows: any(s.mean_review is not None for s in rows),
           help="mean current human review score (items passed / all, by weight)"),
    Column("cost", "cost", "runs", _cost, _fields("cost", "currency", "unpriced_runs"),
           when=lambda rows: any(s.unpriced_runs is not None for s in rows),
           help="what its runs cost by the price table; \"no price\": its model has none"),
    # baselines: a baseline controller of the case version and its build (BaselineBuild)
    Column("baseline", "baseline", "baselines", lambda b: b.source.rsplit("/", 1)[-1],
           (("source", _attr("source")),), align="left"),
    _plain("baseline_status", "status", "baselines", "status", align="left",
           tone=lambda b: "good" if b.status == "ok" else "bad"),
    Column("baseline_module", "module", "baselines", lambda b: (b.module_sha256 or "—")[:12],
           (("module_sha256", lambda b: b.module_sha256 or ""),), align="left"),
    # standings: one participant's final place in a tournament (Standing)
    _plain("rank", "#", "standings", "rank", lambda v: str(v or "—")),
    _plain("participant", "participant", "standings", "label", align="left"),
    Column("origin", "from", "standings", _origin,
           (("source", lambda s: s.source or ""), ("harness", lambda s: s.harness or ""),
            ("model", lambda s: s.model or "")), align="left"),
    _plain("rating", "rating", "standings", "rating", lambda v: "—" if v is None else f"{v:.2f}"),
    Column("interval", "interval", "standings", _interval,
           (("ci_low", _attr("ci_low")), ("ci_high", _attr("ci_high"))), help="confidence interval"),
    _plain("standing_wins", "W", "standings", "wins"),
    _plain("standing_draws", "D", "standings", "draws"),
    _plain("standing_losses", "L", "standings", "losses", help="losses, forfeits included"),
    _plain("standing_forfeits", "F", "standings", "forfeits"),
    _plain("module", "module", "standings", "module_sha256", shown=False),
    # reviews: the current human review of a run (ReviewSummary)
    _plain("review_run", "run", "reviews", "run_id", align="left"),
    _plain("review_harness", "harness", "reviews", "harness", align="left"),
    Column("review_model", "model", "reviews", lambda r: r.model or "—", (("model", lambda r: r.model or ""),),
           align="left"),
    _plain("reviewer", "reviewer", "reviews", "reviewer", align="left"),
    Column("checklist", "checklist", "reviews", lambda r: f"{r.score:g}/{r.max_score:g}",
           (("score", _attr("score")), ("max_score", _attr("max_score"))), help="weights of the items passed/all"),
    Column("review_rating", "rating", "reviews", lambda r: r.rating or "—", (("rating", lambda r: r.rating or ""),),
           align="left", tone=lambda r: "bad" if r.rating == "broken" else ""),
    _plain("reviews", "reviews", "reviews", "reviews", count),
    _plain("reviewed_at", "reviewed", "reviews", "reviewed_at", align="left"),
    # checklists: a run's checklist from its item decisions (ChecklistSummary)
    _plain("checklist_run", "run", "checklists", "run_id", align="left"),
    _plain("checklist_harness", "harness", "checklists", "harness", align="left"),
    Column("checklist_model", "model", "checklists", lambda r: r.model or "—",
           (("model", lambda r: r.model or ""),), align="left"),
    Column("checklist_score", "checklist", "checklists", lambda r: f"{r.score:g}/{r.max_score:g}",
           (("score", _attr("score")), ("max_score", _attr("max_score"))),
           help="weights of the items whose state is pass/all items"),
    Column("checklist_decided", "decided", "checklists", lambda r: f"{r.decided}/{r.items}",
           (("decided", _attr("decided")), ("items", _attr("items"))), help="items decided pass or fail/all"),
    _plain("checklist_undecided", "undecided", "checklists", "undecided", count,
           help="items a script could not decide (it threw, hung or wrote an undeclared output)"),
    _plain("checklist_overrides", "overridden", "checklists", "overrides", count,
           help="items a reviewer decided over the script"),
    # players: one participant label over every recorded match of the group (PlayerSummary)
    _plain("player", "participant", "players", "label", align="left"),
    _plain("matches", "matches", "players", "matches", count),
    _plain("wins", "W", "players", "wins", count),
    _plain("draws", "D", "players", "draws", count),
    _plain("losses", "L", "players", "losses", count),
    _plain("forfeits", "F", "players", "forfeits", count),
    _plain("win_rate", "win rate", "players", "win_rate", lambda v: f"{v:.1%}"),
)

BY_KEY = {c.key: c for c in COLUMNS}

def table_columns(table: str) -> tuple[Column, ...]:
    """Every column of ``table`` (shown or not), in order: what CSV writes."""
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}: expected one of {', '.join(TABLES)}")
    return _BY_TABLE[table]


_BY_TABLE = {t: tuple(c for c in COLUMNS if c.table == t) for t in TABLES}


def shown_columns(table: str, rows: Sequence[Any], declared: Sequence[str] = ()) -> tuple[Column, ...]:
    """The columns a presenter shows for ``rows`` of ``table`` in a group whose type declares ``declared``."""
    return tuple(c for c in _BY_TABLE[table]
                 if c.shown and (not c.typed or c.key in declared)
                 and (c.when is None or c.when(rows)))


def group_tables(group: GroupReport) -> list[Table]:
    """The tables of one group in the order every presenter shows them (empty ones left out)."""
    out: list[Table] = []

    def add(key: str, title: str, rows, subject=None) -> None:
        if rows:
            out.append(Table(key, title, shown_columns(key, rows, group.type_columns), tuple(rows), subject))

    add("runs", "Runs", group.runs)
    for own in group.type_tables:
        if own.rows:
            shown = tuple(c for c in own.columns if c.shown and (c.when is None or c.when(own.rows)))
            out.append(Table(own.key, own.title, shown, own.rows))
    add("baselines", "Baselines", group.baselines)
    for t in group.tournaments:
        add("standings", f"Tournament {t.id} · {t.structure or '?'} · {t.rounds or '?'} rounds · "
                         f"{t.matches} matches", t.standings, t)
    add("reviews", "Human reviews", group.reviews)
    add("checklists", "Checklist (validation scripts and overrides)", group.checklists)
    add("players", "All recorded matches", group.players)
    return out


def csv_header(table: str) -> list[str]:
    """The CSV fields of ``table``, in column order."""
    return [name for c in table_columns(table) for name, _ in c.fields]


def csv_values(table: str, row) -> list:
    """The raw values of one row of ``table``, in :func:`csv_header` order."""
    return [get(row) for c in table_columns(table) for _, get in c.fields]
