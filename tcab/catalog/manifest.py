"""Parsing one version folder's ``test-case.toml`` into a ``CaseVersion``.

The common keys are parsed here; the keys of the case's type (its section,
and what ``[build]`` takes) by its test type (:mod:`tcab.testtypes`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tcab.catalog.categories import parse_categories, review_format
from tcab.catalog.checklist import parse_instrumentation
from tcab.catalog.fields import Fields, Source, show
from tcab.catalog.layout import DIFFICULTIES, KEBAB, older_layout
from tcab.catalog.model import FORMATS, PACKAGES_FOLDER, Build, CaseVersion, SpecFile, Variant
from tcab.catalog.paths import check_dest, check_path, normalize, resolve_inside
from tcab.catalog.review import (
    Scope,
    check_names,
    parse_domains,
    parse_proofs,
    parse_review_items,
)
from tcab.catalog.testtype import BuildKeys, SectionInput
from tcab.catalog.toml import display_path, read_toml
from tcab.catalog.typetable import get_type, type_names
from tcab.catalog.variants import Declared, check_unique_dests, humanize, parse_spec, parse_variant
from tcab.errors import CatalogError, Problem

COMMON_KEYS = (
    "format", "slug", "name", "type", "difficulty", "tags", "experimental", "summary", "description",
    "changelog", "prompt", "max_runtime_hours", "max_runtime_seconds", "workspace", "init", "assets",
    "solution", "variants", "engines", "packages", "spec", "build", "instrumentation", "proof", "domain",
    "review_item", "review",
)  # fmt: skip
HERE = "in test-case.toml"


def parse_manifest(
    root: Path, case_type: str, difficulty: str, version: str
) -> tuple[CaseVersion | None, list[Problem]]:
    """Parse ``root/test-case.toml`` and its variant files; return the case (None if
    anything is wrong) and every problem found in all of those files."""
    try:
        test_type = get_type(case_type, display_path(root))
    except CatalogError as exc:
        return None, list(exc.problems)
    source, data = read_toml(root / "test-case.toml")
    if data is None:
        return None, source.problems
    older = older_layout(data)
    if older is not None:
        return None, [Problem(display_path(root / "test-case.toml"), older)]
    f = Fields(data, source, COMMON_KEYS + test_type.section_keys)
    keys = _common_keys(f, root, difficulty)
    declared_type = f.choice("type", type_names())
    if declared_type is not None and declared_type != case_type:
        f.problem("type", f"is {show(declared_type)} but the case lives under {case_type}/")
    keys["specs"] = tuple(_specs(data, source, root))
    keys["build"] = _build(f, source, test_type.build)
    common = Declared(dests={s.dest for s in keys["specs"]})
    parsed = test_type.parse_section(SectionInput(f, data, source, root, common, HERE))
    keys["section"] = parsed.section
    common.variant_keys, common.parse_variant = parsed.variant_keys, parsed.parse_variant
    keys["proofs"] = parse_proofs(data, source, common.proof_ids, common.proof_dests, HERE)
    keys["domains"] = parse_domains(data, source, common.domains, HERE)
    keys["review_format"] = common.review_format = review_format(data, source)
    if common.review_format == 2:
        categories, items = parse_categories(data, source, common.review_items, HERE, root)
        keys["review_categories"] = categories
        common.review_categories = frozenset(c.id for c in categories)
    else:
        items = parse_review_items(data, source, common.review_items, HERE, root, test_type.review_item_keys)
    keys["review_items"] = tuple(item for _, item in items)
    keys["instrumentation"] = parse_instrumentation(f)
    variant_files = f.strings("variants", required=True)
    if variant_files is not None and not variant_files:
        f.problem("variants", "expected at least one variant file")
    f.done()
    problems = list(source.problems)
    variants, scopes = _variants(f, root, variant_files or (), common, problems)
    before = len(source.problems)
    if parsed.after_variants is not None:
        parsed.after_variants(scopes)
    check_names(source, items, scopes)
    _needs_instrumentation(f, data, keys["review_items"], variants)
    problems.extend(source.problems[before:])
    declared = keys.pop("declared_difficulty")
    if problems or keys["slug"] is None or declared is None or keys["tags"] is None:
        return None, problems
    case = CaseVersion(type=case_type, difficulty=difficulty, version=version, root=root,
                       variants=tuple(variants), **keys)
    return case, problems


def _common_keys(f: Fields, root: Path, difficulty: str) -> dict[str, Any]:
    """The keys every case type has, with their defaults applied; read in
    manifest order, so problems come out in the order of the file's keys."""
    slug = f.kebab("slug", required=True)
    name = f.string("name")
    declared = f.choice("difficulty", DIFFICULTIES, required=True)
    if declared is not None and declared != difficulty:
        f.problem("difficulty", f"is {show(declared)} but the case lives under {difficulty}/")
    keys: dict[str, Any] = {
        "slug": slug, "declared_difficulty": declared,
        "tags": f.strings("tags", required=True),
        "experimental": bool(f.boolean("experimental")),
        "summary": f.string("summary", nonempty=False) or "",
        "description": check_path(f, "description", root, f.string("description"), "file"),
        "changelog": check_path(f, "changelog", root, f.string("changelog", required=True), "file") or "",
        "prompt": check_path(f, "prompt", root, f.string("prompt", required=True), "file", suffix=".hbs") or "",
    }
    keys["max_runtime_s"] = _max_runtime_s(f)
    keys["format"] = _format(f)
    keys["engines"] = _engines(f)
    keys["workspace"] = check_path(f, "workspace", root, f.string("workspace"), "dir")
    keys["init"] = f.string("init")
    keys["assets"] = _assets(f, root)
    keys["packages"] = _packages(f, root)
    keys["solution"] = check_path(f, "solution", root, f.string("solution"), "dir")
    keys["name"] = name or (humanize(slug) if slug else "")
    return keys


