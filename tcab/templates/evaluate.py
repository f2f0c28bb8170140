"""Rendering a parsed template the way handlebars.js 4.7 renders it with
``strict: true, noEscape: true`` — with one deliberate difference: a name
that does not resolve is an error wherever it is used, including in a
helper's argument (``{{#if typo}}``), where handlebars.js quietly passes
``undefined``. Every problem met on the rendered path is collected, each
with the line and column of its ``{{``.

Values print as JavaScript prints them (``true``, ``1.5``, ``1e+21``,
arrays joined by commas) and truthiness is JavaScript's as Handlebars'
``if`` sees it: ``{}`` is true; ``0``, ``""``, ``[]``, ``false``, null are false.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcab.templates.parse import Block, Call, Comment, Literal, Mustache, Path, Program, Text

_MISSING = object()


class _Problem(Exception):
    def __init__(self, pos: int, message: str):
        super().__init__(message)
        self.pos = pos


def js_truthy(value: Any) -> bool:
    if value is None or value is _MISSING or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True  # objects and arrays, even empty ones


def _is_empty(value: Any) -> bool:
    """Handlebars' isEmpty: what ``if``/``with`` treat as empty."""
    if isinstance(value, list | tuple):
        return len(value) == 0
    is_zero = isinstance(value, int | float) and not isinstance(value, bool) and value == 0
    return not js_truthy(value) and not is_zero


def _js_number(value: float) -> str:
    """``String(number)``: the shortest round-trip digits, laid out by ECMAScript's rules."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    from decimal import Decimal  # a number's layout only: most renders never import it

    sign, digits, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    mantissa = "".join(map(str, digits))
    k, n = len(mantissa), len(mantissa) + exponent  # value = 0.mantissa * 10**n
    minus = "-" if value < 0 else ""
    if k <= n <= 21:
        return minus + mantissa + "0" * (n - k)
    if 0 < n <= 21:
        return minus + mantissa[:n] + "." + mantissa[n:]
    if -6 < n <= 0:
        return minus + "0." + "0" * -n + mantissa
    e = n - 1
    rest = "." + mantissa[1:] if k > 1 else ""
    return f"{minus}{mantissa[0]}{rest}e{'+' if e >= 0 else '-'}{abs(e)}"


def js_string(value: Any) -> str:
    """``String(value)`` in JavaScript, for the values TOML and JSON hold."""
    if value is None or value is _MISSING:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value) if abs(value) < 10**21 else _js_number(float(value))
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return ",".join("" if v is None else js_string(v) for v in value)
    if isinstance(value, Mapping):
        return "[object Object]"
    return str(value)


def _js_equal(a: Any, b: Any) -> bool:
    """``a === b`` for plain data (objects compare by identity)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if a is None or b is None:
        return a is b
    return a is b


def _array_index(key: str) -> bool:
    return key.isdigit() and (key == "0" or not key.startswith("0")) and int(key) < 2**32 - 1


def js_keys(value: Mapping) -> list:
    """``Object.keys`` order: integer-like keys ascending, then the rest as written."""
    keys = [k for k in value]
    ints = sorted((k for k in keys if isinstance(k, str) and _array_index(k)), key=int)
    return ints + [k for k in keys if not (isinstance(k, str) and _array_index(k))]


INLINE_HELPERS = {
    "eq": lambda a, b: _js_equal(a, b),
    "ne": lambda a, b: not _js_equal(a, b),
    "and": lambda *args: all(js_truthy(a) for a in args),
    "or": lambda *args: any(js_truthy(a) for a in args),
    "not": lambda a: not js_truthy(a),
}
BLOCK_HELPERS = ("if", "unless", "each", "with")
ALL_HELPERS = (*BLOCK_HELPERS, "lookup", *INLINE_HELPERS)


@dataclass(frozen=True)
class _Data:
    values: Mapping[str, Any]
    parent: _Data | None = None


