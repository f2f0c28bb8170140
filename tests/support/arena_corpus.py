"""Controllers for the tests, written in WAT and compiled with wasmtime.

``controller(dir)`` is a well-behaved controller for the Tally test game: it
finds ``"me":<digit>`` in its observation and orders its own agent to add
``dir``. ``HOSTILE`` maps each hostile case to (module bytes, the forfeit
reason the host must give, the detail it must mention or None).
"""

from __future__ import annotations

import wasmtime

OUT = 1024  # where the canned output lives
BUF = 8192  # where alloc hands out the observation buffer


def _wat_string(data: bytes) -> str:
    return "".join(f"\\{b:02x}" for b in data)


def controller_wat(dir: int = 3, *, body: str = "", extra: str = "", output: bytes | None = None,
                   agent: str = "me", moves: int = 1, memory: int = 2, alloc: str | None = None,
                   exports: tuple[str, ...] = ("memory", "alloc", "tick"),
                   result: str | None = None) -> str:
    """A Tally controller; keyword hooks turn it into a hostile one.

    ``agent``: "me" (own agent), "other" (someone else's). ``moves`` > 1 repeats the
    order (duplicates). ``body`` runs at the start of ``tick``. ``output`` replaces
    the JSON. ``result`` replaces the packed (ptr, len) i64 expression.
    """
    if output is None:
        one = b'{"agent":0,"dir":%d}' % dir
        output = b'{"moves":[' + b",".join([one] * moves) + b"]}"
    agent_offsets = [OUT + len(b'{"moves":[') + i * (len(b'{"agent":0,"dir":0}') + 1) + len(b'{"agent":')
                     for i in range(moves)]
    patch = ""
    if agent in ("me", "other"):
        value = "(local.get $d)" if agent == "me" else \
            "(select (i32.const 49) (i32.const 48) (i32.eq (local.get $d) (i32.const 48)))"
        patch = "".join(f"(i32.store8 (i32.const {o}) {value})" for o in agent_offsets)
    e = set(exports)
    alloc_body = alloc or f"(i32.const {BUF})"
    packed = result or f"(i64.or (i64.shl (i64.const {OUT}) (i64.const 32)) (i64.const {len(output)}))"
    return f"""(module
  (memory {'(export "memory")' if 'memory' in e else ''} {memory})
  (data (i32.const {OUT}) "{_wat_string(output)}")
  {extra}
  (func {'(export "alloc")' if 'alloc' in e else ''} (param $n i32) (result i32) {alloc_body})
  (func {'(export "tick")' if 'tick' in e else ''} (param $p i32) (param $n i32) (result i64)
    (local $i i32) (local $d i32)
    {body}
    (local.set $d (i32.const 48))
    (block $done (loop $scan
      (br_if $done (i32.ge_s (local.get $i) (i32.sub (local.get $n) (i32.const 5))))
      (if (i32.and
            (i32.and (i32.eq (i32.load8_u (i32.add (local.get $p) (local.get $i))) (i32.const 34))
                     (i32.eq (i32.load8_u offset=1 (i32.add (local.get $p) (local.get $i))) (i32.const 109)))
            (i32.and (i32.eq (i32.load8_u offset=2 (i32.add (local.get $p) (local.get $i))) (i32.const 101))
                     (i32.eq (i32.load8_u offset=3 (i32.add (local.get $p) (local.get $i))) (i32.const 34))))
        (then (local.set $d (i32.load8_u offset=5 (i32.add (local.get $p) (local.get $i)))) (br $done)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $scan)))
    {patch}
    {packed}))
"""


def controller(dir: int = 3, **kw) -> bytes:
    return wasmtime.wat2wasm(controller_wat(dir, **kw))


SPIN = "(loop $l (br $l))"

