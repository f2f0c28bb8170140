"""Point reads of results.db for the pages of ``tcab view``: one run, one
match, one tournament's cells, a page of a group's runs.

The report's own queries (tcab.results.report) give the home page and the
standings; these add what a single page needs. Each is a primary-key or
indexed lookup with a LIMIT, so a page costs the same on 100 rows or 10^6.
Plain ``sqlite3`` with ``sqlite3.Row`` results, like the report.
"""

from __future__ import annotations

import sqlite3

from tcab.results.report import Filters, TournamentReport, _tournaments


def _one(conn: sqlite3.Connection, sql: str, params: list) -> dict | None:
    rows = _all(conn, sql, params)
    return rows[0] if rows else None


def _all(conn: sqlite3.Connection, sql: str, params: list) -> list[dict]:
    cur = conn.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur]


def run_row(conn: sqlite3.Connection, run_id: str) -> dict | None:
    """The ``runs`` row of ``run_id``, or None."""
    return _one(conn, "SELECT * FROM runs WHERE id = ?", [run_id])


def run_stages(conn: sqlite3.Connection, run_id: str) -> list[dict]:
    """The run's stages in the order they ran."""
    return _all(conn, "SELECT * FROM stages WHERE run_id = ? ORDER BY seq", [run_id])


def run_validation(conn: sqlite3.Connection, run_id: str) -> dict | None:
    """The ``validations`` row of the run (checks and screenshots still JSON text), or None."""
    return _one(conn, "SELECT * FROM validations WHERE run_id = ?", [run_id])


def run_proofs(conn: sqlite3.Connection, run_id: str) -> list[dict]:
    """The proofs recorded with the run's validation, in declaration order."""
    return _all(conn, "SELECT * FROM proofs WHERE run_id = ? ORDER BY seq", [run_id])


def run_builds(conn: sqlite3.Connection, run_id: str) -> list[dict]:
    """The controller build of an adversarial run (none or one row)."""
    return _all(conn, "SELECT * FROM builds WHERE source = ?", [run_id])


def group_runs(conn: sqlite3.Connection, case_slug: str, case_version: str, variant: str,
               *, limit: int, offset: int = 0) -> list[dict]:
    """One page of a group's runs, newest first."""
    # Walking the started_at index from the newest stops after one page; the
    # group index would fetch and sort every run of the group (3 s at 10^5).
    return _all(conn, """SELECT id, harness, model, status, started_at, duration_s, tokens_input,
                                tokens_output, run_dir FROM runs INDEXED BY idx_runs_started
                         WHERE case_slug = ? AND case_version = ? AND variant = ?
                         ORDER BY started_at DESC, id LIMIT ? OFFSET ?""",
                [case_slug, case_version, variant, limit, offset])


def match_row(conn: sqlite3.Connection, key: str) -> dict | None:
    """The ``matches`` row of ``key``, or None."""
    return _one(conn, "SELECT * FROM matches WHERE key = ?", [key])


def match_seats(conn: sqlite3.Connection, key: str) -> list[dict]:
    """The seats of a match in seat order."""
    return _all(conn, "SELECT * FROM match_seats WHERE match_key = ? ORDER BY seat", [key])


def match_tournaments(conn: sqlite3.Connection, key: str, limit: int = 20) -> list[dict]:
    """The tournaments a match was played in: (tournament_id, round, pairing)."""
    return _all(conn, """SELECT tournament_id, round, pairing FROM tournament_matches
                         WHERE match_key = ? ORDER BY tournament_id, round LIMIT ?""", [key, limit])


def tournament(conn: sqlite3.Connection, tournament_id: str) -> tuple[tuple[str, str, str], TournamentReport] | None:
    """((case, version, variant), the report's tournament with its standings), or None."""
    row = conn.execute("SELECT case_slug, variant FROM tournaments WHERE id = ?",
                       [tournament_id]).fetchone()
    if row is None:
        return None
    for key, report in _tournaments(conn, Filters(case=row[0], variant=row[1])):
        if report.id == tournament_id:
            return key, report
    return None


def tournament_cells(conn: sqlite3.Connection, tournament_id: str, limit: int) -> list[dict]:
    """Each seat of each match of a tournament: (match_key, round, seat, label, outcome, score)."""
    return _all(conn, """SELECT tm.match_key, tm.round, s.seat, coalesce(s.label, s.module_sha256) AS label,
                                s.outcome, s.score
                         FROM tournament_matches tm JOIN match_seats s ON s.match_key = tm.match_key
                         WHERE tm.tournament_id = ?
                         ORDER BY tm.round, tm.match_key, s.seat LIMIT ?""", [tournament_id, limit])
