"""The sweep plan as typed, frozen data.

Two layers: what ``benchmark.yaml`` says (:class:`Plan`, a matrix that still
names cases by slug and may say "newest" or "all"), and what it expands to
against a catalog (:class:`Sweep`: one :class:`RunSpec` per run, one
:class:`TournamentSpec` per tournament, every name resolved). Each expanded
entry carries ``entry_digest``: the digest of exactly the plan settings that
entry depends on, so editing one entry of a plan re-does that entry only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tcab.artifacts import digest_of
from tcab.plan.throttle import Concurrency, RetryPolicy
from tcab.runtime.choice import RuntimeChoice

__all__ = ["digest_of"]  # re-exported: tcab.plan.digest_of

ALL = "all"


def model_label(model: str | None) -> str:
    """A model name as it appears in task names and paths ('/' would nest folders)."""
    return "" if model is None else model.replace("/", "~")


@dataclass(frozen=True, slots=True)
class CaseSelection:
    """One ``cases`` item of a run matrix: a slug, versions and variants (or ALL / newest)."""

    slug: str
    versions: tuple[str, ...] | None  # None: the newest version
    variants: tuple[str, ...] | None  # None: the default variant; (ALL,) every variant
    line: int


@dataclass(frozen=True, slots=True)
class HarnessSelection:
    """One ``harnesses`` item of a run matrix: a harness and the models to run it with."""

    slug: str
    models: tuple[str | None, ...]  # (None,) when the harness takes no model
    line: int


@dataclass(frozen=True, slots=True)
class RunMatrix:
    """Every combination of cases x harnesses x models x repeats."""

    cases: tuple[CaseSelection, ...]
    harnesses: tuple[HarnessSelection, ...]
    repeats: int
    line: int
    watch: bool | None = None  # None: the plan's own ``watch``


@dataclass(frozen=True, slots=True)
class RunSource:
    """Tournament participants built from the plan's runs of one harness (and model)."""

    harness: str
    model: str | None
    line: int


@dataclass(frozen=True, slots=True)
class TournamentPlan:
    """One ``tournaments`` item as written."""

    name: str
    case: str
    version: str | None
    variant: str | None
    baselines: tuple[str, ...]  # (ALL,) every baseline of the case
    runs: tuple[RunSource, ...]
    rounds: int | None  # None: the case's [match].rounds
    seed: int
    line: int


@dataclass(frozen=True, slots=True)
class Plan:
    """A parsed ``benchmark.yaml``."""

    path: Path
    name: str
    runtime: RuntimeChoice  # the one runtime of every step (tcab.runtime.choice)
    parallelism: int
    matrices: tuple[RunMatrix, ...]
    tournaments: tuple[TournamentPlan, ...]
    report: bool
    watch: bool = False  # watch every run live unless its matrix says otherwise
    concurrency: Concurrency = Concurrency()  # caps per harness, model, secret (tcab.plan.throttle)
    retries: RetryPolicy = RetryPolicy()  # infrastructure runs retried inside the sweep
    prices: Path | None = None  # the price table (tcab.results.prices), else $TCAB_PRICES
    budget: float | None = None  # no new run starts once the sweep's recorded cost reaches it


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One run of the expanded sweep."""

    case: str
    version: str
    variant: str
    harness: str
    model: str | None
    repeat: int
    entry_digest: str
    #: ``capture/v1.0.0/base/reference/1``: the doit sub-task name and target
    #: path (computed once: a 10,000-run sweep asks for it many times).
    name: str = field(default="", compare=False)
    #: Watched live (tcab.watch). Not in ``entry_digest``: a watch looks on, so
    #: turning it on or off re-does no run.
    watch: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", f"{self.case}/{self.version}/{self.variant}/{self.agent}/{self.repeat}")

    @property
    def agent(self) -> str:
        """``harness`` or ``harness@model``: the agent part of a name."""
        return self.harness if self.model is None else f"{self.harness}@{model_label(self.model)}"

    @property
    def case_path(self) -> str:
        return f"{self.case}/{self.version}/{self.variant}"


@dataclass(frozen=True, slots=True)
class Participant:
    """A tournament seat holder: a case baseline or a controller built from a run."""

    name: str
    baseline: str | None = None
    run: RunSpec | None = None


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """One tournament of the expanded sweep."""

    name: str
    case: str
    version: str
    variant: str
    participants: tuple[Participant, ...]
    rounds: int
    seed: int
    entry_digest: str

    @property
    def case_path(self) -> str:
        return f"{self.case}/{self.version}/{self.variant}"


@dataclass(frozen=True, slots=True)
class Sweep:
    """A plan expanded against a catalog: the exact set of work it describes."""

    plan: Plan
    runs: tuple[RunSpec, ...]
    tournaments: tuple[TournamentSpec, ...]

    def seeds(self) -> tuple[tuple[str, str, str], ...]:
        """Distinct (case, version, variant) triples the runs and tournaments need, in order."""
        seen: dict[tuple[str, str, str], None] = {}
        for r in self.runs:
            seen.setdefault((r.case, r.version, r.variant), None)
        return tuple(seen)
