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

from tcab.errors import CatalogError, Problem

TYPES = ("end-to-end", "adversarial")
DIFFICULTIES = ("easy", "medium", "hard")
STRUCTURES = ("round-robin", "bracket")


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
    """A reference view of an end-to-end case: a static image or an HTML mockup."""

    view: str
    media: str | None = None
    mockup: str | None = None

    @property
    def dest(self) -> str:
        """Where the screenshot lands in the seeded repository."""
        if self.media is not None:
            return f"reference/{self.view}{Path(self.media).suffix.lower()}"
        return f"reference/{self.view}.png"


@dataclass(frozen=True, slots=True)
class Build:
    """How a submission is built: a static site (``output``) or a wasm ``module``."""

    install: str
    build: str
    output: str | None = None
    module: str | None = None


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


@dataclass(frozen=True, slots=True)
class CaseVersion:
    """One immutable version folder of a test case, fully parsed."""

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
    max_runtime_hours: float = 1.0
    workspace: str | None = None
    init: str | None = None
    assets: str | None = None
    solution: str | None = None
    specs: tuple[SpecFile, ...] = ()
    build: Build | None = None
    references: tuple[Reference, ...] = ()
    contract: Contract | None = None
    sandbox: Sandbox | None = None
    simulation: Simulation | None = None
    match: Match | None = None
    replay: Replay | None = None
    game: Game | None = None

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
        over the workspace: the common one, then the variant's own on top."""
        return tuple(rel for rel in (self.solution, variant.solution) if rel)

    def specs_for(self, variant: Variant) -> tuple[SpecFile, ...]:
        """Common specs first, then the variant's additive ones."""
        return self.specs + variant.spec

    def game_params(self, variant: Variant) -> dict[str, Any]:
        """The variant's ``[params]`` merged over ``[game].params`` (shallow)."""
        base = dict(self.game.params) if self.game is not None else {}
        base.update(variant.params)
        return base


def version_key(version: str) -> tuple[int, int, int]:
    """``"v1.2.3"`` -> ``(1, 2, 3)``; raises ValueError for anything else."""
    text = version[1:] if version.startswith("v") else version
    parts = text.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"not a version vX.Y.Z: {version!r}")
    major, minor, patch = (int(p) for p in parts)
    return major, minor, patch
