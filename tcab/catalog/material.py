"""Reviewer material of a case version as JSON, for ``tcab catalog --json``.

Scoring domains and review items are never seeded; the listing carries them
so a review screen (and results.db) can record reviews against their ids.
This reads the manifest and the variant files without validating them
(``tcab catalog validate`` does): an entry that does not parse is left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tcab.catalog.categories import parse_categories
from tcab.catalog.paths import normalize, resolve_inside
from tcab.catalog.review import parse_domains, parse_review_items
from tcab.catalog.toml import read_toml


def _material(path: Path) -> tuple[str | None, dict[str, list[dict[str, Any]]]]:
    source, data = read_toml(path)
    if data is None:
        return None, {"domains": [], "review_categories": [], "review_items": []}
    domains = parse_domains(data, source, {}, "")
    items = parse_review_items(data, source, {}, "", None)
    # A format-2 checklist: its categories (a variant file's may add to the manifest's).
    categories, scored = parse_categories(data, source, {}, "", None, variant="format" not in
                                          (data.get("review") if isinstance(data.get("review"), dict) else {}))
    items = items + scored
    slug = data.get("slug")
    return slug if isinstance(slug, str) else None, {
        "domains": [{"id": d.id, "name": d.name, "description": d.description} for d in domains],
        "review_categories": [{"id": c.id, "title": c.title, "items": [i.id for i in c.items]}
                              for c in categories],
        "review_items": [
            {"id": i.id, "category": i.category, "title": i.title, "text": i.text, "weight": i.weight,
             "reference": i.reference, "proof": i.proof, "domain": i.domain,
             "sub_items": [{"id": s.id, "title": s.title} for s in i.sub_items],
             "validation": None if i.validation is None else {
                 "script": i.validation.script,
                 "outputs": [{"id": o.id, "name": o.name, "kind": o.kind} for o in i.validation.outputs]}}
            for _, i in items
        ],
    }


def reviewer_material(root: Path, variant_files: tuple[str, ...]) -> dict[str, Any]:
    """``{"domains": [...], "review_items": [...], "variant_review": {slug: {...}}}``:
    the common material of the version at ``root`` and each variant's own."""
    _, common = _material(root / "test-case.toml")
    per_variant: dict[str, Any] = {}
    for rel in variant_files:
        clean = normalize(rel)
        path = resolve_inside(root, clean)[0] if clean else None
        if path is None or not path.is_file():
            continue  # a variant file leading out of the version folder is never read
        slug, own = _material(path)
        per_variant[slug or Path(rel).stem] = own
    return {**common, "variant_review": per_variant}
