"""What a seeded repository will hold, computed before anything is written.

Sources in seeding order: workspace files (verbatim), specs (``.hbs``
rendered with ``version`` and ``variant``), assets (under their own relative
path), then what the case's test type adds (``TestType.seed_entries``:
adversarial contract schemas at their manifest-relative paths, end-to-end
reference screenshots at ``reference/<view>.<ext>``). Two sources landing on
one path, or a file where another source needs a folder, are collisions:
all of them are reported together and nothing is written.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcab.catalog import CaseVersion, Variant
from tcab.catalog.testtype import SeedingInput
from tcab.catalog.toml import display_path
from tcab.errors import SeedError, TemplateError
from tcab.templates import render_template

# Git's three blob modes: the only file metadata a seed keeps.
MODE_FILE, MODE_EXEC, MODE_LINK = 0o100644, 0o100755, 0o120000

MockupRenderer = Callable[[Path], bytes]


@dataclass(frozen=True, slots=True)
class SeedEntry:
    """One path of the seeded tree: its bytes (a link's target for links) and git mode."""

    dest: str
    data: bytes
    mode: int
    origin: str


def variant_context(case: CaseVersion, variant: Variant) -> dict[str, Any]:
    """``variant`` as templates see it: slug, name, description and params
    (as its test type gives them: an adversarial case merges the variant's
    ``[params]`` over ``[game].params``)."""
    return {
        "slug": variant.slug,
        "name": variant.name,
        "description": variant.description,
        "params": case.template_params(variant),
    }


def spec_context(case: CaseVersion, variant: Variant) -> dict[str, Any]:
    """The context of a spec template: ``version`` and ``variant``."""
    return {"version": case.version, "variant": variant_context(case, variant)}


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SeedError(f"{path}: cannot read {what}: {exc.strerror or exc}") from exc


def _walk(case: CaseVersion, folder: str, prefix: str, origin: str) -> list[SeedEntry]:
    """Every file under ``folder`` (version-relative), seeded at ``prefix`` + its path."""
    base = case.path(folder)
    entries: list[SeedEntry] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        here = Path(dirpath)
        for name in sorted(filenames) + [d for d in dirnames if (here / d).is_symlink()]:
            full = here / name
            rel = full.relative_to(base).as_posix()
            if rel.split("/")[0] == ".git":
                raise SeedError(f"{full}: a {origin} must not contain a .git folder")
            mode = full.lstat().st_mode
            if stat.S_ISLNK(mode):
                target = os.readlink(full)
                resolved = (full.parent / target).resolve()
                if os.path.isabs(target) or not resolved.is_relative_to(base.resolve()):
                    raise SeedError(
                        f"{full}: symlink to {target!r} leads outside the {origin} {folder}/"
                    )
                entries.append(SeedEntry(prefix + rel, target.encode(), MODE_LINK, origin))
            elif stat.S_ISREG(mode):
                exec_bit = MODE_EXEC if mode & stat.S_IXUSR else MODE_FILE
                entries.append(SeedEntry(prefix + rel, _read(full, origin), exec_bit, origin))
        dirnames[:] = [d for d in dirnames if not (here / d).is_symlink()]
    return entries


def _specs(case: CaseVersion, variant: Variant) -> list[SeedEntry]:
    context = spec_context(case, variant)
    entries = []
    broken: list[str] = []  # every broken spec template, raised together (validate reports them all)
    for spec in case.specs_for(variant):
        source = case.path(spec.source)
        raw = _read(source, "spec")
        if spec.is_template:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise SeedError(f"{source}: a .hbs spec must be UTF-8 text") from exc
            try:
                raw = render_template(text, display_path(source), context).encode("utf-8")
            except TemplateError as exc:
                broken.append(str(exc))
                continue
        mode = MODE_EXEC if source.stat().st_mode & stat.S_IXUSR else MODE_FILE
        entries.append(SeedEntry(spec.dest, raw, mode, f"spec {spec.source}"))
    if broken:
        raise TemplateError("\n".join(broken))
    return entries


def plan_seed(
    case: CaseVersion,
    variant: Variant,
    *,
    render_mockup: MockupRenderer | None = None,
    check_only: bool = False,
) -> tuple[SeedEntry, ...]:
    """The entries of the seeded tree for ``variant``, in seeding order.

    Raises SeedError (a collision, an unreadable source, a symlink leading out,
    a mockup without a renderer) or TemplateError (a spec template).
    ``check_only`` skips rendering mockups.
    """
    entries: list[SeedEntry] = []
    workspace = case.workspace_for(variant)
    if workspace is not None:
        entries += _walk(case, workspace, "", "workspace")
    entries += _specs(case, variant)
    for name in case.packages:  # the catalog's shared packages, under packages/<name>/
        entries += _walk(case, os.path.relpath(case.package_path(name), case.root), f"packages/{name}/",
                         "package")
    for rel in case.assets:  # each file or folder seeded at its own path
        if case.path(rel).is_dir():
            entries += _walk(case, rel, rel.rstrip("/") + "/", "assets")
        else:
            source = case.path(rel)
            mode = MODE_EXEC if source.stat().st_mode & stat.S_IXUSR else MODE_FILE
            entries.append(SeedEntry(rel, _read(source, "asset"), mode, "assets"))
    # What the case's type adds (adversarial: its contract schemas; end-to-end:
    # the reference screenshots).
    entries += case.test_type.seed_entries(case, variant, SeedingInput(_read, render_mockup, check_only))
    check_collisions(entries, f"{case.ref} variant {variant.slug}")
    return tuple(entries)


def check_collisions(entries: list[SeedEntry], what: str) -> None:
    """Raise SeedError listing every path two sources claim, and every file that
    sits where another source needs a folder."""
    owner: dict[str, str] = {}
    clashes: list[str] = []
    for e in entries:
        if e.dest in owner:
            clashes.append(f"{e.dest}: from {owner[e.dest]} and from {e.origin}")
        else:
            owner[e.dest] = e.origin
    for e in entries:
        parts = e.dest.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            if parent in owner:
                clashes.append(f"{parent}: a file from {owner[parent]} but a folder for "
                               f"{e.dest} from {e.origin}")
    if clashes:
        raise SeedError(f"{what}: sources collide:\n  " + "\n  ".join(clashes))
