"""Everything a sweep's task generators share: folders, the expanded plan, the
catalog, the executors, a digest cache, and where each target lives.

Built once when ``dodo.py`` loads and passed explicitly to the generators;
nothing here reads the environment after construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tcab.plan import RunSpec, Sweep, TournamentSpec
from tcab.settings import Settings
from tcab.tasks.executors import Executors
from tcab.tasks.keys import FileDigests


@dataclass(frozen=True, slots=True)
class SweepContext:
    """A loaded sweep: what to do and where it goes."""

    settings: Settings
    sweep: Sweep
    catalog: object  # tcab.catalog.Catalog
    executors: Executors
    cache: FileDigests = field(default_factory=FileDigests)
    _memo: dict = field(default_factory=dict)

    # ---- inputs that are the same for every task of a process, computed once

    def case(self, slug: str, version: str):
        return self.catalog.resolve(slug, version)

    def image_digest(self, case_type: str) -> str:
        key = ("image", case_type)
        if key not in self._memo:
            self._memo[key] = self.executors.image_digest(case_type, self.sweep.plan.runtime)
        return self._memo[key]

    def harness(self, slug: str):
        """The harness's HarnessInfo (definition digest, whether it reads the solution)."""
        key = ("harness", slug)
        if key not in self._memo:
            self._memo[key] = self.executors.harness(slug, self.settings)
        return self._memo[key]

    # ---- where targets live (relative names keep doit's output short)

    def rel(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.settings.root))
        except ValueError:
            return str(path)

    def seed_dir(self, case: str, version: str, variant: str) -> Path:
        return self.settings.build_dir / "seeds" / case / version / variant

    def seed_record(self, case: str, version: str, variant: str) -> Path:
        return self.seed_dir(case, version, variant) / "seed.json"

    def prompt_record(self, case: str, version: str, variant: str) -> Path:
        return self.settings.build_dir / "prompts" / case / version / f"{variant}.json"

    def run_record(self, spec: RunSpec) -> Path:
        return self.settings.results_dir / "sweep" / "runs" / f"{spec.name}.json"

    def module_record(self, name: str) -> Path:
        """``name``: ``case/version/variant/agent/repeat`` or ``case/version/baseline/x``."""
        return self.settings.build_dir / "modules" / f"{name}.json"

    def module_names(self) -> list[str]:
        """Every module the sweep builds: of adversarial runs, then of tournament baselines."""
        names = [r.name for r in self.sweep.runs if self.case(r.case, r.version).type == "adversarial"]
        for t in self.sweep.tournaments:
            for p in t.participants:
                if p.baseline is not None:
                    name = baseline_build_name(t.case, t.version, p.baseline)
                    if name not in names:
                        names.append(name)
        return names

    def tournament_dir(self, t: TournamentSpec) -> Path:
        return self.settings.results_dir / "sweep" / "tournaments" / t.name

    @property
    def manifest(self) -> Path:
        return self.settings.results_dir / "sweep" / "manifest.json"

    @property
    def report_dir(self) -> Path:
        return self.settings.results_dir / "report"


def baseline_build_name(case: str, version: str, baseline: str) -> str:
    return f"{case}/{version}/baseline/{baseline}"
