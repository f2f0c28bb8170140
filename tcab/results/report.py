"""The report queries: who is best at what, per case version and variant.

Reading uses a plain ``sqlite3`` connection (no sqlite-utils import, which
pulls in numpy): ``tcab report`` must answer in well under a second on a
database of 100,000 runs. A database older than this tcab is migrated first
through :func:`tcab.results.store.open_db`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcab.errors import ResultsError
from tcab.results.schema import RUN_STATUSES, SCHEMA_VERSION


@dataclass(frozen=True, slots=True)
class Filters:
    """Optional restrictions of the report; None means everything."""

    case: str | None = None
    variant: str | None = None
    harness: str | None = None


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One harness and model on one case version and variant."""

    harness: str
    model: str | None
    runs: int
    outcomes: dict[str, int]
    builds_ok: int
    builds: int
    tokens_input: int
    tokens_output: int
    tokens_cache_read: int
    tokens_cache_write: int
    mean_duration_s: float | None
    total_duration_s: float
    validations_passed: int = 0     # end-to-end runs whose validation passed
    validations: int = 0            # end-to-end runs validated (tcab validate)
    typechecks_passed: int = 0      # validated runs whose [toolchain].typecheck exited 0
    typechecks: int = 0             # ... whose typecheck ran to an exit (passed or failed)
    broken: int = 0                 # ... whose typecheck failed: rated "broken" (the gate)
    perf_correct: int = 0           # performance runs whose module scored correct
    perf_scored: int = 0            # ... whose module was scored (a failed build counts, as not correct)
    fuel_best: int | None = None    # the least total fuel of a correct run
    fuel_median: int | None = None  # the median total fuel of the correct runs
    efficiency: float | None = None  # the case version's best correct run's fuel / fuel_best (1.0: the best)
    # Statistics (tcab.results.groupstats): None where the test type defines no success.
    measured: int | None = None          # runs that measured the harness (not infrastructure, canceled, bug)
    successes: int | None = None         # ... that succeeded by the test type's rule
    success_rate: float | None = None    # successes / measured
    success_low: float | None = None     # its Wilson 95% interval
    success_high: float | None = None
    pass_at_1: float | None = None       # unbiased pass@k, where measured >= k
    pass_at_5: float | None = None
    pass_at_10: float | None = None
    mean_similarity: float | None = None  # the mean [[check]] similarity of its runs (check_scores)
    mean_review: float | None = None     # the mean current review score / max score
    # Cost (tcab.results.costs): None until a run of it is priced.
    cost: float | None = None            # the priced runs' total; None: none has a price
    currency: str | None = None
    unpriced_runs: int | None = None     # runs whose model has no price; None: never priced


@dataclass(frozen=True, slots=True)
class BaselineBuild:
    """A baseline controller of the case version and how its build went."""

    source: str
    status: str
    module_sha256: str | None


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One participant label over every recorded match of the group."""

    label: str
    matches: int
    wins: int
    draws: int
    losses: int
    forfeits: int
    win_rate: float


@dataclass(frozen=True, slots=True)
class Standing:
    """One participant's final place in a tournament."""

    rank: int | None
    label: str
    module_sha256: str
    rating: float | None
    ci_low: float | None
    ci_high: float | None
    wins: int | None
    draws: int | None
    losses: int | None
    forfeits: int | None
    source: str | None  # the build source: a run id or baseline:<case>@<version>/<name>
    harness: str | None
    model: str | None
    run_dir: str | None  # the run folder, when the module came from a run


@dataclass(frozen=True, slots=True)
class TournamentReport:
    id: str
    structure: str | None
    rounds: int | None
    seed: int | None
    created_at: str | None
    finished_at: str | None
    matches: int
    standings: tuple[Standing, ...]


@dataclass(frozen=True, slots=True)
class ReviewSummary:
    """The current human review of one run (tcab.results.reviews)."""

    run_id: str
    harness: str
    model: str | None
    reviewer: str
    reviewed_at: str
    score: float        # the weights of the items passed
    max_score: float    # the weights of all items
    rating: str | None  # the worst of the domains' ratings
    reviews: int        # reviews recorded for the run, this one included
    run_dir: str | None


@dataclass(frozen=True, slots=True)
class ChecklistSummary:
    """Where a run's checklist stands from its item decisions (validation
    scripts, reviewers' overrides: tcab.results.decisions)."""

    run_id: str
    harness: str
    model: str | None
    score: float        # the weights of the items whose state is pass
    max_score: float    # the weights of all the variant's items
    decided: int        # items decided pass or fail
    items: int          # items of the variant's checklist
    undecided: int      # items a script could not decide (and nobody overrode)
    overrides: int      # items whose state is a reviewer's override


