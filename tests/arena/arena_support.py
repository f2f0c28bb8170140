"""Paths of the arena tests' own test catalog (a uniquely named module:
``conftest`` is ambiguous once the whole suite runs)."""

from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CATALOG = HERE / "catalog"
TALLY = CATALOG / "adversarial/easy/tally/v0.1.0"
