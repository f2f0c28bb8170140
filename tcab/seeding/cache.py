"""Seeded repositories and prompts kept by content, so a repeated seed is a copy.

A seed and its prompt are pure functions of the case version's files and the
variant (the commit id is the same on any machine), so the first seed of a
variant stores both under ``build/seed-cache/<layout>/<case digest>/<variant>/``
(the key: :func:`tcab.artifacts.seed_key`) and later ones (``tcab seed``,
``tcab run``) copy the stored repository instead of rendering templates
again. It is the one store of seeds: a sweep's ``seed`` task stores there
too and its runs read the entry's repository in place (:func:`stored_seed`). That also spares them importing the template
engine and pygit2. The layout folder carries tcab's version, so a release
that renders differently never reuses an old entry.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tcab import __version__, atomic
from tcab.artifacts import seed_key
from tcab.catalog.digest import case_digest
from tcab.errors import SeedError

if TYPE_CHECKING:
    from tcab.catalog import CaseVersion, Variant

# Bump when an entry's files change, so older entries are not read.
LAYOUT = f"tcab-{__version__}-2"


def store_dir(build_dir: Path) -> Path:
    """The seed store of a project: ``<build>/seed-cache/``."""
    return Path(build_dir) / "seed-cache"


@dataclass(frozen=True, slots=True)
class CachedSeed:
    """A seeded repository copied to ``path``: its commit id, the rendered
    prompt, the seeded paths (sorted, as ``SeedResult.files``) and the digest
    of the case folder it was seeded from (what the entry is keyed on)."""

    path: Path
    commit: str
    prompt: str
    files: tuple[str, ...]
    case_digest: str


def entry_path(cache_dir: Path, digest: str, variant_slug: str, has_mockups: bool) -> Path:
    """The folder that holds (or will hold) the seed of a variant of the
    case folder with this digest: its key is :func:`tcab.artifacts.seed_key`."""
    renderer = None
    if has_mockups:
        # In the function: the fingerprint asks the browser; only a variant with mockups pays for it.
        from tcab.browser.renderer import renderer_fingerprint

        renderer = renderer_fingerprint()
    return Path(cache_dir) / LAYOUT / seed_key(digest, variant_slug, renderer)


def cache_entry(cache_dir: Path, case: CaseVersion, variant: Variant, digest: str | None = None) -> Path:
    """:func:`entry_path` of this variant; ``digest`` is the case folder's, when the caller has it."""
    return entry_path(cache_dir, digest or case_digest(case), variant.slug, bool(case.mockups_for(variant)))


def _mockup_renderer(cache_dir: Path, case: CaseVersion, variant: Variant, timeout_s: float | None):
    """The cached mockup renderer (build/mockup-cache/, beside this cache), or
    nothing for a variant without HTML mockups (no browser import then)."""
    if not case.mockups_for(variant):
        return contextlib.nullcontext(None)
    from tcab.browser.mockup import MockupLimits
    from tcab.browser.mockup_cache import MockupCache, mockup_cache_dir

    limits = MockupLimits() if timeout_s is None else MockupLimits(timeout_s=timeout_s)
    return MockupCache(case.root, mockup_cache_dir(Path(cache_dir).parent), limits)


def _store(entry: Path, cache_dir: Path, case: CaseVersion, variant: Variant,
           mockup_timeout_s: float | None) -> None:
    """Seed ``variant`` into the entry; a failed seed stores nothing."""
    # Slow imports (pygit2, the template renderer): a miss only.
    from tcab.seeding import render_prompt, seed_repository

    prompt = render_prompt(case, variant)
    if entry.is_symlink() or (entry.exists() and not entry.is_dir()):
        entry.unlink()  # a forged link or file at the entry's place: never followed, replaced
    try:
        # An entry without files.json is damaged (complete ones are renamed into
        # place whole): it is replaced rather than read.
        with atomic.atomic_dir(entry, replace=entry.exists()) as tmp, \
                _mockup_renderer(cache_dir, case, variant, mockup_timeout_s) as render:
            result = seed_repository(case, variant, tmp / "repo", render_mockup=render)
            (tmp / "commit").write_text(result.commit)
            (tmp / "prompt.txt").write_text(prompt, encoding="utf-8")
            (tmp / "files.json").write_text(json.dumps(list(result.files)), encoding="utf-8")
    except FileExistsError:
        pass  # another process stored the same entry first: identical content


