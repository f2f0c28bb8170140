"""The typed, frozen objects a catalog is parsed into.

Paths kept in these objects are POSIX strings relative to the version folder
(``CaseVersion.root``), exactly as written in the manifest; the parser has
already checked that each resolves inside that folder. ``CaseVersion.path(rel)``
turns one into an absolute ``Path``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcab.catalog.actions import Action
from tcab.catalog.layout import PACKAGES_FOLDER, version_key
from tcab.catalog.testtype import TestType
from tcab.catalog.typetable import get_type
from tcab.errors import CatalogError, Problem

STRUCTURES = ("round-robin", "bracket")
# The folders a static site may be built into when ``[build].output`` is not
# given, in the order they are tried (the original Test Cabinet's convention).
SITE_OUTPUTS = ("dist", "build", "out")
# A proof's media kind, from its ``dest`` extension.
PROOF_KINDS = {".png": "image", ".webm": "video"}
# The [toolchain] commands, in the order validation runs them (the gating one first).
TOOLCHAIN_COMMANDS = ("typecheck", "lint", "format", "test")
# The media a review item's validation script may produce (the original's kinds).
OUTPUT_KINDS = ("image", "video", "replay")
# The manifest formats tcab reads (the original's ``format``; 1 when absent).
FORMATS = (1, 2)


@dataclass(frozen=True, slots=True)
class SpecFile:
    """One spec seeded at ``dest``; a ``.hbs`` source is rendered first."""

    source: str
    dest: str

    @property
    def is_template(self) -> bool:
        return self.source.endswith(".hbs")


@dataclass(frozen=True, slots=True)
class Reference:
    """A reference view of an end-to-end case: a static image (``media``) or an
    HTML mockup (``mockup``, written ``path`` in the original's manifests),
    rendered to a screenshot; the mockup itself is never seeded. ``seed``
    False holds the view back: never copied into the run's repository, it
    is a baseline only a ``[[check]]`` sees (docs/validation.md)."""

    view: str
    media: str | None = None
    mockup: str | None = None
    seed: bool = True

    @property
    def dest(self) -> str:
        """Where the screenshot lands in the seeded repository."""
        if self.media is not None:
            return f"reference/{self.view}{Path(self.media).suffix.lower()}"
        return f"reference/{self.view}.png"


@dataclass(frozen=True, slots=True)
class Build:
    """How a submission is built: a static site (``output``, or the first of
    ``dist/``, ``build/``, ``out/`` when not given) or a wasm ``module``."""

    install: str
    build: str
    output: str | None = None
    module: str | None = None


def site_output_candidates(build: Build) -> tuple[str, ...]:
    """The folders, in order, of which the first that exists is the built site:
    ``(output,)`` when the case names one, else ``("dist", "build", "out")``."""
    return (build.output,) if build.output else SITE_OUTPUTS


@dataclass(frozen=True, slots=True)
class Toolchain:
    """An end-to-end case's ``[toolchain]``: shell commands run over the built
    tree (tcab.catalog.toolchain). ``typecheck`` gates the run; the others are
    recorded only."""

    typecheck: str
    lint: str | None = None
    format: str | None = None
    test: str | None = None

    def commands(self) -> tuple[tuple[str, str], ...]:
        """The declared ``(name, command)`` pairs in run order (TOOLCHAIN_COMMANDS)."""
        return tuple((name, cmd) for name in TOOLCHAIN_COMMANDS if (cmd := getattr(self, name)) is not None)


@dataclass(frozen=True, slots=True)
class ViewCheck:
    """An opt-in validation comparison: drive the page with ``actions``, take a
    screenshot, compare it with the rendered ``reference`` view; recorded as ``view``."""

    view: str
    name: str
    reference: str
    actions: tuple[Action, ...] = ()


@dataclass(frozen=True, slots=True)
class Proof:
    """Evidence a build must write at ``dest`` (relative to the workspace)."""

    id: str
    name: str
    dest: str

    @property
    def kind(self) -> str:
        """``image`` (``.png``) or ``video`` (``.webm``); the parser refuses others."""
        return PROOF_KINDS[Path(self.dest).suffix.lower()]


@dataclass(frozen=True, slots=True)
class Domain:
    """A scoring domain a reviewer rates; reviewer material, never seeded."""

    id: str
    name: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class ReviewSubItem:
    """One independently graded point of a review item; the item's weight is
    split evenly across its sub items."""

    id: str
    title: str


@dataclass(frozen=True, slots=True)
class ValidationOutput:
    """A medium a review item's validation script writes for the reviewer."""

    id: str
    name: str
    kind: str  # one of OUTPUT_KINDS


@dataclass(frozen=True, slots=True)
class ReviewValidation:
    """The original's automated check of a review item: a script (relative to
    the version folder) that drives the build through the instrumentation
    handle. tcab carries it for the reviewer; it does not run it."""

    script: str
    outputs: tuple[ValidationOutput, ...] = ()


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """One reviewer checklist item, worth ``weight`` points; never seeded.
    ``reference``, ``proof`` and ``domain`` name a declared view, proof and domain.

    An item of a ``[review] format = 2`` category has ``category`` set and an
    ``id`` qualified by it (``"deal.columns"``, the original's own naming of
    its validation media): unique in a variant's checklist either way."""

    id: str
    title: str
    text: str
    weight: float = 1
    reference: str | None = None
    proof: str | None = None
    domain: str | None = None
    sub_items: tuple[ReviewSubItem, ...] = ()
    validation: ReviewValidation | None = None
    category: str | None = None

    @property
    def local_id(self) -> str:
        """The id as written in its category (``columns`` of ``deal.columns``)."""
        return self.id.removeprefix(f"{self.category}.") if self.category else self.id


@dataclass(frozen=True, slots=True)
class ReviewCategory:
    """A ``[[review.categories]]`` of a format-2 checklist: a title grouping
    items. A variant reusing a common category's id adds items to it."""

    id: str
    title: str
    items: tuple[ReviewItem, ...] = ()

    @property
    def weight(self) -> float:
        return sum(item.weight for item in self.items)


def merge_categories(common: tuple[ReviewCategory, ...],
                     own: tuple[ReviewCategory, ...]) -> tuple[ReviewCategory, ...]:
    """A variant's categories: the common ones in order, each with the items a
    variant category of the same id adds; then the variant's new categories."""
    extra = {c.id: c for c in own}
    merged = [ReviewCategory(c.id, c.title, c.items + (extra.pop(c.id).items if c.id in extra else ()))
              for c in common]
    return tuple(merged) + tuple(c for c in own if c.id in extra)


@dataclass(frozen=True, slots=True)
class Instrumentation:
    """The debug-and-automation surface a build installs (``window[handle]``),
    named for validation scripts; reporter-side, never seeded."""

    handle: str
    tick_hz: float | None = None


@dataclass(frozen=True, slots=True)
class Contract:
    """The controller interface: exported entry and the two JSON Schemas."""

    entry: str
    world: str
    action: str


@dataclass(frozen=True, slots=True)
class Sandbox:
    fuel_per_tick: int
    max_memory_bytes: int


@dataclass(frozen=True, slots=True)
class Simulation:
    timestep_ms: int
    max_ticks: int


@dataclass(frozen=True, slots=True)
class Match:
    participants: int = 2
    structure: str = "round-robin"
    rounds: int = 1


@dataclass(frozen=True, slots=True)
class Replay:
    renderer: str


@dataclass(frozen=True, slots=True)
class Game:
    """The case's own rules module, its default parameters and baseline bots."""

    module: str
    # Tables are not hashable: leave them out of the hash (equality still compares them).
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)
    baselines: str | None = None


