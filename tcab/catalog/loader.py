"""Discovering ``<type>/<difficulty>/<slug>/<version>/`` folders and resolving cases."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tcab.catalog.fields import show
from tcab.catalog.layout import DIFFICULTIES, PACKAGES_FOLDER, version_key
from tcab.catalog.manifest import parse_manifest
from tcab.catalog.model import CaseVersion
from tcab.catalog.toml import display_path
from tcab.catalog.typetable import is_type, type_names
from tcab.errors import CatalogError, Problem


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every parsed case version of one catalog folder, experimental ones included."""

    root: Path
    versions: tuple[CaseVersion, ...]

    def latest(self, *, experimental: bool = False) -> tuple[CaseVersion, ...]:
        """The newest version of each case, in (type, difficulty, slug) order.

        Experimental versions are hidden unless ``experimental`` is true.
        """
        newest: dict[str, CaseVersion] = {}
        for case in self.versions:
            if case.experimental and not experimental:
                continue
            best = newest.get(case.slug)
            if best is None or case.version_key > best.version_key:
                newest[case.slug] = case
        order = {d: i for i, d in enumerate(DIFFICULTIES)}
        return tuple(sorted(newest.values(), key=lambda c: (c.type, order[c.difficulty], c.slug)))

    def versions_of(self, slug: str) -> tuple[CaseVersion, ...]:
        """All versions of ``slug``, oldest first."""
        return tuple(sorted((c for c in self.versions if c.slug == slug),
                            key=lambda c: c.version_key))

    def resolve(
        self, slug: str, version: str | None = None, *, experimental: bool = False
    ) -> CaseVersion:
        """The case ``slug`` at ``version`` (``v1.2.0`` or ``1.2.0``), or its newest
        version by semantic version. An explicitly named version is returned even
        when experimental; the newest is picked among non-experimental versions
        unless ``experimental`` is true.

        Raises CatalogError naming the known slugs or versions.
        """
        candidates = self.versions_of(slug)
        if not candidates:
            if not self.root.is_dir():
                raise CatalogError(Problem(str(self.root), "catalog folder not found (run tcab from "
                                           "the project folder or set TCAB_CATALOG)"))
            known = ", ".join(sorted({c.slug for c in self.versions})) or "none"
            raise CatalogError(Problem(str(self.root), f"no test case {show(slug)}; known: {known}"))
        if version is not None:
            want = version if version.startswith("v") else f"v{version}"
            for case in candidates:
                if case.version == want:
                    return case
            known = ", ".join(c.version for c in candidates)
            raise CatalogError(
                Problem(str(self.root), f"{slug} has no version {show(version)}; known: {known}")
            )
        visible = [c for c in candidates if experimental or not c.experimental]
        if not visible:
            raise CatalogError(
                Problem(str(self.root), f"{slug} has only experimental versions; "
                        "ask for them with --experimental or name a --version")
            )
        return visible[-1]


def _dirs(path: Path) -> list[Path]:
    return sorted(p for p in path.iterdir() if not p.name.startswith(".") and p.is_dir())


def case_folders(root: Path, problems: list[Problem]) -> list[tuple[Path, str, str]]:
    """(case folder, type, difficulty) of every case under ``root``; a folder
    in the wrong place is a problem, not a case."""
    found = []
    for tdir in _dirs(root):
        if tdir.name == PACKAGES_FOLDER:  # shared packages, not a test type (``packages = [...]``)
            continue
        if not is_type(tdir.name):
            problems.append(Problem(display_path(tdir), "unknown test type folder; "
                                    f"expected one of {', '.join(type_names())}"))
            continue
        for ddir in _dirs(tdir):
            if ddir.name not in DIFFICULTIES:
                problems.append(Problem(display_path(ddir), f"unknown difficulty folder; "
                                        f"expected one of {', '.join(DIFFICULTIES)}"))
                continue
            found.extend((cdir, tdir.name, ddir.name) for cdir in _dirs(ddir))
    return found


