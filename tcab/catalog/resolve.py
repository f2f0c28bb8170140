"""Resolve a case reference (``slug`` or ``slug@vX.Y.Z``) against a catalog folder.

The one place that does it: the CLI (``tcab run``, ``seed``, ``prompt``,
``build``, ``validate``) and the arena (``match``, ``tournament``,
``replay verify``) all come through :func:`resolve_case`.

It reads one case: the folder ``<type>/<difficulty>/<slug>/`` (a case folder
is named by its slug), every version in it parsed in full. Only when no
folder has that name are the manifests listed (not parsed in full) to find
the case, or to name the known slugs in the error.
"""

from __future__ import annotations

from pathlib import Path

from tcab.catalog.fields import KEBAB, show
from tcab.catalog.listing import list_entries, version_folders
from tcab.catalog.loader import Catalog, parse_case_folder
from tcab.catalog.model import DIFFICULTIES, TYPES, CaseVersion
from tcab.catalog.toml import display_path
from tcab.errors import CatalogError, Problem


def _case_folders(root: Path, slug: str) -> list[tuple[str, str, Path]]:
    if not KEBAB.match(slug) or len(slug) > 255:  # a slug is kebab-case: nothing else names a folder
        return []
    found = []
    for case_type in TYPES:
        for difficulty in DIFFICULTIES:
            cdir = root / case_type / difficulty / slug
            if cdir.is_dir():
                found.append((case_type, difficulty, cdir))
    return found


def resolve_case(root: Path | str, ref: str, version: str | None = None, *,
                 experimental: bool = False) -> CaseVersion:
    """``slug`` or ``slug@vX.Y.Z`` in the catalog folder ``root`` -> the case version.

    ``version`` (e.g. a ``--version`` option) wins over a version in ``ref``.
    A broken neighbour case does not stop this one (it is not read). When
    this case cannot be resolved, the problems found in its own folder come
    first in the error, so a broken manifest is named rather than reported
    as "no such case".

    Raises ``CatalogError``: unknown slug or version, only experimental
    versions (unless ``experimental``), or a missing catalog folder.
    """
    root = Path(root).resolve()
    slug, _, at = ref.partition("@")
    if not root.is_dir():
        raise CatalogError(Problem(str(root), "catalog folder not found (run tcab from "
                                   "the project folder or set TCAB_CATALOG)"))
    folders = _case_folders(root, slug)
    if not folders:  # a case folder named otherwise than its slug: find it by manifest
        entries, _ = list_entries(root)
        folders = sorted({(e.type, e.difficulty, e.root.parent) for e in entries if e.slug == slug})
    versions: list[CaseVersion] = []
    problems: list[Problem] = []
    for case_type, difficulty, cdir in folders:
        parsed, found = parse_case_folder(cdir, case_type, difficulty)
        problems.extend(found)
        versions.extend(c for c in parsed if c.slug == slug)
    if len(folders) > 1 and versions:
        where = ", ".join(display_path(f[2]) for f in folders)
        raise CatalogError(problems + [Problem(where, f"{show(slug)} is the slug of more than one case folder")])
    if not versions:
        known = ", ".join(sorted({e.slug for e in list_entries(root)[0]})) or "none"
        shown = show(slug if len(slug) <= 80 else slug[:80] + "...")
        raise CatalogError(problems + [Problem(str(root), f"no test case {shown}; known: {known}")])
    try:
        return Catalog(root, tuple(versions)).resolve(slug, version or at or None, experimental=experimental)
    except CatalogError as exc:
        raise CatalogError(problems + exc.problems) from None


__all__ = ["resolve_case", "version_folders"]