HOSTILE_WAT: dict[str, tuple[dict, str, str | None]] = {
    "infinite_loop": (dict(body=SPIN), "fuel", "out of fuel"),
    "start_loop": (dict(extra="(func $s (loop $l (br $l))) (start $s)"), "fuel", "out of fuel"),
    "memory_bomb": (dict(body="(block $b (loop $l (br_if $b (i32.eq (memory.grow (i32.const 1)) (i32.const -1))) (br $l))) unreachable"),
                    "memory", "over the cap"),
    "huge_initial_memory": (dict(memory=4096), "memory", "instantiation refused"),
    "initial_memory_over_cap": (dict(memory=40), "memory", "over the cap"),
    "start_memory_bomb": (dict(extra="(func $s (loop $l (br_if $l (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))) (start $s)"),
                          "memory", "over the cap"),
    "table_growth": (dict(extra='(table (export "t") 1 funcref)',
                          body="(block $b (loop $l (br_if $b (i32.eq (table.grow (ref.null func) (i32.const 64)) (i32.const -1))) (br $l))) unreachable"),
                     "memory", "over the cap"),
    "stack_overflow": (dict(extra="(func $r (param i32) (result i32) (i32.add (call $r (local.get 0)) (i32.const 1)))",
                            body="(drop (call $r (i32.const 0)))"), "trap", "stack_overflow"),
    "unreachable": (dict(body="unreachable"), "trap", "unreachable"),
    "division_by_zero": (dict(body="(drop (i32.div_u (i32.const 1) (i32.sub (local.get $n) (local.get $n))))"),
                         "trap", "integer_division_by_zero"),
    "region_out_of_bounds": (dict(result="(i64.const 0x7fffff0000000010)"), "bad_region", "outside memory"),
    "absurd_length": (dict(result=f"(i64.const {(OUT << 32) | 0xFFFFFFFF})"), "bad_region", "outside memory"),
    "too_long_output": (dict(memory=26, result=f"(i64.const {(OUT << 32) | (3 << 19)})"), "bad_output", "exceeds"),
    "bad_alloc": (dict(alloc="(i32.const -8)"), "bad_region", "alloc"),
    "invalid_utf8": (dict(output=b'{"moves":[\xff\xfe]}', agent="none"), "bad_output", "not UTF-8"),
    "invalid_json": (dict(output=b'{"moves": [', agent="none"), "bad_output", "not JSON"),
    "json_not_object": (dict(output=b'[1, 2, 3]', agent="none"), "bad_output", "not an object"),
    "schema_invalid": (dict(output=b'{"moves":"all of them"}', agent="none"), "bad_output", "schema"),
    "not_your_agent": (dict(agent="other"), "illegal", "not yours"),
    "duplicate_orders": (dict(moves=2), "illegal", "duplicate"),
    "missing_exports": (dict(exports=("memory", "tick")), "load", "alloc"),
    "wrong_entry_type": (dict(result="(i64.const 0)", exports=("memory", "alloc")), "load", "tick"),
}

IMPORTING = '(module (import "env" "now" (func $now (result i32))) (memory (export "memory") 1) ' \
            '(func (export "alloc") (param i32) (result i32) (call $now)) ' \
            '(func (export "tick") (param i32 i32) (result i64) (i64.const 0)))'


def hostile() -> dict[str, tuple[bytes, str, str | None]]:
    """Every hostile case: name -> (bytes, expected reason, expected detail part)."""
    out = {name: (controller(3, **kw), reason, detail) for name, (kw, reason, detail) in HOSTILE_WAT.items()}
    out["imports"] = (wasmtime.wat2wasm(IMPORTING), "load", "import")
    out["not_wasm"] = (b"#!/bin/sh\necho this is not wasm\n", "load", "not a WebAssembly binary")
    out["wat_text"] = (b'(module (memory (export "memory") 1))', "load", "not a WebAssembly binary")
    out["truncated_wasm"] = (controller(3)[:40], "load", None)
    out.update(compile_bombs())
    return out


# -- compile bombs: built as bytes in the test, never committed ------------
#
# Each is an honest controller with something appended, so that without the
# load limits it would compile (slowly, hugely) and then play normally. The
# encoder below is deliberately independent of tcab.arena.preflight.