def version_dirs(case_dir: Path, problems: list[Problem]) -> Iterable[Path]:
    for vdir in _dirs(case_dir):
        try:
            version_key(vdir.name)
        except ValueError:
            problems.append(Problem(display_path(vdir), "version folder must be named vX.Y.Z"))
            continue
        if not (vdir / "test-case.toml").exists() and not (vdir / "test-case.toml").is_symlink():
            problems.append(Problem(display_path(vdir), "missing test-case.toml"))
            continue
        yield vdir


def load_version(root: Path | str) -> tuple[CaseVersion | None, list[Problem]]:
    """Parse one version folder; its type and difficulty come from its parents' names."""
    root = Path(root).resolve()
    case_type, difficulty = root.parent.parent.parent.name, root.parent.parent.name
    problems: list[Problem] = []
    if not is_type(case_type):
        problems.append(Problem(display_path(root), f"must live under <type>/ with type one of "
                                f"{', '.join(type_names())}, found {show(case_type)}"))
    if difficulty not in DIFFICULTIES:
        problems.append(Problem(display_path(root), f"must live under <difficulty>/ with one of "
                                f"{', '.join(DIFFICULTIES)}, found {show(difficulty)}"))
    try:
        version_key(root.name)
    except ValueError:
        problems.append(Problem(display_path(root), "version folder must be named vX.Y.Z"))
    if problems:
        return None, problems
    return parse_manifest(root, case_type, difficulty, root.name)


def scan_catalog(root: Path | str) -> tuple[Catalog, list[Problem]]:
    """Parse every case version under ``root``; return what parsed and all problems."""
    root = Path(root).resolve()
    problems: list[Problem] = []
    if not root.is_dir():
        problems.append(Problem(display_path(root), "catalog folder not found"))
        return Catalog(root, ()), problems
    found: list[CaseVersion] = []
    owner: dict[str, Path] = {}
    for cdir, case_type, difficulty in case_folders(root, problems):
        cases, found_problems = parse_case_folder(cdir, case_type, difficulty)
        problems.extend(found_problems)
        for case in cases:
            if check_owner(case, cdir, owner, problems):
                found.append(case)
    return Catalog(root, tuple(found)), problems


def parse_version(vdir: Path, case_type: str, difficulty: str) -> tuple[CaseVersion | None, list[Problem]]:
    """Parse the version folder ``vdir`` of a case folder found under ``case_type/difficulty/``."""
    return parse_manifest(vdir, case_type, difficulty, vdir.name)


def parse_case_folder(cdir: Path, case_type: str, difficulty: str) -> tuple[list[CaseVersion], list[Problem]]:
    """Parse every version folder of one case folder; a version whose slug differs
    from the first one's is left out with a problem."""
    problems: list[Problem] = []
    found: list[CaseVersion] = []
    slugs: dict[str, str] = {}
    for vdir in version_dirs(cdir, problems):
        case, found_problems = parse_version(vdir, case_type, difficulty)
        problems.extend(found_problems)
        if case is not None and check_slug(case.slug, case.version, display_path(case.manifest),
                                           slugs, problems):
            found.append(case)
    return found, problems


def check_slug(slug: str, version: str, where: str, slugs: dict[str, str],
               problems: list[Problem]) -> bool:
    """A slug stays the same across the versions of one case folder (``slugs``:
    the first slug seen -> its version); record a problem and return False when not."""
    if slugs and slug not in slugs:
        first_slug, first_version = next(iter(slugs.items()))
        problems.append(Problem(where, f"is {show(slug)} but {first_version} of this case "
                                f"says {show(first_slug)}; a slug is the same across versions",
                                key="slug"))
        return False
    slugs.setdefault(slug, version)
    return True


def check_owner(case: CaseVersion, cdir: Path, owner: dict[str, Path], problems: list[Problem]) -> bool:
    """A slug belongs to one case folder (``owner``: slug -> folder, filled as seen)."""
    other = owner.setdefault(case.slug, cdir)
    if other != cdir:
        problems.append(Problem(display_path(case.manifest), f"{show(case.slug)} is also the slug of "
                                f"{display_path(other)}", key="slug"))
        return False
    return True


def load_catalog(root: Path | str) -> Catalog:
    """Parse the catalog under ``root``.

    Raises CatalogError carrying every problem found, if there is any.
    """
    catalog, problems = scan_catalog(root)
    if problems:
        raise CatalogError(problems)
    return catalog
