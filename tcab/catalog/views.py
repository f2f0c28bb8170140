"""Parsing reference views and the checks that compare a page with them.

A reference is ``{view, media}`` (an image), ``{view, mockup}`` or, as the
original Test Cabinet writes it, ``{view, path}`` (an HTML mockup; both land
in ``Reference.mockup``). The manifest's ``[[reference]]`` views are common
to every variant; a variant file's ``reference`` array adds its own, and a
view may be declared once per variant's effective set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tcab.catalog.actions import Action, ActionError, parse_actions
from tcab.catalog.fields import Fields, Source, humanize, show
from tcab.catalog.model import Reference, ViewCheck
from tcab.catalog.paths import check_path

REFERENCE_KEYS = ("view", "media", "mockup", "path", "seed")
CHECK_KEYS = ("view", "name", "reference", "actions")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg")
MOCKUP_SUFFIXES = (".html", ".htm")


def parse_references(
    data: dict[str, Any], source: Source, root: Path, taken: dict[str, str], here: str
) -> tuple[Reference, ...]:
    """The ``reference`` array of ``data`` (``[[reference]]`` tables or inline
    ``{view, path}`` tables). ``taken`` maps the views already declared in this
    effective set to where; a view declared again is a problem."""
    refs: list[Reference] = []
    for i, entry in enumerate(Fields(data, source, ()).tables("reference") or [], start=1):
        r = Fields(entry, source, REFERENCE_KEYS, table="reference", index=i)
        view = r.kebab("view", required=True)
        media = check_path(r, "media", root, r.string("media"), "file")
        mockup_key = "path" if "path" in entry else "mockup"
        mockup = check_path(r, mockup_key, root, r.string(mockup_key), "file")
        seed = r.boolean("seed")
        r.done()
        given = [k for k in ("media", "mockup", "path") if k in entry]
        if len(given) != 1:
            r.problem(None, "expected exactly one of media (an image), path or mockup (an HTML page)")
            continue
        if media is not None and not media.lower().endswith(IMAGE_SUFFIXES):
            r.problem("media", f"expected an image ({', '.join(IMAGE_SUFFIXES)}), got {show(media)}")
            continue
        if mockup is not None and mockup_key == "path" and not mockup.lower().endswith(MOCKUP_SUFFIXES):
            r.problem("path", f"expected an HTML mockup (.html, .htm), got {show(mockup)}")
            continue
        if view is not None and view in taken:
            r.problem("view", f"the view {show(view)} is already declared {taken[view]}")
            continue
        if view is not None and (media or mockup):
            taken[view] = here
            refs.append(Reference(view, media=media, mockup=mockup, seed=seed is not False))
    return tuple(refs)


def parse_checks(data: dict[str, Any], source: Source) -> list[tuple[int, ViewCheck]]:
    """The ``[[check]]`` tables, each with its 1-based index (for later problems)."""
    checks: list[tuple[int, ViewCheck]] = []
    views: set[str] = set()
    for i, entry in enumerate(Fields(data, source, ()).tables("check") or [], start=1):
        c = Fields(entry, source, CHECK_KEYS, table="check", index=i)
        view = c.kebab("view", required=True)
        name = c.string("name")
        reference = c.kebab("reference", required=True)
        actions = _actions(c, entry.get("actions", []))
        c.done()
        if view is not None and view in views:
            c.problem("view", f"two checks record under the view {show(view)}")
            continue
        if view is None or reference is None or actions is None:
            continue
        views.add(view)
        checks.append((i, ViewCheck(view, name or humanize(view), reference, actions)))
    return checks


def _actions(c: Fields, raw: Any) -> tuple[Action, ...] | None:
    try:
        return parse_actions(raw)
    except ActionError as exc:
        for key, message in exc.problems:
            c.problem(key, message)
        return None
