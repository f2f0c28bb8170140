"""The catalog: discovering test cases, parsing their manifests, resolving versions.

Public API::

    catalog = load_catalog(settings.catalog_dir)   # raises CatalogError(all problems)
    case = catalog.resolve("slug", version=None)   # newest non-experimental version
    case = resolve_case(catalog_dir, "slug@v1.0.0") # scan + resolve a reference (the CLI's way)
    variant = case.variant(None)                   # the first (default) variant
    case_digest(case)                              # sha256 hex of the version folder

``scan_catalog`` returns ``(catalog, problems)`` without raising, for
``tcab catalog validate``; ``load_version`` parses one version folder.
"""

from tcab.catalog.digest import case_digest, tree_digest
from tcab.catalog.loader import Catalog, load_catalog, load_version, scan_catalog
from tcab.catalog.model import (
    DIFFICULTIES,
    STRUCTURES,
    TYPES,
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
    version_key,
)
from tcab.catalog.resolve import resolve_case

__all__ = [
    "DIFFICULTIES",
    "STRUCTURES",
    "TYPES",
    "Build",
    "CaseVersion",
    "Catalog",
    "Contract",
    "Game",
    "Match",
    "Reference",
    "Replay",
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
