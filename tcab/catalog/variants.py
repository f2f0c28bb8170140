"""Parsing specs and standalone variant files."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcab.catalog.categories import parse_categories
from tcab.catalog.fields import Fields, Source, humanize, show
from tcab.catalog.model import ReviewCategory, ReviewItem, SpecFile, Variant
from tcab.catalog.paths import check_dest, check_path
from tcab.catalog.review import parse_domains, parse_proofs, parse_review_items
from tcab.catalog.toml import read_toml
from tcab.catalog.views import parse_references

SPEC_KEYS = ("source", "dest", "kind")
#: A spec's ``kind``: how the run's Inputs tag it (a starter script or prose); seeding is the same.
SPEC_KINDS = ("spec", "script")
VARIANT_KEYS = ("slug", "name", "description", "spec", "workspace", "solution", "params",
                "reference", "proof", "domain", "review_item", "review", "reference_implementation")


@dataclass(slots=True)
class Declared:
    """What the manifest declares for every variant, each name mapped to where,
    so a variant declaring one again is told where the first one is."""

    dests: set[str] = field(default_factory=set)
    views: dict[str, str] = field(default_factory=dict)
    proof_ids: dict[str, str] = field(default_factory=dict)
    proof_dests: dict[str, str] = field(default_factory=dict)
    domains: dict[str, str] = field(default_factory=dict)
    review_items: dict[str, str] = field(default_factory=dict)
    review_format: int = 1
    review_categories: frozenset[str] = frozenset()
    # the keys a variant of this case may add, and their parser (ParsedSection)
    variant_keys: tuple[str, ...] = ()
    parse_variant: Callable[[Fields], Mapping[str, Any]] | None = None


def parse_spec(
    entry: Any, source: Source, root: Path, *, table: str, index: int
) -> SpecFile | None:
    """One spec entry: a table ``{source, dest}`` or, in a variant's ``spec``, a bare
    source path. ``dest`` defaults to ``source`` minus a trailing ``.hbs``."""
    if isinstance(entry, str):
        entry = {"source": entry}
    if not isinstance(entry, dict):
        source.add(None, f"expected a table with source (and dest), got {show(entry)}",
                   table=table, index=index)
        return None
    f = Fields(entry, source, SPEC_KEYS, table=table, index=index)
    src = check_path(f, "source", root, f.string("source", required=True), "file")
    dest_raw = f.string("dest")
    kind = f.choice("kind", SPEC_KINDS) or "spec"
    f.done()
    if src is None:
        return None
    if dest_raw is None:
        dest_raw = src[: -len(".hbs")] if src.endswith(".hbs") else src
    dest = check_dest(f, "dest", dest_raw)
    return SpecFile(src, dest, kind) if dest is not None else None


def check_unique_dests(specs: list[SpecFile], source: Source, key: str, taken: set[str]) -> None:
    """Two specs with one ``dest`` are an error (``taken`` holds the dests seen so far)."""
    for spec in specs:
        if spec.dest in taken:
            source.add(key, f"two specs have the dest {show(spec.dest)}")
        taken.add(spec.dest)


def parse_variant(
    path: Path, rel: str, root: Path, common: Declared
) -> tuple[Variant | None, Source, list[tuple[int, ReviewItem]]]:
    """Parse the variant file ``rel``; problems are recorded on the returned
    source. Also returns its review items with their indexes, whose names the
    caller checks against the variant's effective set."""
    source, data = read_toml(path)
    if data is None:
        return None, source, []
    f = Fields(data, source, VARIANT_KEYS + common.variant_keys)
    slug = f.kebab("slug", required=True)
    extra = common.parse_variant(f) if common.parse_variant is not None else {}
    name = f.string("name")
    description = f.string("description", nonempty=False) or ""
    workspace = check_path(f, "workspace", root, f.string("workspace"), "dir")
    solution = check_path(f, "solution", root, f.string("solution"), "dir")
    params = f.table_of("params") or {}
    specs: list[SpecFile] = []
    raw_specs = data.get("spec", [])
    if not isinstance(raw_specs, list):
        f.problem("spec", f"expected an array of spec tables or paths, got {show(raw_specs)}")
        raw_specs = []
    for i, entry in enumerate(raw_specs, start=1):
        spec = parse_spec(entry, source, root, table="spec", index=i)
        if spec is not None:
            specs.append(spec)
    check_unique_dests(specs, source, "spec", set(common.dests))
    here = f"in {rel}"
    references = parse_references(data, source, root, dict(common.views), here)
    proofs = parse_proofs(data, source, dict(common.proof_ids), dict(common.proof_dests), here)
    domains = parse_domains(data, source, dict(common.domains), here)
    items, categories = _review(f, data, source, common, here, root)
    reference_impl = check_path(f, "reference_implementation", root, f.string("reference_implementation"), "dir")
    f.done()
    if slug is None:
        return None, source, []
    variant = Variant(
        slug=slug,
        name=name or humanize(slug),
        file=rel,
        description=description,
        spec=tuple(specs),
        workspace=workspace,
        solution=solution,
        params=params,
        references=references,
        proofs=proofs,
        domains=domains,
        review_items=tuple(item for _, item in items),
        review_categories=categories,
        reference_implementation=reference_impl,
        extra=extra,
    )
    return variant, source, items


def _review(f: Fields, data: dict[str, Any], source: Source, common: Declared, here: str, root: Path
            ) -> tuple[list[tuple[int, ReviewItem]], tuple[ReviewCategory, ...]]:
    """A variant's own checklist items, in the manifest's grammar: ``[[review_item]]``
    (format 1) or ``[[review.categories]]`` (format 2, reusing a common id adds to it)."""
    if common.review_format == 2:
        if "review_item" in data:
            f.problem("review_item", "the manifest's checklist is [review] format = 2: add items "
                      "under [[review.categories]] (reuse a category id to add to it)")
        categories, items = parse_categories(data, source, dict(common.review_items), here, root,
                                             common=common.review_categories, variant=True)
        return items, categories
    if "review" in data:
        f.problem("review", "the manifest's checklist is format 1 ([[review_item]]); "
                  "[review] categories need [review] format = 2 in test-case.toml")
    return parse_review_items(data, source, dict(common.review_items), here, root), ()
