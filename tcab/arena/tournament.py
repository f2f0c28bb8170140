"""Tournaments: pair contestants, play the matches in parallel, rank them.

Structures (``[match].structure``):

- ``round-robin``: every combination of ``participants`` contestants plays
  ``rounds`` matches. In round ``r`` (0-based) the seating is the combination
  rotated by ``r`` places, so seats alternate, and the game seed is
  ``derive_seed(seed, "round", r)``: every pairing of a round plays the same
  map, which keeps the comparison fair.
- ``bracket``: single elimination for two-seat games. Contestants are seeded
  in the order given (first = top seed) into the standard bracket (1 v 8,
  4 v 5, 2 v 7, 3 v 6); the field is padded to a power of two with byes, which
  go to the top seeds. Each tie is ``rounds`` matches with seats rotated and
  seeds ``derive_seed(seed, "bracket", bracket_round, r)``. The tie-break is,
  in order: more match wins, higher total score, fewer forfeits, then the
  higher seed (earlier in the list).

Matches run in a ``ProcessPoolExecutor`` with ``jobs`` workers (in-process
for ``jobs == 1``); cached matches (see ``tcab.arena.jobs``) are not played.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from tcab.arena.game import GameSpec
from tcab.arena.jobs import MatchJob, cached_summary, make_job, run_job
from tcab.arena.rating import PlayerRating, standings
from tcab.errors import ArenaError
from tcab.outcomes import SeatOutcome

STRUCTURES = ("round-robin", "bracket")


@dataclass(frozen=True, slots=True)
class Contestant:
    label: str
    path: Path
    sha256: str


@dataclass(frozen=True, slots=True)
class TournamentResult:
    structure: str
    seed: int
    rounds: int
    contestants: tuple[Contestant, ...]
    matches: tuple[dict, ...]       # summaries, with "players", "round", "tag"
    standings: tuple[PlayerRating, ...]
    champion: int | None            # bracket only
    played: int                     # matches actually played (not from cache)

    def standings_json(self) -> list[dict]:
        """The standings as JSON rows, best first: what ``tcab tournament
        --json`` prints and what a sweep's ``standings.json`` holds."""
        return [{"rank": rank, "label": self.contestants[s.player].label,
                 "module_sha256": self.contestants[s.player].sha256, "played": s.played,
                 "wins": s.wins, "draws": s.draws, "losses": s.losses, "forfeits": s.forfeits,
                 "rating": s.rating, "ci_low": s.ci_low, "ci_high": s.ci_high}
                for rank, s in enumerate(self.standings, start=1)]


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit game seed from the tournament seed and a path of labels."""
    text = "/".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def run_tournament(spec: GameSpec, contestants: list[Contestant], *, seed: int, rounds: int,
                   structure: str, jobs: int, results_dir: Path, modules_dir: Path | None,
                   on_match: Callable[[dict, int, int], None] | None = None) -> TournamentResult:
    """Play the whole tournament and rank the field.

    ``on_match(summary, done, total)`` is called in this process after each
    match, and with ``summary`` None when a batch starts (a round-robin is
    one batch, a bracket one per bracket round). Raises ``ArenaError`` for an
    unknown structure, too few contestants or a bracket over a game that is
    not two-seat.
    """
    k = spec.participants
    if structure not in STRUCTURES:
        raise ArenaError(f"structure: expected one of {', '.join(STRUCTURES)}, got {structure!r}")
    if len(contestants) < k:
        raise ArenaError(f"{spec.case} needs {k} controllers per match, got {len(contestants)}")
    if rounds < 1:
        raise ArenaError(f"rounds: expected a positive integer, got {rounds}")
    runner = _Runner(spec, contestants, results_dir, modules_dir, jobs, on_match)
    champion = None
    try:
        if structure == "round-robin":
            # Round-major order: a pairing's matches spread over the whole run
            # instead of bunching at its end, which keeps workers busy longer.
            batch = []
            for r in range(rounds):
                for group in itertools.combinations(range(len(contestants)), k):
                    seats = group[r % k:] + group[:r % k]
                    batch.append(runner.job(seats, derive_seed(seed, "round", r), r + 1, _tag(contestants, group)))
            runner.run(batch)
        else:
            if k != 2:
                raise ArenaError(f"{spec.case}: a bracket needs a two-seat game, [match].participants is {k}")
            champion = _bracket(runner, contestants, seed, rounds)
    finally:
        runner.close()
    outcomes = [[(p, SeatOutcome.of(s)) for p, s in zip(m["players"], m["result"]["seats"], strict=True)]
                for m in runner.done]
    table = standings(len(contestants), outcomes, seed=seed)
    if champion is not None:
        # A bracket ranks by how far each contestant went, then as usual.
        reached = [0] * len(contestants)
        for m in runner.done:
            for p in m["players"]:
                reached[p] = max(reached[p], m["round"])
        reached[champion] += 1
        table.sort(key=lambda s: (-reached[s.player], -s.points, -s.rating, s.player))
    return TournamentResult(structure, seed, rounds, tuple(contestants), tuple(runner.done),
                            tuple(table), champion, runner.played)


def _tag(contestants: list[Contestant], group) -> str:
    return " vs ".join(contestants[i].label for i in group)


def _bracket(runner: _Runner, contestants: list[Contestant], seed: int, rounds: int) -> int:
    n = len(contestants)
    size = 1
    while size < n:
        size *= 2
    order = [1]
    while len(order) < size:
        order = [x for s in order for x in (s, 2 * len(order) + 1 - s)]
    alive: list[int | None] = [s - 1 if s <= n else None for s in order]
    bracket_round = 1
    while len(alive) > 1:
        pairs = [(alive[i], alive[i + 1]) for i in range(0, len(alive), 2)]
        batch = []
        for a, b in pairs:
            if a is None or b is None:
                continue
            for r in range(rounds):
                seats = (a, b) if r % 2 == 0 else (b, a)
                batch.append(runner.job(seats, derive_seed(seed, "bracket", bracket_round, r),
                                        bracket_round, _tag(contestants, (a, b))))
        summaries = runner.run(batch)
        winners: list[int | None] = []
        for a, b in pairs:
            if a is None or b is None:
                winners.append(a if b is None else b)
                continue
            mine = [s for s in summaries if set(s["players"]) == {a, b}]
            winners.append(_tie_winner(a, b, mine))
        alive = winners
        bracket_round += 1
    return alive[0]


def _tie_winner(a: int, b: int, summaries: list[dict]) -> int:
    def merit(p: int) -> tuple:
        wins = score = forfeits = 0
        for s in summaries:
            seat = s["players"].index(p)
            row = s["result"]["seats"][seat]
            outcome = SeatOutcome.of(row)
            wins += outcome is SeatOutcome.WIN
            score += row["score"]
            forfeits += outcome is SeatOutcome.FORFEIT
        return (wins, score, -forfeits, -p)

    return max((a, b), key=merit)


class _Runner:
    """Submits jobs, skips cached ones, collects summaries in schedule order."""

    def __init__(self, spec, contestants, results_dir, modules_dir, jobs, on_match):
        self.spec, self.contestants = spec, contestants
        self.results_dir, self.modules_dir = Path(results_dir), modules_dir
        self.on_match = on_match
        self.pool = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else None
        self.done: list[dict] = []
        self.played = 0

    def job(self, seats, seed: int, round_no: int, tag: str) -> MatchJob:
        return make_job(self.spec, [self.contestants[i] for i in seats], seed, self.results_dir,
                        self.modules_dir, tuple(seats), round_no, tag)

    def run(self, batch: list[MatchJob]) -> list[dict]:
        out: list[dict | None] = [None] * len(batch)
        total = len(batch)
        if self.on_match is not None:
            self.on_match(None, 0, total)  # the size of the batch, before any match ends
        pending = {}
        for i, job in enumerate(batch):
            found = cached_summary(job)
            if found is not None:
                out[i] = self._finish(job, found, total, out)
            elif self.pool is None:
                pending[i] = job
            else:
                pending[self.pool.submit(run_job, job)] = (i, job)
        if self.pool is None:
            for i, job in pending.items():
                out[i] = self._finish(job, run_job(job), total, out)
        else:
            for fut in as_completed(pending):
                i, job = pending[fut]
                try:
                    summary = fut.result()
                except BrokenProcessPool as exc:
                    raise ArenaError(f"a match worker process died while playing {job.tag or job.key} "
                                     f"(seed {job.seed}): {exc}") from exc
                out[i] = self._finish(job, summary, total, out)
        self.done.extend(out)
        return out

    def _finish(self, job: MatchJob, summary: dict, total: int, out: list) -> dict:
        summary = {**summary, "players": list(job.players), "round": job.round, "tag": job.tag,
                   "labels": list(job.labels)}
        self.played += not summary.get("cached")
        if self.on_match is not None:
            self.on_match(summary, sum(x is not None for x in out) + 1, total)
        return summary

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
