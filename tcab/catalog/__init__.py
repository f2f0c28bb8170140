"""The catalog: discovering test cases, parsing their manifests, resolving versions.

Public API::

    catalog = load_catalog(settings.catalog_dir)   # raises CatalogError(all problems)
    case = catalog.resolve("slug", version=None)   # newest non-experimental version
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
    "scan_catalog",
    "tree_digest",
    "version_key",
]
