"""Seeded repositories and prompts kept by content, so a repeated run skips seeding.

A seed and its prompt are pure functions of the case version's files and the
variant (the commit id is the same on any machine), so the first run of a
variant stores both under ``build/seed-cache/<case digest>/<variant>/`` and
later runs copy the stored repository instead of rendering templates again.
That also spares ``tcab run`` importing the seeding and template modules
(pygit2 and the renderer). The key carries tcab's version, so a release that
renders differently never reuses an old entry.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass
from pathlib import Path

from tcab import __version__, atomic
from tcab.catalog import CaseVersion, Variant, case_digest


@dataclass(frozen=True, slots=True)
class CachedSeed:
    """A seeded repository copied to ``path``, its commit id and the rendered prompt."""

    path: Path
    commit: str
    prompt: str


def cache_entry(cache_dir: Path, case: CaseVersion, variant: Variant) -> Path:
    """The folder that holds (or will hold) this variant's seed."""
    return Path(cache_dir) / f"tcab-{__version__}" / case_digest(case) / variant.slug


def _mockup_renderer(cache_dir: Path, case: CaseVersion, variant: Variant):
    """The cached mockup renderer (build/mockup-cache/, beside this cache), or
    nothing for a variant without HTML mockups (no browser import then)."""
    if not case.mockups_for(variant):
        return contextlib.nullcontext(None)
    from tcab.validation.mockup_cache import MockupCache, mockup_cache_dir

    return MockupCache(case.root, mockup_cache_dir(Path(cache_dir).parent))


def seed_from_cache(cache_dir: Path, case: CaseVersion, variant: Variant, dest: Path) -> CachedSeed:
    """Copy this variant's seeded repository to ``dest`` (which must not exist),
    seeding and storing it first when the cache has no entry.

    Raises SeedError, TemplateError or CatalogError for a broken case, as
    seeding does; a failed seed stores nothing.
    """
    entry = cache_entry(cache_dir, case, variant)
    if not (entry / "prompt.txt").is_file():
        from tcab.seeding import (  # slow import (pygit2, the template renderer): a miss only
            render_prompt,
            seed_repository,
        )

        prompt = render_prompt(case, variant)
        try:
            with atomic.atomic_dir(entry) as tmp, _mockup_renderer(cache_dir, case, variant) as render:
                result = seed_repository(case, variant, tmp / "repo", render_mockup=render)
                (tmp / "commit").write_text(result.commit)
                (tmp / "prompt.txt").write_text(prompt, encoding="utf-8")
        except FileExistsError:
            pass  # another run stored the same entry first: identical content
    shutil.copytree(entry / "repo", dest, symlinks=True)
    return CachedSeed(dest, (entry / "commit").read_text(), (entry / "prompt.txt").read_text(encoding="utf-8"))