@dataclass(frozen=True, slots=True)
class TypeRows:
    """A test type's own table for one group (its ``report_table``): the key
    and title it is shown under, its columns (:class:`tcab.results.columns.Column`,
    left out of JSON) and its rows (dataclasses, as the type's query made them)."""

    key: str
    title: str
    columns: tuple = field(default=(), metadata={"json": False})
    rows: tuple = ()


@dataclass(frozen=True, slots=True)
class GroupReport:
    """Everything recorded for one (case, version, variant)."""

    case_slug: str
    case_version: str
    variant: str
    runs: tuple[RunSummary, ...] = ()
    case_type: str | None = None    # as its runs recorded it; None without runs
    type_columns: tuple[str, ...] = ()  # the report columns its test type declares
    baselines: tuple[BaselineBuild, ...] = ()
    players: tuple[PlayerSummary, ...] = ()
    tournaments: tuple[TournamentReport, ...] = ()
    reviews: tuple[ReviewSummary, ...] = ()
    type_tables: tuple[TypeRows, ...] = ()  # the tables its test type adds (report_table)
    checklists: tuple[ChecklistSummary, ...] = ()


@dataclass(frozen=True, slots=True)
class Report:
    database: str
    schema_version: int
    totals: dict[str, int]
    groups: tuple[GroupReport, ...] = field(default=())
    #: Plan entries a sweep tried more than once (tcab.results.attempts): entry,
    #: attempts, each attempt's status, the last status and its detail.
    retried: tuple[dict, ...] = field(default=())
    across: tuple = ()  # groupstats.AcrossCases: each harness and model's mean success over cases


def connect(path: Path | str) -> sqlite3.Connection:
    """Open an existing results.db for reading, migrating it first if it is older.

    Raises ResultsError naming the path if it does not exist, is not a
    results database, or was written by a newer tcab.
    """
    path = Path(path)
    if not path.is_file():
        raise ResultsError(f"{path}: no results database here (run a sweep first, or pass --db)")
    conn = _connect(path)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        conn.close()
        raise ResultsError(f"{path}: schema version {version} is newer than this tcab knows "
                           f"({SCHEMA_VERSION}); upgrade tcab")
    if version < SCHEMA_VERSION:
        conn.close()
        from tcab.results.store import open_db  # imports sqlite-utils: only when migrating

        open_db(path).close()
        conn = _connect(path)
    conn.execute("PRAGMA query_only = ON")
    return conn


def _connect(path: Path) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA busy_timeout = 10000")
        conn.execute("PRAGMA user_version").fetchone()
        return conn
    except sqlite3.DatabaseError as exc:
        raise ResultsError(f"{path}: not a usable SQLite database: {exc}") from exc


