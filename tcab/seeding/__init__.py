"""Seeding: the fresh git repository and the prompt a run receives.

Public API::

    seed_repository(case, variant, dest) -> SeedResult(commit, path, files)
    render_prompt(case, variant) -> str
    check_case(case) -> list[Problem]        # deep validation, writes nothing
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tcab.catalog import CaseVersion, Variant
from tcab.seeding.check import check_case
from tcab.seeding.plan import MockupRenderer, SeedEntry, plan_seed, spec_context
from tcab.seeding.prompt import WORKSPACE, prompt_context, render_prompt

if TYPE_CHECKING:
    from tcab.seeding.repo import SeedResult


def seed_repository(
    case: CaseVersion,
    variant: Variant,
    dest: Path | str,
    *,
    render_mockup: MockupRenderer | None = None,
    replace: bool = False,
) -> SeedResult:
    """Build the seeded repository of ``variant`` at ``dest`` (which must not exist
    unless ``replace``; a replaced folder is swapped only once the new one is complete).

    Everything is planned (and every collision found) before anything is
    written, and the folder appears only complete. Raises SeedError or
    TemplateError; on failure nothing is left at ``dest``.
    """
    # Imported here because pygit2 is slow to import (it loads the system's CA
    # bundle): `tcab prompt` and `tcab catalog validate` write no repository.
    from tcab.seeding.repo import create_repository

    entries = plan_seed(case, variant, render_mockup=render_mockup)
    return create_repository(entries, dest, replace=replace)


def __getattr__(name: str):
    """``SeedResult`` on first use, for the same reason (PEP 562)."""
    if name == "SeedResult":
        from tcab.seeding.repo import SeedResult

        return SeedResult
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "WORKSPACE",
    "MockupRenderer",
    "SeedEntry",
    "SeedResult",
    "check_case",
    "plan_seed",
    "prompt_context",
    "render_prompt",
    "seed_repository",
    "spec_context",
]