def _assets(f: Fields, root: Path) -> tuple[str, ...]:
    """``assets``: one folder (tcab's older form) or the original's list of
    files and folders; each must be inside the version folder, each once."""
    raw = f.data.get("assets")
    if raw is None:
        return ()
    if isinstance(raw, str):
        rel = check_path(f, "assets", root, f.string("assets"), "dir")
        return (rel,) if rel else ()
    values = f.strings("assets")
    if values is None:
        return ()
    out: list[str] = []
    for i, value in enumerate(values):
        rel = normalize(value)
        if rel is None:
            f.problem(f"assets[{i}]", f"expected a path relative to the version folder without '..', got {show(value)}")
            continue
        resolved, why = resolve_inside(root, rel)
        if resolved is None:
            f.problem(f"assets[{i}]", f"{show(value)}: {why}")
            continue
        if rel.split("/")[0] == ".git":
            f.problem(f"assets[{i}]", f"{show(value)}: a .git folder is never seeded")
            continue
        clash = next((o for o in out if rel == o or rel.startswith(o + "/") or o.startswith(rel + "/")), None)
        if clash is not None:
            f.problem(f"assets[{i}]", f"{show(value)} overlaps the asset {show(clash)} (each path is seeded once)")
            continue
        out.append(rel)
    return tuple(out)


def _packages(f: Fields, root: Path) -> tuple[str, ...]:
    """``packages``: names of shared packages, each a folder
    ``<catalog>/packages/<name>/`` (no link leading out of ``packages/``)."""
    names = f.strings("packages")
    if not names:
        return ()
    folder = root.parents[3] / PACKAGES_FOLDER if len(root.parents) > 3 else None
    out: list[str] = []
    for i, name in enumerate(names):
        if not KEBAB.fullmatch(name):
            f.problem(f"packages[{i}]", f"expected a package name (kebab-case), got {show(name)}")
            continue
        if name in out:
            f.problem(f"packages[{i}]", f"the package {show(name)} is listed twice")
            continue
        if folder is None:
            f.problem(f"packages[{i}]", "the version folder is not inside a catalog")
            continue
        resolved, why = resolve_inside(folder, name) if folder.is_dir() else (None, "no such file or folder")
        if resolved is None or not resolved.is_dir():
            f.problem(f"packages[{i}]", f"{show(name)}: no package folder {PACKAGES_FOLDER}/{name}/ in the "
                      f"catalog ({why or 'not a folder'})")
            continue
        out.append(name)
    return tuple(out)


def _max_runtime_s(f: Fields) -> float:
    """The cap in seconds, from ``max_runtime_hours`` (tcab's) or
    ``max_runtime_seconds`` (the original's older key); one hour by default."""
    if "max_runtime_hours" in f.data and "max_runtime_seconds" in f.data:
        f.problem("max_runtime_seconds", "give max_runtime_hours or max_runtime_seconds, not both")
        return 3600.0
    for key, scale in (("max_runtime_hours", 3600.0), ("max_runtime_seconds", 1.0)):
        value = f.positive_number(key)
        if value is not None and value * scale == float("inf"):
            f.problem(key, f"expected a finite positive number, got {show(f.data[key])}")
        elif value is not None:
            return value * scale
    return 3600.0


