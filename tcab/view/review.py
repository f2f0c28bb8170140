"""The human review of an end-to-end run in ``tcab view``: what the run page
shows, and the one write the app makes (``POST /runs/<id>/review``).

The page lists each ``[[review_item]]`` of the run's case and variant with
the reference view and the proof it names side by side, a pass/fail choice
per item, a rating per ``[[domain]]``, a note and the reviewer's name.

The items are grouped by their checklist category (``[review] format = 2``);
an item a validation script decides shows that decision (its outputs and log
tail), and the reviewer may override it with a note
(``POST /runs/<id>/override``); every decision is kept and listed.

The two POSTs are the app's only writes, so they are fenced (docs/view.md):
:class:`tcab.view.app.Guard` lets a POST reach only this route, from a
loopback client, with an ``Origin`` naming this server, no cross-site
``Sec-Fetch-Site``, a form content type and a bounded ``Content-Length``;
here the body is read up to that bound, must carry the page's token (an
HMAC of the run id under a key made when the app started, so another page
cannot forge it), and every field is checked (:mod:`tcab.results.reviews`)
before anything is written.
"""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl

from tcab.results.reviews import MAX_NOTE_CHARS, MAX_REVIEWER_CHARS, Review
from tcab.results.schema import REVIEW_RATINGS

#: The largest review form body accepted (bytes).
MAX_REVIEW_BYTES = 64 * 1024
#: Form fields of one review (token, reviewer, note, a verdict per item, a rating per domain).
MAX_REVIEW_FIELDS = 1000
FORM_TYPE = "application/x-www-form-urlencoded"


class BadReview(Exception):
    """A review form that is refused (400), with the reason shown."""


class ForgedReview(Exception):
    """A review form without this app's token for the run (403)."""


def form_token(key: bytes, run_id: str) -> str:
    """The token the run page puts in its form: HMAC-SHA256 of the run id."""
    return hmac.new(key, b"review:" + run_id.encode("utf-8"), hashlib.sha256).hexdigest()


@dataclass(frozen=True, slots=True)
class ItemView:
    id: str
    title: str
    text: str
    weight: float
    domain: str | None
    reference_view: str | None
    reference_image: str | None   # URL of an image reference
    reference_mockup: str | None  # URL of an HTML mockup, shown in a sandboxed frame
    proof_name: str | None
    proof_kind: str | None
    proof_status: str | None
    proof_detail: str
    proof_url: str | None         # only for a proof present now
    category: str | None = None
    scripted: bool = False        # a validation script decides it (the reviewer may override)


@dataclass(frozen=True, slots=True)
class ItemGroup:
    """The items of one checklist category as the page shows them (a format-1
    checklist is one group without a title)."""

    id: str
    title: str
    items: tuple[ItemView, ...]


def group_items(case, variant_slug: str, items: list[ItemView]) -> list[ItemGroup]:
    """``items`` in their categories, in the order the case declares them."""
    cats = case.review_categories_for(case.variant(variant_slug))
    by_id = {i.id: i for i in items}
    return [ItemGroup(c.id, c.title, tuple(by_id[i.id] for i in c.items if i.id in by_id)) for c in cats]


def review_items(case, variant_slug: str, run_id: str,
                 recorded: Mapping[str, Mapping]) -> tuple[list[ItemView], list]:
    """(the items as the page shows them, the domains) of a run of ``case``.
    ``recorded`` maps a proof id to its row of the ``proofs`` table (what
    validation found): the page reads no proof file, a proof is read only
    when its link is followed (``read_proof``)."""
    variant = case.variant(variant_slug)
    refs = {r.view: r for r in case.references_for(variant)}
    proofs = {p.id: p for p in case.proofs_for(variant)}
    base = f"/cases/{case.slug}/{case.version}"
    items = []
    for item in case.review_items_for(variant):
        ref = refs.get(item.reference) if item.reference else None
        proof = proofs.get(item.proof) if item.proof else None
        rec = recorded.get(item.proof) if item.proof else None
        status = rec["status"] if rec else ("not recorded" if proof else None)
        items.append(ItemView(
            item.id, item.title, item.text, item.weight, item.domain, item.reference,
            f"{base}/raw/{ref.media}" if ref and ref.media else None,
            f"{base}/mockup/{ref.mockup}" if ref and ref.mockup else None,
            proof.name if proof else None, proof.kind if proof else None, status,
            (rec.get("detail") or "") if rec else ("validation records proofs; this run has none yet"
                                                   if proof else ""),
            f"/runs/{run_id}/proof/{proof.id}" if proof and status == "present" else None,
            item.category, item.validation is not None))
    return items, list(case.domains_for(variant))


