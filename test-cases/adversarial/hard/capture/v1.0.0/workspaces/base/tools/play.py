#!/usr/bin/env python3
"""Play Capture matches locally: your controller.wasm against an opponent.

    python3 tools/play.py controller.wasm                      # vs the built-in "rush"
    python3 tools/play.py controller.wasm other.wasm --seeds 5
    python3 tools/play.py controller.wasm idle --vision 5 --show 200

Opponents: a path to another .wasm, or a built-in Python team: "idle" (never
moves) or "rush" (every agent runs the shortest path to your flag and home).
Each seed is played twice with the seats swapped. Needs the `wasmtime` Python
package (`pip install wasmtime`). The rules (tools/rules.py) are a copy of
the case's rules module; fuel and memory limits are the ones of
specs/sandbox.md, so a controller that passes here passes in the arena.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rules  # noqa: E402

FUEL_PER_TICK = 20_000_000
MAX_MEMORY = 32 * 1024 * 1024
MAX_TICKS = 1500


class Forfeit(Exception):
    pass


class WasmTeam:
    """A controller module in its own wasmtime store, as the arena hosts it."""

    def __init__(self, path: str):
        import wasmtime
        self.wasmtime = wasmtime
        config = wasmtime.Config()
        config.consume_fuel = True
        self.store = wasmtime.Store(wasmtime.Engine(config))
        self.store.set_limits(memory_size=MAX_MEMORY)
        module = wasmtime.Module(self.store.engine, Path(path).read_bytes())
        if list(module.imports):
            raise Forfeit(f"load: the module imports {[i.name for i in module.imports]}")
        self.store.set_fuel(FUEL_PER_TICK)
        inst = wasmtime.Instance(self.store, module, [])
        ex = inst.exports(self.store)
        self.memory, self.alloc, self.tick = ex["memory"], ex["alloc"], ex["tick"]
        self.peak = 0

    def act(self, obs: dict) -> dict:
        data = json.dumps(obs, separators=(",", ":"), sort_keys=True).encode()
        self.store.set_fuel(FUEL_PER_TICK)
        try:
            ptr = self.alloc(self.store, len(data))
            self.memory.write(self.store, data, ptr)
            packed = self.tick(self.store, ptr, len(data)) & 0xFFFFFFFFFFFFFFFF
        except self.wasmtime.Trap as exc:
            raise Forfeit(f"trap/fuel: {exc}") from exc
        self.peak = max(self.peak, FUEL_PER_TICK - self.store.get_fuel())
        out_ptr, out_len = packed >> 32, packed & 0xFFFFFFFF
        if out_ptr + out_len > self.memory.data_len(self.store):
            raise Forfeit("bad_region: the answer lies outside memory")
        try:
            return json.loads(self.memory.read(self.store, out_ptr, out_ptr + out_len).decode())
        except ValueError as exc:
            raise Forfeit(f"bad_output: {exc}") from exc


class PyTeam:
    """Built-in opponents: 'idle' or 'rush' (shortest paths, no defence)."""

    def __init__(self, kind: str):
        if kind not in ("idle", "rush"):
            raise SystemExit(f"unknown opponent {kind!r}: a .wasm path, 'idle' or 'rush'")
        self.kind, self.peak = kind, 0

    def act(self, obs: dict) -> dict:
        if self.kind == "idle":
            return {"orders": []}
        me, grid, w = obs["seat"], obs["map"], obs["width"]
        flag = obs["flags"][1 - me]
        goals = [(x, y) for y, row in enumerate(grid) for x, c in enumerate(row)
                 if c == "." and (x < w // 2) == (me == 0)] if flag[3] >= 0 else [(flag[1], flag[2])]
        dist = {g: 0 for g in goals}
        queue = deque(goals)
        base = tuple(obs["bases"][me])
        while queue:
            x, y = queue.popleft()
            for nx, ny in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
                if grid[ny][nx] == "." and (nx, ny) != base and (nx, ny) not in dist:
                    dist[(nx, ny)] = dist[(x, y)] + 1
                    queue.append((nx, ny))
        orders = []
        for aid, team, x, y, _carry, _respawn in obs["agents"]:
            if team != me:
                continue
            best = min(((dist.get((x + dx, y + dy), 1 << 30), m) for m, (dx, dy) in rules.MOVES.items()),
                       default=(0, "stay"))
            orders.append({"agent": aid, "move": best[1]})
        return {"orders": orders}


def team(spec: str):
    return WasmTeam(spec) if spec.endswith(".wasm") else PyTeam(spec)


def play(a: str, b: str, seed: int, params: dict, show: int) -> dict:
    teams = [team(a), team(b)]
    state = rules.init(params, seed, 2)
    for t in range(MAX_TICKS):
        actions = []
        for seat, tm in enumerate(teams):
            try:
                action = tm.act(rules.observe(state, seat))
            except Forfeit as exc:
                return {"winner": 1 - seat, "reason": "forfeit", "detail": f"seat {seat}: {exc}"}
            why = rules.check(state, seat, action)
            if why:
                return {"winner": 1 - seat, "reason": "forfeit", "detail": f"seat {seat}: illegal: {why}"}
            actions.append(action)
        state = rules.step(state, actions, 100)
        if show and t % show == 0:
            print(f"tick {t + 1} scores {state.scores}\n{rules.render(state)}\n")
        result = rules.outcome(state, t + 1 == MAX_TICKS)
        if result:
            return {**result, "ticks": t + 1, "peak_fuel": [tm.peak for tm in teams]}
    raise AssertionError("unreachable: outcome is final at MAX_TICKS")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("controller")
    ap.add_argument("opponent", nargs="?", default="rush")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--vision", type=int, default=0, help="fog radius (0: full observability)")
    ap.add_argument("--param", action="append", default=[], help="extra game parameter, e.g. agents=4")
    ap.add_argument("--show", type=int, default=0, help="print the board every N ticks")
    args = ap.parse_args()
    params = {"vision": args.vision}
    for item in args.param:
        key, _, value = item.partition("=")
        params[key] = int(value)
    wins = 0
    for seed in range(args.seeds):
        for seats in ((args.controller, args.opponent), (args.opponent, args.controller)):
            r = play(*seats, seed, params, args.show)
            mine = seats.index(args.controller)
            wins += r["winner"] == mine
            print(f"seed {seed} you are seat {mine}: {r}")
    print(f"you won {wins} of {2 * args.seeds}")


if __name__ == "__main__":
    main()
