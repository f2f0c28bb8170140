"""The actions of a ``[[check]]``, as the original Test Cabinet defines them.

Four kinds drive a built page into the view a check compares: ``wait`` (``ms``),
``key`` (a Playwright key name pressed), ``hold`` (a key held ``ms``) and
``click`` (a point, ``x``/``y`` CSS pixels of the viewport; the original has no
selectors). The catalog parses a manifest's ``actions`` with
:func:`parse_actions` and the check runner (``tcab/validation/checks.py``)
performs them: one vocabulary, one parser.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from tcab.catalog.fields import show

MAX_ACTIONS = 100            # actions of one check
MAX_MS = 60_000              # one wait or hold; a check is a screenshot, not a soak test
MAX_KEY_CHARS = 64
MAX_COORDINATE = 4096        # the largest viewport a check may use


@dataclass(frozen=True, slots=True)
class Wait:
    ms: int
    kind: ClassVar[str] = "wait"

    def describe(self) -> str:
        return f"wait {self.ms} ms"


@dataclass(frozen=True, slots=True)
class Key:
    key: str
    kind: ClassVar[str] = "key"

    def describe(self) -> str:
        return f"key {show(self.key)}"


@dataclass(frozen=True, slots=True)
class Hold:
    key: str
    ms: int
    kind: ClassVar[str] = "hold"

    def describe(self) -> str:
        return f"hold {show(self.key)} {self.ms} ms"


@dataclass(frozen=True, slots=True)
class Click:
    x: float
    y: float
    kind: ClassVar[str] = "click"

    def describe(self) -> str:
        return f"click {self.x:g},{self.y:g}"


Action = Wait | Key | Hold | Click
_KINDS: dict[str, type] = {"click": Click, "hold": Hold, "key": Key, "wait": Wait}
ACTION_TYPES: tuple[type, ...] = tuple(_KINDS.values())


class ActionError(ValueError):
    """What is wrong in an ``actions`` array: ``problems`` holds every
    ``(key, message)``, the key like ``actions[2].ms`` (1-based, as the
    catalog numbers ``[[check]][2]``)."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{key}: {message}" for key, message in problems))


def _ms(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_MS:
        return f"expected an integer number of milliseconds, 0 to {MAX_MS}, got {show(value)}"
    return None


def _key(value: Any) -> str | None:
    if not isinstance(value, str) or not value or len(value) > MAX_KEY_CHARS or not value.isprintable():
        return (f"expected a key name (Playwright's: Enter, ArrowUp, w), 1 to {MAX_KEY_CHARS} "
                f"printable characters, got {show(value)}")
    return None


def _coordinate(value: Any) -> str | None:
    if (isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value)
            or not 0 <= value <= MAX_COORDINATE):
        return f"expected a number of CSS pixels, 0 to {MAX_COORDINATE}, got {show(value)}"
    return None


_FIELDS = {"wait": {"ms": _ms}, "key": {"key": _key}, "hold": {"key": _key, "ms": _ms},
           "click": {"x": _coordinate, "y": _coordinate}}


def parse_action(table: Any, where: str = "action") -> Action:
    """One action from its TOML table; ``ActionError`` naming ``where.<key>``.
    Unknown keys are refused (the original ignores them: a typo would pass)."""
    if not isinstance(table, dict):
        raise ActionError([(where, f'expected a table like {{type = "key", key = "Enter"}}, got {show(table)}')])
    kind = table.get("type")
    if kind not in _FIELDS:
        message = ("missing required key" if "type" not in table
                   else f"expected one of {', '.join(sorted(_FIELDS))}, got {show(kind)}")
        raise ActionError([(f"{where}.type", message)])
    readers = _FIELDS[kind]
    allowed = ("type", *readers)
    problems = [(f"{where}.{key}", f"unknown key for a {kind} action; allowed keys: {', '.join(allowed)}")
                for key in table if key not in allowed]
    for key, reader in readers.items():
        if key not in table:
            problems.append((f"{where}.{key}", "missing required key"))
        elif (message := reader(table[key])) is not None:
            problems.append((f"{where}.{key}", message))
    if problems:
        raise ActionError(problems)
    values = {key: table[key] for key in readers}
    if kind == "click":
        values = {key: float(v) for key, v in values.items()}
    return _KINDS[kind](**values)


def parse_actions(value: Any, key: str = "actions") -> tuple[Action, ...]:
    """A check's ``actions`` array; ``ActionError`` listing every problem."""
    if not isinstance(value, list):
        raise ActionError([(key, f"expected an array of action tables, got {show(value)}")])
    if len(value) > MAX_ACTIONS:
        raise ActionError([(key, f"expected at most {MAX_ACTIONS} actions, got {len(value)}")])
    actions, problems = [], []
    for index, table in enumerate(value, start=1):
        try:
            actions.append(parse_action(table, f"{key}[{index}]"))
        except ActionError as exc:
            problems += exc.problems
    if problems:
        raise ActionError(problems)
    return tuple(actions)
