"""Expand a :class:`Plan` against the catalog into the exact set of runs and tournaments.

Every name is resolved here (newest version, default or all variants, every
baseline), so the task generators only iterate. A name the catalog does not
know is a PlanError that names the plan line, not a catalog traceback.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from tcab.errors import CatalogError, PlanError
from tcab.plan.limits import PlanLimits
from tcab.plan.model import (
    ALL,
    Participant,
    Plan,
    RunSpec,
    Sweep,
    TournamentSpec,
    digest_of,
)


def _resolve(plan: Plan, catalog, slug: str, version: str | None, line: int):
    try:
        return catalog.resolve(slug, version)
    except CatalogError as exc:
        raise PlanError(f"{plan.path}:{line}: case: {exc}") from exc


def _variants(plan: Plan, case, wanted: tuple[str, ...] | None, line: int) -> list[str]:
    known = [v.slug for v in case.variants]
    if wanted is None:
        return known[:1]
    if wanted == (ALL,):
        return known
    for slug in wanted:
        if slug not in known:
            raise PlanError(
                f"{plan.path}:{line}: variants: {case.ref} has no variant {slug!r}; known: {', '.join(known)}"
            )
    return list(wanted)


def baselines_of(case) -> list[str]:
    """The baseline controllers a case ships: the sub-folders of ``[game].baselines``."""
    if case.section.game is None or case.section.game.baselines is None:
        return []
    root = case.path(case.section.game.baselines)
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def _runs(plan: Plan, catalog, known_harnesses: Iterable[str] | None, max_runs: int) -> list[RunSpec]:
    known = set(known_harnesses) if known_harnesses is not None else None
    runtime = digest_of({"backend": plan.runtime.backend, "settings": plan.runtime.settings()})
    seen: dict[str, RunSpec] = {}
    for matrix in plan.matrices:
        for h in matrix.harnesses:
            if known is not None and h.slug not in known:
                raise PlanError(
                    f"{plan.path}:{h.line}: harness: unknown harness {h.slug!r}; known: {', '.join(sorted(known))}"
                )
        for sel in matrix.cases:
            for version in sel.versions or (None,):
                case = _resolve(plan, catalog, sel.slug, version, sel.line)
                for variant in _variants(plan, case, sel.variants, sel.line):
                    for h in matrix.harnesses:
                        for model in h.models:
                            for repeat in range(1, matrix.repeats + 1):
                                # One line per field (none holds a newline), the runtime
                                # digested once: a 10,000-run plan expands in milliseconds.
                                entry = f"{case.slug}\n{case.version}\n{variant}\n{h.slug}\n{model}\n{repeat}\n{runtime}"
                                spec = RunSpec(
                                    case.slug, case.version, variant, h.slug, model, repeat,
                                    hashlib.sha256(entry.encode("utf-8")).hexdigest(),
                                    watch=plan.watch if matrix.watch is None else matrix.watch,
                                )
                                # Two matrices naming the same run describe one run, not two.
                                seen.setdefault(spec.name, spec)
                                if len(seen) > max_runs:
                                    raise PlanError(f"{plan.path}:{matrix.line}: runs: the plan expands to more "
                                                    f"than {max_runs} runs (TCAB_PLAN_MAX_RUNS)")
    return list(seen.values())


def _tournaments(plan: Plan, catalog, runs: list[RunSpec]) -> list[TournamentSpec]:
    out = []
    for t in plan.tournaments:
        case = _resolve(plan, catalog, t.case, t.version, t.line)
        if (why := case.unplayable_reason()) is not None:
            raise PlanError(f"{plan.path}:{t.line}: case: {why}")
        variant = _variants(plan, case, (t.variant,) if t.variant else None, t.line)[0]
        shipped = baselines_of(case)
        chosen = shipped if t.baselines == (ALL,) else list(t.baselines)
        for b in chosen:
            if b not in shipped:
                raise PlanError(
                    f"{plan.path}:{t.line}: baselines: {case.ref} has no baseline {b!r}; known: {', '.join(shipped)}"
                )
        seats = [Participant(name=f"baseline/{b}", baseline=b) for b in chosen]
        for src in t.runs:
            matched = [
                r for r in runs
                if (r.case, r.version, r.variant, r.harness) == (case.slug, case.version, variant, src.harness)
                and (src.model is None or r.model == src.model)
            ]
            if not matched:
                raise PlanError(
                    f"{plan.path}:{src.line}: runs: no run of {src.harness!r} on "
                    f"{case.slug}/{case.version}/{variant} in this plan's runs"
                )
            seats.extend(Participant(name=f"{r.agent}/{r.repeat}", run=r) for r in matched)
        if len(seats) < 2:
            raise PlanError(f"{plan.path}:{t.line}: participants: a tournament needs at least two")
        rounds = t.rounds or (case.section.match.rounds if case.section.match is not None else 1)
        entry = {
            "name": t.name, "case": case.slug, "version": case.version, "variant": variant,
            "participants": [p.name for p in seats], "rounds": rounds, "seed": t.seed,
        }
        out.append(
            TournamentSpec(t.name, case.slug, case.version, variant, tuple(seats), rounds, t.seed, digest_of(entry))
        )
    return out


def expand(
    plan: Plan,
    catalog,
    known_harnesses: Iterable[str] | None = None,
    limits: PlanLimits | None = None,
) -> Sweep:
    """Expand ``plan`` against ``catalog`` (a tcab.catalog Catalog).

    ``known_harnesses`` (slugs) lets an unknown harness fail here with the plan
    line. Raises PlanError for any name the catalog or harnesses do not know,
    and for a plan of more than ``limits.max_runs`` runs (counted as they are
    made: a huge plan is refused after ``max_runs`` steps, not expanded first).
    """
    limits = PlanLimits() if limits is None else limits
    runs = _runs(plan, catalog, known_harnesses, limits.max_runs)
    return Sweep(plan=plan, runs=tuple(runs), tournaments=tuple(_tournaments(plan, catalog, runs)))
