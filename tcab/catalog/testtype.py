"""What a test type module provides (docs/contracts.md, "Test types").

A test type is one class, found by name through :mod:`tcab.catalog.typetable`
(its implementations live in :mod:`tcab.testtypes`, a layer above: the
catalog only knows this protocol and the table of names). It declares, as
class attributes and methods:

- ``name``: the folder name under the catalog and the manifest's ``type``;
- its manifest section: ``section_keys`` (the top-level keys it accepts
  beyond the common ones; every other key is refused with ``file:line: key``),
  ``build`` (what ``[build]`` takes) and :meth:`TestType.parse_section`, which
  returns the type's typed, frozen section object (``CaseVersion.section``);
- ``review_item_keys``: keys a ``[[review_item]]`` of the manifest may carry
  beyond the common ones (the type's section checks them);
- ``run_image``: the image kind (:data:`tcab.runtime.images.RUN_IMAGES`) its
  runs use, ``build_image`` the one its trees are built or evaluated in;
- what seeding adds beyond the common steps (:meth:`seed_entries`, and the
  files it reads: :meth:`seed_sources`; :meth:`mockups` when a browser renders
  some of it);
- ``after_run``: the doit tasks it contributes after each run (:class:`AfterRun`);
- ``evaluation_record``: ``"module:Class"`` of the record its evaluation
  writes, and ``evaluate_command`` the ``tcab`` command that evaluates one run;
- ``report_columns``: the keys of its report columns (``tcab.results.columns``),
  and ``report_table``: ``"module:object"`` of a ``TypeTable``, a table of
  its own in every group of its cases (its columns and the query of its rows);
- ``success``: what counts as a success of its runs in the report's
  statistics (:class:`SuccessRule`; None: the type defines no success, its
  groups show none);
- ``reviewed`` and :meth:`review_material`: what a reviewer grades;
- ``view_panel``: ``"module:function"`` of its panel in ``tcab view``;
- :meth:`watch_setup`: what a watched run's workspace gets so that the run's
  tool can stream its preview to the listener (:class:`LiveEndpoint`); a
  type that cannot be watched keeps the default, which refuses.

The end-to-end type is the worked example (``tcab/testtypes/end_to_end.py``).

Implementations that need heavy parts (the arena, the browser, doit's task
layer) are named as ``"module:object"`` strings and imported on first use,
as runtime backends are, so that parsing a manifest never imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from tcab.catalog.fields import Fields, Source
    from tcab.catalog.model import CaseVersion, Reference, Variant
    from tcab.catalog.review import Scope
    from tcab.catalog.variants import Declared
    from tcab.seeding.plan import SeedEntry


@dataclass(frozen=True, slots=True)
class SuccessRule:
    """Which runs of a type succeeded, for the report's statistics: ``count``
    names the report's own per-group count (a ``RunSummary`` field such as
    ``builds_ok``: free, the report computes it anyway), else ``runs`` is an
    SQL query of one column ``run_id`` listing the runs that succeeded."""

    count: str | None = None
    runs: str | None = None


@dataclass(frozen=True, slots=True)
class LiveEndpoint:
    """Where a watched run's container sends its preview frames (tcab.watch):
    ``url`` as the container reaches it (``http://host.docker.internal:PORT/frame``;
    the host, port and path are what a client connects to, one TCP connection
    per frame, docs/asset-generation.md "Watching a run") and the run's own
    ``token``, which every frame's header must carry."""

    url: str
    token: str

    def __repr__(self) -> str:  # the token stays out of tracebacks and logs
        return f"LiveEndpoint(url={self.url!r}, token=<hidden>)"


@dataclass(frozen=True, slots=True)
class BuildKeys:
    """What ``[build]`` takes for a type: ``install`` and ``build`` always; ``dest``
    (``output``, ``module``) names the one path the build leaves, if any."""

    required: bool = False  # the table itself
    dest: str | None = None
    dest_required: bool = False


@dataclass(frozen=True, slots=True)
class AfterRun:
    """One kind of doit task a type adds after each of its runs.

    ``basename`` is the task group (``validate:<run name>``); ``task`` is the
    ``"module:object"`` of a :class:`tcab.tasks.after.AfterRunTask`, imported
    only when a sweep loads."""

    basename: str
    task: str


@dataclass(frozen=True, slots=True)
class SectionInput:
    """What a type's section parser reads: the manifest's fields (``f``, whose
    allowed keys are the common ones plus ``section_keys``), its raw table and
    source, the version folder, and the names the common part declared."""

    f: Fields
    data: dict[str, Any]
    source: Source
    root: Path
    declared: Declared
    here: str  # "in test-case.toml", for messages


