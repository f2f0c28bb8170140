"""The sandbox's wasmtime engine: one per process, configured once.

Fuel metering on (deterministic budgets, unlike epochs), a small wasm stack
so a runaway recursion traps long before it can touch the host's stack, and
no proposal that would let a module reach outside its own memory (threads,
shared memory). Both the host (:mod:`tcab.arena.engine`) and the compile
worker (:mod:`tcab.arena.compiler`) use this engine, so a module compiled in
the worker loads in the host.
"""

from __future__ import annotations

import threading
from importlib.metadata import version as dist_version

import wasmtime

# A few hundred KiB of wasm stack is plenty for a game controller; a bigger
# stack only makes a hostile recursion slower to trap.
MAX_WASM_STACK = 512 * 1024

_lock = threading.Lock()
_engine: wasmtime.Engine | None = None


def engine_fingerprint() -> str:
    """A short string that changes whenever compiled code would: wasmtime's
    version and our engine settings."""
    version = getattr(wasmtime, "__version__", None)
    if version is None:
        version = dist_version("wasmtime")
    return f"wasmtime-{version}-fuel-stack{MAX_WASM_STACK}"


def get_engine() -> wasmtime.Engine:
    """The process-wide sandbox engine (created on first use)."""
    global _engine
    with _lock:
        if _engine is None:
            cfg = wasmtime.Config()
            cfg.consume_fuel = True
            cfg.max_wasm_stack = MAX_WASM_STACK
            cfg.wasm_threads = False
            cfg.shared_memory = False
            cfg.parallel_compilation = False
            _engine = wasmtime.Engine(cfg)
        return _engine
