"""Play one lockstep match between compiled controllers.

``play_match`` takes a ``GameSpec``, one ``Entrant`` per seat and a seed, and
returns a ``MatchRecord``: the result (per-seat outcome with its reason), the
final state digest, fuel statistics per seat and the replay document that
re-simulates to the same result. Time is faked: the rules advance by
``timestep_ms`` per tick whatever the host took.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import fastjsonschema
import orjson

from tcab.arena.engine import MAX_MODULE_BYTES, ModuleCache, sha256_hex
from tcab.arena.game import GameSpec, Schemas
from tcab.arena.replay import REPLAY_FORMAT
from tcab.arena.rules import Rules
from tcab.arena.sandbox import Controller, Forfeit
from tcab.arena.simulation import Simulator
from tcab.errors import ArenaError


@dataclass(frozen=True, slots=True)
class Entrant:
    """One seat's controller: a display name and its wasm bytes.

    ``wasm`` None with ``error`` set means the module could not even be read;
    the seat forfeits with ``load``.
    """

    name: str
    wasm: bytes | None
    sha256: str
    error: str | None = None

    @classmethod
    def from_path(cls, path: Path | str, name: str | None = None) -> Entrant:
        path = Path(path)
        try:
            size = path.stat().st_size
            if size > MAX_MODULE_BYTES:
                return cls(name or path.stem, None, "",
                           f"{path}: module is {size} bytes, over the {MAX_MODULE_BYTES}-byte cap")
            data = path.read_bytes()
        except OSError as exc:
            return cls(name or path.stem, None, "", f"{path}: {exc.strerror}")
        return cls(name or path.stem, data, sha256_hex(data))

    @classmethod
    def from_bytes(cls, name: str, data: bytes) -> Entrant:
        return cls(name, data, sha256_hex(data))


@dataclass(frozen=True, slots=True)
class MatchRecord:
    result: dict
    final_digest: str
    fuel: list
    replay: dict


def play_match(spec: GameSpec, entrants: list[Entrant], seed: int,
               cache: ModuleCache | None = None) -> MatchRecord:
    """Play ``entrants`` (seat order) on ``spec`` with ``seed``.

    Raises ``ArenaError`` for a wrong number of entrants or a broken game
    (rules that raise, observations that break the world schema).
    """
    if len(entrants) != spec.participants:
        raise ArenaError(f"{spec.case}: [match].participants is {spec.participants}, "
                         f"got {len(entrants)} controllers")
    cache = cache or ModuleCache()
    rules = Rules(spec.rules_path)
    schemas = Schemas.of(spec)
    limits = spec.limits
    seats = len(entrants)
    sim = Simulator(rules, spec.params, seed, seats, spec.timestep_ms, spec.max_ticks)
    controllers = [Controller(e.wasm, limits, cache, e.sha256 or None, e.error) for e in entrants]
    for seat, ctrl in enumerate(controllers):
        if ctrl.forfeit is not None:
            sim.forfeit(seat, ctrl.forfeit)
    result = sim.after_load()
    while result is None:
        tick = sim.tick
        actions: list = [None] * seats
        for seat in sim.standing:
            action = _turn(rules, schemas, sim, controllers[seat], seat, tick)
            if isinstance(action, Forfeit):
                sim.forfeit(seat, action)
            else:
                actions[seat] = action
        result = sim.advance(actions)
    fuel = [dict(seat=i, **c.fuel_stats()) for i, c in enumerate(controllers)]
    replay = {
        "format": REPLAY_FORMAT,
        "header": {**spec.header(), "seed": seed,
                   "seats": [{"seat": i, "name": e.name, "sha256": e.sha256}
                             for i, e in enumerate(entrants)]},
        "ticks": sim.actions,
        "forfeits": [{"seat": s, **f.to_json()} for s, f in sorted(sim.forfeits.items())],
        "result": result,
        "final_digest": sim.final_digest,
        "fuel": fuel,
    }
    return MatchRecord(result, sim.final_digest, fuel, replay)


def _turn(rules: Rules, schemas: Schemas, sim: Simulator, ctrl: Controller,
          seat: int, tick: int) -> dict | Forfeit:
    observation = rules.observe(sim.state, seat)
    if schemas.world is not None:
        try:
            schemas.world(observation)
        except fastjsonschema.JsonSchemaException as exc:
            raise ArenaError(f"{rules.path}: observe() for seat {seat} at tick {tick} "
                             f"breaks the world schema: {exc.message}") from exc
    raw = ctrl.call(orjson.dumps(observation, option=orjson.OPT_SORT_KEYS), tick)
    if isinstance(raw, Forfeit):
        return raw
    action = ctrl.decode(raw, tick)
    if isinstance(action, Forfeit):
        return action
    if schemas.action is not None:
        try:
            schemas.action(action)
        except fastjsonschema.JsonSchemaException as exc:
            return ctrl.fail("bad_output", f"action breaks the schema: {exc.message}", tick)
    why = rules.check(sim.state, seat, action)
    if why is not None:
        return ctrl.fail("illegal", str(why), tick)
    return action
