"""The parts of the original's manifests that tcab carries for reviewers but does
not act on: a review item's ``sub_items`` and ``validation`` script, and the
``[instrumentation]`` table those scripts drive the build through.

``sub_items`` split an item's weight into independently graded points;
``validation`` names a script (relative to the version folder) that decides
the item automatically in the original, with the media it writes. tcab never
runs those scripts (they are Node programs written against the original's
validator); it checks them and carries them, so a reviewer sees them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tcab.catalog.fields import Fields, Source, humanize, show
from tcab.catalog.model import (
    OUTPUT_KINDS,
    Instrumentation,
    ReviewSubItem,
    ReviewValidation,
    ValidationOutput,
)
from tcab.catalog.paths import check_path

SUB_ITEM_KEYS = ("id", "title")
VALIDATION_KEYS = ("script", "outputs")
OUTPUT_KEYS = ("id", "name", "kind")
INSTRUMENTATION_KEYS = ("handle", "tick_hz")
MAX_SUB_ITEMS = 100  # of one review item
MAX_OUTPUTS = 100  # of one validation script
# ``window[handle]``: a JavaScript identifier, so a validator can name it.
JS_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


class _Inside(Fields):
    """Fields of an inline table inside ``[[table]]`` number ``index``: every key
    is named under ``prefix`` (``[[review_item]][2].validation.script``)."""

    def __init__(self, data: dict[str, Any], source: Source, allowed: tuple[str, ...], outer: Fields,
                 prefix: str):
        super().__init__(data, source, allowed, table=outer.table, index=outer.index)
        self.prefix = f"{outer.prefix}.{prefix}" if isinstance(outer, _Inside) else prefix

    def problem(self, key: str | None, message: str) -> None:
        super().problem(f"{self.prefix}.{key}" if key else self.prefix, message)


def _inline_tables(f: Fields, key: str, raw: Any, limit: int) -> list[dict[str, Any]] | None:
    if raw == []:
        f.problem(key, f"expected at least one entry (leave {key} out for none)")
        return None
    if not isinstance(raw, list) or not all(isinstance(v, dict) for v in raw):
        f.problem(key, f"expected a non-empty array of inline tables, got {show(raw)}")
        return None
    if len(raw) > limit:
        f.problem(key, f"expected at most {limit} entries, got {len(raw)}")
        return None
    return raw


def parse_sub_items(f: Fields, raw: Any) -> tuple[ReviewSubItem, ...] | None:
    """A review item's ``sub_items = [{id, title}, ...]``; ids unique in the item."""
    entries = _inline_tables(f, "sub_items", raw, MAX_SUB_ITEMS)
    if entries is None:
        return None
    out: list[ReviewSubItem] = []
    seen: set[str] = set()
    for n, entry in enumerate(entries, start=1):
        s = _Inside(entry, f.source, SUB_ITEM_KEYS, f, f"sub_items[{n}]")
        sid = s.kebab("id", required=True)
        title = s.string("title", required=True)
        s.done()
        if sid is not None and sid in seen:
            s.problem("id", f"two sub items of this review item are {show(sid)}")
            return None
        if sid is None or title is None or len(entry) > len(SUB_ITEM_KEYS):
            return None
        seen.add(sid)
        out.append(ReviewSubItem(sid, title))
    return tuple(out)


def parse_validation(f: Fields, raw: Any, root: Path | None) -> ReviewValidation | None:
    """A review item's ``validation = {script, outputs = [{id, name, kind}]}``.
    ``root`` None (listing) skips the check that the script exists."""
    if not isinstance(raw, dict):
        f.problem("validation", f"expected an inline table {{script, outputs}}, got {show(raw)}")
        return None
    v = _Inside(raw, f.source, VALIDATION_KEYS, f, "validation")
    script = v.string("script", required=True)
    if script is not None and root is not None:
        script = check_path(v, "script", root, script, "file")
    outputs: tuple[ValidationOutput, ...] | None = ()
    if "outputs" in raw:
        outputs = _outputs(v, raw["outputs"])
    v.done()
    if script is None or outputs is None or set(raw) - set(VALIDATION_KEYS):
        return None
    return ReviewValidation(script, outputs)


def _outputs(v: _Inside, raw: Any) -> tuple[ValidationOutput, ...] | None:
    entries = _inline_tables(v, "outputs", raw, MAX_OUTPUTS)
    if entries is None:
        return None
    out: list[ValidationOutput] = []
    seen: set[str] = set()
    for n, entry in enumerate(entries, start=1):
        o = _Inside(entry, v.source, OUTPUT_KEYS, v, f"outputs[{n}]")
        oid = o.kebab("id", required=True)
        name = o.string("name")
        kind = o.choice("kind", OUTPUT_KINDS, required=True)
        o.done()
        if oid is not None and oid in seen:
            o.problem("id", f"two outputs of this validation are {show(oid)}")
            return None
        if oid is None or kind is None or ("name" in entry and name is None) \
                or set(entry) - set(OUTPUT_KEYS):
            return None
        seen.add(oid)
        out.append(ValidationOutput(oid, name or humanize(oid), kind))
    return tuple(out)


def parse_instrumentation(f: Fields) -> Instrumentation | None:
    """The ``[instrumentation]`` table: ``handle`` (required, a JavaScript
    identifier: the build's ``window[handle]``) and ``tick_hz`` (optional)."""
    table = f.table_of("instrumentation")
    if table is None:
        return None
    i = Fields(table, f.source, INSTRUMENTATION_KEYS, table="instrumentation")
    handle = i.string("handle", required=True)
    if handle is not None and not JS_IDENTIFIER.fullmatch(handle):
        i.problem("handle", f"expected a JavaScript identifier such as \"__game\", got {show(handle)}")
        handle = None
    tick_hz = i.positive_number("tick_hz")
    if tick_hz is not None and tick_hz == float("inf"):
        i.problem("tick_hz", "expected a finite positive number, got inf")
        return None
    i.done()
    if handle is None or ("tick_hz" in table and tick_hz is None) or set(table) - set(INSTRUMENTATION_KEYS):
        return None
    return Instrumentation(handle, tick_hz)
