"""The lockstep state machine shared by live matches and replay verification.

It knows the rules and the forfeits, never wasm: a live match feeds it the
actions its controllers produced, ``tcab replay verify`` feeds it the actions
a replay recorded, and both must end in the same result and final digest.

Order within a tick ``t`` (0-based): every seat still standing is observed
and acts; a seat that fails is forfeited at tick ``t`` and its action is
``None`` from then on; if at most one seat is left standing (with two or
more seats) the match ends with reason ``forfeit`` *before* the state steps;
otherwise the rules step the state by ``timestep_ms`` and are asked for an
outcome (``final`` once ``t + 1 == max_ticks``).
"""

from __future__ import annotations

from tcab.arena.rules import Rules
from tcab.arena.sandbox import Forfeit
from tcab.outcomes import SeatOutcome


class Simulator:
    """One match's authoritative state plus the host's bookkeeping."""

    def __init__(self, rules: Rules, params: dict, seed: int, seats: int,
                 timestep_ms: int, max_ticks: int):
        self.rules = rules
        self.seats = seats
        self.timestep_ms = timestep_ms
        self.max_ticks = max_ticks
        self.state = rules.init(params, seed, seats)
        self.tick = 0
        self.forfeits: dict[int, Forfeit] = {}
        self.actions: list[list] = []
        self.result: dict | None = None
        self.final_digest: str | None = None

    @property
    def standing(self) -> list[int]:
        return [s for s in range(self.seats) if s not in self.forfeits]

    def forfeit(self, seat: int, forfeit: Forfeit) -> None:
        if seat not in self.forfeits:
            self.forfeits[seat] = forfeit

    def after_load(self) -> dict | None:
        """Call once after the load forfeits: ends a match nobody (or only
        one seat) can play, and a match with ``max_ticks`` 0."""
        if self._lone_survivor():
            return self._finish(forfeit_end=True)
        if self.max_ticks <= 0:
            return self._finish(forfeit_end=False, outcome=self.rules.outcome(self.state, True))
        return None

    def advance(self, actions: list) -> dict | None:
        """Record this tick's actions, step, and return the result once the
        match is over (else None)."""
        actions = [None if s in self.forfeits else a for s, a in enumerate(actions)]
        self.actions.append(actions)
        if self._lone_survivor():
            return self._finish(forfeit_end=True)
        self.state = self.rules.step(self.state, actions, self.timestep_ms)
        self.tick += 1
        outcome = self.rules.outcome(self.state, self.tick >= self.max_ticks)
        if outcome is None:
            return None
        return self._finish(forfeit_end=False, outcome=outcome)

    def _lone_survivor(self) -> bool:
        if self.seats >= 2:
            return len(self.standing) <= 1
        return not self.standing  # a solo game ends only when its one seat fails

    def _finish(self, forfeit_end: bool, outcome: dict | None = None) -> dict:
        if forfeit_end:
            # Scores as they stand; the winner is whoever is still standing.
            outcome = self.rules.outcome(self.state, True)
            standing = self.standing
            winner = standing[0] if len(standing) == 1 else None
            reason = "forfeit"
        else:
            winner = outcome["winner"]
            reason = outcome["reason"]
            if winner is not None and winner in self.forfeits:
                winner = None  # a seat that forfeited never wins
        scores = [int(x) for x in outcome["scores"]]
        seats = []
        for seat in range(self.seats):
            f = self.forfeits.get(seat)
            if f is not None:
                row = {"outcome": SeatOutcome.LOSS, "reason": "forfeit", "forfeit": f.to_json()}
            elif winner == seat:
                row = {"outcome": SeatOutcome.WIN, "reason": reason, "forfeit": None}
            elif winner is None:
                row = {"outcome": SeatOutcome.DRAW, "reason": reason, "forfeit": None}
            else:
                row = {"outcome": SeatOutcome.LOSS, "reason": reason, "forfeit": None}
            row["seat"] = seat
            row["score"] = scores[seat] if seat < len(scores) else 0
            seats.append(row)
        self.result = {"winner": winner, "reason": reason, "scores": scores,
                       "ticks": len(self.actions), "seats": seats}
        self.final_digest = self.rules.digest(self.state)
        return self.result
