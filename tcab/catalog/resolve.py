"""Resolve a case reference (``slug`` or ``slug@vX.Y.Z``) against a catalog folder.

The one place that does it: the CLI (``tcab run``, ``seed``, ``prompt``,
``build``, ``validate``) and the arena (``match``, ``tournament``,
``replay verify``) all come through :func:`resolve_case`.

It reads one case: the folder ``<type>/<difficulty>/<slug>/`` (a case folder
is named by its slug). Of its versions it parses in full the first one (whose
slug every other version must repeat) and then, newest first, only as many
as it takes to find the one asked for; the answer is the one parsing them all
would give. Only when that fails (to build the error) is every version
parsed, and only when no folder has that name are the manifests listed (not
parsed in full) to find the case, or to name the known slugs in the error.
"""

from __future__ import annotations

from pathlib import Path

from tcab.catalog.fields import show
from tcab.catalog.layout import case_folders, version_key
from tcab.catalog.listing import list_entries, version_folders
from tcab.catalog.loader import Catalog, parse_case_folder, parse_version, version_dirs
from tcab.catalog.model import CaseVersion
from tcab.catalog.toml import display_path
from tcab.catalog.typetable import is_type, refusal
from tcab.errors import CatalogError, Problem


def _read_few(cdir: Path, case_type: str, difficulty: str, slug: str, version: str | None,
              experimental: bool) -> CaseVersion | None:
    """The version ``parse_case_folder`` + ``Catalog.resolve`` would pick in ``cdir``,
    parsing as few versions as it takes; None when there is none (the caller
    then parses them all, for the error)."""
    vdirs = list(version_dirs(cdir, []))  # name order, as parse_case_folder reads them
    parsed: dict[Path, CaseVersion | None] = {}

    def parse(vdir: Path) -> CaseVersion | None:
        if vdir not in parsed:
            parsed[vdir] = parse_version(vdir, case_type, difficulty)[0]
        return parsed[vdir]

    # The first version that parses sets the slug; a version saying another is left out.
    first = next((case for case in map(parse, vdirs) if case is not None), None)
    if first is None or first.slug != slug:
        return None
    if version is not None:
        want = version if version.startswith("v") else f"v{version}"
        candidates = [v for v in vdirs if v.name == want]
    else:  # newest first; among equal versions the last in name order, as a stable sort gives
        candidates = sorted(vdirs, key=lambda v: version_key(v.name))[::-1]
    for vdir in candidates:
        case = parse(vdir)
        if case is None or case.slug != slug:
            continue
        if version is None and case.experimental and not experimental:
            continue
        return case
    return None


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
    folders = case_folders(root, slug)
    if not folders:  # a case folder named otherwise than its slug: find it by manifest
        entries, _ = list_entries(root)
        folders = sorted({(e.type, e.difficulty, e.root.parent) for e in entries if e.slug == slug})
    unknown = [Problem(display_path(cdir), refusal(slug, case_type))
               for case_type, _, cdir in folders if not is_type(case_type)]
    folders = [f for f in folders if is_type(f[0])]
    if unknown and not folders:  # the case is there, of a type tcab does not know: say exactly that
        raise CatalogError(unknown)
    if len(folders) == 1:
        case_type, difficulty, cdir = folders[0]
        found = _read_few(cdir, case_type, difficulty, slug, version or at or None, experimental)
        if found is not None:
            return found
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
        foreign = [Problem(display_path(e.root / "test-case.toml"), refusal(slug, e.type), key="type")
                   for e in list_entries(root)[0] if e.slug == slug and not is_type(e.type)]
        if foreign:  # its `type =` names a type tcab does not read: say exactly that
            raise CatalogError(foreign[-1:])
        known = ", ".join(sorted({e.slug for e in list_entries(root)[0]})) or "none"
        shown = show(slug if len(slug) <= 80 else slug[:80] + "...")
        raise CatalogError(problems + [Problem(str(root), f"no test case {shown}; known: {known}")])
    try:
        return Catalog(root, tuple(versions)).resolve(slug, version or at or None, experimental=experimental)
    except CatalogError as exc:
        raise CatalogError(problems + exc.problems) from None


__all__ = ["resolve_case", "version_folders"]
