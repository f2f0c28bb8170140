"""Capture: the rules of a two-team capture-the-flag game on a symmetric maze.

This file is the case's rules module (``[game].module``). It follows the
contract of docs/contracts.md exactly: ``init``, ``observe``, ``check``,
``step``, ``outcome`` and ``digest`` with fixed signatures. Everything is
integer arithmetic; the only randomness is the maze, drawn from the match
seed by ``SplitMix64`` below (specs/rules.md documents the generator, the
maze algorithm and every rule, in the order ``step`` applies them).

A failure in here is the case's bug, never a controller's: bad parameters
raise ``ValueError`` naming the parameter; ``check`` returns a reason string
for an illegal (schema-valid) action instead of raising.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields, replace

MASK64 = (1 << 64) - 1
MOVES = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0), "stay": (0, 0)}


class SplitMix64:
    """Sebastiano Vigna's SplitMix64 in plain integer arithmetic, mod 2**64.

    Its stream depends on nothing but the seed, unlike Python's ``random``.
    """

    __slots__ = ("state",)

    def __init__(self, seed: int):
        self.state = seed & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """An integer in [0, n): ``next() % n`` (the bias is below 2**-50 here)."""
        if n <= 0:
            raise ValueError(f"below: n must be positive, got {n}")
        return self.next() % n


@dataclass(frozen=True, slots=True)
class Params:
    """The game's parameters: ``[game].params`` merged with a variant's ``[params]``."""

    width: int = 30            # even, and width/2 odd (the maze lattice needs it)
    height: int = 17           # odd
    agents: int = 3            # per team
    target_score: int = 3      # captures that win at once
    vision: int = 0            # 0: full observability; else enemies seen within this Manhattan radius
    respawn_ticks: int = 5     # ticks a tagged agent waits at its spawn before it acts again
    flag_return_ticks: int = 40  # a dropped flag lying this long returns to its base
    gates: int = 2             # gate rows chosen in the upper half (each mirrored: 2*gates openings)
    openness: int = 20         # percent of the maze's inner walls knocked out (loops)

    @classmethod
    def from_dict(cls, params: dict) -> Params:
        """Build and validate; raises ``ValueError`` naming the offending parameter."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(params) - known)
        if unknown:
            raise ValueError(f"unknown game parameter(s) {unknown}; allowed: {sorted(known)}")
        for key, value in params.items():
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"game parameter {key!r}: expected an integer, got {value!r}")
        p = cls(**params)
        checks = [
            ("width", p.width >= 14 and p.width % 2 == 0 and (p.width // 2) % 2 == 1 and p.width <= 62,
             "an even number from 14 to 62 whose half is odd"),
            ("height", 9 <= p.height <= 41 and p.height % 2 == 1, "an odd number from 9 to 41"),
            ("agents", 1 <= p.agents <= 8, "1 to 8"),
            ("target_score", p.target_score >= 1, "at least 1"),
            ("vision", p.vision >= 0, "0 (full observability) or a positive radius"),
            ("respawn_ticks", p.respawn_ticks >= 0, "0 or more"),
            ("flag_return_ticks", p.flag_return_ticks >= 1, "at least 1"),
            ("gates", 1 <= p.gates <= len(gate_rows(p.height)), f"1 to {len(gate_rows(p.height))}"),
            ("openness", 0 <= p.openness <= 100, "0 to 100"),
        ]
        for key, ok, expected in checks:
            if not ok:
                raise ValueError(f"game parameter {key!r}: expected {expected}, got {getattr(p, key)}")
        return p


@dataclass(frozen=True, slots=True)
class Agent:
    id: int
    team: int
    x: int
    y: int
    carrying: bool   # holds the enemy flag
    respawn: int     # ticks left out of play at the spawn (0: active)


@dataclass(frozen=True, slots=True)
class Flag:
    team: int        # owner
    x: int
    y: int
    carrier: int     # agent id, or -1
    idle: int        # ticks lying dropped (0 at base or carried)


@dataclass(frozen=True, slots=True)
class State:
    params: Params
    seed: int
    grid: tuple[str, ...]              # rows; '#' wall, '.' floor
    bases: tuple[tuple[int, int], ...]  # flag base per team
    spawns: tuple[tuple[int, int], ...]
    tick: int
    time_ms: int
    agents: tuple[Agent, ...]
    flags: tuple[Flag, ...]
    scores: tuple[int, ...]
    tags: tuple[int, ...]               # enemies tagged by each team (statistics)


def gate_rows(height: int) -> list[int]:
    """Rows where a gate may open: odd rows of the upper half, plus the middle row if odd."""
    rows = [y for y in range(1, height, 2) if y < height - 1 - y]
    middle = (height - 1) // 2
    if middle % 2 == 1:
        rows.append(middle)
    return rows


def generate_maze(p: Params, seed: int) -> tuple[tuple[str, ...], tuple[int, int]]:
    """The grid and team 0's base for a seed; team 1's half is the point mirror.

    Left half: a randomised depth-first maze on the odd lattice, braided by
    knocking out ``openness`` percent of inner walls, a 3x3 room at the base
    on the left edge; then ``gates`` rows opened through the two centre wall
    columns; then the point reflection (x, y) -> (W-1-x, H-1-y).
    """
    rng = SplitMix64(seed)
    w, h, hw = p.width, p.height, p.width // 2
    open_ = [[False] * w for _ in range(h)]
    cols, rows = hw // 2, (h - 1) // 2        # lattice cells at x = 2c+1 < hw, y = 2r+1
    start = (rng.below(cols), rng.below(rows))
    seen = {start}
    stack = [start]
    open_[2 * start[1] + 1][2 * start[0] + 1] = True
    while stack:
        c, r = stack[-1]
        nexts = [(c + dc, r + dr) for dc, dr in ((0, -1), (1, 0), (0, 1), (-1, 0))
                 if 0 <= c + dc < cols and 0 <= r + dr < rows and (c + dc, r + dr) not in seen]
        if not nexts:
            stack.pop()
            continue
        nc, nr = nexts[rng.below(len(nexts))]
        open_[2 * nr + 1][2 * nc + 1] = True
        open_[r + nr + 1][c + nc + 1] = True   # the wall between the two cells
        seen.add((nc, nr))
        stack.append((nc, nr))
    for y in range(1, h - 1):
        for x in range(1, hw - 1):
            if (x + y) % 2 == 1 and not open_[y][x] and rng.below(100) < p.openness:
                open_[y][x] = True
    base_rows = [y for y in range(3, h - 3, 2)]
    by = base_rows[rng.below(len(base_rows))]
    for y in range(by - 1, by + 2):
        for x in range(1, 4):
            open_[y][x] = True
    candidates = gate_rows(h)
    for i in range(p.gates):   # partial Fisher-Yates: the first `gates` of a shuffle
        j = i + rng.below(len(candidates) - i)
        candidates[i], candidates[j] = candidates[j], candidates[i]
        gy = candidates[i]
        open_[gy][hw - 1] = True
        open_[h - 1 - gy][hw - 1] = True
    for y in range(h):
        for x in range(hw):
            open_[h - 1 - y][w - 1 - x] = open_[y][x]
    grid = tuple("".join("." if cell else "#" for cell in row) for row in open_)
    return grid, (1, by)


def mirror(p: Params, x: int, y: int) -> tuple[int, int]:
    return p.width - 1 - x, p.height - 1 - y


def home_team(p: Params, x: int) -> int:
    """The team whose half column ``x`` lies in: 0 for the left half."""
    return 0 if x < p.width // 2 else 1


def init(params: dict, seed: int, seats: int) -> State:
    """A new game for ``seed``; raises ``ValueError`` for bad params or seats != 2."""
    if seats != 2:
        raise ValueError(f"capture is a two-team game, got seats={seats}")
    p = Params.from_dict(dict(params))
    grid, base0 = generate_maze(p, seed)
    spawn0 = (base0[0] + 2, base0[1])
    bases = (base0, mirror(p, *base0))
    spawns = (spawn0, mirror(p, *spawn0))
    agents = tuple(Agent(i, i // p.agents, *spawns[i // p.agents], False, 0)
                   for i in range(2 * p.agents))
    flags = tuple(Flag(t, *bases[t], -1, 0) for t in (0, 1))
    return State(p, seed & MASK64, grid, bases, spawns, 0, 0, agents, flags, (0, 0), (0, 0))


def observe(state: State, seat: int) -> dict:
    """What seat ``seat`` (= team) sees; enemies outside ``vision`` are left out."""
    p = state.params
    own = [a for a in state.agents if a.team == seat]

    def visible(e: Agent) -> bool:
        if e.team == seat or p.vision == 0:
            return True
        return any(abs(a.x - e.x) + abs(a.y - e.y) <= p.vision for a in own)

    return {
        "tick": state.tick,
        "seat": seat,
        "width": p.width,
        "height": p.height,
        "map": list(state.grid),
        "vision": p.vision,
        "target": p.target_score,
        "scores": list(state.scores),
        "bases": [list(b) for b in state.bases],
        "spawns": [list(s) for s in state.spawns],
        "agents": [[a.id, a.team, a.x, a.y, int(a.carrying), a.respawn]
                   for a in state.agents if visible(a)],
        "flags": [[f.team, f.x, f.y, f.carrier] for f in state.flags],
    }


def check(state: State, seat: int, action: dict) -> str | None:
    """None if the (schema-valid) action is legal for ``seat``, else why not."""
    orders = action.get("orders")
    if not isinstance(orders, list):
        return "orders must be a list"
    n = state.params.agents
    mine = range(seat * n, seat * n + n)
    given: set[int] = set()
    for order in orders:
        agent, move = order.get("agent"), order.get("move")
        if not isinstance(agent, int) or isinstance(agent, bool):
            return f"agent must be an integer, got {agent!r}"
        if agent not in mine:
            return f"agent {agent} is not yours (seat {seat} commands agents {mine.start}-{mine.stop - 1})"
        if agent in given:
            return f"duplicate order for agent {agent}"
        if move not in MOVES:
            return f"unknown move {move!r} for agent {agent}"
        given.add(agent)
    return None


def _moves_of(actions: list[dict | None], n: int) -> dict[int, str]:
    # Orders for another seat's agents never count, even if a caller skipped check().
    moves: dict[int, str] = {}
    for seat, action in enumerate(actions):
        for order in (action or {}).get("orders", ()):
            if seat * n <= order["agent"] < seat * n + n:
                moves[order["agent"]] = order["move"]
    return moves


def step(state: State, actions: list[dict | None], timestep_ms: int) -> State:
    """One tick: move, tag, respawn, drop, return, pick up, capture (specs/rules.md)."""
    if len(actions) != 2:
        raise ValueError(f"step: expected 2 actions, got {len(actions)}")
    p, grid = state.params, state.grid
    moves = _moves_of(actions, p.agents)
    before = state.agents
    after: list[Agent] = []
    for a in before:
        dx, dy = MOVES[moves.get(a.id, "stay")] if a.respawn == 0 else (0, 0)
        x, y = a.x + dx, a.y + dy
        # Walls and one's own flag base block a move: no camping on one's own flag.
        if grid[y][x] == "#" or (x, y) == state.bases[a.team]:
            x, y = a.x, a.y
        after.append(replace(a, x=x, y=y))
    tagged: set[int] = set()
    for a in after:
        for b in after:
            if a.team == b.team or a.respawn or b.respawn:
                continue
            pa, pb = before[a.id], before[b.id]
            met = (a.x, a.y) == (b.x, b.y) or (
                (a.x, a.y) == (pb.x, pb.y) and (b.x, b.y) == (pa.x, pa.y))
            if met and home_team(p, a.x) == b.team and home_team(p, b.x) == b.team:
                tagged.add(a.id)
    flags = list(state.flags)
    tags = list(state.tags)
    agents: list[Agent] = []
    for a in after:
        if a.id in tagged:
            tags[1 - a.team] += 1
            if a.carrying:
                flags[1 - a.team] = replace(flags[1 - a.team], x=a.x, y=a.y, carrier=-1, idle=0)
            sx, sy = state.spawns[a.team]
            agents.append(Agent(a.id, a.team, sx, sy, False, p.respawn_ticks))
        elif a.respawn and before[a.id].respawn:
            agents.append(replace(a, respawn=a.respawn - 1))
        else:
            agents.append(a)
    for a in agents:
        if a.respawn:
            continue
        own, enemy = flags[a.team], flags[1 - a.team]
        if own.carrier == -1 and (own.x, own.y) == (a.x, a.y) and (own.x, own.y) != state.bases[a.team]:
            flags[a.team] = Flag(a.team, *state.bases[a.team], -1, 0)
        if enemy.carrier == -1 and (enemy.x, enemy.y) == (a.x, a.y):
            flags[1 - a.team] = replace(enemy, carrier=a.id, idle=0)
            agents[a.id] = replace(a, carrying=True)
    scores = list(state.scores)
    for i, a in enumerate(agents):
        if a.carrying and home_team(p, a.x) == a.team:
            scores[a.team] += 1
            flags[1 - a.team] = Flag(1 - a.team, *state.bases[1 - a.team], -1, 0)
            agents[i] = replace(a, carrying=False)
    for t, f in enumerate(flags):
        if f.carrier != -1:
            carrier = agents[f.carrier]
            flags[t] = replace(f, x=carrier.x, y=carrier.y)
        elif (f.x, f.y) != state.bases[t]:
            idle = f.idle + 1
            flags[t] = Flag(t, *state.bases[t], -1, 0) if idle >= p.flag_return_ticks \
                else replace(f, idle=idle)
    return replace(state, tick=state.tick + 1, time_ms=state.time_ms + timestep_ms,
                   agents=tuple(agents), flags=tuple(flags), scores=tuple(scores), tags=tuple(tags))


def outcome(state: State, final: bool) -> dict | None:
    """The result once a team reaches the target (or at ``final``), else None."""
    s0, s1 = state.scores
    reached = max(s0, s1) >= state.params.target_score
    if not reached and not final:
        return None
    winner = 0 if s0 > s1 else 1 if s1 > s0 else None
    return {"winner": winner, "scores": [s0, s1], "reason": "score" if reached else "max_ticks"}


def digest(state: State) -> str:
    """sha256 hex of the state as canonical JSON (sorted keys, no spaces)."""
    blob = json.dumps(asdict(state), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def render(state: State) -> str:
    """ASCII picture for debugging and tests: agents as digits (team 0) or letters."""
    rows = [list(r) for r in state.grid]
    for t, (x, y) in enumerate(state.bases):
        rows[y][x] = "Ff"[t]
    for a in state.agents:
        rows[a.y][a.x] = str(a.id % 10) if a.team == 0 else chr(ord("a") + a.id % 26)
    return "\n".join("".join(r) for r in rows)
