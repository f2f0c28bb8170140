"""Numbers on the command line, range-checked at the edge.

click's ``FloatRange`` lets NaN and infinity through and ``IntRange``
without a maximum lets a 30-digit integer through to code that packs it
into 64 bits; these types refuse both with the option's name in the message
(exit 2). Every maximum is stated in the option's help.
"""

from __future__ import annotations

import math

import click

SEED_MAX = 2**63 - 1          # game seeds are 63-bit (tcab.arena.tournament.derive_seed)
SECONDS_MAX = 7 * 24 * 3600   # a week: no single step of tcab is meant to run longer
ROUNDS_MAX = 10_000
JOBS_MAX = 256
ID_MAX = 200                  # a folder or row id that fits every filesystem's name limit

SEED = click.IntRange(0, SEED_MAX)


def count(maximum: int) -> click.IntRange:
    """An integer 1..maximum."""
    return click.IntRange(1, maximum)


class Seconds(click.ParamType):
    """A duration in seconds: finite, > 0 and at most ``maximum``."""

    name = "seconds"

    def __init__(self, maximum: float = SECONDS_MAX):
        self.maximum = maximum

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            number = value
        else:
            try:
                number = float(value)
            except (TypeError, ValueError):
                self.fail(f"expected a number of seconds, got {value!r}", param, ctx)
        if not math.isfinite(number) or number <= 0 or number > self.maximum:
            self.fail(f"expected a finite number of seconds > 0 and <= {self.maximum:g}, got {value!r}",
                      param, ctx)
        return number


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