def build_report(conn: sqlite3.Connection, filters: Filters = Filters(), database: str = "",
                 type_columns: Callable[[str], tuple[str, ...]] = lambda case_type: (),
                 type_table: Callable[[str], Any] = lambda case_type: None,
                 success_rule: Callable[[str], Any] = lambda case_type: None) -> Report:
    """Run every report query on ``conn`` and assemble the per-group report.

    ``type_columns`` gives the report columns a test type declares and
    ``type_table`` the table of its own it adds, or None (a
    :class:`tcab.results.columns.TypeTable`; the commands pass
    :func:`tcab.catalog.typetable.report_columns` and ``report_table``: the
    results layer sits below the test types and does not ask them itself).
    ``success_rule`` gives what counts as a success of a type's runs (a
    ``SuccessRule``, :func:`tcab.catalog.typetable.success_rule`): the statistics count it.
    """
    groups: dict[tuple[str, str, str], dict] = {}

    def group(key: tuple[str, str, str]) -> dict:
        return groups.setdefault(key, {"runs": [], "players": [], "tournaments": [], "reviews": [],
                                       "checklists": []})

    for key, summary in _run_summaries(conn, filters):
        group(key)["runs"].append(summary)
    for key, player in _players(conn, filters):
        group(key)["players"].append(player)
    for key, tournament in _tournaments(conn, filters):
        group(key)["tournaments"].append(tournament)
    for key, review in _reviews(conn, filters):
        group(key)["reviews"].append(review)
    for key, checklist in _checklists(conn, filters):
        group(key)["checklists"].append(checklist)
    baselines = _baselines(conn, filters)
    if filters.harness is None:
        # Baselines alone (no runs yet) still make their case version visible.
        for (slug, version), _ in baselines.items():
            if not any(k[:2] == (slug, version) for k in groups):
                group((slug, version, ""))
    types: dict[tuple[str, str], str | None] = {}
    for key, parts in groups.items():
        if parts["runs"] and key[:2] not in types:
            # One indexed lookup per case version (the report index leads with it).
            row = conn.execute("SELECT case_type FROM runs WHERE case_slug = ? AND case_version = ? LIMIT 1",
                               key[:2]).fetchone()
            types[key[:2]] = row[0] if row else None
    def own_tables(key: tuple[str, str, str]) -> tuple[TypeRows, ...]:
        table = type_table(types[key[:2]]) if types.get(key[:2]) else None
        if table is None:
            return ()
        return (TypeRows(table.key, table.title, table.columns, tuple(table.rows(conn, key, filters))),)

    from tcab.results.groupstats import fill_statistics

    across = fill_statistics(conn, groups, types, success_rule, *_where(filters, "r", harness="r.harness"))
    reports = tuple(
        GroupReport(
            case_slug=key[0], case_version=key[1], variant=key[2], case_type=types.get(key[:2]),
            type_columns=type_columns(types[key[:2]]) if types.get(key[:2]) else (),
            runs=tuple(parts["runs"]), baselines=tuple(baselines.get(key[:2], ())),
            players=tuple(parts["players"]), tournaments=tuple(parts["tournaments"]),
            reviews=tuple(parts["reviews"]), type_tables=own_tables(key),
            checklists=tuple(parts["checklists"]),
        )
        for key, parts in sorted(groups.items())
    )
    totals = {
        table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        for table in ("runs", "builds", "validations", "matches", "tournaments")
    }
    return Report(database=database, schema_version=SCHEMA_VERSION, totals=totals, groups=reports,
                  retried=tuple(_retried(conn, filters)), across=across)


def _retried(conn: sqlite3.Connection, filters: Filters) -> list[dict]:
    """The retried plan entries the filters admit (an entry is case/version/variant/agent/repeat)."""
    from tcab.results.attempts import attempts_summary

    found = []
    for item in attempts_summary(conn):
        parts = item["entry"].split("/")
        if len(parts) != 5:
            continue
        harness = parts[3].split("@", 1)[0]
        if ((filters.case is None or parts[0] == filters.case) and (filters.variant is None or parts[2] == filters.variant)
                and (filters.harness is None or harness == filters.harness)):
            found.append(item)
    return found


