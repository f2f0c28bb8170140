"""The ``CheckSpec``s of a case's ``[[check]]``s, with their reference screenshots.

A check compares the built page with a reference view of the catalog: an
image (``media``) is used where it is, an HTML mockup is rendered through
the mockup cache (seeding rendered it already: a hit, no browser) and kept
beside the validation as ``validation/references/<view>.png``. Never the
run's own ``reference/`` folder: the run could have rewritten it to match.

Each spec also carries the screenshots the run *was* seeded with
(``CheckSpec.seeded``): a page that only displays one of them must not score
as a page that works, so a check counts only when it beats them
(:mod:`tcab.validation.checks`); a check against a seeded view never can.
The baseline of a check is meant to be a view held back from the run
(``seed = false``).
"""

from __future__ import annotations

from pathlib import Path

from tcab.atomic import write_bytes
from tcab.browser.mockup_cache import MockupCache
from tcab.catalog.model import CaseVersion, Reference, Variant
from tcab.errors import BrowserError
from tcab.validation.checks import CheckSpec

REFERENCES_DIR = "references"


def case_check_specs(case: CaseVersion, variant: Variant, mockup_cache: Path,
                     validation_dir: Path) -> tuple[CheckSpec, ...]:
    """One spec per ``[[check]]`` of ``case``. A reference that cannot be
    rendered leaves its PNG absent; that check then records why it was not
    reached (the runner reads the reference), and the others still run."""
    if not case.section.checks:
        return ()
    views = {ref.view: ref for ref in case.references_for(variant)}
    # One cache for every reference: a miss starts one browser for all of them.
    with MockupCache(case.root, mockup_cache) as render:
        pngs = {view: _reference_png(case, ref, render, validation_dir) for view, ref in views.items()}
        seeded = tuple(pngs[ref.view] for ref in case.seeded_references_for(variant))
        return tuple(CheckSpec(check.view, pngs[check.reference], check.actions, check.name, seeded=seeded)
                     for check in case.section.checks)


def _reference_png(case: CaseVersion, ref: Reference, render: MockupCache, validation_dir: Path) -> Path:
    if ref.media is not None:
        return case.path(ref.media)
    dest = validation_dir / REFERENCES_DIR / f"{ref.view}.png"
    try:
        write_bytes(dest, render(case.path(ref.mockup or "")))
    except BrowserError:
        dest.unlink(missing_ok=True)  # the check says "reference ...: No such file"
    return dest