def _format(f: Fields) -> int:
    """The original's manifest ``format`` (1 when absent); tcab reads both the same."""
    value = f.data.get("format", 1)
    if isinstance(value, bool) or not isinstance(value, int) or value not in FORMATS:
        f.problem("format", f"expected {' or '.join(map(str, FORMATS))} (the manifest formats tcab reads), "
                  f"got {show(value)}")
        return 1
    return value


def _engines(f: Fields) -> tuple[str, ...]:
    """The original's bare ``engines`` list (engines without a version, such as
    ``none``): kebab-case slugs, each once. Carried; tcab builds engineless."""
    engines = f.strings("engines")
    if engines is None:
        return ()
    for slug in engines:
        if not KEBAB.fullmatch(slug):
            f.problem("engines", f"expected kebab-case engine slugs, got {show(slug)}")
            return ()
    if len(set(engines)) != len(engines):
        twice = next(e for e in engines if engines.count(e) > 1)
        f.problem("engines", f"the engine {show(twice)} is listed twice")
        return ()
    return engines


def _needs_instrumentation(f: Fields, data: dict[str, Any], items: tuple, variants: list[Variant]) -> None:
    """A validation script drives the build through ``[instrumentation].handle``,
    so a case with one must name the handle (as the original requires)."""
    if "instrumentation" in data:
        return
    scripted = [i.id for i in items if i.validation is not None]
    scripted += [f"{i.id} (variant {v.slug})" for v in variants for i in v.review_items if i.validation]
    if scripted:
        f.problem("instrumentation", "missing: review items with a validation script need "
                  f"[instrumentation].handle (scripted: {', '.join(scripted)})")


def _specs(data: dict[str, Any], source: Source, root: Path) -> list[SpecFile]:
    f = Fields(data, source, ())
    specs: list[SpecFile] = []
    for i, entry in enumerate(f.tables("spec") or [], start=1):
        spec = parse_spec(entry, source, root, table="spec", index=i)
        if spec is not None:
            specs.append(spec)
    check_unique_dests(specs, source, "spec", set())
    return specs


def _build(f: Fields, source: Source, keys: BuildKeys) -> Build | None:
    """``[build]`` as the case's type takes it: ``install``, ``build`` and the
    type's one destination key (``output``, ``module``), if it has one."""
    table = f.table_of("build", required=keys.required)
    if table is None:
        return None
    b = Fields(table, source, ("install", "build") + ((keys.dest,) if keys.dest else ()), table="build")
    install = b.string("install", required=True)
    command = b.string("build", required=True)
    dest = None
    if keys.dest is not None:
        dest = check_dest(b, keys.dest, b.string(keys.dest, required=keys.dest_required))
    bad = keys.dest is not None and (keys.dest in table or keys.dest_required) and dest is None
    b.done()
    if install is None or command is None or bad:
        return None
    return Build(install, command, **({keys.dest: dest} if keys.dest else {}))


def _variants(
    f: Fields, root: Path, files: tuple[str, ...], common: Declared, problems: list[Problem]
) -> tuple[list[Variant], list[Scope]]:
    """The variant files, parsed, and the names each one's effective set declares;
    a variant's review items are checked against its own set here."""
    variants: list[Variant] = []
    scopes: list[Scope] = []
    seen: dict[str, str] = {}
    for i, value in enumerate(files):
        before = len(f.source.problems)
        rel = check_path(f, f"variants[{i}]", root, value, "file", suffix=".toml")
        problems.extend(f.source.problems[before:])
        if rel is None:
            continue
        variant, vsource, items = parse_variant(root / rel, rel, root, common)
        if variant is not None:
            scope = Scope(variant.slug, frozenset(common.views) | {r.view for r in variant.references},
                          frozenset(common.proof_ids) | {p.id for p in variant.proofs},
                          frozenset(common.domains) | {d.id for d in variant.domains})
            check_names(vsource, items, [scope])
        problems.extend(vsource.problems)
        if variant is None:
            continue
        if variant.slug in seen:
            problems.append(
                Problem(vsource.display, f"duplicate variant slug {show(variant.slug)} "
                        f"(also in {seen[variant.slug]})", key="slug",
                        line=vsource.line_of(None, "slug"))
            )
            continue
        seen[variant.slug] = rel
        variants.append(variant)
        scopes.append(scope)
    return variants, scopes
