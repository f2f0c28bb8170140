"""One scenario in a fresh instance of an engine, in the arena's sandbox.

The engine is a :class:`tcab.arena.sandbox.Controller` called once: the
same import-free ABI (``memory``, ``alloc``, the entry), the same preflight
and bounded compile (:class:`tcab.arena.engine.ModuleCache`), the same
store limits, memory check and output bound. What differs is the budget:
one scenario has ``fuel_limit x fuel_runway`` for everything it runs, its
start function included, so the budget the call gets is what the start
function left. A fresh instance per scenario keeps a scenario's verdict
independent of the others (nothing survives in memory or globals).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tcab.arena.engine import ModuleCache
from tcab.arena.preflight import LoadLimits
from tcab.arena.sandbox import Controller, Forfeit, Limits

#: Forfeit reason of the arena -> a scenario's status.
STATUS_OF = {"load": "load", "fuel": "out_of_fuel", "memory": "memory", "trap": "trap",
             "bad_region": "bad_output", "bad_output": "bad_output"}


@dataclass(frozen=True, slots=True)
class Ran:
    """What one call gave: the output bytes, or the status and detail of its failure."""

    fuel: int
    output: bytes | None = None
    status: str | None = None
    detail: str = ""


def run_once(wasm: bytes, digest: str, scenario: bytes, *, entry: str, budget: int, max_memory_bytes: int,
             cache: ModuleCache, load: LoadLimits | None = None) -> Ran:
    """Run ``entry`` once on ``scenario`` with ``budget`` fuel in all (start
    function, ``alloc`` and the entry). Never raises for the module's faults."""
    limits = Limits(budget, max_memory_bytes, entry, load or LoadLimits.from_env())
    box = Controller(wasm, limits, cache, digest)
    if box.forfeit is not None:
        return _failed(box.forfeit, box.fuel_start, budget)
    # The call's budget is what instantiation left (Controller sets the fuel
    # to limits.fuel_per_tick before each call).
    box.limits = replace(limits, fuel_per_tick=budget - box.fuel_start)
    raw = box.call(scenario, 1)
    fuel = box.fuel_start + box.fuel_total
    if isinstance(raw, Forfeit):
        return _failed(raw, fuel, budget)
    return Ran(fuel, raw)


def _failed(forfeit: Forfeit, fuel: int, budget: int) -> Ran:
    status = STATUS_OF.get(forfeit.reason, "trap")
    detail = forfeit.detail
    if status == "out_of_fuel":
        detail = f"out of fuel: the budget of {budget:,} (fuel_limit x fuel_runway) ran out"
        fuel = budget
    elif forfeit.phase == "load" and status != "load":
        detail = f"while instantiating: {detail}"
    return Ran(fuel, None, status, detail)
