"""Standings and Bradley–Terry ratings with bootstrap confidence intervals.

Every match is turned into pairwise comparisons between its seats: the
winner beats every other seat; seats that drew share half a win each way;
two losers of a many-seat match are not compared. The Bradley–Terry
strengths are fitted with Hunter's MM algorithm; each player also plays one
virtual draw against a fixed reference of strength 1, a weak prior that keeps
an unbeaten or winless player finite. Ratings are on the Elo scale
(400·log10 strength), centred on a mean of 0. The confidence interval is the
2.5–97.5 percentile range over ``samples`` bootstrap resamples of the
matches (drawn with a ``random.Random`` seeded by the caller, so the
interval is reproducible). Plain Python: numpy is not a declared dependency.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from tcab.outcomes import SeatOutcome

# A match as seen by the rating: one (player index, outcome) per seat, with
# outcome in win|draw|loss|forfeit.
MatchOutcome = Sequence[tuple[int, SeatOutcome]]


@dataclass(frozen=True, slots=True)
class PlayerRating:
    player: int
    played: int
    wins: int
    draws: int
    losses: int
    forfeits: int
    rating: float
    ci_low: float
    ci_high: float

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws


def pairwise(match: MatchOutcome) -> list[tuple[int, int, float]]:
    """(i, j, score of i against j) for every compared pair of seats."""
    out = []
    for a in range(len(match)):
        for b in range(a + 1, len(match)):
            (i, oi), (j, oj) = match[a], match[b]
            if i == j:
                continue
            if oi == SeatOutcome.WIN:
                out.append((i, j, 1.0))
            elif oj == SeatOutcome.WIN:
                out.append((i, j, 0.0))
            elif oi == SeatOutcome.DRAW and oj == SeatOutcome.DRAW:
                out.append((i, j, 0.5))
            elif oi == SeatOutcome.DRAW:
                out.append((i, j, 1.0))  # drew while the other forfeited
            elif oj == SeatOutcome.DRAW:
                out.append((i, j, 0.0))
    return out


def fit_bradley_terry(n: int, matches: Sequence[MatchOutcome], iterations: int = 200) -> list[float]:
    """Elo-scale ratings of players 0..n-1 from ``matches``."""
    wins = [0.5] * n  # the virtual draw against the reference
    games: dict[tuple[int, int], float] = {}
    for match in matches:
        for i, j, s in pairwise(match):
            wins[i] += s
            wins[j] += 1.0 - s
            key = (min(i, j), max(i, j))
            games[key] = games.get(key, 0.0) + 1.0
    strength = [1.0] * n
    for _ in range(iterations):
        denom = [1.0 / (strength[i] + 1.0) for i in range(n)]  # the reference games
        for (i, j), g in games.items():
            d = g / (strength[i] + strength[j])
            denom[i] += d
            denom[j] += d
        new = [wins[i] / denom[i] for i in range(n)]
        delta = max(abs(math.log(new[i] / strength[i])) for i in range(n)) if n else 0.0
        strength = new
        if delta < 1e-9:
            break
    ratings = [400.0 * math.log10(s) for s in strength]
    mean = sum(ratings) / n if n else 0.0
    return [r - mean for r in ratings]


def standings(n: int, matches: Sequence[MatchOutcome], seed: int = 0,
              samples: int = 200) -> list[PlayerRating]:
    """Per-player W/D/L/forfeits, rating and 95% bootstrap interval,
    sorted best first (points, then rating, then player index)."""
    counts = [[0, 0, 0, 0, 0] for _ in range(n)]  # played, W, D, L, forfeits
    for match in matches:
        for player, outcome in match:
            row = counts[player]
            row[0] += 1
            if outcome == SeatOutcome.WIN:
                row[1] += 1
            elif outcome == SeatOutcome.DRAW:
                row[2] += 1
            else:
                row[3] += 1
                if outcome == SeatOutcome.FORFEIT:
                    row[4] += 1
    ratings = fit_bradley_terry(n, matches)
    rng = random.Random(seed)
    draws: list[list[float]] = [[] for _ in range(n)]
    if matches:
        for _ in range(samples):
            sample = [matches[rng.randrange(len(matches))] for _ in range(len(matches))]
            for i, r in enumerate(fit_bradley_terry(n, sample, iterations=100)):
                draws[i].append(r)
    out = []
    for i in range(n):
        low, high = _percentile(draws[i], 0.025), _percentile(draws[i], 0.975)
        played, w, d, losses, f = counts[i]
        out.append(PlayerRating(i, played, w, d, losses, f, round(ratings[i], 2),
                            round(low if low is not None else ratings[i], 2),
                            round(high if high is not None else ratings[i], 2)))
    out.sort(key=lambda s: (-s.points, -s.rating, s.player))
    return out


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)
