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
    return out