def seed_from_cache(cache_dir: Path, case: CaseVersion, variant: Variant, dest: Path, *,
                    replace: bool = False, mockup_timeout_s: float | None = None) -> CachedSeed:
    """Copy this variant's seeded repository to ``dest``, seeding and storing it
    first when the cache has no entry. ``dest`` must not exist unless
    ``replace``; it appears only complete (a replaced folder is swapped at the end).

    Raises SeedError (``dest`` exists, or a broken case), TemplateError or
    CatalogError, as seeding does; on failure nothing is stored or left at ``dest``.
    """
    dest = Path(dest)
    if not replace and dest.exists():
        raise _taken(dest)  # before seeding anything
    entry, digest = _ensure(cache_dir, case, variant, mockup_timeout_s)
    return copy_entry(entry, dest, digest, replace=replace)


def _ensure(cache_dir: Path, case: CaseVersion, variant: Variant,
            mockup_timeout_s: float | None) -> tuple[Path, str]:
    """The complete entry of this variant (seeded and stored first when
    missing) and the case folder's digest (read once: the entry's key and
    the caller's record)."""
    digest = case_digest(case)
    entry = cache_entry(cache_dir, case, variant, digest)
    if not is_complete(entry):
        _store(entry, cache_dir, case, variant, mockup_timeout_s)
    return entry, digest


def stored_seed(cache_dir: Path, case: CaseVersion, variant: Variant, *,
                mockup_timeout_s: float | None = None) -> CachedSeed:
    """This variant's seed in the store itself (``path``: the entry's
    repository, to be read, never written), seeding and storing it first when
    the store has none: a sweep's seed task (build/seed-cache/ is the one
    store of sweeps and commands). Raises as :func:`seed_from_cache`."""
    from tcab.seeding.readback import EntryDamaged, read_entry

    entry, digest = _ensure(cache_dir, case, variant, mockup_timeout_s)
    try:
        stored = read_entry(entry)  # checked as strictly as copy_entry checks it
    except EntryDamaged as exc:
        raise SeedError(f"seed cache entry is damaged: {exc}") from None
    return CachedSeed(entry / "repo", stored.commit, stored.prompt, stored.files, digest)


def _taken(dest: Path) -> SeedError:
    return SeedError(f"{dest}: already exists; choose another --out or remove it")


def is_complete(entry: Path) -> bool:
    """Whether ``entry`` holds a whole seed that passes the read-back checks
    (``tcab.seeding.readback``: a restored build/ is input); a damaged or
    forged one is not, and is seeded again."""
    from tcab.seeding.readback import EntryDamaged, read_entry

    try:
        read_entry(entry)
    except EntryDamaged:
        return False
    return True


def copy_entry(entry: Path, dest: Path, digest: str, *, replace: bool = False) -> CachedSeed:
    """Copy the complete seed ``entry`` (of the case folder with ``digest``) to
    ``dest``, which must not exist unless ``replace``.

    Raises SeedError when ``dest`` exists or the entry fails the read-back
    checks; nothing is left at ``dest`` on failure.
    """
    from tcab.seeding.readback import EntryDamaged, read_entry

    dest = Path(dest)
    try:
        stored = read_entry(entry)  # checked as strictly as a run's output, before anything is copied
    except EntryDamaged as exc:
        raise SeedError(f"seed cache entry is damaged: {exc}") from None
    try:  # atomic_dir refuses an existing dest (unless replace) before copying anything
        with atomic.atomic_dir(dest, replace=replace) as tmp:
            # Copies the repository folder's mode too (0755: the run user enters it).
            shutil.copytree(entry / "repo", tmp, symlinks=True, dirs_exist_ok=True)
    except FileExistsError as exc:
        raise _taken(dest) from exc
    return CachedSeed(dest.resolve(), stored.commit, stored.prompt, stored.files, digest)
