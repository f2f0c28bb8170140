"""Seeding: the fresh git repository and the prompt a run receives.

Public API::

    seed_repository(case, variant, dest) -> SeedResult(commit, path, files)
    seed_from_cache(cache_dir, case, variant, dest) -> CachedSeed   # tcab.seeding.cache
    render_prompt(case, variant) -> str
    check_case(case) -> list[Problem]        # deep validation, writes nothing

The names are loaded on first use (PEP 562): the template engine and pygit2
(which loads the system's CA bundle at import) cost a one-case command more
than the catalog itself, and a warm ``tcab seed`` or ``tcab run`` copies a
cached seed without either.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tcab.catalog import CaseVersion, Variant
    from tcab.seeding.check import check_case
    from tcab.seeding.plan import MockupRenderer, SeedEntry, plan_seed, spec_context
    from tcab.seeding.prompt import WORKSPACE, prompt_context, render_prompt
    from tcab.seeding.repo import SeedResult

# name -> the module that defines it
_LAZY = {
    "check_case": "tcab.seeding.check",
    "MockupRenderer": "tcab.seeding.plan",
    "SeedEntry": "tcab.seeding.plan",
    "plan_seed": "tcab.seeding.plan",
    "spec_context": "tcab.seeding.plan",
    "WORKSPACE": "tcab.seeding.prompt",
    "prompt_context": "tcab.seeding.prompt",
    "render_prompt": "tcab.seeding.prompt",
    "SeedResult": "tcab.seeding.repo",
}


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
    from tcab.seeding.plan import plan_seed
    from tcab.seeding.repo import create_repository

    entries = plan_seed(case, variant, render_mockup=render_mockup)
    return create_repository(entries, dest, replace=replace)


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


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