def _where(filters: Filters, alias: str, *, variant: bool = True, harness: str | None = None):
    clauses, params = [], []
    if filters.case:
        clauses.append(f"{alias}.case_slug = ?")
        params.append(filters.case)
    if filters.variant and variant:
        clauses.append(f"{alias}.variant = ?")
        params.append(filters.variant)
    if filters.harness and harness:
        clauses.append(f"{harness} = ?")
        params.append(filters.harness)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _run_summaries(conn: sqlite3.Connection, filters: Filters):
    where, params = _where(filters, "r", harness="r.harness")
    # Grouping by status as well keeps this a scan of the covering index
    # idx_runs_report (no table lookups); the pivot happens here.
    rows = conn.execute(
        f"""SELECT r.case_slug, r.case_version, r.variant, r.harness, r.model, r.status, count(*),
                   total(r.tokens_input), total(r.tokens_output),
                   total(r.tokens_cache_read), total(r.tokens_cache_write),
                   total(r.duration_s), count(r.duration_s)
            FROM runs r{where}
            GROUP BY r.case_slug, r.case_version, r.variant, r.harness, r.model, r.status""",
        params,
    ).fetchall()
    sums: dict[tuple, list] = {}
    for row in rows:
        acc = sums.setdefault(tuple(row[:5]), [dict.fromkeys(RUN_STATUSES, 0), 0, 0, 0, 0, 0, 0])
        acc[0][row[5]] = row[6]
        for i in range(6):
            acc[1 + i] += row[7 + i]
    where_b, params_b = _where(filters, "r", harness="r.harness")
    # CROSS JOIN keeps builds as the outer loop: one run lookup per build
    # instead of one build lookup per run (builds are far fewer than runs).
    builds = {
        tuple(row[:5]): (row[5], row[6])
        for row in conn.execute(
            f"""SELECT r.case_slug, r.case_version, r.variant, r.harness, r.model,
                       total(b.status = 'ok'), count(*)
                FROM builds b CROSS JOIN runs r ON r.id = b.source{where_b}
                GROUP BY r.case_slug, r.case_version, r.variant, r.harness, r.model""",
            params_b,
        )
    }
    # Same shape as the builds: validations are one per validated run.
    validations = {
        tuple(row[:5]): (row[5], row[6])
        for row in conn.execute(
            f"""SELECT r.case_slug, r.case_version, r.variant, r.harness, r.model,
                       total(v.status = 'passed'), count(*)
                FROM validations v CROSS JOIN runs r ON r.id = v.run_id{where_b}
                GROUP BY r.case_slug, r.case_version, r.variant, r.harness, r.model""",
            params_b,
        )
    }
    # One typecheck row per validated run that declares a [toolchain].
    typechecks = {
        tuple(row[:5]): (row[5], row[6])
        for row in conn.execute(
            f"""SELECT r.case_slug, r.case_version, r.variant, r.harness, r.model,
                       total(t.status = 'passed'), total(t.status = 'failed')
                FROM toolchain_results t CROSS JOIN runs r ON r.id = t.run_id{where_b}
                {"AND" if where_b else "WHERE"} t.name = 'typecheck'
                GROUP BY r.case_slug, r.case_version, r.variant, r.harness, r.model""",
            params_b,
        )
    }
    perf = _performance(conn, where_b, params_b)
    for key in sorted(sums, key=lambda k: tuple("" if v is None else v for v in k)):
        outcomes, t_in, t_out, t_read, t_write, seconds, timed = sums[key]
        ok, total = builds.get(key, (0, 0))
        v_ok, v_total = validations.get(key, (0, 0))
        tc_ok, tc_failed = typechecks.get(key, (0, 0))
        yield key[:3], RunSummary(
            harness=key[3], model=key[4], runs=sum(outcomes.values()), outcomes=outcomes,
            builds_ok=int(ok), builds=total,
            tokens_input=int(t_in), tokens_output=int(t_out),
            tokens_cache_read=int(t_read), tokens_cache_write=int(t_write),
            mean_duration_s=seconds / timed if timed else None, total_duration_s=seconds,
            validations_passed=int(v_ok), validations=v_total,
            typechecks_passed=int(tc_ok), typechecks=int(tc_ok + tc_failed), broken=int(tc_failed),
            **perf.get(key, {}),
        )


def _performance(conn: sqlite3.Connection, where: str, params: list) -> dict[tuple, dict]:
    """The performance fields of each group: correct/scored, best and median
    total fuel of its correct runs, and its best against the case version's."""
    fuels: dict[tuple, list[int]] = {}
    counts: dict[tuple, list[int]] = {}
    best_of_case: dict[tuple, int] = {}
    for row in conn.execute(
            f"""SELECT r.case_slug, r.case_version, r.variant, r.harness, r.model, p.status, p.total_fuel
                FROM performance_scores p CROSS JOIN runs r ON r.id = p.source{where}""", params):
        key, status, fuel = tuple(row[:5]), row[5], row[6]
        acc = counts.setdefault(key, [0, 0])
        acc[1] += 1
        if status == "correct" and fuel is not None:
            acc[0] += 1
            fuels.setdefault(key, []).append(fuel)
            case = key[:2]
            best_of_case[case] = min(best_of_case.get(case, fuel), fuel)
    out = {}
    for key, (ok, total) in counts.items():
        found = sorted(fuels.get(key, ()))
        best = found[0] if found else None
        median = None
        if found:
            mid = len(found) // 2
            median = found[mid] if len(found) % 2 else (found[mid - 1] + found[mid]) // 2
        out[key] = {"perf_correct": ok, "perf_scored": total, "fuel_best": best, "fuel_median": median,
                    "efficiency": best_of_case[key[:2]] / best if best else None}
    return out


def _reviews(conn: sqlite3.Connection, filters: Filters):
    """The current review of each reviewed run, newest first (reviews are
    written by people: few, so no running totals are needed)."""
    where, params = _where(filters, "r", harness="r.harness")
    where += (" AND " if where else " WHERE ") + "v.current = 1"
    for row in conn.execute(
        f"""SELECT r.case_slug, r.case_version, r.variant, v.run_id, r.harness, r.model, v.reviewer,
                   v.reviewed_at, v.score, v.max_score, v.rating,
                   (SELECT count(*) FROM reviews h WHERE h.run_id = v.run_id), r.run_dir
            FROM reviews v JOIN runs r ON r.id = v.run_id{where}
            ORDER BY r.case_slug, r.case_version, r.variant, v.reviewed_at DESC, v.id DESC""", params):
        yield tuple(row[:3]), ReviewSummary(*row[3:])


