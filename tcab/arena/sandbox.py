"""A controller: one untrusted wasm module in its own store for a whole match.

ABI (architecture page, "Adversarial"): an import-free core module exporting
``memory``, ``alloc(len: i32) -> i32`` and the entry ``(ptr: i32, len: i32)
-> i64`` whose result packs the output pointer in the high 32 bits and its
length in the low 32. Before every call into the module (instantiation, which
runs a start function, and each tick) the store's fuel is *set* to
``fuel_per_tick``, so a budget never carries over. Memory and tables are
capped by the store limiter at a hard ceiling of twice the policy cap (the
host's protection), and any growth past the policy cap itself forfeits
``memory`` as soon as the call returns: wasmtime's limiter makes a refused
``memory.grow`` return -1 instead of trapping, so growth we can see is the
only precise signal. A single grow request beyond the ceiling is refused
inside the module and shows up as whatever the module does next.

Nothing here raises for a controller's misbehaviour: every failure comes back
as a ``Forfeit`` with one of the reasons below, because a bot's failure is
data. Only a broken host (our bug) raises.

    load        not wasm, over a load limit (``LoadLimits``: checked before
                compiling, and the compile's own time and memory), invalid
                module, any import, missing/mistyped export, instantiation
                refused
    fuel        ran out of fuel (in the start function or a tick)
    memory      its memory grew past ``max_memory_bytes`` (or an exported
                table past MAX_TABLE_ELEMENTS), checked after every call
                whatever the call returned; or its declared minimum is over
                the hard ceiling so it could not be instantiated
    trap        any other trap; ``detail`` carries the trap code
    bad_region  ``alloc`` or the entry returned a region outside memory
    bad_output  output over the size cap, not UTF-8, not JSON, not the schema
    illegal     the game's ``check`` refused the action (decided by the match)
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import orjson
import wasmtime

from tcab.arena.engine import ModuleCache, NotWasm, get_engine
from tcab.arena.preflight import LoadLimits, ModuleRejected

# The output of one tick is a small JSON action; anything larger is refused
# before it is copied out of the sandbox, so an "absurd length" costs nothing.
MAX_OUTPUT_BYTES = 1 << 20
MAX_TABLE_ELEMENTS = 10_000
FORFEIT_REASONS = ("load", "fuel", "memory", "trap", "bad_region", "bad_output", "illegal")


@dataclass(frozen=True, slots=True)
class Forfeit:
    """Why a controller left the match, and when (tick index; 0 for load)."""

    reason: str
    detail: str
    tick: int
    phase: str = "tick"  # "load" (module load, instantiation, start function) or "tick"

    def to_json(self) -> dict:
        return {"reason": self.reason, "detail": self.detail, "tick": self.tick, "phase": self.phase}


@dataclass(frozen=True, slots=True)
class Limits:
    """The sandbox limits of a case: ``[sandbox]`` plus the entry's name, and
    the host's load limits (``TCAB_WASM_*`` over the defaults)."""

    fuel_per_tick: int
    max_memory_bytes: int
    entry: str = "tick"
    load: LoadLimits = field(default_factory=LoadLimits.from_env)


#: A compiled module's ABI verdict per entry name, kept as long as the module is
#: (a performance score or a match instantiates the same module many times).
_ABI: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _abi_of(module: wasmtime.Module, entry: str) -> tuple[str | None, tuple[str, ...]]:
    """(why the module does not have the controller ABI with ``entry``, or
    None; the names of its exported tables)."""
    by_entry = _ABI.setdefault(module, {})
    found = by_entry.get(entry)
    if found is None:
        found = by_entry[entry] = _check_abi(module, entry)
    return found


def _check_abi(module: wasmtime.Module, entry: str) -> tuple[str | None, tuple[str, ...]]:
    if module.imports:
        names = ", ".join(f"{i.module}.{i.name}" for i in module.imports[:3])
        return f"module has imports ({names}); it must be import-free", ()
    wanted = {"memory": wasmtime.MemoryType, "alloc": wasmtime.FuncType, entry: wasmtime.FuncType}
    exports = {e.name: e.type for e in module.exports}
    for name, kind in wanted.items():
        if not isinstance(exports.get(name), kind):
            return f"missing export {name!r} ({kind.__name__})", ()
    i32, i64 = wasmtime.ValType.i32(), wasmtime.ValType.i64()
    for name, params, results in (("alloc", [i32], [i32]), (entry, [i32, i32], [i64])):
        ft = exports[name]
        if list(ft.params) != params or list(ft.results) != results:
            return f"export {name!r} has type {ft.params}->{ft.results}", ()
    return None, tuple(name for name, kind in exports.items() if isinstance(kind, wasmtime.TableType))