def leb(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def section(sid: int, payload: bytes) -> bytes:
    return bytes([sid]) + leb(len(payload)) + payload


def split_sections(wasm: bytes) -> list[tuple[int, bytes]]:
    """(id, payload) of each section of a well-formed module."""
    out, pos = [], 8
    while pos < len(wasm):
        sid = wasm[pos]
        pos += 1
        size = shift = 0
        while True:
            b = wasm[pos]
            pos += 1
            size |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        out.append((sid, wasm[pos:pos + size]))
        pos += size
    return out


def _read_count(payload: bytes) -> tuple[int, bytes]:
    n = shift = i = 0
    while True:
        b = payload[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, payload[i:]


def _vec_append(payload: bytes, items: list[bytes] | tuple[int, bytes]) -> bytes:
    """Append items to a vector section's payload (``(count, raw bytes)`` for many)."""
    count, rest = _read_count(payload)
    extra_n, extra = (len(items), b"".join(items)) if isinstance(items, list) else items
    return leb(count + extra_n) + rest + extra


def grown(base: bytes | None = None, *, types: list[bytes] | None = None,
          funcs: tuple[int, bytes, bytes] | None = None, replace: dict[int, bytes] | None = None,
          tail: bytes = b"") -> bytes:
    """``base`` (an honest controller) with types and functions appended at the
    end of their index spaces (nothing renumbered), sections replaced, and raw
    bytes appended. ``funcs`` is (count, function section bytes, code bytes)."""
    base = base or controller(1)
    parts = []
    for sid, payload in split_sections(base):
        if sid == 1 and types:
            payload = _vec_append(payload, types)
        elif sid == 3 and funcs:
            payload = _vec_append(payload, (funcs[0], funcs[1]))
        elif sid == 10 and funcs:
            payload = _vec_append(payload, (funcs[0], funcs[2]))
        if replace and sid in replace:
            payload = replace[sid]
        parts.append(section(sid, payload))
    return base[:8] + b"".join(parts) + tail


EMPTY_TYPE = b"\x60\x00\x00"  # () -> ()


def _funcs(n: int, body: bytes, type_index: int) -> tuple[int, bytes, bytes]:
    entry = leb(len(body)) + body
    return n, leb(type_index) * n, entry * n


def _types_of(wasm: bytes) -> int:
    return next(_read_count(p)[0] for sid, p in split_sections(wasm) if sid == 1)


def many_functions(n: int = 999_000) -> bytes:
    """The issue's bomb: ``n`` empty functions (the honest controller's code after them)."""
    base = controller(1)
    return grown(base, types=[EMPTY_TYPE], funcs=_funcs(n, b"\x00\x0b", _types_of(base)))


def function_of(code: bytes, locals_: bytes = b"\x00") -> bytes:
    """The honest controller plus one () -> () function ``locals_ code end``."""
    base = controller(1)
    return grown(base, types=[EMPTY_TYPE], funcs=_funcs(1, locals_ + code + b"\x0b", _types_of(base)))


def nested_blocks(depth: int) -> bytes:
    return function_of(b"\x02\x40" * depth + b"\x0b" * depth)


def big_br_table(targets: int) -> bytes:
    # block; i32.const 0; br_table 0 0 ... 0; end
    return function_of(b"\x02\x40\x41\x00\x0e" + leb(targets) + b"\x00" * (targets + 1) + b"\x0b")


def many_locals(n: int) -> bytes:
    return function_of(b"", locals_=b"\x01" + leb(n) + b"\x7f")


def many_types(n: int) -> bytes:
    return grown(types=[EMPTY_TYPE] * n)


def many_nested_loops(functions: int = 4, depth: int = 20_000) -> bytes:
    """Admitted by every declared-size limit (60 KB per body), yet Cranelift
    needs about 9 s per body on the reference machine: only the compile
    worker's time limit stops it."""
    base = controller(1)
    body = b"\x01\x01\x7f" + b"\x03\x40" * depth + b"\x20\x00\x21\x00" + b"\x0b" * depth + b"\x0b"
    return grown(base, types=[EMPTY_TYPE], funcs=_funcs(functions, body, _types_of(base)))


MEMORY_IMPORT = '(module (import "env" "memory" (memory 1)) (export "memory" (memory 0)) ' \
                '(func (export "alloc") (param i32) (result i32) (i32.const 0)) ' \
                '(func (export "tick") (param i32 i32) (result i64) (i64.const 0)))'


def compile_bombs() -> dict[str, tuple[bytes, str, str]]:
    """Modules that attack loading itself: name -> (bytes, "load", the detail
    that names the limit or the defect). Built here, never committed."""
    honest = controller(1)
    data = dict(split_sections(honest))[11]
    # Up to the code section (no data, no custom sections), so a cut lands in the code.
    upto_code = honest[:8] + b"".join(section(i, p) for i, p in split_sections(honest) if i not in (0, 11))
    return {
        "many_functions": (many_functions(999_000), "load", "max_functions=10000"),
        "huge_function_body": (function_of(b"\x01" * 200_000), "load", "max_function_bytes=131072"),
        "deeply_nested_loops": (many_nested_loops(), "load", "compile_seconds="),
        "huge_locals_count": (many_locals(0xFFFFFFFF), "load", "max_locals=10000"),
        "many_types": (many_types(100_000), "load", "max_types=10000"),
        "data_count_huge": (grown(replace={11: leb(0xFFFFFFFF) + data[1:4]}), "load", "max_data_segments=10000"),
        "data_count_lie": (grown(replace={11: leb(9000) + b"\x00"}), "load", "declares 9000 entries in 3 bytes"),
        "giant_br_table": (big_br_table(200_000), "load", "max_function_bytes=131072"),
        "enormous_section_length": (honest + b"\x00\xf0\xff\xff\xff\x0f\x01x", "load",
                                    "custom section declares 4294967280 bytes"),
        "truncated_code": (upto_code[:-9], "load", "truncated module: code section declares"),
        "leb_overflow": (honest + b"\x00\x80\x80\x80\x80\x80\x00", "load", "LEB128 longer than 5 bytes"),
        "custom_section_flood": (honest + section(0, b"\x00") * 5000, "load", "max_custom_sections=1000"),
        "repeated_section": (honest + section(1, b"\x00"), "load", "out of order or repeated"),
        "component_binary": (b"\0asm\x0d\x00\x01\x00", "load", "not a core module"),
        "two_memories": (wasmtime.wat2wasm(controller_wat(1, extra="(memory 1)")), "load", "max_memories=1"),
        "memory_import": (wasmtime.wat2wasm(MEMORY_IMPORT), "load", "import-free"),
    }
