"""Digests of exactly the case files each kind of task reads.

The case digest (docs/contracts.md) covers a whole version folder. A sweep
is more precise, so that a change re-does only what it can affect: a seed
reads the manifest, its variant file, the workspace, specs, schemas, assets
and references, not the game rules or the baselines; the game reads its
rules folder, schemas and parameters, not the workspace. Files of the
other variants never count.
"""

from __future__ import annotations

from pathlib import Path

from tcab.catalog import tree_digest
from tcab.plan import digest_of
from tcab.tasks.keys import FileDigests


def _part(case, rel: str | None, cache: FileDigests) -> tuple[str, str] | None:
    if rel is None:
        return None
    path = case.path(rel)
    if path.is_dir():
        return (rel, cache.tree(path, tree_digest))
    digest = cache.sha256(path)
    return (rel, digest or "missing")


def _digest(case, rels: list[str | None], cache: FileDigests) -> str:
    parts = dict(p for p in (_part(case, r, cache) for r in rels) if p is not None)
    return digest_of(parts)


def seed_inputs(case, variant, cache: FileDigests) -> str:
    """Everything seeding reads for ``variant`` (and nothing of the other variants)."""
    rels: list[str | None] = ["test-case.toml", variant.file, case.workspace_for(variant), case.assets]
    rels += [s.source for s in case.specs_for(variant)]
    rels += case.test_type.seed_sources(case, variant)  # what its type seeds: schemas, references
    return _digest(case, rels, cache)


def prompt_inputs(case, variant, cache: FileDigests) -> str:
    """What ``render_prompt`` reads: the prompt template, the manifest and the variant file."""
    return _digest(case, ["test-case.toml", variant.file, case.prompt], cache)


def solution_inputs(case, variant, cache: FileDigests) -> str:
    """The reference solution a ``reference`` run copies."""
    return _digest(case, list(case.solutions_for(variant)), cache)


def game_inputs(case, variant, cache: FileDigests) -> str:
    """The rules (the whole folder holding the rules module: it may import siblings),
    the contract schemas, the manifest (simulation, sandbox, match tables) and the variant."""
    rules = str(Path(case.section.game.module).parent) if case.section.game is not None else None
    rels: list[str | None] = ["test-case.toml", variant.file]
    rels.append(case.section.game.module if rules in (None, ".", "") else rules)
    if case.section.contract is not None:
        rels += [case.section.contract.world, case.section.contract.action]
    return _digest(case, rels, cache)


def build_recipe(case) -> str:
    """The case's ``[build]`` commands and module path: how a tree becomes a module."""
    b = case.build
    return digest_of(None if b is None else {"install": b.install, "build": b.build, "module": b.module})


def baseline_inputs(case, name: str, cache: FileDigests) -> str:
    """A baseline controller's source folder."""
    return _digest(case, [f"{case.section.game.baselines}/{name}"], cache)


def validation_inputs(case, cache: FileDigests) -> str:
    """What validating a run of ``case`` reads of the case: the manifest (its
    ``[build]`` commands and output, the reference views) and the reference
    media (their sizes set the screenshots'). Not the variants, specs or
    workspace: a change there reaches a validation through the run's tree."""
    rels: list[str | None] = ["test-case.toml"]
    # No variant here: every variant's views (a run's own is among them).
    refs = {r for v in case.variants for r in case.references_for(v)}
    for ref in sorted(refs, key=lambda r: (r.view, r.media or "", r.mockup or "")):
        rels += [ref.media, ref.mockup]
    return _digest(case, rels, cache)
