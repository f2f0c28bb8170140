"""Rows for results.db (docs/results.md) from arena outcomes.

Writing goes through ``tcab.results`` (one transaction per record); this
module only shapes the rows: a match summary into ``matches`` +
``match_seats``, a tournament into ``tournaments`` + ``tournament_matches``
+ ``ratings``.
"""

from __future__ import annotations

import datetime

from tcab.arena.game import GameSpec
from tcab.arena.jobs import spec_digest
from tcab.arena.tournament import TournamentResult
from tcab.outcomes import SeatOutcome


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def match_rows(spec: GameSpec, summary: dict) -> tuple[dict, list[dict]]:
    result = summary["result"]
    match = {
        "key": summary["key"], "case_slug": spec.case, "case_version": spec.version,
        "case_digest": spec_digest(spec), "variant": spec.variant, "seed": summary["seed"],
        "ticks": result["ticks"], "winner_seat": result["winner"], "reason": result["reason"],
        "final_digest": summary["final_digest"], "replay_path": summary["replay"],
        "replay_sha256": summary["replay_sha256"], "duration_s": summary.get("duration_s"),
        "played_at": _now(),
    }
    seats = []
    for row, fuel in zip(result["seats"], summary["fuel"], strict=True):
        forfeit = row.get("forfeit")
        seats.append({
            "seat": row["seat"], "module_sha256": summary["shas"][row["seat"]],
            "label": summary["labels"][row["seat"]],
            "outcome": SeatOutcome.of(row), "score": row["score"],
            "forfeit_reason": forfeit["reason"] if forfeit else None,
            "forfeit_tick": forfeit["tick"] if forfeit else None,
            "fuel_total": fuel["total"], "fuel_peak": fuel["peak"],
        })
    return match, seats


def record_summary(db, spec: GameSpec, summary: dict) -> str:
    """Record one match summary; returns its key."""
    from tcab.results import record_match  # slow import (sqlite-utils)

    match, seats = match_rows(spec, summary)
    return record_match(db, match, seats)


def record_tournament_result(db, spec: GameSpec, tournament_id: str, result: TournamentResult,
                             created_at: str) -> None:
    """Record every match of ``result`` and the tournament with its ratings."""
    from tcab.results import record_tournament  # slow import (sqlite-utils)

    for summary in result.matches:
        record_summary(db, spec, summary)
    entries, seen = [], set()
    for m in result.matches:
        if (m["key"], m["round"]) in seen:
            continue  # two contestants sharing one module meet in an identical match
        seen.add((m["key"], m["round"]))
        entries.append({"match_key": m["key"], "round": m["round"], "pairing": m["tag"]})
    ratings = []
    for rank, s in enumerate(result.standings, start=1):
        c = result.contestants[s.player]
        ratings.append({"module_sha256": c.sha256, "label": c.label, "rank": rank,
                        "rating": s.rating, "ci_low": s.ci_low, "ci_high": s.ci_high,
                        "wins": s.wins, "draws": s.draws, "losses": s.losses, "forfeits": s.forfeits})
    tournament = {
        "id": tournament_id, "case_slug": spec.case, "case_version": spec.version,
        "case_digest": spec_digest(spec), "variant": spec.variant, "structure": result.structure,
        "rounds": result.rounds, "seed": result.seed,
        "participants": [{"label": c.label, "module_sha256": c.sha256} for c in result.contestants],
        "created_at": created_at, "finished_at": _now(),
    }
    record_tournament(db, tournament, entries, ratings)
