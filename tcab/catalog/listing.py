"""Listing the catalog from its manifests alone.

``tcab catalog`` shows the newest version of each case; parsing every
version fully (variant files, every path, every template) made listing a
10,000-version catalog take half a minute. This reads each
``test-case.toml`` once with a TOML parser and checks only what the list
shows (slug, difficulty, experimental, variants); the variant files are read
for the versions listed. ``tcab catalog validate`` checks everything else.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import tomli

from tcab.catalog.layout import DIFFICULTIES, KEBAB, PACKAGES_FOLDER, older_layout, version_key
from tcab.catalog.toml import display_path
from tcab.catalog.typetable import is_type, type_names
from tcab.errors import Problem


@dataclass(frozen=True, slots=True)
class Entry:
    """One case version as its manifest describes it (not validated further)."""

    type: str
    difficulty: str
    slug: str
    version: str
    root: Path
    name: str
    experimental: bool
    summary: str
    tags: tuple[str, ...]
    max_runtime_hours: float
    variant_files: tuple[str, ...]

    @property
    def version_key(self) -> tuple[int, int, int]:
        return version_key(self.version)


def _subdirs(path: Path) -> list[str]:
    try:
        with os.scandir(path) as it:
            return sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir())
    except OSError:
        return []


def version_folders(root: Path) -> Iterator[tuple[str, str, Path]]:
    """(type, difficulty, case folder) of every case folder under a type folder
    and a known difficulty folder: known types first, then the folders of types
    tcab does not read (listed with a warning; validate reports them)."""
    known = type_names()
    for case_type in [*known, *(t for t in _subdirs(root) if t not in known and t != PACKAGES_FOLDER)]:
        for difficulty in DIFFICULTIES:
            base = root / case_type / difficulty
            for name in _subdirs(base):
                yield case_type, difficulty, base / name


def read_entry(vdir: Path, case_type: str, difficulty: str) -> tuple[Entry | None, Problem | None]:
    """The manifest of ``vdir`` as an Entry, or the first reason it cannot be listed."""
    manifest = vdir / "test-case.toml"
    where = display_path(manifest)
    if not manifest.is_file():  # a FIFO or device would block or never end
        return None, Problem(where, "not a regular file")
    try:
        data = tomli.loads(manifest.read_bytes().decode("utf-8"))
    except (OSError, RuntimeError) as exc:
        return None, Problem(where, f"cannot read: {getattr(exc, 'strerror', None) or exc}")
    except (UnicodeDecodeError, tomli.TOMLDecodeError) as exc:
        return None, Problem(where, f"invalid TOML: {exc}")
    older = older_layout(data)
    if older is not None:
        return None, Problem(where, older)
    slug, name = data.get("slug"), data.get("name")
    experimental, variants = data.get("experimental", False), data.get("variants")
    hours = data.get("max_runtime_hours", 1.0)
    tags = data.get("tags", [])
    if not isinstance(slug, str) or not KEBAB.fullmatch(slug):
        return None, Problem(where, "expected a kebab-case slug", key="slug")
    if data.get("difficulty") != difficulty:
        return None, Problem(where, f"expected {difficulty!r}, the folder the case lives in", key="difficulty")
    if not isinstance(experimental, bool):
        return None, Problem(where, "expected true or false", key="experimental")
    if not isinstance(variants, list) or not variants or not all(isinstance(v, str) for v in variants):
        return None, Problem(where, "expected a non-empty array of variant files", key="variants")
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        return None, Problem(where, "expected an array of strings", key="tags")
    if "max_runtime_seconds" in data and "max_runtime_hours" not in data:
        seconds = data["max_runtime_seconds"]  # the original's older key, in seconds
        hours = seconds / 3600 if isinstance(seconds, int | float) and not isinstance(seconds, bool) else None
    if isinstance(hours, bool) or not isinstance(hours, int | float):
        key = "max_runtime_hours" if "max_runtime_hours" in data else "max_runtime_seconds"
        return None, Problem(where, "expected a number", key=key)
    summary = data.get("summary", "")
    declared = data.get("type")
    if isinstance(declared, str) and declared != case_type and not is_type(declared):
        case_type = declared  # a type tcab does not read: listed as such, with a warning
    return Entry(
        type=case_type, difficulty=difficulty, slug=slug, version=vdir.name, root=vdir,
        name=name if isinstance(name, str) and name else " ".join(p.capitalize() for p in slug.split("-")),
        experimental=experimental, summary=summary if isinstance(summary, str) else "",
        tags=tuple(tags), max_runtime_hours=float(hours), variant_files=tuple(variants),
    ), None


def list_entries(root: Path | str) -> tuple[list[Entry], list[Problem]]:
    """Every case version's manifest entry under ``root`` and the manifests that
    could not be listed."""
    root = Path(root)
    entries: list[Entry] = []
    problems: list[Problem] = []
    for case_type, difficulty, cdir in version_folders(root):
        for name in _subdirs(cdir):
            try:
                version_key(name)
            except ValueError:
                continue
            entry, problem = read_entry(cdir / name, case_type, difficulty)
            if entry is not None:
                entries.append(entry)
            elif problem is not None and (cdir / name / "test-case.toml").exists():
                problems.append(problem)
    return entries, problems


def newest(entries: list[Entry], *, experimental: bool = False) -> list[Entry]:
    """The newest version of each slug, in (type, difficulty, slug) order."""
    best: dict[str, Entry] = {}
    for entry in entries:
        if entry.experimental and not experimental:
            continue
        seen = best.get(entry.slug)
        if seen is None or entry.version_key > seen.version_key:
            best[entry.slug] = entry
    order = {d: i for i, d in enumerate(DIFFICULTIES)}
    return sorted(best.values(), key=lambda e: (e.type, order[e.difficulty], e.slug))


def variant_slugs(entry: Entry) -> list[str]:
    """The slugs of an entry's variant files (a file that does not say is shown by its name)."""
    slugs = []
    for rel in entry.variant_files:
        try:
            path = entry.root / rel
            slug = tomli.loads(path.read_text("utf-8")).get("slug") if path.is_file() else None
        except (OSError, ValueError, RuntimeError):
            slug = None
        slugs.append(slug if isinstance(slug, str) else Path(rel).stem)
    return slugs
