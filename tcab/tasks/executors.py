"""What the sweep tasks call to do the expensive work, behind one small surface.

The task generators decide *what* is stale; the executors *do* a run, a
build, a tournament, a report. :func:`tcab.tasks.real.real_executors` wires
them to the runs, arena and results parts. Tests of the task layer pass their
own executors (tests/tasks/sweep_fakes.py: a fast fake run that answers
through a function, allowed for code above the runtime); the real runtime is tested by its part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcab.plan import RunSpec, TournamentSpec
from tcab.runtime.choice import RuntimeChoice
from tcab.settings import Settings


@dataclass(frozen=True, slots=True)
class HarnessInfo:
    """What the sweep needs of a harness definition."""

    digest: str  # of the definition file
    stage_solution: bool = False  # reads the case's reference solution, not only the seed
    secrets: tuple[str, ...] = ()  # host variables its sessions need (preflight, concurrency caps)


@dataclass(frozen=True, slots=True)
class RunRequest:
    """One run to perform: the seeded repository and prompt are already built,
    and what their records hold is handed down (nothing is read back from git
    or hashed again)."""

    spec: RunSpec
    case: Any  # tcab.catalog.CaseVersion
    seed_dir: Path
    prompt: str
    seed_commit: str  # the seed record's commit
    case_digest: str  # the case folder's digest the seed was made from
    runtime: RuntimeChoice  # the plan's: runs, builds and validations alike
    settings: Settings
    run_id: str  # chosen by the task before the run starts, so a resume can find it


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What a run produced: its record folder and status."""

    run_id: str
    status: str
    run_dir: Path
    artifact_digest: str | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class BuildOutcome:
    """A controller module built from a tree: ``sha256`` and ``module`` when ``ok``."""

    ok: bool
    sha256: str | None = None
    module: Path | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ValidationOutcome:
    """An end-to-end run's validation: ``passed``, ``failed`` (a result) or
    ``error`` (the engine or the browser failed: not a result)."""

    status: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class TournamentEntrant:
    """A tournament participant with the module it plays (None: its build failed)."""

    name: str
    sha256: str | None
    module: Path | None


@dataclass(frozen=True, slots=True)
class TournamentRequest:
    spec: TournamentSpec
    case: Any
    entrants: tuple[TournamentEntrant, ...]
    out_dir: Path  # results/sweep/tournaments/<name>/: replays go here
    settings: Settings
    jobs: int = 1  # match processes: the plan's parallelism (results do not depend on it)


@dataclass(frozen=True, slots=True)
class Executors:
    """The functions the sweep calls. Each raises TcabError for bad input or
    infrastructure failure; outcomes (a failed build, a forfeit) are data."""

    image_digest: Callable[[str, RuntimeChoice], str]  # run image kind (TestType.run_image) -> digest
    harness: Callable[[str, Settings], HarnessInfo]  # harness slug -> its digest
    run: Callable[[RunRequest], RunOutcome]
    # (case, the run, settings, the plan's runtime, the adversarial image digest the key holds)
    build_run: Callable[[Any, RunOutcome, Settings, RuntimeChoice, str], BuildOutcome]
    build_baseline: Callable[[Any, str, Settings], BuildOutcome]
    tournament: Callable[[TournamentRequest], dict[str, Any]]  # -> {"standings": [...], ...}
    report: Callable[[Settings, Path], None]  # results.db -> static report in the folder
    # (case, variant slug, replay files) -> one verdict per file: {"replay", "ok", "problems"}
    verify_replays: Callable[[Any, str, list[Path]], list[dict[str, Any]]]
    # (case, the run, settings, the plan's runtime) -> its validation, recorded in results.db
    validate: Callable[[Any, RunOutcome, Settings, RuntimeChoice], ValidationOutcome]
