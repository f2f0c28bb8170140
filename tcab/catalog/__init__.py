"""The catalog: discovering test cases, parsing their manifests, resolving versions.

Public API::

    catalog = load_catalog(settings.catalog_dir)   # raises CatalogError(all problems)
    case = catalog.resolve("slug", version=None)   # newest non-experimental version
    case = resolve_case(catalog_dir, "slug@v1.0.0") # scan + resolve a reference (the CLI's way)
    variant = case.variant(None)                   # the first (default) variant
    case_digest(case)                              # sha256 hex of the version folder

``scan_catalog`` returns ``(catalog, problems)`` without raising, for
``tcab catalog validate``; ``load_version`` parses one version folder.

The names are loaded on first use (PEP 562): creating the model's frozen
dataclasses takes most of a one-case command's own time, and a repeated
``tcab seed`` or ``tcab prompt`` (``tcab.seeding.memo``) needs only
``tcab.catalog.layout`` and ``tcab.catalog.digest``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tcab.catalog.digest import case_digest, tree_digest
    from tcab.catalog.layout import DIFFICULTIES, version_key
    from tcab.catalog.loader import Catalog, load_catalog, load_version, scan_catalog
    from tcab.catalog.model import (
        STRUCTURES,
        Build,
        CaseVersion,
        Contract,
        Game,
        Match,
        Reference,
        Replay,
        Sandbox,
        Simulation,
        SpecFile,
        Variant,
    )
    from tcab.catalog.resolve import resolve_case

# name -> the module that defines it
_LAZY = {
    **dict.fromkeys(("case_digest", "tree_digest"), "tcab.catalog.digest"),
    **dict.fromkeys(("DIFFICULTIES", "version_key"), "tcab.catalog.layout"),
    **dict.fromkeys(("Catalog", "load_catalog", "load_version", "scan_catalog"), "tcab.catalog.loader"),
    **dict.fromkeys(("STRUCTURES", "Build", "CaseVersion", "Contract", "Game", "Match", "Reference",
                     "Replay", "Sandbox", "Simulation", "SpecFile", "Variant"),
                    "tcab.catalog.model"),
    "resolve_case": "tcab.catalog.resolve",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "Build",
    "CaseVersion",
    "Catalog",
    "Contract",
    "DIFFICULTIES",
    "Game",
    "Match",
    "Reference",
    "Replay",
    "STRUCTURES",
    "Sandbox",
    "Simulation",
    "SpecFile",
    "Variant",
    "case_digest",
    "load_catalog",
    "load_version",
    "resolve_case",
    "scan_catalog",
    "tree_digest",
    "version_key",
]
