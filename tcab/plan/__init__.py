"""The sweep plan: ``benchmark.yaml`` parsed (strictyaml) and expanded against the catalog.

    load_plan(path, limits) -> Plan     raises PlanError (file, line, key)
    expand(plan, catalog) -> Sweep      raises PlanError for names the catalog lacks
    PlanLimits.from_env(env)            how large a plan may be (TCAB_PLAN_MAX_*)
    plan_path(root, var, env) -> Path   which plan a sweep uses

The format is documented in docs/sweeps.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from tcab.plan.expand import baselines_of, expand
from tcab.plan.limits import PlanLimits
from tcab.plan.model import (
    Participant,
    Plan,
    RunSpec,
    Sweep,
    TournamentSpec,
    digest_of,
)
from tcab.plan.schema import load_plan, parse_plan

DEFAULT_PLAN = "benchmark.yaml"

__all__ = [
    "DEFAULT_PLAN",
    "Participant",
    "Plan",
    "PlanLimits",
    "RunSpec",
    "Sweep",
    "TournamentSpec",
    "baselines_of",
    "digest_of",
    "expand",
    "load_plan",
    "parse_plan",
    "plan_path",
]


def plan_path(root: Path, var: str | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The plan a sweep reads: ``doit plan=FILE`` (``var``), else ``TCAB_PLAN``, else
    ``benchmark.yaml`` in ``root``. Relative paths are taken from ``root``."""
    env = os.environ if env is None else env
    chosen = var or env.get("TCAB_PLAN") or DEFAULT_PLAN
    path = Path(chosen)
    return path if path.is_absolute() else (root / path)
