"""One rule for the limit dataclasses of the browser toolkit (page, mockups)
and of validation (checks, toolchain): every field a finite positive number,
an ``int`` field a positive integer, ``settle_s`` (a pause) may be 0. Here,
below both, so that neither imports the other for it."""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any

#: Fields that are pauses, where 0 means "no pause".
MAY_BE_ZERO = ("settle_s",)


def check_limits(limits: Any, label: str, error: type[Exception]) -> None:
    """Raise ``error("<label> limit <field>: expected ..., got ...")`` for the
    first field of the dataclass ``limits`` that breaks the rule."""
    for f in fields(limits):
        value = getattr(limits, f.name)
        zero_ok = f.name in MAY_BE_ZERO
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        ok = ok and (value >= 0 if zero_ok else value > 0)
        if f.type == "int" and not isinstance(value, int):
            ok = False
        if not ok:
            accepted = "a finite number >= 0" if zero_ok else (
                "a positive integer" if f.type == "int" else "a finite positive number")
            raise error(f"{label} limit {f.name}: expected {accepted}, got {value!r}")
