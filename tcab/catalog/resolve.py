"""Resolve a case reference (``slug`` or ``slug@vX.Y.Z``) against a catalog folder.

The one place that does it: the CLI (``tcab run``, ``seed``, ``prompt``,
``build``, ``validate``) and the arena (``match``, ``tournament``,
``replay verify``) all come through :func:`resolve_case`.
"""

from __future__ import annotations

from pathlib import Path

from tcab.catalog.loader import scan_catalog
from tcab.catalog.model import CaseVersion
from tcab.errors import CatalogError


def resolve_case(root: Path | str, ref: str, version: str | None = None, *,
                 experimental: bool = False) -> CaseVersion:
    """``slug`` or ``slug@vX.Y.Z`` in the catalog folder ``root`` -> the case version.

    ``version`` (e.g. a ``--version`` option) wins over a version in ``ref``.
    The catalog is scanned, not strictly loaded: a broken neighbour case does
    not stop this one. When this case cannot be resolved, the problems found
    in its own folder come first in the error, so a broken manifest is named
    rather than reported as "no such case".

    Raises ``CatalogError``: unknown slug or version, only experimental
    versions (unless ``experimental``), or a missing catalog folder.
    """
    slug, _, at = ref.partition("@")
    catalog, problems = scan_catalog(root)
    try:
        return catalog.resolve(slug, version or at or None, experimental=experimental)
    except CatalogError as exc:
        mine = [p for p in problems if f"/{slug}/" in p.path]
        raise CatalogError(mine + exc.problems if mine else exc.problems) from None
