"""The end-to-end test type: an agent builds a static site from a spec.

Its manifest section is ``[[reference]]`` views (an image or an HTML mockup,
rendered to a screenshot when seeding), opt-in ``[[check]]`` comparisons and
the ``[toolchain]`` commands; ``[build]`` takes an optional ``output``
folder. Its runs use the ``base-wasm`` image; after each run the sweep
validates it (``validate:<run>``, :mod:`tcab.tasks.validate`), which writes
``validation/validation.json`` in the run's folder and a ``validations`` row.
A reviewer grades its runs in ``tcab view``; its panel there shows the
reference views next to the screenshots and the checks' results
(:mod:`tcab.testtypes.end_to_end_view`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from tcab.catalog.model import Reference, Toolchain, ViewCheck
from tcab.catalog.review import check_references
from tcab.catalog.toolchain import parse_toolchain
from tcab.catalog.views import parse_checks, parse_references
from tcab.testtypes import (
    AfterRun,
    BuildKeys,
    ParsedSection,
    SectionInput,
    SeedingInput,
    SuccessRule,
    TestType,
    reference_entries,
)

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion, Variant
    from tcab.seeding.plan import SeedEntry


@dataclass(frozen=True, slots=True)
class EndToEndSection:
    """An end-to-end case's own part of the manifest."""

    references: tuple[Reference, ...] = ()
    checks: tuple[ViewCheck, ...] = ()
    toolchain: Toolchain | None = None


class EndToEnd(TestType):
    name: ClassVar[str] = "end-to-end"
    section_keys: ClassVar[tuple[str, ...]] = ("reference", "check", "toolchain")
    # Optional: without it the site is the first of dist/, build/, out/
    # (model.site_output_candidates), as the original's manifests expect.
    build: ClassVar[BuildKeys] = BuildKeys(required=False, dest="output", dest_required=False)
    run_image: ClassVar[str] = "base-wasm"
    build_image: ClassVar[str | None] = "base-wasm"
    after_run: ClassVar[tuple[AfterRun, ...]] = (AfterRun("validate", "tcab.tasks.validate:VALIDATE"),)
    evaluation_record: ClassVar[str | None] = "tcab.validation.record:ValidationRecord"
    evaluate_command: ClassVar[str | None] = "validate"
    report_columns: ClassVar[tuple[str, ...]] = ("validation", "typecheck")
    # What counts as a success in the report's statistics (docs/results.md).
    success: ClassVar[SuccessRule | None] = SuccessRule(count="validations_passed")
    reviewed: ClassVar[bool] = True
    view_panel: ClassVar[str | None] = "tcab.testtypes.end_to_end_view:panel"

    def parse_section(self, p: SectionInput) -> ParsedSection:
        references = parse_references(p.data, p.source, p.root, p.declared.views, p.here)
        checks = parse_checks(p.data, p.source)
        section = EndToEndSection(references, tuple(c for _, c in checks), parse_toolchain(p.data, p.source))
        return ParsedSection(section, lambda scopes: check_references(p.source, checks, scopes))

    def references(self, case: CaseVersion, variant: Variant) -> tuple[Reference, ...]:
        return case.section.references + variant.references

    def seed_sources(self, case: CaseVersion, variant: Variant) -> tuple[str | None, ...]:
        return tuple(rel for ref in self.references(case, variant) for rel in (ref.media, ref.mockup))

    def seed_entries(self, case: CaseVersion, variant: Variant, seeding: SeedingInput) -> list[SeedEntry]:
        """The reference screenshots, at ``reference/<view>.<ext>`` (a view held
        back with ``seed = false`` is for ``[[check]]``s only)."""
        return reference_entries(tuple(r for r in self.references(case, variant) if r.seed), case, seeding)