def _checklists(conn: sqlite3.Connection, filters: Filters):
    """The checklist state of each run with item decisions, by the weights of
    its variant's items as last recorded (review_items)."""
    where, params = _where(filters, "r", harness="r.harness")
    where += (" AND " if where else " WHERE ") + "r.id IN (SELECT DISTINCT run_id FROM item_decisions)"
    runs = conn.execute(
        f"""SELECT r.case_slug, r.case_version, r.variant, r.id, r.harness, r.model FROM runs r{where}
            ORDER BY r.case_slug, r.case_version, r.variant, r.started_at DESC, r.id""", params).fetchall()
    if not runs:
        return
    # Imported only where there are checklists: most reports have none.
    from tcab.results.decisions import checklist_score, current_verdicts

    verdicts = current_verdicts(conn, f"SELECT r.id FROM runs r{where}", params)
    weights: dict[tuple[str, str, str], dict[str, float]] = {}
    for row in runs:
        key = tuple(row[:3])
        if key not in weights:
            weights[key] = dict(conn.execute(
                "SELECT item_id, weight FROM review_items WHERE case_slug = ? AND case_version = ? AND variant = ?",
                key).fetchall())
        states = verdicts.get(row[3], {})
        score, max_score, decided = checklist_score(weights[key], {k: v[0] for k, v in states.items()})
        mine = [states[k] for k in weights[key] if k in states]
        yield key, ChecklistSummary(row[3], row[4], row[5], score, max_score, decided, len(weights[key]),
                                    sum(1 for state, _ in mine if state == "undecided"),
                                    sum(1 for _, overridden in mine if overridden))


def _baselines(conn: sqlite3.Connection, filters: Filters) -> dict[tuple[str, str], list]:
    where, params = _where(filters, "b", variant=False)
    where += (" AND " if where else " WHERE ") + "substr(b.source, 1, 9) = 'baseline:'"
    found: dict[tuple[str, str], list] = {}
    for slug, version, source, status, module in conn.execute(
        f"SELECT b.case_slug, b.case_version, b.source, b.status, b.module_sha256 "
        f"FROM builds b{where} ORDER BY b.source", params,
    ):
        found.setdefault((slug, version), []).append(BaselineBuild(source, status, module))
    return found


def _players(conn: sqlite3.Connection, filters: Filters):
    """Each participant's recorded matches, from the same rows as the standings.

    A match is stored once per (case digest, variant, seed, modules): when two
    entrants of a tournament share one module, their identical matches are
    one row whose seat labels are the last entrant's, so counting seats by
    label gave one entrant 2 matches and the other 8 while the standings gave
    8 each. So a tournament's matches count as its standings (``ratings``)
    count them, per entrant; only matches outside every tournament are counted
    from their seats (``player_totals``, kept by triggers, less the seats of
    tournament matches). A tournament whose ratings lack W/D/L (recorded by an
    older tcab) is counted from its seats.
    """
    where, params = _where(filters, "p")
    totals: dict[tuple, list[int]] = {}

    def add(key: tuple, n: int, w: int, d: int, loss: int, f: int) -> None:
        acc = totals.setdefault(key, [0, 0, 0, 0, 0])
        for i, v in enumerate((n, w, d, loss, f)):
            acc[i] += v

    for row in conn.execute(
        f"""SELECT p.case_slug, p.case_version, p.variant, p.label, p.matches, p.wins, p.draws,
                   p.losses, p.forfeits
            FROM player_totals p{where}""", params):
        add(tuple(row[:4]), *row[4:])
    where_t, params_t = _where(filters, "t")
    covered = (f"SELECT t.id FROM tournaments t{where_t}{' AND' if where_t else ' WHERE'} NOT EXISTS "
               "(SELECT 1 FROM ratings g WHERE g.tournament_id = t.id AND (g.wins IS NULL OR "
               "g.draws IS NULL OR g.losses IS NULL OR g.forfeits IS NULL))")
    for row in conn.execute(
        f"""SELECT m.case_slug, m.case_version, m.variant, coalesce(s.label, s.module_sha256),
                   count(*), total(s.outcome = 'win'), total(s.outcome = 'draw'),
                   total(s.outcome = 'loss'), total(s.outcome = 'forfeit')
            FROM match_seats s JOIN matches m ON m.key = s.match_key
            WHERE s.match_key IN (SELECT tm.match_key FROM tournament_matches tm
                                  WHERE tm.tournament_id IN ({covered}))
            GROUP BY 1, 2, 3, 4""", params_t):
        add(tuple(row[:4]), *(-int(v) for v in row[4:]))
    # The arena's standings count a forfeit among the losses; Recorded matches
    # shows losses and forfeits apart, as the seats do.
    for row in conn.execute(
        f"""SELECT t.case_slug, t.case_version, t.variant, g.label, sum(g.wins + g.draws + g.losses),
                   sum(g.wins), sum(g.draws), sum(g.losses - g.forfeits), sum(g.forfeits)
            FROM ratings g JOIN tournaments t ON t.id = g.tournament_id
            WHERE t.id IN ({covered})
            GROUP BY 1, 2, 3, 4""", params_t):
        add(tuple(row[:4]), *row[4:])
    rows = [(*key, *acc) for key, acc in totals.items() if acc[0] > 0]
    rows.sort(key=lambda r: (r[0], r[1], r[2], -r[5] / r[4], r[3]))
    for row in rows:
        yield tuple(row[:3]), PlayerSummary(
            label=row[3], matches=row[4], wins=row[5], draws=row[6], losses=row[7],
            forfeits=row[8], win_rate=row[5] / row[4],
        )


