"""The ids tcab gives what it records: runs and tournaments.

One maker each, used by the CLI and the sweep alike. A leaf module (no tcab
imports), so the doit tasks can name a run without importing the lifecycle.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import secrets
from collections.abc import Sequence


def new_run_id(case: str, variant: str, harness: str) -> str:
    """A sortable, unique run id (a folder name under ``results/runs/``):
    UTC time, case, variant and harness slugs, and a random suffix."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{now}-{case}-{variant}-{harness}-{secrets.token_hex(3)}"


def tournament_id(prefix: str, *, case: str, version: str, variant: str, structure: str,
                  rounds: int, seed: int, modules: Sequence[str]) -> str:
    """``<prefix>-<12 hex>``: the same inputs (case version, variant, pairing
    structure, rounds, seed and the entrants' module digests in order) give
    the same id, so recording a tournament again replaces its rows."""
    ident = json.dumps([case, version, variant, structure, rounds, seed, list(modules)])
    return f"{prefix}-{hashlib.sha256(ident.encode()).hexdigest()[:12]}"
