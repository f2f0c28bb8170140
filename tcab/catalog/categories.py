"""The original's categories grammar of the reviewer checklist (``[review] format = 2``).

    [review]
    format = 2
    [[review.categories]]
    id = "deal"
    title = "Deal"
    [[review.categories.items]]
    id = "columns"
    title = "..."
    description = "..."
    validation = { script = "validation/deal/columns.mjs", outputs = [{ id = "layout", kind = "image" }] }

A variant file adds items to a common category by declaring
``[[review.categories]]`` with its id (the format is the manifest's). Item ids
are unique in their category and are kept qualified (``deal.columns``), so an
item is named the same way in results.db, the view and validation media. Items
are reviewer material, never seeded.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from tcab.catalog.checklist import parse_sub_items, parse_validation
from tcab.catalog.fields import Fields, Source, show
from tcab.catalog.model import ReviewCategory, ReviewItem
from tcab.catalog.review import ITEM_TABLE, _weight

REVIEW_KEYS = ("format", "categories")
CATEGORY_KEYS = ("id", "title", "items")
ITEM_KEYS = ("id", "title", "description", "weight", "reference", "proof", "domain", "sub_items", "validation")
CATEGORY_TABLE = "review.categories"
MAX_CATEGORIES = 100
MAX_ITEMS = 1000  # of one file


class _Table(Fields):
    """Fields whose missing key is reported at the line of its table's header."""

    def problem(self, key: str | None, message: str) -> None:
        super().problem(key, message)
        last = self.source.problems[-1]
        if last.line is None:
            line = self.source.line_of(self.table, None, self.index)
            self.source.problems[-1] = dataclasses.replace(last, line=line)


def review_format(data: dict[str, Any], source: Source) -> int:
    """The manifest's checklist format: 2 with a ``[review]`` table (whose
    ``format`` must say 2), else 1 (``[[review_item]]``)."""
    review = data.get("review")
    if review is None:
        return 1
    f = _Table(review if isinstance(review, dict) else {}, source, REVIEW_KEYS, table="review")
    if not isinstance(review, dict):
        f.problem(None, f"expected a table, got {show(review)}")
        return 1
    value = review.get("format")
    if value is None:
        f.problem("format", "missing required key (the categories grammar is format = 2)")
    elif isinstance(value, bool) or value != 2:
        f.problem("format", f"expected 2 (the categories grammar; format 1 is [[review_item]]), got {show(value)}")
    if "review_item" in data:
        source.add("review_item", "give [[review_item]] (format 1) or [review] categories (format 2), not both")
    return 2


def parse_categories(
    data: dict[str, Any], source: Source, keys: dict[str, str], here: str, root: Path | None,
    *, common: frozenset[str] = frozenset(), variant: bool = False,
) -> tuple[tuple[ReviewCategory, ...], list[tuple[int, ReviewItem]]]:
    """The ``[[review.categories]]`` of one file, and its items with their 1-based
    index among the file's ``[[review.categories.items]]`` (for ``check_names``).
    ``keys`` maps the qualified item ids already declared to where; ``common``
    holds the manifest's category ids, which a variant may reuse; ``root``
    None skips the check that validation scripts exist."""
    review = data.get("review")
    if not isinstance(review, dict):
        return (), []
    f = _Table(review, source, ("categories",) if variant else REVIEW_KEYS, table="review")
    if variant and "format" in review:
        f.problem("format", "a variant inherits the manifest's [review] format; leave it out")
    f.done()
    raw = review.get("categories")
    if raw is None:
        if not variant:
            f.problem("categories", "missing: [review] format = 2 needs at least one [[review.categories]]")
        return (), []
    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw) or not raw:
        f.problem("categories", f"expected [[review.categories]] tables, got {show(raw)}")
        return (), []
    if len(raw) > MAX_CATEGORIES:
        f.problem("categories", f"expected at most {MAX_CATEGORIES} categories, got {len(raw)}")
        return (), []
    out: list[ReviewCategory] = []
    items: list[tuple[int, ReviewItem]] = []
    seen: set[str] = set()
    counter = [0]
    for n, entry in enumerate(raw, start=1):
        c = _Table(entry, source, CATEGORY_KEYS, table=CATEGORY_TABLE, index=n)
        cid = c.kebab("id", required=True)
        title = c.string("title", required=not (variant and cid in common))
        if cid is not None and cid in seen:
            c.problem("id", f"two categories of this file are {show(cid)}")
            cid = None
        own = _items(c, entry.get("items"), cid, keys, here, root, counter)
        c.done()
        if cid is None or ("title" in entry and title is None):
            continue
        seen.add(cid)
        items += own
        out.append(ReviewCategory(cid, title or "", tuple(item for _, item in own)))
    return tuple(out), items


def _items(c: Fields, raw: Any, cid: str | None, keys: dict[str, str], here: str, root: Path | None,
           counter: list[int]) -> list[tuple[int, ReviewItem]]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(i, dict) for i in raw):
        c.problem("items", f"expected [[review.categories.items]] tables, got {show(raw)}")
        return []
    out: list[tuple[int, ReviewItem]] = []
    for entry in raw:
        counter[0] += 1
        if counter[0] > MAX_ITEMS:
            c.problem("items", f"expected at most {MAX_ITEMS} review items in one file")
            return out
        item = _item(entry, c.source, cid, keys, here, root, counter[0])
        if item is not None:
            out.append((counter[0], item))
    return out


def _item(entry: dict[str, Any], source: Source, cid: str | None, keys: dict[str, str], here: str,
          root: Path | None, index: int) -> ReviewItem | None:
    f = _Table(entry, source, ITEM_KEYS, table=ITEM_TABLE, index=index)
    iid = f.kebab("id", required=True)
    title = f.string("title", required=True)
    description = f.string("description", required=True)
    weight = _weight(f, entry.get("weight", 1))
    refs = {key: f.kebab(key) for key in ("reference", "proof", "domain")}
    sub_items = parse_sub_items(f, entry["sub_items"]) if "sub_items" in entry else ()
    validation = parse_validation(f, entry["validation"], root) if "validation" in entry else None
    f.done()
    key = f"{cid}.{iid}" if cid is not None and iid is not None else None
    if key is not None and key in keys:
        f.problem("id", f"the review item {show(iid)} of category {show(cid)} is already declared {keys[key]}")
        return None
    if key is None or title is None or description is None or weight is None or sub_items is None \
            or ("validation" in entry and validation is None):
        return None
    keys[key] = here
    return ReviewItem(key, title, description, weight, **refs, sub_items=sub_items, validation=validation,
                      category=cid)
