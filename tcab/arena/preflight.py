"""Check an untrusted wasm binary against load limits before anything compiles it.

Compiling is the one step of a controller that fuel does not meter: a 7 MB
module of a million empty functions keeps wasmtime busy for minutes and
gigabytes before the first instruction runs. ``check_module`` reads only the
binary's structure — the header, every section header, the counts at the
head of the sections that declare items, and each function body's size and
local declarations — and refuses the module with ``ModuleRejected`` as soon
as one number is over its limit. It never allocates in proportion to a
declared count: a count is compared with its limit (and with the bytes that
could hold it) before a single item is read. Instructions are not decoded;
what a body does within its size is bounded by the compile worker
(``tcab.arena.compiler``), which runs wasmtime under a wall-time and an
address-space limit.

Limits are ``LoadLimits`` fields with the defaults below; ``from_env``
overrides any of them with ``TCAB_WASM_<FIELD>`` (upper case), rejected
unless finite and positive.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, fields

from tcab.bounds import ENV
from tcab.errors import ArenaError

MAGIC = b"\0asm"
VERSION_1 = b"\1\0\0\0"

# Section ids in the order the binary format requires them (the tag section,
# 13, sits between memory and global; data count, 12, between element and code).
SECTION_ORDER = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}
SECTION_NAMES = {0: "custom", 1: "type", 2: "import", 3: "function", 4: "table", 5: "memory",
                 6: "global", 7: "export", 8: "start", 9: "element", 10: "code", 11: "data",
                 12: "data count", 13: "tag"}
# Section id -> the limit its leading count is held to (None: must be zero).
COUNTED = {1: "max_types", 2: None, 3: "max_functions", 4: "max_tables", 5: "max_memories",
           6: "max_globals", 7: "max_exports", 9: "max_element_segments", 11: "max_data_segments",
           13: "max_tags"}


class ModuleRejected(ValueError):
    """The module breaks the binary format's structure or a load limit; the
    message names the section, the number found and the limit."""


@dataclass(frozen=True, slots=True)
class LoadLimits:
    """What a controller module may declare, and what compiling it may cost.

    The defaults leave an honest controller (a few KiB to a few hundred KiB
    of code, tens to thousands of functions) two orders of magnitude of room
    while keeping the worst module they admit to seconds of compile time.
    """

    max_module_bytes: int = 16 * 1024 * 1024
    max_functions: int = 10_000
    max_code_bytes: int = 4 * 1024 * 1024
    max_function_bytes: int = 128 * 1024
    max_locals: int = 10_000
    max_types: int = 10_000
    max_tables: int = 4
    max_memories: int = 1
    max_globals: int = 10_000
    max_exports: int = 10_000
    max_element_segments: int = 10_000
    max_data_segments: int = 10_000
    max_tags: int = 1_000
    max_custom_sections: int = 1_000
    max_custom_bytes: int = 16 * 1024 * 1024
    compile_seconds: float = 20.0
    compile_memory_bytes: int = 1024 * 1024 * 1024

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            kinds = (int, float) if f.name == "compile_seconds" else (int,)
            if isinstance(value, bool) or not isinstance(value, kinds) \
                    or not math.isfinite(value) or value <= 0:
                raise ArenaError(f"LoadLimits.{f.name}: expected a finite positive "
                                 f"{'number' if f.name == 'compile_seconds' else 'integer'}, got {value!r}")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> LoadLimits:
        """The defaults, overridden by ``TCAB_WASM_<FIELD>`` variables.

        Raises ``ArenaError`` naming the variable for a value that is not a
        finite positive number (integers for every field but ``compile_seconds``).
        """
        if env is None:  # the process's environment: parsed once per distinct set of values
            return _limits_of(tuple((var, os.environ.get(var)) for var in _ENV_VARS))
        values: dict = {}
        for f in fields(cls):
            var = f"TCAB_WASM_{f.name.upper()}"
            text = env.get(var)
            if text is None:
                continue
            try:
                value = float(text) if f.name == "compile_seconds" else int(text, 10)
            except ValueError:
                raise ArenaError(f"{var}: expected a finite positive "
                                 f"{'number' if f.name == 'compile_seconds' else 'integer'}, got {text!r}") from None
            top = ENV[var].shown  # tcab.bounds: the one table of maxima
            if not math.isfinite(value) or value <= 0 or value > ENV[var].maximum:
                raise ArenaError(f"{var}: expected a finite positive "
                                 f"{'number' if f.name == 'compile_seconds' else 'integer'} "
                                 f"of at most {top}, got {text!r}")
            values[f.name] = value
        return cls(**values)


_ENV_VARS = tuple(f"TCAB_WASM_{f.name.upper()}" for f in fields(LoadLimits))


@functools.lru_cache(maxsize=16)
def _limits_of(values: tuple[tuple[str, str | None], ...]) -> LoadLimits:
    return LoadLimits.from_env({var: text for var, text in values if text is not None})


class _Reader:
    """A cursor over ``data[pos:end]`` that never reads past ``end``."""

    __slots__ = ("data", "pos", "end")

    def __init__(self, data: bytes, pos: int, end: int):
        self.data, self.pos, self.end = data, pos, end

    def byte(self, what: str) -> int:
        if self.pos >= self.end:
            raise ModuleRejected(f"truncated module: {what} runs past the end of its section "
                                 f"(offset {self.pos})")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def u32(self, what: str) -> int:
        """An unsigned LEB128 of at most 5 bytes whose value fits 32 bits."""
        start = self.pos
        result = shift = 0
        for _ in range(5):
            b = self.byte(what)
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                if result > 0xFFFFFFFF:
                    raise ModuleRejected(f"{what} at offset {start} does not fit 32 bits")
                return result
            shift += 7
        raise ModuleRejected(f"{what} at offset {start}: LEB128 longer than 5 bytes")

    def leb(self, what: str) -> None:
        """Skip a LEB128 of at most 5 bytes (signed or not)."""
        start = self.pos
        for _ in range(5):
            if not self.byte(what) & 0x80:
                return
        raise ModuleRejected(f"{what} at offset {start}: LEB128 longer than 5 bytes")

    def skip(self, n: int, what: str) -> None:
        if n > self.end - self.pos:
            raise ModuleRejected(f"truncated module: {what} declares {n} bytes at offset {self.pos}, "
                                 f"only {self.end - self.pos} remain")
        self.pos += n


def _over(what: str, found: int, limit_name: str, limit: int) -> ModuleRejected:
    return ModuleRejected(f"{what} is {found}, over the limit {limit_name}={limit}")


def check_module(wasm: bytes, limits: LoadLimits) -> None:
    """Raise ``ModuleRejected`` unless ``wasm`` is a version-1 core module
    whose declared structure fits ``limits``. Cost: one pass over the section
    headers plus one over the function body headers (their count already
    checked), so milliseconds for any input."""
    _check_header(wasm, limits)
    r = _Reader(wasm, 8, len(wasm))
    seen = _Seen()
    while r.pos < r.end:
        sid = r.byte("section id")
        size = r.u32("section size")
        start = r.pos
        name = SECTION_NAMES.get(sid)
        if name is None:
            raise ModuleRejected(f"unknown section id {sid} at offset {start - 2}")
        r.skip(size, f"{name} section")
        body = _Reader(wasm, start, start + size)
        if sid == 0:
            seen.custom(size, limits)
        else:
            seen.in_order(sid, name, start)
            _check_section(sid, name, size, body, seen, limits)


def _check_header(wasm: bytes, limits: LoadLimits) -> None:
    if len(wasm) > limits.max_module_bytes:
        raise _over("module size in bytes", len(wasm), "max_module_bytes", limits.max_module_bytes)
    if wasm[:4] != MAGIC:
        raise ModuleRejected("not a WebAssembly binary (missing \\0asm magic)")
    if wasm[4:8] != VERSION_1:
        raise ModuleRejected(f"not a core module of version 1 (version bytes {wasm[4:8].hex() or 'missing'})")


@dataclass(slots=True)
class _Seen:
    """What the pass over the sections has seen so far."""

    last_rank: int = 0
    customs: int = 0
    custom_bytes: int = 0
    functions: int = 0

    def custom(self, size: int, limits: LoadLimits) -> None:
        self.customs += 1
        self.custom_bytes += size
        if self.customs > limits.max_custom_sections:
            raise _over("number of custom sections", self.customs, "max_custom_sections",
                        limits.max_custom_sections)
        if self.custom_bytes > limits.max_custom_bytes:
            raise _over("total size of custom sections in bytes", self.custom_bytes, "max_custom_bytes",
                        limits.max_custom_bytes)

    def in_order(self, sid: int, name: str, start: int) -> None:
        rank = SECTION_ORDER[sid]
        if rank <= self.last_rank:
            raise ModuleRejected(f"{name} section at offset {start} is out of order or repeated")
        self.last_rank = rank


def _check_section(sid: int, name: str, size: int, body: _Reader, seen: _Seen, limits: LoadLimits) -> None:
    """One non-custom section: its declared count, code size or data count."""
    if sid in COUNTED:
        count = body.u32(f"{name} section count")
        limit_name = COUNTED[sid]
        if limit_name is None:
            if count:
                raise ModuleRejected(f"module has {count} imports; it must be import-free")
            return
        limit = getattr(limits, limit_name)
        if count > limit:
            raise _over(f"number of {name} entries", count, limit_name, limit)
        # Every entry takes at least one byte: a count the section cannot hold is a lie.
        if count > body.end - body.pos:
            raise ModuleRejected(f"{name} section declares {count} entries in {size} bytes")
        if sid == 3:
            seen.functions = count
    elif sid == 10:
        if size > limits.max_code_bytes:
            raise _over("code section size in bytes", size, "max_code_bytes", limits.max_code_bytes)
        _check_code(body, seen.functions, limits)
    elif sid == 12:
        count = body.u32("data count")
        if count > limits.max_data_segments:
            raise _over("declared data count", count, "max_data_segments", limits.max_data_segments)


def _check_code(body: _Reader, functions: int, limits: LoadLimits) -> None:
    count = body.u32("code section count")
    if count != functions:
        raise ModuleRejected(f"code section has {count} bodies, the function section declares {functions}")
    for index in range(count):
        size = body.u32(f"size of function body {index}")
        if size > limits.max_function_bytes:
            raise _over(f"function body {index} size in bytes", size, "max_function_bytes",
                        limits.max_function_bytes)
        start = body.pos
        body.skip(size, f"function body {index}")
        fn = _Reader(body.data, start, start + size)
        groups = fn.u32(f"local groups of function body {index}")
        if groups > size:
            raise ModuleRejected(f"function body {index} declares {groups} local groups in {size} bytes")
        locals_ = 0
        for _ in range(groups):
            locals_ += fn.u32(f"locals of function body {index}")
            if locals_ > limits.max_locals:
                raise _over(f"number of locals of function body {index}", locals_, "max_locals",
                            limits.max_locals)
            # The value type: one byte for numeric and reference shorthands; a
            # typed reference (0x63/0x64) carries a heap type after it.
            vt = fn.byte(f"local type of function body {index}")
            if vt in (0x63, 0x64):
                fn.leb(f"heap type of a local of function body {index}")
