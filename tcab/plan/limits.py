"""How much a plan may ask for: checked before parsing (size, depth) and at the
numbers (repeats, parallelism, rounds, seed, the runs it expands to).

A plan is input like any other: a 3,000-deep nesting would overflow the YAML
composer's recursion, ``repeats: 99999999999999999999`` would make doit
generate tasks for hours, and a 5,000-digit integer is past what Python's
``int()`` accepts. Each limit has a default (documented in docs/sweeps.md)
and a ``TCAB_PLAN_MAX_*`` environment variable that overrides it; an
override that is not a whole number from 1 to its maximum (``tcab.bounds``)
is itself a PlanError naming the variable and the maximum.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass

from tcab.bounds import ENV
from tcab.errors import PlanError

#: A seed is stored in a SQLite INTEGER: 64-bit signed, and not negative.
MAX_SEED = 2**63 - 1
#: Integers are refused by their length before ``int()`` reads them.
MAX_DIGITS = 20


@dataclass(frozen=True, slots=True)
class PlanLimits:
    """The limits a plan is checked against (defaults: docs/sweeps.md)."""

    max_bytes: int = 256 * 1024  # the plan file
    max_depth: int = 20  # nested mappings and lists (a real plan uses 6)
    max_repeats: int = 10_000  # ``repeats`` of one matrix
    max_runs: int = 100_000  # runs the whole plan expands to
    max_parallelism: int = 256  # doit worker processes
    max_rounds: int = 10_000  # ``rounds`` of one tournament

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> PlanLimits:
        """Defaults, each overridden by ``TCAB_PLAN_<FIELD>`` (``TCAB_PLAN_MAX_RUNS``)."""
        chosen = {}
        for f in dataclasses.fields(cls):
            var = env_name(f.name)
            raw = env.get(var)
            if raw is None or raw == "":
                continue
            text = raw.strip()
            top = ENV[var].maximum  # tcab.bounds: the one table of maxima
            value = int(text) if re.fullmatch(r"[0-9]{1,10}", text) else None
            if value is None or not 1 <= value <= top:
                raise PlanError(f"{var}: expected an integer from 1 to {top}, got {raw!r}")
            chosen[f.name] = value
        return cls(**chosen)


def env_name(field: str) -> str:
    """The variable that overrides a limit: ``max_runs`` -> ``TCAB_PLAN_MAX_RUNS``."""
    return f"TCAB_PLAN_{field.upper()}"