async def read_form(receive, limit: int = MAX_REVIEW_BYTES) -> list[tuple[str, str]]:
    """The form's fields from the raw ASGI body, never more than ``limit`` bytes read."""
    body = bytearray()
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise BadReview("the client went away")
        body += message.get("body", b"")
        if len(body) > limit:
            raise BadReview(f"the form is larger than {limit} bytes")
        more = message.get("more_body", False)
    try:
        text = bytes(body).decode("ascii")
        return parse_qsl(text, keep_blank_values=True, strict_parsing=bool(text),
                         max_num_fields=MAX_REVIEW_FIELDS, errors="strict")
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadReview(f"the form is not a valid URL-encoded body: {str(exc)[:100]}") from exc


def parse_review(run_id: str, fields: list[tuple[str, str]], key: bytes) -> Review:
    """The review in the form, after its token; BadReview/ForgedReview otherwise.
    Field values are checked against the case by ``record_review``."""
    seen: dict[str, str] = {}
    for name, value in fields:
        if name in seen:
            raise BadReview(f"the field {name[:60]!r} is given twice")
        seen[name] = value
    token = seen.pop("token", "")
    if not hmac.compare_digest(token.encode("ascii", "replace"), form_token(key, run_id).encode()):
        raise ForgedReview("the review form's token is missing or wrong (reload the run page)")
    reviewer, note = seen.pop("reviewer", ""), seen.pop("note", "")
    verdicts, ratings = {}, {}
    for name, value in seen.items():
        kind, _, ident = name.partition(":")
        if kind == "verdict" and ident:
            verdicts[ident] = value
        elif kind == "rating" and ident:
            ratings[ident] = value
        else:
            raise BadReview(f"unknown field {name[:60]!r}")
    return Review(run_id, reviewer, note, verdicts, ratings)


@dataclass(frozen=True, slots=True)
class Override:
    """A reviewer's override of one item's decision (``POST /runs/<id>/override``)."""

    run_id: str
    item_id: str
    verdict: str
    author: str
    note: str


OVERRIDE_FIELDS = ("token", "item", "verdict", "author", "note")


def parse_override(run_id: str, fields: list[tuple[str, str]], key: bytes) -> Override:
    """The override in the form, after its token; BadReview/ForgedReview otherwise.
    Values are checked against the case by ``record_override``."""
    seen: dict[str, str] = {}
    for name, value in fields:
        if name in seen:
            raise BadReview(f"the field {name[:60]!r} is given twice")
        if name not in OVERRIDE_FIELDS:
            raise BadReview(f"unknown field {name[:60]!r}")
        seen[name] = value
    if not hmac.compare_digest(seen.get("token", "").encode("ascii", "replace"),
                               form_token(key, run_id).encode()):
        raise ForgedReview("the override form's token is missing or wrong (reload the run page)")
    if not seen.get("item"):
        raise BadReview("item: required")
    return Override(run_id, seen["item"], seen.get("verdict", ""), seen.get("author", ""), seen.get("note", ""))


def open_writer(db_path: Path) -> sqlite3.Connection:
    """A short-lived writing connection (the app reads through ``mode=ro`` ones)."""
    conn = sqlite3.connect(db_path, isolation_level=None, timeout=30)
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


LIMITS = {"reviewer": MAX_REVIEWER_CHARS, "note": MAX_NOTE_CHARS}
RATINGS = REVIEW_RATINGS

__all__ = ["FORM_TYPE", "LIMITS", "MAX_REVIEW_BYTES", "RATINGS", "BadReview", "ForgedReview", "ItemGroup", "ItemView",
           "Override", "form_token", "group_items", "open_writer", "parse_override", "parse_review", "read_form",
           "review_items"]
