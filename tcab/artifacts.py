"""The key of each artifact tcab builds, computed here and nowhere else.

A key is a small mapping (name -> digest) of everything the artifact is made
from; two requests with equal keys get the same artifact, and a changed
input is a new one. The sweep's keyed targets (``tasks/``) store these
mappings as their ``inputs``; the commands' caches (``build/builds/`` of
``tcab build``, the seed store ``build/seed-cache/`` of ``tcab seed`` and
``tcab run``) are looked up by the same keys, so a sweep and a command can
never disagree about what is stale.

- a **module build** of a run's tree: the tree (the digest recorded when the
  run's tree was collected), the ``[build]`` recipe, and the digest of the
  image it is built in (:func:`run_module_key`);
- a **module build** of a baseline: its source folder, the default
  workspace the build lays under it, and the recipe; built on the host, so
  no image (:func:`baseline_module_key`);
- a **seed**: the case folder's digest, the variant, and for a variant with
  HTML mockups the renderer that shoots them (:func:`seed_key`); the store
  folder is tcab's layout version over that key;
- a **validation**: the run (its record), the end-to-end image digest, and
  what it reads of the case (:func:`validation_key`).

Folder digests come from ``tree`` (default :func:`tcab.catalog.tree_digest`),
so the sweep passes its per-process memo and a command hashes directly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcab.catalog.digest import tree_digest

if TYPE_CHECKING:
    from tcab.catalog import CaseVersion

Key = dict[str, str]
TreeDigest = Callable[[Path], str]
FileDigest = Callable[[Path], "str | None"]


def digest_of(value: Any) -> str:
    """SHA-256 hex of a JSON value in canonical form (sorted keys, no spaces)."""
    data = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def key_digest(key: Mapping[str, str]) -> str:
    """One digest of a key (``name=digest`` lines in name order; names and
    digests hold no newline): what a cache file records."""
    data = "\n".join(f"{k}={key[k]}" for k in sorted(key))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def case_parts(case: CaseVersion, rels: list[str | None], tree: TreeDigest = tree_digest,
               sha256: FileDigest | None = None) -> str:
    """One digest of the case's files and folders ``rels`` (None entries
    skipped): ``{rel: digest}``, a folder by ``tree``, a file by ``sha256``,
    ``missing`` for a path that is not there. Every key's part of a case is
    framed so."""
    sha256 = sha256 or _sha256
    parts = {}
    for rel in rels:
        if rel is None:
            continue
        path = case.path(rel)
        parts[rel] = tree(path) if path.is_dir() else (sha256(path) or "missing")
    return digest_of(parts)


def _sha256(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:
        return None


def build_recipe(case: CaseVersion) -> str:
    """The case's ``[build]`` commands and module path: how a tree becomes a module."""
    b = case.build
    return digest_of(None if b is None else {"install": b.install, "build": b.build, "module": b.module})


def run_tree(artifact_digest: str | None, run_id: str) -> str:
    """What stands for a run's tree in a key: the digest recorded when it was
    collected (a run without one is keyed by its id: a redo is a new run)."""
    return artifact_digest or run_id


def run_module_key(case: CaseVersion, tree: str, image_digest: str) -> Key:
    """The key of the module built from a run's tree (:func:`run_tree`) in the
    adversarial image with ``image_digest``."""
    return {"tree": tree, "recipe": build_recipe(case), "image": image_digest}


def baseline_workspace(case: CaseVersion) -> str | None:
    """The workspace a baseline's build lays under the baseline's folder: the
    default variant's."""
    return case.workspace_for(case.variant(None))


def baseline_module_key(case: CaseVersion, name: str, tree: TreeDigest = tree_digest) -> Key:
    """The key of baseline ``name``'s module: its folder, the workspace under
    it (:func:`baseline_workspace`) and the recipe."""
    return {
        "source": case_parts(case, [f"{case.section.game.baselines}/{name}"], tree),
        "workspace": case_parts(case, [baseline_workspace(case)], tree),
        "recipe": build_recipe(case),
    }


def validation_key(run: str, image_digest: str, case_part: str) -> Key:
    """The key of a run's validation: ``run`` (the run record's identity:
    its tree and its id), the end-to-end image's digest, and ``case_part``
    (:func:`validation_case_part`)."""
    return {"run": run, "image": image_digest, "case": case_part}


def validation_case_part(case: CaseVersion, tree: TreeDigest = tree_digest,
                         sha256: FileDigest | None = None) -> str:
    """What validating a run of ``case`` reads of the case: the manifest (its
    ``[build]`` commands and output, the reference views) and the reference
    media (their sizes set the screenshots'), and the folders of the review
    items' validation scripts. Not the variants, specs or workspace: a
    change there reaches a validation through the run's tree."""
    rels: list[str | None] = ["test-case.toml"]
    # No variant here: every variant's views (a run's own is among them).
    refs = {r for v in case.variants for r in case.references_for(v)}
    for ref in sorted(refs, key=lambda r: (r.view, r.media or "", r.mockup or "")):
        rels += [ref.media, ref.mockup]
    # The review items' validation scripts: the top folder of each (a script
    # imports its helpers from beside or above it, as the original's do).
    scripts = {i.validation.script for v in case.variants for i in case.review_items_for(v) if i.validation}
    rels += sorted({s.split("/", 1)[0] for s in scripts})
    return case_parts(case, rels, tree, sha256)


def seed_key(case_digest: str, variant_slug: str, renderer: str | None) -> str:
    """The store key of a variant's seed (a relative folder): the case
    folder's digest and the variant; a variant with HTML mockups seeds their
    screenshots, so it also names ``renderer``, the fingerprint of the
    browser and fonts that render them (as the mockup cache's key does;
    None for a variant without mockups)."""
    return f"{case_digest}/{variant_slug}" + (f"@{renderer[:16]}" if renderer else "")
