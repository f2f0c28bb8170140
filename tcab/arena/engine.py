"""One wasmtime engine per process and a disk cache of compiled modules.

Every controller runs on the engine configured for the sandbox
(:mod:`tcab.arena.wasm`, re-exported here). Compiling a module costs far more than a match tick, and a
tournament loads the same few modules in many matches and processes, so the
compiled artifact is serialized under ``build/modules/`` keyed by the wasm's
sha256 plus the engine's fingerprint, and later loads deserialize it.

``Module.deserialize`` trusts its input: it maps native code and runs it.
A restored ``build/`` (a CI cache) is input, so an artifact is loaded only
if it carries the HMAC-SHA256, under this host's own key, of its name and
bytes: the key lives outside ``build/`` (``$XDG_STATE_HOME/tcab/module-cache.key``,
default ``~/.local/state``, created 0600 on first use), so an artifact
another machine wrote, or one of another module copied under this one's
name, is recompiled, never deserialized. The file is read non-blocking,
bounded, and never through a link (``tcab.reading``); one that fails any
check, or fails to deserialize, is recompiled and overwritten.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import wasmtime

from tcab.arena.compiler import compile_serialized
from tcab.arena.preflight import LoadLimits, check_module
from tcab.arena.wasm import engine_fingerprint, get_engine
from tcab.atomic import write_bytes, write_cache_bytes

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
        self._passed: set[tuple[str, LoadLimits]] = set()  # (digest, limits) the preflight passed
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
        limits = limits or LoadLimits.from_env()
        digest = digest or sha256_hex(wasm)
        module = self._memo.get(digest)
        if module is not None and (digest, limits) in self._passed:
            return module  # these bytes passed these limits already: a scenario or tick loop pays once
        check_module(wasm, limits)
        self._passed.add((digest, limits))
        if module is not None:
            return module
        engine = get_engine()
        path = self._path(digest)
        serialized = _read_artifact(path) if path is not None else None
        if serialized is not None:
            try:
                module = wasmtime.Module.deserialize(engine, serialized)
                self.deserialized += 1
            except wasmtime.WasmtimeError:
                module = None  # stale artifact: recompile below
        if module is None:
            serialized = compile_serialized(wasm, limits)
            module = wasmtime.Module.deserialize(engine, serialized)
            self.compiled += 1
            if path is not None:
                _write_artifact(path, serialized)
        self._memo[digest] = module
        return module

    def _path(self, digest: str) -> Path | None:
        if self.folder is None:
            return None
        return self.folder / f"{digest}-{engine_fingerprint()}.cwasm"


#: The largest compiled artifact read back (a compiled controller is a few MiB).
MAX_ARTIFACT_BYTES = 256 * 1024 * 1024
_MAC_BYTES = 32


def _host_key() -> bytes:
    """This host's key for artifact MACs, outside build/ (made on first use)."""
    import os
    import secrets
    import stat

    from tcab.reading import read_bytes

    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    path = Path(state) / "tcab" / "module-cache.key"
    try:
        key = read_bytes(path, 64, follow=False)
        if len(key) == 32:
            return key
    except FileNotFoundError:
        pass
    except OSError:  # not a regular file: replaced below
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
    # Two processes racing here write two keys; the loser's artifacts are only recompiled.
    key = secrets.token_bytes(32)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_bytes(path, key, mode=0o600)
    return key


def host_mac(name: str, data: bytes) -> bytes:
    """HMAC-SHA256 of ``name`` and ``data`` under this host's key (outside
    ``build/``): a cached result is trusted only if this host wrote it for
    this name (compiled modules here, performance scores)."""
    import hmac

    return hmac.new(_host_key(), name.encode() + b"\0" + data, hashlib.sha256).digest()


def _mac(path: Path, serialized: bytes) -> bytes:
    return host_mac(path.name, serialized)


def _read_artifact(path: Path) -> bytes | None:
    """The serialized module at ``path`` if this host wrote it for this name, else None."""
    import hmac

    from tcab.reading import read_bytes

    try:
        data = read_bytes(path, MAX_ARTIFACT_BYTES + _MAC_BYTES, follow=False, what="compiled module")
    except OSError:
        return None
    mac, serialized = data[:_MAC_BYTES], data[_MAC_BYTES:]
    return serialized if hmac.compare_digest(mac, _mac(path, serialized)) else None


def _write_artifact(path: Path, serialized: bytes) -> None:
    write_cache_bytes(path, _mac(path, serialized) + serialized)  # a forged FIFO or link there is replaced
