"""Typed reads from a parsed TOML table that record problems instead of raising.

A catalog scan reports every problem at once, so a wrong value does not stop
the parse: the reader records a ``Problem`` (file, key, line, what is
accepted, what arrived, in the manner of doit's ``check_attr``) and returns
``None``; the caller builds what it can.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcab.catalog.layout import KEBAB
from tcab.errors import Problem

_ARRAY_HEADER = re.compile(r"^\s*\[\[\s*([^\]]+?)\s*\]\]")
_TABLE_HEADER = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]")


def humanize(slug: str) -> str:
    """``"night-mode"`` -> ``"Night Mode"`` (the default display name)."""
    return " ".join(part.capitalize() for part in slug.split("-"))


def show(value: Any) -> str:
    """A value as the user wrote it, for "got ..." in messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"{value} ({type(value).__name__})"


@dataclass(slots=True)
class Source:
    """One TOML file being parsed: its display name, its text, and the problems found."""

    path: Path
    display: str
    text: str
    problems: list[Problem] = field(default_factory=list)

    def line_of(self, table: str | None, key: str | None, index: int | None = None) -> int | None:
        """Best-effort line of ``key`` in ``[table]`` (or ``[[table]]`` number ``index``)."""
        current: str | None = None
        seen: dict[str, int] = {}
        for number, line in enumerate(self.text.splitlines(), start=1):
            if m := _ARRAY_HEADER.match(line):
                current = m.group(1)
                seen[current] = seen.get(current, 0) + 1
                if key is None and current == table and seen[current] == index:
                    return number
                continue
            if m := _TABLE_HEADER.match(line):
                current = m.group(1)
                if key is None and current == table and index is None:
                    return number
                continue
            if key is None or current != table:
                continue
            if index is not None and seen.get(current) != index:
                continue
            if re.match(rf'^\s*"?{re.escape(key)}"?\s*=', line):
                return number
        return None

    def add(
        self, key: str | None, message: str, *, table: str | None = None, index: int | None = None
    ) -> None:
        """Record a problem at ``key`` of ``table`` (``index`` is 1-based for ``[[table]]``)."""
        # A dotted key is inside an inline value (``actions = [{...}]``,
        # ``validation = {...}``): the line of its outermost key, since a tail
        # such as ``id`` would otherwise find the enclosing table's own ``id``.
        bare = re.sub(r"\[\d+\]$", "", key.split(".")[0]) if key else None
        line = self.line_of(table, bare, index)
        if line is None and table is not None:
            # An inline array of tables (``reference = [{...}]``): the line of its key.
            line = self.line_of(None, table)
        self.problems.append(Problem(self.display, message, key=label(table, key, index), line=line))


def label(table: str | None, key: str | None, index: int | None = None) -> str | None:
    """How a key is named in messages: ``slug``, ``[build].module``, ``[[spec]][2].source``."""
    if table is None:
        return key
    head = f"[[{table}]][{index}]" if index is not None else f"[{table}]"
    return f"{head}.{key}" if key else head


class Fields:
    """Reads the keys of one table; ``done()`` reports the keys nobody asked for."""

    def __init__(
        self,
        data: dict[str, Any],
        source: Source,
        allowed: tuple[str, ...],
        *,
        table: str | None = None,
        index: int | None = None,
    ):
        self.data = data
        self.source = source
        self.allowed = allowed
        self.table = table
        self.index = index

    def problem(self, key: str | None, message: str) -> None:
        self.source.add(key, message, table=self.table, index=self.index)

    def done(self) -> None:
        """Record one problem per unknown key, naming the allowed keys."""
        for key in self.data:
            if key not in self.allowed:
                self.problem(key, f"unknown key; allowed keys: {', '.join(self.allowed)}")

    def _get(self, key: str, required: bool) -> Any:
        if key not in self.data:
            if required:
                self.problem(key, "missing required key")
            return None
        return self.data[key]

    def string(self, key: str, *, required: bool = False, nonempty: bool = True) -> str | None:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, str) or (nonempty and not value.strip()):
            self.problem(key, f"expected a non-empty string, got {show(value)}")
            return None
        return value

    def kebab(self, key: str, *, required: bool = False) -> str | None:
        value = self.string(key, required=required)
        if value is not None and not KEBAB.fullmatch(value):
            self.problem(key, f"expected a kebab-case slug (a-z, 0-9, '-'), got {show(value)}")
            return None
        return value

    def choice(self, key: str, choices: tuple[str, ...], *, required: bool = False) -> str | None:
        value = self._get(key, required)
        if value is None:
            return None
        if value not in choices:
            self.problem(key, f"expected one of {', '.join(choices)}, got {show(value)}")
            return None
        return value

    def boolean(self, key: str, *, required: bool = False) -> bool | None:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, bool):
            self.problem(key, f"expected true or false, got {show(value)}")
            return None
        return value

    def positive_int(self, key: str, *, required: bool = False, minimum: int = 1) -> int | None:
        value = self._get(key, required)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
            self.problem(key, f"expected {what}, got {show(value)}")
            return None
        return value

    def positive_number(self, key: str, *, required: bool = False) -> float | None:
        value = self._get(key, required)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            self.problem(key, f"expected a positive number, got {show(value)}")
            return None
        return float(value)

    def strings(self, key: str, *, required: bool = False) -> tuple[str, ...] | None:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.problem(key, f"expected an array of non-empty strings, got {show(value)}")
            return None
        return tuple(value)

    def table_of(self, key: str, *, required: bool = False) -> dict[str, Any] | None:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, dict):
            self.problem(key, f"expected a table, got {show(value)}")
            return None
        return value

    def tables(self, key: str, *, required: bool = False) -> list[dict[str, Any]] | None:
        value = self._get(key, required)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.problem(key, f"expected an array of tables ([[{key}]]), got {show(value)}")
            return None
        return value
