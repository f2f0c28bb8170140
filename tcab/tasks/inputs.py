"""Digests of exactly the case files each kind of task reads.

The case digest (docs/contracts.md) covers a whole version folder. A sweep
is more precise, so that a change re-does only what it can affect: a seed
reads the manifest, its variant file, the workspace, specs, schemas, assets
and references, not the game rules or the baselines; the game reads its
rules folder, schemas and parameters, not the workspace. Files of the
other variants never count. (These are when-to-redo keys of the sweep's
tasks; the keys of the artifacts themselves are :mod:`tcab.artifacts`.)
"""

from __future__ import annotations

import os
from pathlib import Path

from tcab.artifacts import case_parts
from tcab.catalog import tree_digest
from tcab.tasks.keys import FileDigests


def _digest(case, rels: list[str | None], cache: FileDigests) -> str:
    return case_parts(case, rels, lambda path: cache.tree(path, tree_digest), cache.sha256)


def seed_inputs(case, variant, cache: FileDigests) -> str:
    """Everything seeding reads for ``variant`` (and nothing of the other variants)."""
    rels: list[str | None] = ["test-case.toml", variant.file, case.workspace_for(variant), *case.assets]
    rels += [s.source for s in case.specs_for(variant)]
    rels += [os.path.relpath(case.package_path(name), case.root) for name in case.packages]
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
