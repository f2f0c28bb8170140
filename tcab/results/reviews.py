"""Human reviews of end-to-end runs, and the reviewer material they are recorded against.

A review (the original Test Cabinet's review of a run whose case spells its
starter as one ``workspace``) carries a verdict, ``pass`` or ``fail``, for
every ``[[review_item]]`` of the run's case version and variant, a rating
on the ``flawless``…``broken`` scale for every ``[[domain]]``, a short
note and the reviewer's name; all are required, so nothing the author
called out is skipped silently. From them:

- the checklist score is the sum of the weights of the items passed, out of
  the sum of all weights;
- the run's rating is the worst of its domains' ratings (none without domains).

:func:`record_review` writes the material (``review_domains``,
``review_items``, replaced per case version and variant) and the review in
one transaction; the run's previous review stops being current but stays
(``reviews.current``), so the history is kept. The run's ``review.json`` is
written (atomically) inside that transaction, before the commit: if it
cannot be written, nothing is recorded.

Plain ``sqlite3`` (or a ``sqlite_utils.Database``, whose connection is used).
"""

from __future__ import annotations

import datetime
import json
import sqlite3
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tcab.atomic import write_text
from tcab.errors import ResultsError
from tcab.results.schema import REVIEW_RATINGS, REVIEW_VERDICTS

#: Characters of the reviewer's name and of the note.
MAX_REVIEWER_CHARS = 100
MAX_NOTE_CHARS = 4000
#: Earlier reviews listed in review.json and on the run page.
MAX_HISTORY = 100
REVIEW_FILE = "review.json"


@dataclass(frozen=True, slots=True)
class MaterialItem:
    id: str
    title: str
    text: str
    weight: float
    reference: str | None = None
    proof: str | None = None
    domain: str | None = None
    category: str | None = None
    # {"script", "outputs": [{id, name, kind}]} of an item a validation script decides
    validation: Mapping | None = None


@dataclass(frozen=True, slots=True)
class MaterialCategory:
    """A ``[review] format = 2`` category: its items are the MaterialItems with its id."""

    id: str
    title: str


@dataclass(frozen=True, slots=True)
class MaterialDomain:
    id: str
    name: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class ReviewMaterial:
    """The review items and domains of one case version and variant."""

    case_slug: str
    case_version: str
    variant: str
    case_digest: str | None
    items: tuple[MaterialItem, ...]
    domains: tuple[MaterialDomain, ...]
    categories: tuple[MaterialCategory, ...] = ()

    @classmethod
    def of_case(cls, case, variant_slug: str, digest: str | None = None) -> ReviewMaterial:
        """The material of a catalog ``CaseVersion`` for one variant (CatalogError for an unknown one)."""
        variant = case.variant(variant_slug)
        return cls(case.slug, case.version, variant.slug, digest,
                   tuple(MaterialItem(i.id, i.title, i.text, float(i.weight), i.reference, i.proof, i.domain,
                                      i.category, _validation(i.validation))
                         for i in case.review_items_for(variant)),
                   tuple(MaterialDomain(d.id, d.name, d.description) for d in case.domains_for(variant)),
                   tuple(MaterialCategory(c.id, c.title) for c in case.review_categories_for(variant) if c.id))


def _validation(v) -> dict | None:
    if v is None:
        return None
    return {"script": v.script, "outputs": [{"id": o.id, "name": o.name, "kind": o.kind} for o in v.outputs]}


@dataclass(frozen=True, slots=True)
class Review:
    """What a reviewer submitted for one run."""

    run_id: str
    reviewer: str
    note: str
    verdicts: Mapping[str, str]   # item id -> pass | fail
    ratings: Mapping[str, str]    # domain id -> REVIEW_RATINGS


@dataclass(frozen=True, slots=True)
class ReviewOutcome:
    id: int
    reviewed_at: str
    score: float
    max_score: float
    rating: str | None


def worst_rating(ratings: Mapping[str, str] | list[str]) -> str | None:
    """The worst of ``ratings`` on the flawless…broken scale; None for none."""
    values = list(ratings.values()) if isinstance(ratings, Mapping) else list(ratings)
    return max(values, key=REVIEW_RATINGS.index) if values else None


