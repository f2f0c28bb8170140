"""Whole games of capture played by scripted Python teams: determinism and sanity."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import deque
from pathlib import Path

import fastjsonschema

from tests.support.capture import CASE, MANIFEST, R

ROOT = Path(__file__).resolve().parents[2]


def scripted_team(seat: int, noise_seed: int):
    """Shortest paths to the enemy flag and home, with some seeded noise."""
    rng = R.SplitMix64(noise_seed)

    def act(obs: dict) -> dict:
        me, grid, w = obs["seat"], obs["map"], obs["width"]
        flag = obs["flags"][1 - me]
        if flag[3] >= 0:
            goals = [(x, y) for y, row in enumerate(grid) for x, c in enumerate(row)
                     if c == "." and (x < w // 2) == (me == 0)]
        else:
            goals = [(flag[1], flag[2])]
        dist = {g: 0 for g in goals}
        queue = deque(goals)
        while queue:
            x, y = queue.popleft()
            for nx, ny in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
                if grid[ny][nx] == "." and (nx, ny) not in dist:
                    dist[(nx, ny)] = dist[(x, y)] + 1
                    queue.append((nx, ny))
        out = []
        for aid, team, x, y, _c, _r in obs["agents"]:
            if team != me:
                continue
            if rng.below(4) == 0:
                move = ["N", "E", "S", "W", "stay"][rng.below(5)]
            else:
                move = min(R.MOVES, key=lambda m: (dist.get((x + R.MOVES[m][0], y + R.MOVES[m][1]), 1 << 30), m))
            out.append({"agent": aid, "move": move})
        return {"orders": out}

    return act


def play(params: dict, seed: int, max_ticks: int = MANIFEST["simulation"]["max_ticks"]):
    world = fastjsonschema.compile(json.loads((CASE / "schemas/world.json").read_text()))
    action = fastjsonschema.compile(json.loads((CASE / "schemas/action.json").read_text()))
    teams = [scripted_team(0, seed + 1), scripted_team(1, seed + 2)]
    state = R.init(params, seed, 2)
    for t in range(max_ticks):
        actions = []
        for seat, team in enumerate(teams):
            obs = R.observe(state, seat)
            world(obs)
            act = team(json.loads(json.dumps(obs)))
            action(act)
            assert R.check(state, seat, act) is None
            actions.append(act)
        state = R.step(state, actions, MANIFEST["simulation"]["timestep_ms"])
        result = R.outcome(state, t + 1 == max_ticks)
        if result is not None:
            return state, result
    raise AssertionError("outcome must be final at max_ticks")


def test_a_whole_game_is_deterministic_and_ends_properly():
    a_state, a_result = play({}, 11)
    b_state, b_result = play({}, 11)
    assert a_result == b_result and R.digest(a_state) == R.digest(b_state)
    assert a_result["reason"] in ("score", "max_ticks")
    assert sum(a_result["scores"]) >= 1 and sum(a_state.tags) >= 1   # the game really happened
    c_state, _ = play({}, 12)
    assert R.digest(c_state) != R.digest(a_state)


def test_fog_games_validate_and_finish():
    state, result = play({"vision": 5}, 3, max_ticks=300)
    assert result["reason"] in ("score", "max_ticks") and state.tick <= 300


SCRIPT = """
import sys
sys.path.insert(0, {root!r})
from tests.cases.test_game import play
from tests.support.capture import R
state, result = play({{"width": 34, "height": 21, "agents": 4, "gates": 3}}, 2**63 + 5, max_ticks=400)
print(R.digest(state), result)
"""


def test_same_digest_in_processes_with_different_hash_seeds():
    outputs = set()
    for hash_seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        run = subprocess.run([sys.executable, "-c", SCRIPT.format(root=str(ROOT))], env=env,
                             capture_output=True, text=True, timeout=120, check=True)
        outputs.add(run.stdout)
    assert len(outputs) == 1, outputs