class Controller:
    """One module instance. ``forfeit`` is set once it has failed; after that
    it is never called again. ``fuel_total``/``fuel_peak`` count fuel burnt in
    ticks (the start function's fuel is reported as ``fuel_start``)."""

    def __init__(self, wasm: bytes | None, limits: Limits, cache: ModuleCache,
                 digest: str | None = None, load_error: str | None = None):
        self.limits = limits
        self.forfeit: Forfeit | None = None
        self.fuel_total = 0
        self.fuel_peak = 0
        self.fuel_start = 0
        self.ticks = 0
        self._store: wasmtime.Store | None = None
        if wasm is None:
            self.forfeit = Forfeit("load", load_error or "no module", 0, "load")
            return
        self._load(wasm, cache, digest)

    # -- loading ---------------------------------------------------------
    def _load(self, wasm: bytes, cache: ModuleCache, digest: str | None) -> None:
        try:
            module = cache.load(wasm, digest, self.limits.load)
        except (NotWasm, ModuleRejected, wasmtime.WasmtimeError) as exc:
            self.forfeit = Forfeit("load", _first_line(exc), 0, "load")
            return
        problem, tables = _abi_of(module, self.limits.entry)
        if problem is not None:
            self.forfeit = Forfeit("load", problem, 0, "load")
            return
        store = wasmtime.Store(get_engine())
        store.set_limits(memory_size=2 * self.limits.max_memory_bytes,
                         table_elements=2 * MAX_TABLE_ELEMENTS, instances=1, tables=4, memories=1)
        store.set_fuel(self.limits.fuel_per_tick)
        self._store = store
        try:
            instance = wasmtime.Instance(store, module, [])
        except wasmtime.Trap as trap:
            self.fuel_start = self.limits.fuel_per_tick - store.get_fuel()
            self.forfeit = self._classify_trap(trap, 0, "load")
            return
        except wasmtime.WasmtimeError as exc:
            text = _first_line(exc)
            reason = "memory" if "limit" in text or "memory" in text else "load"
            self.forfeit = Forfeit(reason, f"instantiation refused: {text}", 0, "load")
            return
        self.fuel_start = self.limits.fuel_per_tick - store.get_fuel()
        exports = instance.exports(store)
        self._memory: wasmtime.Memory = exports["memory"]
        self._alloc: wasmtime.Func = exports["alloc"]
        self._entry: wasmtime.Func = exports[self.limits.entry]
        self._tables = [exports[name] for name in tables]
        self._check_growth(0, "load")

    # -- one tick --------------------------------------------------------
    def call(self, observation: bytes, tick: int) -> bytes | Forfeit:
        """Hand ``observation`` to the module and return its raw output bytes,
        or the ``Forfeit`` (also stored on ``self.forfeit``) if it failed."""
        if self.forfeit is not None:
            return self.forfeit
        store = self._store
        store.set_fuel(self.limits.fuel_per_tick)
        try:
            ptr = self._alloc(store, len(observation))
            mem_size = self._memory.data_len(store)
            if not 0 <= ptr <= mem_size - len(observation):
                return self._fail("bad_region", f"alloc({len(observation)}) returned {ptr}, memory is {mem_size} bytes", tick)
            self._memory.write(store, observation, ptr)
            packed = self._entry(store, ptr, len(observation))
        except wasmtime.Trap as trap:
            self._count_fuel()
            return self._classify_trap(trap, tick)
        self._count_fuel()
        if self._check_growth(tick) is not None:
            return self.forfeit
        packed &= (1 << 64) - 1
        out_ptr, out_len = packed >> 32, packed & 0xFFFFFFFF
        mem_size = self._memory.data_len(store)
        if out_ptr + out_len > mem_size:
            return self._fail("bad_region", f"output region [{out_ptr}, +{out_len}) outside memory of {mem_size} bytes", tick)
        if out_len > MAX_OUTPUT_BYTES:
            return self._fail("bad_output", f"output length {out_len} exceeds {MAX_OUTPUT_BYTES} bytes", tick)
        return self._memory.read(store, out_ptr, out_ptr + out_len)

    def decode(self, raw: bytes, tick: int) -> dict | Forfeit:
        """Parse the output bytes as one JSON object (UTF-8)."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return self._fail("bad_output", f"output is not UTF-8: {exc.reason} at byte {exc.start}", tick)
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            return self._fail("bad_output", f"output is not JSON: {exc}", tick)
        if not isinstance(value, dict):
            return self._fail("bad_output", f"output is JSON but not an object: {type(value).__name__}", tick)
        return value

    def fail(self, reason: str, detail: str, tick: int) -> Forfeit:
        """Record a forfeit decided outside the sandbox (schema, legality)."""
        return self._fail(reason, detail, tick)

    # -- helpers ---------------------------------------------------------
    def _fail(self, reason: str, detail: str, tick: int, phase: str = "tick") -> Forfeit:
        self.forfeit = Forfeit(reason, detail, tick, phase)
        return self.forfeit

    def _classify_trap(self, trap: wasmtime.Trap, tick: int, phase: str = "tick") -> Forfeit:
        code = trap.trap_code
        if self._check_growth(tick, phase) is not None:
            return self.forfeit
        if code == wasmtime.TrapCode.OUT_OF_FUEL:
            return self._fail("fuel", f"out of fuel ({self.limits.fuel_per_tick} per tick)", tick, phase)
        name = code.name.lower() if code is not None else "unknown"
        return self._fail("trap", name, tick, phase)

    def _check_growth(self, tick: int, phase: str = "tick") -> Forfeit | None:
        """Forfeit ``memory`` if the memory or an exported table grew past the cap."""
        store = self._store
        memory = getattr(self, "_memory", None)
        if store is None or memory is None:
            return None
        size = memory.data_len(store)
        if size > self.limits.max_memory_bytes:
            return self._fail("memory", f"memory grew to {size} bytes, over the cap of "
                              f"{self.limits.max_memory_bytes}", tick, phase)
        for table in self._tables:
            n = table.size(store)
            if n > MAX_TABLE_ELEMENTS:
                return self._fail("memory", f"a table grew to {n} elements, over the cap of "
                                  f"{MAX_TABLE_ELEMENTS}", tick, phase)
        return None

    def _count_fuel(self) -> None:
        used = self.limits.fuel_per_tick - self._store.get_fuel()
        self.ticks += 1
        self.fuel_total += used
        self.fuel_peak = max(self.fuel_peak, used)

    def fuel_stats(self) -> dict:
        return {"total": self.fuel_total, "peak": self.fuel_peak, "start": self.fuel_start,
                "ticks": self.ticks}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__