class Renderer:
    """Renders one tree against one context, collecting problems instead of stopping."""

    def __init__(self, context: Any):
        self.root = context
        self.problems: list[tuple[int, str]] = []

    def problem(self, pos: int, message: str) -> None:
        if (pos, message) not in self.problems:
            self.problems.append((pos, message))

    def program(self, program: Program | None, depths: list[Any], data: _Data) -> str:
        if program is None:
            return ""
        out = []
        for node in program.body:
            if isinstance(node, Text):
                out.append(node.value)
            elif isinstance(node, Mustache):
                out.append(js_string(self.guard(node.pos, lambda n=node: self.mustache(n, depths, data))))
            elif isinstance(node, Block):
                out.append(self.guard(node.pos, lambda n=node: self.block(n, depths, data), ""))
            elif isinstance(node, Comment):
                continue
        return "".join(out)

    def guard(self, pos: int, fn: Any, default: Any = None) -> Any:
        try:
            return fn()
        except _Problem as exc:
            self.problem(exc.pos or pos, str(exc))
            return default

    # -- values ------------------------------------------------------------------
    def lookup(self, path: Path, pos: int, depths: list[Any], data: _Data) -> Any:
        if path.data:
            frame: _Data | None = data
            for _ in range(path.depth):
                frame = frame.parent if frame else None
            name, rest = path.parts[0], path.parts[1:]
            if name == "root":
                value = self.root
            elif frame is None or name not in frame.values:
                raise _Problem(pos, f"unknown variable {path.text!r} (only inside {{{{#each}}}})"
                               if name in ("index", "key", "first", "last")
                               else f"unknown variable {path.text!r}")
            else:
                value = frame.values[name]
        else:
            if path.depth >= len(depths):
                raise _Problem(pos, f"unknown variable {path.text!r}: no enclosing context that deep")
            value, rest = depths[path.depth], path.parts
        for seg in rest:
            if isinstance(value, Mapping) and seg in value:
                value = value[seg]
            elif isinstance(value, list | tuple) and seg == "length":
                value = len(value)
            elif isinstance(value, list | tuple) and _array_index(seg) and int(seg) < len(value):
                value = value[int(seg)]
            else:
                raise _Problem(pos, f"unknown variable {path.text!r}")
        return value

    def argument(self, node: Any, pos: int, depths: list[Any], data: _Data) -> Any:
        if isinstance(node, Literal):
            return node.value
        if isinstance(node, Path):
            return self.lookup(node, pos, depths, data)
        return self.call(node, depths, data, sub=True)

    def call(self, call: Call, depths: list[Any], data: _Data, sub: bool = False) -> Any:
        path = call.path
        if path.simple and path.parts[0] in INLINE_HELPERS:
            args = [self.argument(a, call.pos, depths, data) for a in call.params]
            try:
                return INLINE_HELPERS[path.parts[0]](*args)
            except TypeError:
                raise _Problem(call.pos, f"wrong number of arguments for {path.text!r}") from None
        if path.simple and path.parts[0] == "lookup":
            if len(call.params) != 2:
                raise _Problem(call.pos, "lookup takes two arguments: {{lookup object key}}")
            obj, key = (self.argument(a, call.pos, depths, data) for a in call.params)
            return self._lookup_helper(obj, key)
        if path.simple and path.parts[0] in BLOCK_HELPERS:
            raise _Problem(call.pos, f"{path.text!r} is a block helper: write {{{{#{path.text} ...}}}}")
        if call.params and len(call.params) == 1 and isinstance(call.params[0], Literal) and (
                call.path.text == str(call.params[0].value)):
            return call.params[0].value  # a literal standing alone: {{"text"}}, {{1}}
        if call.params or call.hash:
            raise _Problem(call.pos, f"unknown helper {path.text!r}; helpers: {', '.join(ALL_HELPERS)}")
        return self.lookup(path, call.pos, depths, data)

    @staticmethod
    def _lookup_helper(obj: Any, key: Any) -> Any:
        if not js_truthy(obj):
            return obj
        name = js_string(key)
        if isinstance(obj, Mapping):
            return obj.get(name)
        if isinstance(obj, list | tuple):
            if name == "length":
                return len(obj)
            return obj[int(name)] if _array_index(name) and int(name) < len(obj) else None
        return None

    def mustache(self, node: Mustache, depths: list[Any], data: _Data) -> Any:
        return self.call(node.call, depths, data)

    # -- blocks ------------------------------------------------------------------
    def block(self, block: Block, depths: list[Any], data: _Data) -> str:
        call, name = block.call, block.call.path.parts[0] if block.call.path.simple else None
        if name in BLOCK_HELPERS:
            if len(call.params) != 1:
                raise _Problem(block.pos, f"{{{{#{name}}}}} takes exactly one argument")
            value = self.argument(call.params[0], block.pos, depths, data)
            return getattr(self, f"_{name}")(block, value, depths, data)
        if name in INLINE_HELPERS or name == "lookup":
            raise _Problem(block.pos, f"{name!r} is not a block helper; write {{{{#if ({name} ...)}}}}")
        if call.params or call.hash:
            raise _Problem(block.pos, f"unknown block helper {call.path.text!r}; "
                           f"helpers: {', '.join(BLOCK_HELPERS)}")
        value = self.lookup(call.path, block.pos, depths, data)
        return self._section(block, value, depths, data)

    def _if(self, block: Block, value: Any, depths: list, data: _Data) -> str:
        zero = dict(block.call.hash).get("includeZero")
        include_zero = js_truthy(zero.value) if isinstance(zero, Literal) else False
        empty = (not include_zero and not js_truthy(value)) or (
            isinstance(value, list | tuple) and not value)
        return self.program(block.inverse if empty else block.program, depths, data)

    def _unless(self, block: Block, value: Any, depths: list, data: _Data) -> str:
        empty = not js_truthy(value) or (isinstance(value, list | tuple) and not value)
        return self.program(block.program if empty else block.inverse, depths, data)

    def _with(self, block: Block, value: Any, depths: list, data: _Data) -> str:
        if _is_empty(value):
            return self.program(block.inverse, depths, data)
        return self.program(block.program, self._push(value, depths), data)

    def _each(self, block: Block, value: Any, depths: list, data: _Data) -> str:
        if isinstance(value, Mapping):
            items = [(k, value[k]) for k in js_keys(value)]
        elif isinstance(value, list | tuple):
            items = list(enumerate(value))
        else:
            items = []
        if not items:
            return self.program(block.inverse, depths, data)
        out = []
        last = len(items) - 1
        for i, (key, item) in enumerate(items):
            frame = _Data({**data.values, "key": key, "index": i, "first": i == 0,
                           "last": i == last}, parent=data)
            out.append(self.program(block.program, self._push(item, depths), frame))
        return "".join(out)

    def _section(self, block: Block, value: Any, depths: list, data: _Data) -> str:
        """Handlebars' blockHelperMissing: ``{{#name}}`` / ``{{^name}}`` of a plain value."""
        if value is True:
            return self.program(block.program, depths, data)
        if value is False or value is None:
            return self.program(block.inverse, depths, data)
        if isinstance(value, list | tuple):
            return self._each(block, value, depths, data)
        return self.program(block.program, self._push(value, depths), data)

    @staticmethod
    def _push(value: Any, depths: list) -> list:
        top = depths[0]
        same = value is top or (
            not isinstance(value, Mapping | list | tuple) and type(value) is type(top) and value == top)
        return depths if same else [value, *depths]


def render_tree(program: Program, context: Mapping[str, Any]) -> tuple[str, list[tuple[int, str]]]:
    """(output, problems as (offset, message))."""
    renderer = Renderer(context)
    data = _Data({"root": context})
    out = renderer.program(program, [context], data)
    return out, renderer.problems

