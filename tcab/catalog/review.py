"""Parsing proofs, scoring domains and reviewer checklist items, and checking
that every name they (and checks) use resolves.

These come from the manifest (common to every variant) and from each variant
file (added to that variant). Domains and review items are reviewer material
and never seeded; proofs are what a build must write as evidence. Within one
variant's effective set (common plus its own) an id is declared once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcab.catalog.checklist import parse_sub_items, parse_validation
from tcab.catalog.fields import Fields, Source, humanize, show
from tcab.catalog.model import PROOF_KINDS, Domain, Proof, ReviewItem, ViewCheck
from tcab.catalog.paths import check_dest

PROOF_KEYS = ("id", "name", "dest")
DOMAIN_KEYS = ("id", "name", "description")
ITEM_TABLE = "review.categories.items"  # a format-2 item (tcab.catalog.categories)
REVIEW_ITEM_KEYS = ("id", "title", "text", "weight", "reference", "proof", "domain", "sub_items",
                    "validation")


@dataclass(frozen=True, slots=True)
class Scope:
    """The names one effective set declares: a variant's, common ones included."""

    variant: str
    views: frozenset[str]
    proofs: frozenset[str]
    domains: frozenset[str]


def parse_proofs(
    data: dict[str, Any], source: Source, ids: dict[str, str], dests: dict[str, str], here: str
) -> tuple[Proof, ...]:
    """The ``proof`` array; ``ids``/``dests`` map those already declared to where."""
    out: list[Proof] = []
    for i, entry in enumerate(Fields(data, source, ()).tables("proof") or [], start=1):
        f = Fields(entry, source, PROOF_KEYS, table="proof", index=i)
        pid = f.kebab("id", required=True)
        name = f.string("name")
        dest = check_dest(f, "dest", f.string("dest", required=True))
        f.done()
        if dest is not None and Path(dest).suffix.lower() not in PROOF_KINDS:
            f.problem("dest", f"expected a .png (image) or .webm (video) file, got {show(dest)}")
            continue
        if pid is not None and pid in ids:
            f.problem("id", f"the proof {show(pid)} is already declared {ids[pid]}")
            continue
        if dest is not None and dest in dests:
            f.problem("dest", f"two proofs are written to {show(dest)} (also {dests[dest]})")
            continue
        if pid is None or dest is None:
            continue
        ids[pid], dests[dest] = here, here
        out.append(Proof(pid, name or humanize(pid), dest))
    return tuple(out)


def parse_domains(data: dict[str, Any], source: Source, ids: dict[str, str], here: str) -> tuple[Domain, ...]:
    """The ``domain`` array; ``ids`` maps the domains already declared to where."""
    out: list[Domain] = []
    for i, entry in enumerate(Fields(data, source, ()).tables("domain") or [], start=1):
        f = Fields(entry, source, DOMAIN_KEYS, table="domain", index=i)
        did = f.kebab("id", required=True)
        name = f.string("name")
        description = f.string("description", nonempty=False) or ""
        f.done()
        if did is not None and did in ids:
            f.problem("id", f"the domain {show(did)} is already declared {ids[did]}")
            continue
        if did is not None:
            ids[did] = here
            out.append(Domain(did, name or humanize(did), description))
    return tuple(out)


def parse_review_items(
    data: dict[str, Any], source: Source, ids: dict[str, str], here: str, root: Path | None,
    extra: tuple[str, ...] = (),
) -> list[tuple[int, ReviewItem]]:
    """The ``review_item`` array, each with its 1-based index (its names are
    checked later by ``check_names``, once every variant is known). ``root`` is
    the version folder a ``validation`` script must be in (None: not checked);
    ``extra``: keys the case's type allows besides (and checks itself)."""
    out: list[tuple[int, ReviewItem]] = []
    for i, entry in enumerate(Fields(data, source, ()).tables("review_item") or [], start=1):
        f = Fields(entry, source, REVIEW_ITEM_KEYS + extra, table="review_item", index=i)
        rid = f.kebab("id", required=True)
        title = f.string("title", required=True)
        text = f.string("text", required=True)
        weight = _weight(f, entry.get("weight", 1))
        refs = {key: f.kebab(key) for key in ("reference", "proof", "domain")}
        sub_items = parse_sub_items(f, entry["sub_items"]) if "sub_items" in entry else ()
        validation = parse_validation(f, entry["validation"], root) if "validation" in entry else None
        f.done()
        if rid is not None and rid in ids:
            f.problem("id", f"the review item {show(rid)} is already declared {ids[rid]}")
            continue
        if rid is None or title is None or text is None or weight is None or sub_items is None \
                or ("validation" in entry and validation is None):
            continue
        ids[rid] = here
        out.append((i, ReviewItem(rid, title, text, weight, **refs, sub_items=sub_items,
                                  validation=validation)))
    return out


def _weight(f: Fields, value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < float("inf"):
        f.problem("weight", f"expected a positive number of points, got {show(value)}")
        return None
    return value


def check_names(source: Source, items: Iterable[tuple[int, ReviewItem]], scopes: Sequence[Scope]) -> None:
    """Each item's ``reference``, ``proof`` and ``domain`` must be declared in
    every scope the item belongs to (every variant, for a common item)."""
    for index, item in items:
        table = ITEM_TABLE if item.category is not None else "review_item"
        for key, value, kind in (("reference", item.reference, "views"), ("proof", item.proof, "proofs"),
                                 ("domain", item.domain, "domains")):
            if value is not None:
                _resolve(source, table, index, key, value, kind, scopes)


def check_references(source: Source, checks: Iterable[tuple[int, ViewCheck]], scopes: Sequence[Scope]) -> None:
    """A check's baseline view must resolve whichever variant runs."""
    for index, check in checks:
        _resolve(source, "check", index, "reference", check.reference, "views", scopes)


def _resolve(source: Source, table: str, index: int, key: str, value: str, kind: str,
             scopes: Sequence[Scope]) -> None:
    what = {"views": "reference view", "proofs": "proof", "domains": "domain"}[kind]
    for scope in scopes:
        known: frozenset[str] = getattr(scope, kind)
        if value not in known:
            listed = ", ".join(sorted(known)) or "none"
            source.add(key, f"names the {what} {show(value)}, which variant {show(scope.variant)} "
                       f"does not declare (declared: {listed})", table=table, index=index)
            return
