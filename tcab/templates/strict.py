"""The strict check: every name a parsed template uses must exist in its context.

pybars3 renders an unknown name as an empty string (it catches the lookup
failure), and its ``each`` swallows TypeErrors, so a typo in a spec template
would silently ship a spec with a hole in it. Instead of patching pybars we
walk its parse tree with the actual context, the way rendering would scope
it (``each`` over every item, ``with``, ``../``, ``@root``, ``@index``), and
report each path that does not resolve.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

INLINE_HELPERS = ("eq", "ne", "and", "or", "not")
BLOCK_HELPERS = ("if", "unless", "each", "with")
LOOP_DATA = ("@index", "@key", "@first", "@last")


@dataclass(frozen=True, slots=True)
class Frame:
    value: Any
    loop: bool = False


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def path_text(segments: list[str]) -> str:
    """How a parsed path is shown in messages: ``variant.params.size``, ``../workspace``."""
    out = ""
    for seg in segments:
        if seg == "@_parent":
            out += "../"
        elif seg:
            out += seg if not out or out.endswith("/") else f".{seg}"
    return out or "this"


def lookup(scopes: list[Frame], segments: list[str]) -> tuple[bool, Any]:
    """Resolve a path against the scope stack: (found, value)."""
    segs = [s for s in segments if s != ""]
    depth = len(scopes) - 1
    while segs and segs[0] == "@_parent":
        depth -= 1
        segs = segs[1:]
    if depth < 0:
        return False, None
    frame = scopes[depth]
    value = frame.value
    if segs and segs[0] == "@root":
        value, segs = scopes[0].value, segs[1:]
    elif segs and segs[0] in LOOP_DATA:
        return frame.loop and len(segs) == 1, None
    elif segs and segs[0] == "this":
        segs = segs[1:]
    for seg in segs:
        if isinstance(value, Mapping) and seg in value:
            value = value[seg]
        elif _is_list(value) and seg.isdigit() and int(seg) < len(value):
            value = value[int(seg)]
        elif _is_list(value) and seg == "length":
            value = len(value)
        else:
            return False, None
    return True, value


class Checker:
    """Collects the problems of one template against one context."""

    def __init__(self, context: Mapping[str, Any]):
        self.problems: list[str] = []
        self.context = context

    def _unknown(self, segments: list[str]) -> None:
        text = path_text(segments)
        message = f"unknown variable {text!r}"
        if message not in self.problems:
            self.problems.append(message)

    def _value(self, node: Any, scopes: list[Frame]) -> tuple[bool, Any]:
        """Check an argument node; return (known, value) for paths."""
        kind = node[0]
        if kind == "path":
            found, value = lookup(scopes, node[1])
            if not found:
                self._unknown(node[1])
            return found, value
        if kind == "subexpr":
            name = path_text(node[1][1])
            if name not in INLINE_HELPERS:
                self.problems.append(
                    f"unknown helper {name!r}; helpers: {', '.join(INLINE_HELPERS)}"
                )
            for arg in node[2]:
                self._value(arg, scopes)
            return False, None
        if kind == "kwparam":
            return self._value(node[2], scopes)
        return False, None  # literalparam

    def walk(self, tree: list[Any], scopes: list[Frame]) -> None:
        for node in tree[1:]:
            self._node(node, scopes)

    def _node(self, node: Any, scopes: list[Frame]) -> None:
        kind = node[0]
        if kind in ("expand", "escapedexpand"):
            segments, args = node[1][1], node[2]
            name = path_text(segments)
            if name in INLINE_HELPERS:
                for arg in args:
                    self._value(arg, scopes)
            elif args:
                self.problems.append(
                    f"unknown helper {name!r}; helpers: {', '.join(INLINE_HELPERS)}"
                )
            else:
                self._value(node[1], scopes)
        elif kind == "block":
            self._block(node[1], node[2], node[3], node[4], scopes)
        elif kind == "invertedblock":
            self._value(("path", [node[1]]), scopes)
            self.walk(node[3], scopes)
            if node[4]:
                self.walk(node[4], scopes)
        elif kind == "partial":
            self.problems.append("partials ({{> ...}}) are not supported")

    def _block(
        self, name: str, args: list[Any], body: list[Any], alt: list[Any], scopes: list[Frame]
    ) -> None:
        if name in BLOCK_HELPERS:
            if len(args) != 1:
                self.problems.append(f"{{{{#{name}}}}} takes exactly one argument")
                return
            found, value = self._value(args[0], scopes)
        elif name in INLINE_HELPERS:
            self.problems.append(f"{name!r} is not a block helper; write {{{{#if ({name} ...)}}}}")
            return
        elif args:
            self.problems.append(f"unknown block helper {name!r}; helpers: {', '.join(BLOCK_HELPERS)}")
            return
        else:  # a section: {{#name}} iterates a list, enters a table, or tests a value
            found, value = self._value(("path", [name]), scopes)
            name = "each" if _is_list(value) or isinstance(value, Mapping) else "if"
            if isinstance(value, Mapping):
                name = "with"
        if name == "each" and found and not (_is_list(value) or isinstance(value, Mapping)):
            self.problems.append(f"{{{{#each}}}} needs a list or a table, got {type(value).__name__}")
        elif name == "each" and found:
            items = list(value.values()) if isinstance(value, Mapping) else list(value)
            for item in items:
                self.walk(body, [*scopes, Frame(item, loop=True)])
        elif name == "with" and found:
            self.walk(body, [*scopes, Frame(value)])
        elif name in ("if", "unless") or not found:
            self.walk(body, scopes)
        if alt:
            self.walk(alt, scopes)


def check_tree(tree: list[Any], context: Mapping[str, Any]) -> list[str]:
    """Every problem of a parsed template against ``context`` (empty when it is fine)."""
    checker = Checker(context)
    checker.walk(tree, [Frame(context)])
    return checker.problems