@dataclass(frozen=True, slots=True)
class ParsedSection:
    """A parsed section, and a check run once the variants are parsed
    (``scopes``: the names each variant's effective set declares)."""

    section: Any
    after_variants: Callable[[list[Scope]], None] | None = None
    # Keys a variant file of this case may add (a voxel case's ``[voxel]``),
    # and the parser of them: it reads the variant's fields and returns what
    # lands in ``Variant.extra``.
    variant_keys: tuple[str, ...] = ()
    parse_variant: Callable[[Fields], Mapping[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class Section:
    """A type's section with nothing in it (a type without own keys)."""


class TestType:
    """The base every test type extends; the defaults describe a type with no
    own keys, no extra seeding, no tasks after a run and no panel."""

    __test__ = False  # not a pytest test class, despite its name

    name: ClassVar[str] = ""
    section_keys: ClassVar[tuple[str, ...]] = ()
    build: ClassVar[BuildKeys] = BuildKeys()
    run_image: ClassVar[str] = "base-wasm"
    build_image: ClassVar[str | None] = None
    after_run: ClassVar[tuple[AfterRun, ...]] = ()
    evaluation_record: ClassVar[str | None] = None
    evaluate_command: ClassVar[str | None] = None
    report_columns: ClassVar[tuple[str, ...]] = ()
    report_table: ClassVar[str | None] = None
    success: ClassVar[SuccessRule | None] = None
    reviewed: ClassVar[bool] = False
    view_panel: ClassVar[str | None] = None
    review_item_keys: ClassVar[tuple[str, ...]] = ()

    def parse_section(self, p: SectionInput) -> ParsedSection:
        """The type's typed, frozen section of the manifest; problems go to
        ``p.source`` (``file:line: key``). The default: an empty section."""
        return ParsedSection(Section())

    def run_image_for(self, case: CaseVersion) -> str:
        """The image kind a run of ``case`` uses: ``run_image`` unless the
        type's kinds differ per case (the asset type's sprite and sheet)."""
        return self.run_image

    def prompt_preamble(self, case: CaseVersion, variant: Variant) -> str:
        """Text put before the case's own rendered prompt (the asset type's
        quality directive); none by default."""
        return ""

    def template_context(self, case: CaseVersion, variant: Variant) -> dict[str, Any]:
        """Names the type adds to the prompt's context (the asset type's
        ``{{voxel.*}}``); none by default. The common names win a clash."""
        return {}

    def seed_sources(self, case: CaseVersion, variant: Variant) -> tuple[str | None, ...]:
        """The version-relative files seeding reads beyond the common ones."""
        return ()

    def seed_entries(self, case: CaseVersion, variant: Variant, seeding: SeedingInput) -> list[SeedEntry]:
        """What seeding adds after the workspace, specs and assets."""
        return []

    def references(self, case: CaseVersion, variant: Variant) -> tuple[Reference, ...]:
        """The reference views of ``variant`` (the common ones, then its own)."""
        return variant.references

    def mockups(self, case: CaseVersion, variant: Variant) -> tuple[Reference, ...]:
        """The references of ``variant`` a browser renders when seeding."""
        return tuple(ref for ref in self.references(case, variant) if ref.mockup is not None)

    def template_params(self, case: CaseVersion, variant: Variant) -> dict[str, Any]:
        """``variant.params`` as spec and prompt templates see them."""
        return dict(variant.params)

    def unplayable_reason(self, case: CaseVersion) -> str | None:
        """Why the arena cannot play ``case`` in matches, or None."""
        return f"{case.ref} is a {self.name} case; matches need an adversarial one"

    def evaluate_hint(self, run_id: str) -> str:
        """How a run of this type is evaluated, for a command refusing it."""
        if self.evaluate_command is None:
            return f"a {self.name} run is evaluated by its sweep's after-run tasks"
        return f"evaluate it with `tcab {self.evaluate_command} {run_id}`"

    def watch_setup(self, case: CaseVersion, variant: Variant, workspace: Path, live: LiveEndpoint) -> None:
        """Prepare a watched run: write into ``workspace`` (the run's own
        staged copy of the seeded repository, copied into the container
        after this returns and before the harness starts) what the run's
        tool needs to send frames to ``live``. Called only for runs started
        with ``--watch`` (or ``watch: true`` in a plan). Raises InputError
        when runs of this type cannot be watched (the default)."""
        from tcab.errors import InputError

        raise InputError(f"a {self.name} run cannot be watched ({case.ref}): only a type whose tool "
                         "streams a live preview can be (asset-generation)")

    def __repr__(self) -> str:
        return f"<test type {self.name}>"


@dataclass(frozen=True, slots=True)
class SeedingInput:
    """What :meth:`TestType.seed_entries` may use: ``read(path, what)`` (bytes,
    raising SeedError), ``render_mockup`` (None when the browser part is not
    available) and ``check_only`` (plan without rendering)."""

    read: Callable[[Path, str], bytes]
    render_mockup: Callable[[Path], bytes] | None
    check_only: bool