@dataclass(frozen=True, slots=True)
class Variant:
    """One standalone variant file of a case version."""

    slug: str
    name: str
    file: str
    description: str = ""
    spec: tuple[SpecFile, ...] = ()
    workspace: str | None = None
    solution: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)
    references: tuple[Reference, ...] = ()
    proofs: tuple[Proof, ...] = ()
    domains: tuple[Domain, ...] = ()
    review_items: tuple[ReviewItem, ...] = ()
    review_categories: tuple[ReviewCategory, ...] = ()
    reference_implementation: str | None = None


@dataclass(frozen=True, slots=True)
class CaseVersion:
    """One immutable version folder of a test case, fully parsed: the keys
    every type has, and the one ``section`` of its type."""

    type: str
    difficulty: str
    slug: str
    version: str
    root: Path
    name: str
    tags: tuple[str, ...]
    changelog: str
    prompt: str
    variants: tuple[Variant, ...]
    experimental: bool = False
    summary: str = ""
    description: str | None = None
    # The one owner of the case's wall-clock cap, from max_runtime_hours or
    # max_runtime_seconds (a manifest gives at most one).
    max_runtime_s: float = 3600.0
    workspace: str | None = None
    init: str | None = None
    # Files or folders, each seeded at its own path (``assets = "dir"`` or a list).
    assets: tuple[str, ...] = ()
    # Shared packages by name: ``<catalog>/packages/<name>/``, seeded at
    # ``packages/<name>/``; their content is part of the case digest.
    packages: tuple[str, ...] = ()
    solution: str | None = None
    specs: tuple[SpecFile, ...] = ()
    build: Build | None = None
    proofs: tuple[Proof, ...] = ()
    domains: tuple[Domain, ...] = ()
    review_items: tuple[ReviewItem, ...] = ()
    # ``[review] format = 2``: the checklist grouped (review_items then holds
    # the same items, flattened, so code that needs no grouping reads those).
    review_categories: tuple[ReviewCategory, ...] = ()
    review_format: int = 1
    format: int = 1
    engines: tuple[str, ...] = ()
    instrumentation: Instrumentation | None = None
    # The typed, frozen section of the case's type (its test type parses it:
    # tcab.testtypes; e.g. EndToEndSection, AdversarialSection).
    section: Any = None

    @property
    def test_type(self) -> TestType:
        """The case's test type (tcab.testtypes): generic code asks it, never ``type``."""
        return get_type(self.type, str(self.manifest))

    @property
    def max_runtime_hours(self) -> float:
        return self.max_runtime_s / 3600.0

    @property
    def manifest(self) -> Path:
        return self.root / "test-case.toml"

    @property
    def version_key(self) -> tuple[int, int, int]:
        return version_key(self.version)

    @property
    def ref(self) -> str:
        """``slug@version``, how the CLI and logs name a case version."""
        return f"{self.slug}@{self.version}"

    def package_path(self, name: str) -> Path:
        """The folder of the shared package ``name``: ``<catalog>/packages/<name>``
        (the version folder is ``<catalog>/<type>/<difficulty>/<slug>/<version>``)."""
        return self.root.parents[3] / PACKAGES_FOLDER / name

    def path(self, rel: str) -> Path:
        """Absolute path of a manifest-relative path."""
        return self.root / rel

    def variant(self, slug: str | None = None) -> Variant:
        """The variant named ``slug``, or the default (first) one.

        Raises CatalogError naming the known variants when ``slug`` is unknown.
        """
        if slug is None:
            return self.variants[0]
        for v in self.variants:
            if v.slug == slug:
                return v
        known = ", ".join(v.slug for v in self.variants)
        raise CatalogError(
            Problem(str(self.manifest), f"unknown variant {slug!r}; known: {known}", key="variants")
        )

    def workspace_for(self, variant: Variant) -> str | None:
        """The workspace folder a variant seeds (its own replaces the common one)."""
        return variant.workspace if variant.workspace is not None else self.workspace

    def solutions_for(self, variant: Variant) -> tuple[str, ...]:
        """The reference solution folders of a variant, in the order they are laid
        over the workspace: the common one, then the variant's own on top, then
        its ``reference_implementation`` (the original's authored, correct build
        of the variant; never seeded, staged only by the ``reference`` harness)."""
        return tuple(rel for rel in (self.solution, variant.solution, variant.reference_implementation) if rel)

    def specs_for(self, variant: Variant) -> tuple[SpecFile, ...]:
        """Common specs first, then the variant's additive ones."""
        return self.specs + variant.spec

    def references_for(self, variant: Variant) -> tuple[Reference, ...]:
        """The reference views of ``variant``, as its test type declares them."""
        return self.test_type.references(self, variant)

    def seeded_references_for(self, variant: Variant) -> tuple[Reference, ...]:
        """The reference views seeded into a run of ``variant`` (not held back)."""
        return tuple(ref for ref in self.references_for(variant) if ref.seed)

    def mockups_for(self, variant: Variant) -> tuple[Reference, ...]:
        """The reference views of ``variant`` a browser renders when seeding."""
        return self.test_type.mockups(self, variant)

    def proofs_for(self, variant: Variant) -> tuple[Proof, ...]:
        """The proofs a build of ``variant`` must write: the common ones, then its own."""
        return self.proofs + variant.proofs

    def domains_for(self, variant: Variant) -> tuple[Domain, ...]:
        """The scoring domains of ``variant``: the common ones, then its own."""
        return self.domains + variant.domains

    def review_items_for(self, variant: Variant) -> tuple[ReviewItem, ...]:
        """The reviewer checklist of ``variant``: the common items, then its own
        (for a format-2 checklist, in category order: its categories' items)."""
        if self.review_format == 2:
            return tuple(i for c in self.review_categories_for(variant) for i in c.items)
        return self.review_items + variant.review_items

    def review_categories_for(self, variant: Variant) -> tuple[ReviewCategory, ...]:
        """The format-2 checklist of ``variant``: the common categories, each with
        the items the variant adds to it, then the variant's own categories.
        A format-1 checklist is one untitled category (id ``""``) of all items."""
        if self.review_format == 2:
            return merge_categories(self.review_categories, variant.review_categories)
        items = self.review_items + variant.review_items
        return (ReviewCategory("", "", items),) if items else ()

    def unplayable_reason(self) -> str | None:
        """Why tcab's arena cannot play this case on this host, or None (its type says)."""
        return self.test_type.unplayable_reason(self)

    def template_params(self, variant: Variant) -> dict[str, Any]:
        """``variant``'s params as spec and prompt templates see them (its type says:
        an adversarial case merges them over ``[game].params``)."""
        return self.test_type.template_params(self, variant)
