"""One wasmtime engine per process and a disk cache of compiled modules.

Every controller runs on the engine configured for the sandbox
(:mod:`tcab.arena.wasm`, re-exported here). Compiling a module costs far more than a match tick, and a
tournament loads the same few modules in many matches and processes, so the
compiled artifact is serialized under ``build/modules/`` keyed by the wasm's
sha256 plus the engine's fingerprint, and later loads deserialize it.

``Module.deserialize`` trusts its input; the cache is only ever written by
this module from bytes wasmtime compiled itself, and a cache entry that fails
to deserialize is recompiled and overwritten.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import wasmtime

from tcab.arena.compiler import compile_serialized
from tcab.arena.preflight import LoadLimits, check_module
from tcab.arena.wasm import engine_fingerprint, get_engine
from tcab.atomic import write_bytes

WASM_MAGIC = b"\0asm"
# A controller is a small program; a module file larger than this is refused
# before it is read (a match, a contestant, a build's output), so a huge file
# cannot fill the host's memory.
MAX_MODULE_BYTES = 64 * 1024 * 1024


class NotWasm(ValueError):
    """The bytes handed over as a module are not a wasm binary."""


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ModuleCache:
    """Compiled modules by sha256: in memory for this process, on disk in ``folder``.

    ``folder`` None keeps the cache in memory only (tests, one-off matches).
    """

    def __init__(self, folder: Path | None = None):
        self.folder = folder
        self._memo: dict[str, wasmtime.Module] = {}
        self.compiled = 0
        self.deserialized = 0

    def load(self, wasm: bytes, digest: str | None = None, limits: LoadLimits | None = None) -> wasmtime.Module:
        """Compile ``wasm`` (or reuse its cached compilation).

        The module is first checked against ``limits`` (default
        ``LoadLimits.from_env()``) and compiled only in the bounded worker of
        ``tcab.arena.compiler``. Raises ``NotWasm`` for bytes that are not a
        wasm binary (text/WAT is refused too, since wasmtime would parse it)
        and ``ModuleRejected`` for a module over a limit or invalid.
        """
        if not wasm.startswith(WASM_MAGIC):
            raise NotWasm("not a WebAssembly binary (missing \\0asm magic)")
        check_module(wasm, limits or LoadLimits.from_env())
        digest = digest or sha256_hex(wasm)
        module = self._memo.get(digest)
        if module is not None:
            return module
        engine = get_engine()
        path = self._path(digest)
        if path is not None and path.is_file():
            try:
                module = wasmtime.Module.deserialize(engine, path.read_bytes())
                self.deserialized += 1
            except wasmtime.WasmtimeError:
                module = None  # stale or foreign artifact: recompile below
        if module is None:
            serialized = compile_serialized(wasm, limits or LoadLimits.from_env())
            module = wasmtime.Module.deserialize(engine, serialized)
            self.compiled += 1
            if path is not None:
                write_bytes(path, serialized)
        self._memo[digest] = module
        return module

    def _path(self, digest: str) -> Path | None:
        if self.folder is None:
            return None
        return self.folder / f"{digest}-{engine_fingerprint()}.cwasm"
