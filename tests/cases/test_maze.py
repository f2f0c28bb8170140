"""The capture case's PRNG and maze generator."""

from __future__ import annotations

import hashlib
from collections import deque

import pytest

from tests.support.capture import MANIFEST, R

VARIANT_PARAMS = [
    {},
    {"vision": 5},
    {"width": 34, "height": 21, "agents": 4, "gates": 3, "openness": 25},
    {"width": 14, "height": 9, "gates": 1, "openness": 0},
    {"width": 62, "height": 41, "openness": 100, "gates": 5},
]


def test_splitmix64_matches_the_reference_stream():
    # Published SplitMix64 outputs (Vigna's splitmix64.c): seed 0 and seed 1234567.
    assert R.SplitMix64(0).next() == 0xE220A8397B1DCDAF
    rng = R.SplitMix64(1234567)
    assert [rng.next() for _ in range(3)] == [
        6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_splitmix64_golden_values_and_masking():
    rng = R.SplitMix64(42)
    assert [rng.below(1000) for _ in range(5)] == [413, 291, 858, 764, 250]
    # Seeds are taken mod 2**64: -1 and 2**64-1 are the same game.
    assert _stream(-1, 3) == _stream(2**64 - 1, 3)
    assert _stream(2**64 + 7, 2) == _stream(7, 2)
    with pytest.raises(ValueError):
        R.SplitMix64(1).below(0)


def _stream(seed, n):
    rng = R.SplitMix64(seed)
    return [rng.next() for _ in range(n)]


@pytest.mark.parametrize("params, seed, sha, base", [
    ({}, 42, "4bd3be0441eca17f9f9d252c077b535c86702e228a3061ffc13abcccfd80becd", (1, 3)),
    ({"width": 34, "height": 21, "agents": 4, "gates": 3, "openness": 25}, 2**64 - 5,
     "6998475c65831a818c8076fb74ca5f4c56c1109eb5d68d9164393a75e2dfa248", (1, 5)),
])
def test_maze_golden_digest(params, seed, sha, base):
    # Pins the maze algorithm: changing it must be a new case version.
    grid, got_base = R.generate_maze(R.Params.from_dict(params), seed)
    assert hashlib.sha256("\n".join(grid).encode()).hexdigest() == sha
    assert got_base == base


def _reachable(grid, start):
    seen = {start}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if grid[ny][nx] == "." and (nx, ny) not in seen:
                seen.add((nx, ny))
                queue.append((nx, ny))
    return seen


@pytest.mark.parametrize("params", VARIANT_PARAMS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "defaults")
def test_maze_is_symmetric_connected_and_walled(params):
    p = R.Params.from_dict(params)
    w, h, hw = p.width, p.height, p.width // 2
    for seed in range(60):
        state = R.init(params, seed, 2)
        grid = state.grid
        assert len(grid) == h and all(len(row) == w for row in grid)
        assert grid[0] == grid[-1] == "#" * w
        assert all(row[0] == row[-1] == "#" for row in grid)
        for y in range(h):
            for x in range(w):
                assert grid[y][x] == grid[h - 1 - y][w - 1 - x], (seed, x, y)
        floor = {(x, y) for y in range(h) for x in range(w) if grid[y][x] == "."}
        assert _reachable(grid, state.spawns[0]) == floor, f"seed {seed}: maze not connected"
        # The halves meet only at the gates: 2*gates crossings (one if a gate is the middle row).
        crossings = [y for y in range(h) if grid[y][hw - 1] == "." and grid[y][hw] == "."]
        assert len(crossings) in (2 * p.gates, 2 * p.gates - 1)
        assert all(grid[y][hw - 1] == "#" for y in range(h) if y not in crossings)
        (bx, by), (sx, sy) = state.bases[0], state.spawns[0]
        assert bx == 1 and sx == 3 and sy == by
        assert all(grid[y][x] == "." for y in range(by - 1, by + 2) for x in range(1, 4))
        assert state.bases[1] == (w - 1 - bx, h - 1 - by)
        assert state.spawns[1] == (w - 1 - sx, h - 1 - sy)


def test_maze_depends_on_the_seed_only():
    a = R.init({}, 7, 2)
    assert R.init({}, 7, 2).grid == a.grid
    grids = {R.init({}, seed, 2).grid for seed in range(40)}
    assert len(grids) == 40


def test_manifest_defaults_are_the_rules_defaults():
    assert R.Params.from_dict(MANIFEST["game"]["params"]) == R.Params()


@pytest.mark.parametrize("params, key", [
    ({"width": 31}, "width"), ({"width": 32}, "width"), ({"height": 18}, "height"),
    ({"agents": 0}, "agents"), ({"vision": -1}, "vision"), ({"gates": 9}, "gates"),
    ({"openness": 101}, "openness"), ({"agents": "3"}, "agents"), ({"agents": True}, "agents"),
    ({"speed": 2}, "speed"),
])
def test_bad_params_name_the_parameter(params, key):
    with pytest.raises(ValueError, match=key):
        R.init(params, 1, 2)


def test_capture_is_a_two_seat_game():
    with pytest.raises(ValueError, match="seats=3"):
        R.init({}, 1, 3)
