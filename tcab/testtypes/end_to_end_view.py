"""The end-to-end type's panel on a run's page in ``tcab view``: its reference
views (the image, or the screenshot its validation rendered of a mockup) and
the results of its ``[[check]]`` comparisons.

``tcab view`` asks the case's type for its panel (``TestType.view_panel``)
and passes the values it returns to the run page's template.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion

# Where the validation writes (tcab.validation.validate.VALIDATION_DIR,
# tcab.validation.case_checks.REFERENCES_DIR), not imported: the page must
# not pay for the browser stack.
VALIDATION_DIR = "validation"
REFERENCES_DIR = "references"
#: validation.json is tcab's own, but read bounded all the same.
MAX_VALIDATION_JSON = 8 * 1024**2


def panel(case: CaseVersion, run: dict, folder: Path | None, run_id: str) -> dict[str, Any]:
    """The run page's values of this type: ``references`` and ``check_results``."""
    return {"references": references(case, run, folder, run_id), "check_results": check_results(folder)}


def references(case: CaseVersion, run: dict, folder: Path | None, run_id: str) -> list[tuple[str, str | None]]:
    """(view, URL of the reference image or None) for each reference view of the run's
    case and variant (the common ones, then the variant's own). A mockup's image is
    the one its validation rendered (``validation/references/<view>.png``), if any."""
    variant = next((v for v in case.variants if v.slug == run.get("variant")), None)
    refs = case.references_for(variant) if variant is not None else case.section.references
    rendered = folder / VALIDATION_DIR / REFERENCES_DIR if folder is not None else None

    def url(ref) -> str | None:
        if ref.media:
            return f"/cases/{case.slug}/{case.version}/raw/{ref.media}"
        if rendered is not None and (rendered / f"{ref.view}.png").is_file():
            return f"/runs/{quote(run_id, safe='')}/raw/{VALIDATION_DIR}/{REFERENCES_DIR}/{ref.view}.png"
        return None

    return [(ref.view, url(ref)) for ref in refs]


def check_results(folder: Path | None) -> list[dict]:
    """The run's ``[[check]]`` results (view, name, similarity, screenshot, error)
    from its ``validation.json``; none when absent, oversized or unreadable."""
    if folder is None:
        return []
    try:
        with open(folder / VALIDATION_DIR / "validation.json", "rb") as fh:
            data = fh.read(MAX_VALIDATION_JSON + 1)
        doc = json.loads(data) if len(data) <= MAX_VALIDATION_JSON else None
    except (OSError, ValueError):
        return []
    found = doc.get("check_results") if isinstance(doc, dict) else None
    return [r for r in found if isinstance(r, dict) and isinstance(r.get("view"), str)] \
        if isinstance(found, list) else []