def check_review(review: Review, material: ReviewMaterial) -> None:
    """Raises ResultsError naming the field when the review is incomplete or malformed."""
    check_text("reviewer", review.reviewer, MAX_REVIEWER_CHARS, single_line=True)
    check_text("note", review.note, MAX_NOTE_CHARS, single_line=False)
    if not material.items and not material.domains:  # a case rated as a whole has one domain, no items
        raise ResultsError(f"{material.case_slug}@{material.case_version} ({material.variant}) "
                           "declares no review items or domains: nothing to review")
    checked = (("verdict", "review item", review.verdicts, [i.id for i in material.items], REVIEW_VERDICTS),
               ("rating", "domain", review.ratings, [d.id for d in material.domains], REVIEW_RATINGS))
    for what, noun, given, known, allowed in checked:
        for key, value in given.items():
            if key not in known:
                raise ResultsError(f"{what} for {str(key)[:80]!r}: no such {noun} in this case and variant")
            if value not in allowed:
                raise ResultsError(f"{what} for {key!r}: expected one of {'|'.join(allowed)}, "
                                   f"got {str(value)[:40]!r}")
        missing = [k for k in known if k not in given]
        if missing:
            raise ResultsError(f"{what} missing for {', '.join(missing)}: every {noun} needs one")


def check_text(field: str, value: str, limit: int, *, single_line: bool) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ResultsError(f"{field}: required")
    if len(value) > limit:
        raise ResultsError(f"{field}: at most {limit} characters, got {len(value)}")
    allowed = set() if single_line else {"\n", "\r", "\t"}
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs") and c not in allowed for c in value):
        raise ResultsError(f"{field}: control characters are not allowed")


