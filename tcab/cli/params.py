"""Numbers on the command line, range-checked at the edge.

click's ``FloatRange`` lets NaN and infinity through and ``IntRange``
without a maximum lets a 30-digit integer through to code that packs it
into 64 bits (or takes it for "no cap"); every numeric option's range comes
from the one table in :mod:`tcab.bounds`, and a value outside it is refused
with the option's name and the maximum in the message (exit 2). Every
maximum is stated in the option's help.
"""

from __future__ import annotations

import math

import click

from tcab.bounds import JOBS_MAX, OPTIONS, ROUNDS_MAX, SECONDS_MAX, SEED_MAX, Bound

ID_MAX = 200                  # a folder or row id that fits every filesystem's name limit

__all__ = ["ID_MAX", "JOBS_MAX", "ROUNDS_MAX", "SECONDS_MAX", "SEED_MAX", "Identifier", "Number",
           "bounded", "maximum"]


class Number(click.ParamType):
    """A finite number in a :class:`~tcab.bounds.Bound`'s range."""

    name = "number"

    def __init__(self, bound: Bound):
        self.bound = bound
        self.name = "seconds" if bound.unit == "seconds" else "number"

    def convert(self, value, param, ctx):
        if isinstance(value, float | int) and not isinstance(value, bool):
            number = float(value)
        else:
            try:
                number = float(value)
            except (TypeError, ValueError):
                self.fail(f"expected {self.bound.describe()}, got {value!r}", param, ctx)
        b = self.bound
        low_ok = number > b.minimum if b.above_minimum else number >= b.minimum
        if not math.isfinite(number) or not low_ok or number > b.maximum:
            self.fail(f"expected {b.describe()}, got {value!r}", param, ctx)
        return number


def bounded(flag: str) -> click.ParamType:
    """The click type of ``flag`` (``--max-collect-mb``) from the bounds table."""
    bound = OPTIONS[flag]
    if bound.integer:
        return click.IntRange(int(bound.minimum), int(bound.maximum))
    return Number(bound)


def maximum(flag: str) -> str:
    """``flag``'s maximum as the help text states it."""
    return OPTIONS[flag].shown


class Identifier(click.ParamType):
    """A printable id of at most ``ID_MAX`` characters without ``/`` or a leading dot."""

    name = "id"

    def convert(self, value, param, ctx):
        text = str(value)
        if not text or len(text) > ID_MAX or "/" in text or text.startswith(".") \
                or not text.isprintable():
            self.fail(f"expected 1-{ID_MAX} printable characters without '/' or a leading '.', "
                      f"got {text[:40]!r}{'...' if len(text) > 40 else ''}", param, ctx)
        return text
