"""Where every sweep target lives: one owner of the paths, nothing else.

Paths follow ``Settings`` (``build/`` for seeds, prompts and modules,
``results/`` for runs, validations, tournaments, the manifest and the report;
docs/sweeps.md has the table). The records a no-op sweep asks for on every
check (seed, prompt, run, validation) are built once per process and kept as
strings: at 10,000 runs, building a Path each time shows in the benchmark.
"""

from __future__ import annotations

from pathlib import Path

from tcab.plan import RunSpec, TournamentSpec
from tcab.settings import Settings


def baseline_build_name(case: str, version: str, baseline: str) -> str:
    """The module name of a baseline the case ships: ``case/version/baseline/name``."""
    return f"{case}/{version}/baseline/{baseline}"


class TargetLayout:
    """The target paths of a sweep under ``settings``; its caches only remember
    paths already built (a path never changes within a process)."""

    __slots__ = ("settings", "_root_prefix", "_seeds", "_prompts", "_runs", "_validations")

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._root_prefix = str(settings.root).rstrip("/") + "/"
        self._seeds: dict[tuple[str, str, str], Path] = {}
        self._prompts: dict[tuple[str, str, str], Path] = {}
        self._runs: dict[str, str] = {}
        self._validations: dict[str, str] = {}

    def rel(self, path: Path | str) -> str:
        """``path`` relative to the project root when inside it (string work: hot path)."""
        text = str(path)
        return text[len(self._root_prefix):] if text.startswith(self._root_prefix) else text

    # ---- build/: pure functions of their inputs (a CI cache may restore them)

    def seed_dir(self, case: str, version: str, variant: str) -> Path:
        return self.settings.build_dir / "seeds" / case / version / variant

    def seed_record(self, case: str, version: str, variant: str) -> Path:
        key = (case, version, variant)
        found = self._seeds.get(key)
        if found is None:
            found = self._seeds[key] = self.seed_dir(case, version, variant) / "seed.json"
        return found

    def prompt_record(self, case: str, version: str, variant: str) -> Path:
        key = (case, version, variant)
        found = self._prompts.get(key)
        if found is None:
            found = self._prompts[key] = self.settings.build_dir / "prompts" / case / version / f"{variant}.json"
        return found

    def module_record(self, name: str) -> Path:
        """``name``: ``case/version/variant/agent/repeat`` or ``case/version/baseline/x``."""
        return self.settings.build_dir / "modules" / f"{name}.json"

    # ---- results/: what the sweep measured

    def run_record(self, spec: RunSpec) -> str:
        """A string, not a Path: built for each of thousands of runs when dodo.py loads."""
        found = self._runs.get(spec.name)
        if found is None:
            found = self._runs[spec.name] = f"{self.settings.results_dir}/sweep/runs/{spec.name}.json"
        return found

    def validation_record(self, spec: RunSpec) -> str:
        found = self._validations.get(spec.name)
        if found is None:
            found = self._validations[spec.name] = f"{self.settings.results_dir}/sweep/validations/{spec.name}.json"
        return found

    def tournament_dir(self, t: TournamentSpec) -> Path:
        return self.settings.results_dir / "sweep" / "tournaments" / t.name

    def entrants_record(self, t: TournamentSpec) -> Path:
        return self.tournament_dir(t) / "entrants.json"

    def standings_record(self, t: TournamentSpec) -> Path:
        return self.tournament_dir(t) / "standings.json"

    def replays_record(self, t: TournamentSpec) -> Path:
        return self.tournament_dir(t) / "replays.json"

    @property
    def manifest(self) -> Path:
        return self.settings.results_dir / "sweep" / "manifest.json"

    @property
    def stat_index(self) -> Path:
        """The manifest's stat index of every target (a cache, see keys.FileDigests)."""
        return self.settings.results_dir / "sweep" / ".stat-index.json"

    @property
    def report_dir(self) -> Path:
        return self.settings.results_dir / "report"

    @property
    def report_record(self) -> Path:
        return self.report_dir / "report.json"