def _tournaments(conn: sqlite3.Connection, filters: Filters):
    where, params = _where(filters, "t")
    tournaments = conn.execute(
        f"""SELECT t.case_slug, t.case_version, t.variant, t.id, t.structure, t.rounds, t.seed,
                   t.created_at, t.finished_at,
                   (SELECT count(*) FROM tournament_matches tm WHERE tm.tournament_id = t.id)
            FROM tournaments t{where}
            ORDER BY t.case_slug, t.case_version, t.variant, t.created_at DESC, t.id""",
        params,
    ).fetchall()
    for row in tournaments:
        standings = tuple(
            Standing(*r)
            for r in conn.execute(
                """SELECT g.rank, g.label, g.module_sha256, g.rating, g.ci_low, g.ci_high,
                          g.wins, g.draws, g.losses, g.forfeits, b.source, r.harness, r.model,
                          r.run_dir
                   FROM ratings g
                   LEFT JOIN builds b ON b.source = (
                       SELECT source FROM builds WHERE module_sha256 = g.module_sha256
                       ORDER BY substr(source, 1, 9) = 'baseline:' DESC, source LIMIT 1)
                   LEFT JOIN runs r ON r.id = b.source
                   WHERE g.tournament_id = ?
                   ORDER BY g.rank IS NULL, g.rank, g.rating DESC, g.label""",
                [row[3]],
            )
        )
        yield tuple(row[:3]), TournamentReport(*row[3:], standings=standings)


def recent_runs(conn: sqlite3.Connection, case_slug: str, case_version: str, variant: str,
                limit: int = 50) -> list[tuple]:
    """The latest runs of a group: (id, harness, model, status, started_at, duration_s, run_dir,
    typecheck status or None)."""
    return conn.execute(
        """SELECT id, harness, model, status, started_at, duration_s, run_dir,
                  (SELECT t.status FROM toolchain_results t WHERE t.run_id = runs.id AND t.name = 'typecheck')
           FROM runs
           WHERE case_slug = ? AND case_version = ? AND variant = ?
           ORDER BY started_at DESC, id LIMIT ?""",
        [case_slug, case_version, variant, limit],
    ).fetchall()


def tournament_replays(conn: sqlite3.Connection, tournament_id: str, limit: int = 100) -> list[tuple]:
    """A tournament's matches: (round, pairing, key, winner_seat, reason, ticks, replay_path)."""
    return conn.execute(
        """SELECT tm.round, tm.pairing, tm.match_key, m.winner_seat, m.reason, m.ticks,
                  m.replay_path
           FROM tournament_matches tm LEFT JOIN matches m ON m.key = tm.match_key
           WHERE tm.tournament_id = ? ORDER BY tm.round, tm.pairing, tm.match_key LIMIT ?""",
        [tournament_id, limit],
    ).fetchall()