def record_review(db, review: Review, material: ReviewMaterial, *,
                  run_dir: Path | None = None,
                  now: Callable[[], str] | None = None) -> ReviewOutcome:
    """Record ``review`` (checked against ``material``) as the run's current
    review, the previous one kept as history, and write ``run_dir/review.json``.

    Raises ResultsError for an incomplete or malformed review (nothing written),
    or when the run is not in results.db or is of another case or variant.
    """
    check_review(review, material)
    conn: sqlite3.Connection = getattr(db, "conn", db)
    if conn.in_transaction:
        raise ResultsError("results.db: a write transaction is already open on this connection")
    reviewed_at = (now or _now)()
    weights = {i.id: i.weight for i in material.items}
    score = sum(w for k, w in weights.items() if review.verdicts[k] == "pass")
    max_score = sum(weights.values())
    rating = worst_rating(dict(review.ratings))
    conn.execute("BEGIN IMMEDIATE")
    try:
        run = conn.execute("SELECT case_slug, case_version, variant FROM runs WHERE id = ?",
                           [review.run_id]).fetchone()
        if run is None:
            raise ResultsError(f"no run {review.run_id!r} in results.db")
        if tuple(run) != (material.case_slug, material.case_version, material.variant):
            raise ResultsError(f"run {review.run_id} is a run of {run[0]}@{run[1]} ({run[2]}), not of "
                               f"{material.case_slug}@{material.case_version} ({material.variant})")
        write_material(conn, material)
        conn.execute("UPDATE reviews SET current = 0 WHERE run_id = ? AND current = 1", [review.run_id])
        cur = conn.execute(
            """INSERT INTO reviews (run_id, current, reviewer, reviewed_at, note, score, max_score, rating,
                                    case_slug, case_version, variant, case_digest)
               VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            [review.run_id, review.reviewer.strip(), reviewed_at, review.note, score, max_score, rating,
             material.case_slug, material.case_version, material.variant, material.case_digest])
        review_id = cur.lastrowid
        conn.executemany("INSERT INTO review_verdicts (review_id, item_id, verdict, weight) VALUES (?, ?, ?, ?)",
                         [(review_id, i.id, review.verdicts[i.id], i.weight) for i in material.items])
        conn.executemany("INSERT INTO review_ratings (review_id, domain_id, rating) VALUES (?, ?, ?)",
                         [(review_id, d.id, review.ratings[d.id]) for d in material.domains])
        if run_dir is not None:
            write_text(run_dir / REVIEW_FILE, json.dumps(review_document(conn, review.run_id), indent=1,
                                                         sort_keys=True) + "\n")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return ReviewOutcome(review_id, reviewed_at, score, max_score, rating)


def write_material(conn: sqlite3.Connection, m: ReviewMaterial) -> None:
    """Replace the material of ``m``'s case version and variant (inside the caller's transaction)."""
    key = [m.case_slug, m.case_version, m.variant]
    for table in ("review_items", "review_domains", "review_categories"):
        conn.execute(f"DELETE FROM {table} WHERE case_slug = ? AND case_version = ? AND variant = ?", key)
    conn.executemany(
        """INSERT INTO review_items (case_slug, case_version, variant, item_id, seq, title, text, weight,
                                     reference, proof, domain, case_digest, category, validation)
           VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)""",
        [(*key, i.id, n, i.title, i.text, i.weight, i.reference, i.proof, i.domain, m.case_digest, i.category,
          None if i.validation is None else json.dumps(i.validation, sort_keys=True))
         for n, i in enumerate(m.items)])
    conn.executemany(
        """INSERT INTO review_categories (case_slug, case_version, variant, category_id, seq, title, case_digest)
           VALUES (?,?,?,?,?,?,?)""",
        [(*key, c.id, n, c.title, m.case_digest) for n, c in enumerate(m.categories)])
    conn.executemany(
        """INSERT INTO review_domains (case_slug, case_version, variant, domain_id, seq, name, description,
                                       case_digest) VALUES (?,?,?,?,?,?,?,?)""",
        [(*key, d.id, n, d.name, d.description, m.case_digest) for n, d in enumerate(m.domains)])


def run_reviews(conn: sqlite3.Connection, run_id: str, limit: int = MAX_HISTORY + 1) -> list[dict]:
    """The run's reviews, newest first (the current one first), each with its
    verdicts ({item: {verdict, weight, title}}) and ratings ({domain: rating})."""
    conn = getattr(conn, "conn", conn)
    cur = conn.execute("""SELECT id, current, reviewer, reviewed_at, note, score, max_score, rating,
                                 case_slug, case_version, variant, case_digest
                          FROM reviews WHERE run_id = ? ORDER BY id DESC LIMIT ?""", [run_id, limit])
    names = [d[0] for d in cur.description]
    reviews = [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    for r in reviews:
        r["verdicts"] = {item: {"verdict": verdict, "weight": weight, "title": title}
                         for item, verdict, weight, title in conn.execute(
                             """SELECT v.item_id, v.verdict, v.weight, i.title FROM review_verdicts v
                                LEFT JOIN review_items i ON (i.case_slug, i.case_version, i.variant, i.item_id)
                                     = (?, ?, ?, v.item_id)
                                WHERE v.review_id = ? ORDER BY coalesce(i.seq, 1e9), v.item_id""",
                             [r["case_slug"], r["case_version"], r["variant"], r["id"]])}
        r["ratings"] = dict(conn.execute(
            "SELECT domain_id, rating FROM review_ratings WHERE review_id = ? ORDER BY domain_id", [r["id"]]))
    return reviews


def review_document(conn: sqlite3.Connection, run_id: str) -> dict:
    """What ``review.json`` holds: the current review in full, earlier ones as history."""
    reviews = run_reviews(conn, run_id)
    if not reviews:
        return {"run_id": run_id, "review": None, "history": []}
    current, *earlier = reviews

    def summary(r: dict) -> dict:
        return {k: r[k] for k in ("id", "reviewer", "reviewed_at", "score", "max_score", "rating")}

    doc = {k: current[k] for k in ("id", "reviewer", "reviewed_at", "note", "score", "max_score", "rating")}
    doc["verdicts"] = [{"item": k, **v} for k, v in current["verdicts"].items()]
    doc["ratings"] = [{"domain": k, "rating": v} for k, v in current["ratings"].items()]
    return {"run_id": run_id, "case": {"slug": current["case_slug"], "version": current["case_version"],
                                       "variant": current["variant"], "digest": current["case_digest"]},
            "review": doc, "history": [summary(r) for r in earlier]}


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


__all__ = ["MAX_NOTE_CHARS", "MAX_REVIEWER_CHARS", "REVIEW_FILE", "MaterialCategory", "MaterialDomain",
           "MaterialItem", "Review", "check_text", "write_material",
           "ReviewMaterial", "ReviewOutcome", "check_review", "record_review", "review_document", "run_reviews",
           "worst_rating"]
