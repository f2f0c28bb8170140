"""The end-to-end type's panel on a run's page in ``tcab view``: its reference
views (the image, or the screenshot its validation rendered of a mockup) and
the results of its ``[[check]]`` comparisons.

``tcab view`` asks the case's type for its panel (``TestType.view_panel``)
and passes the values it returns to the run page's template.
"""

from __future__ import annotations

import json
import os
import stat
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
    """The run page's values of this type: ``references``, ``check_results`` and ``check_problem``."""
    results, problem = check_results(folder)
    return {"references": references(case, run, folder, run_id), "check_results": results, "check_problem": problem}


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


def check_results(folder: Path | None) -> tuple[list[dict], str | None]:
    """(The run's ``[[check]]`` results (view, name, similarity, screenshot, error,
    duration_s), each field of the type the page shows; why validation.json
    is damaged, or None). A missing file is no problem."""
    if folder is None:
        return [], None
    path = folder / VALIDATION_DIR / "validation.json"
    try:
        with open(path, "rb", opener=_nofollow) as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return [], f"{VALIDATION_DIR}/validation.json is damaged: not a regular file"
            data = fh.read(MAX_VALIDATION_JSON + 1)
    except FileNotFoundError:
        return [], None
    except OSError as exc:
        return [], f"{VALIDATION_DIR}/validation.json is damaged: {exc.strerror or exc}"
    if len(data) > MAX_VALIDATION_JSON:
        return [], f"{VALIDATION_DIR}/validation.json is damaged: larger than {MAX_VALIDATION_JSON} bytes"
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200]
        return [], f"{VALIDATION_DIR}/validation.json is damaged: not JSON ({reason})"
    found = doc.get("check_results") if isinstance(doc, dict) else None
    if found is None:
        return [], None
    if not isinstance(found, list):
        return [], f"{VALIDATION_DIR}/validation.json is damaged: check_results is not a list"
    results = [_check_result(r) for r in found if isinstance(r, dict) and isinstance(r.get("view"), str)]
    return results, None


def _nofollow(path, flags):
    return os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK)


def _check_result(r: dict) -> dict:
    """One check result with each field of its type (a wrong one left out)."""
    def number(v):
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    def text(v):
        return v if isinstance(v, str) else None

    return {"name": text(r.get("name")) or "?", "view": r["view"], "similarity": number(r.get("similarity")),
            "screenshot": text(r.get("screenshot")), "error": text(r.get("error")),
            "duration_s": number(r.get("duration_s"))}
