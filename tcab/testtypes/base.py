"""What the types' seeding shares: reference views seeded as screenshots.

The protocol itself is :mod:`tcab.catalog.testtype`; a type imports it, and
this helper, from :mod:`tcab.testtypes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcab.catalog.testtype import SeedingInput

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion, Reference
    from tcab.seeding.plan import SeedEntry


def reference_entries(refs: tuple[Reference, ...], case: CaseVersion, seeding: SeedingInput) -> list[SeedEntry]:
    """Seed entries of reference views at ``reference/<view>.<ext>``: an image
    as it is, a mockup rendered by ``seeding.render_mockup``.

    Raises SeedError for a mockup when no renderer is available."""
    from tcab.errors import BrowserError, SeedError
    from tcab.seeding.plan import MODE_FILE, SeedEntry

    entries = []
    for ref in refs:
        if ref.media is not None:
            data = seeding.read(case.path(ref.media), "reference media")
        elif seeding.check_only:
            data = b""
        elif seeding.render_mockup is None:
            raise SeedError(
                f"{case.manifest}: [[reference]] view {ref.view!r} is an HTML mockup; "
                "rendering mockups needs the browser part, which is not available here"
            )
        else:
            try:
                data = seeding.render_mockup(case.path(ref.mockup or ""))
            except BrowserError as exc:  # the toolkit's refusal, named as seeding's
                raise SeedError(str(exc)) from exc
        entries.append(SeedEntry(ref.dest, data, MODE_FILE, f"reference {ref.view}"))
    return entries
