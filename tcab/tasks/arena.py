"""``build``, ``entrants`` and ``tournament`` tasks: controllers, fields, standings.

- ``build:capture/v1.0.0/base/reference/1`` builds the module of one run's
  collected tree (in a container: the tree is untrusted);
  ``build:capture/v1.0.0/baseline/rush`` builds a baseline the case ships
  (trusted, built on the host). Both land as ``build/wasm/<sha256>.wasm``
  with a record under ``build/modules/``; a failed build is a result too.
- ``entrants:<tournament>`` writes the ONE manifest a tournament depends
  on: each participant with the digest of the module it plays.
- ``tournament:<name>`` plays the field (matches are cached by the game's
  digest, variant, seed and module digests, so an unchanged pairing is not
  replayed) and writes ``standings.json``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from doit.exceptions import TaskFailed

from tcab.artifacts import baseline_module_key, run_module_key, run_tree
from tcab.catalog import tree_digest
from tcab.plan import Participant, RunSpec, TournamentSpec
from tcab.tasks.after import AfterRunTask
from tcab.tasks.context import SweepContext
from tcab.tasks.executors import BuildOutcome, RunOutcome, TournamentEntrant, TournamentRequest
from tcab.tasks.inputs import game_inputs
from tcab.tasks.keys import current_target, write_target
from tcab.tasks.layout import baseline_build_name


def _record_doc(ctx: SweepContext, path: Path, what: str) -> dict:
    doc = ctx.cache.target(path)
    if doc is None:
        raise KeyError(f"{what} not built (or its record is damaged)")
    return doc


def _write_build(ctx: SweepContext, record: Path, inputs: dict, out: BuildOutcome) -> bool:
    module = None if out.module is None else ctx.layout.rel(out.module)
    write_target(record, inputs, {
        "ok": out.ok, "sha256": out.sha256, "module": module, "detail": out.detail,
    }, requires=None if module is None else {module: out.sha256})
    return True


# ---- builds from runs

def run_build_inputs(ctx: SweepContext, spec: RunSpec) -> dict[str, str]:
    """The module's key (tcab.artifacts.run_module_key): the one the build cache uses too."""
    run = _record_doc(ctx, ctx.layout.run_record(spec), f"run {spec.name}")
    case = ctx.lookups.case(spec.case, spec.version)
    return run_module_key(case, run_tree(run.get("artifact_digest"), run["run_id"]),
                          ctx.lookups.image_digest(case.test_type.build_image))


def do_run_build(ctx: SweepContext, spec: RunSpec) -> bool:
    inputs = run_build_inputs(ctx, spec)
    record = ctx.layout.module_record(spec.name)
    if current_target(record, inputs, ctx.cache) is not None:
        return True
    run = _record_doc(ctx, ctx.layout.run_record(spec), f"run {spec.name}")
    outcome = RunOutcome(run["run_id"], run["status"], ctx.settings.root / run["run_dir"], run.get("artifact_digest"))
    built = ctx.executors.build_run(ctx.lookups.case(spec.case, spec.version), outcome, ctx.settings,
                                    ctx.sweep.plan.runtime, inputs["image"])
    return _write_build(ctx, record, inputs, built)


# ---- builds of baselines

def baseline_build_inputs(ctx: SweepContext, slug: str, version: str, name: str) -> dict[str, str]:
    """The module's key (tcab.artifacts.baseline_module_key): its folder, the
    workspace the build lays under it, the recipe; the build cache's key too."""
    case = ctx.lookups.case(slug, version)
    return baseline_module_key(case, name, lambda path: ctx.cache.tree(path, tree_digest))


def do_baseline_build(ctx: SweepContext, slug: str, version: str, name: str) -> bool:
    inputs = baseline_build_inputs(ctx, slug, version, name)
    record = ctx.layout.module_record(baseline_build_name(slug, version, name))
    if current_target(record, inputs, ctx.cache) is not None:
        return True
    return _write_build(ctx, record, inputs, ctx.executors.build_baseline(ctx.lookups.case(slug, version), name, ctx.settings))


def _module_name(t: TournamentSpec, p: Participant) -> str:
    return p.run.name if p.run is not None else baseline_build_name(t.case, t.version, p.baseline)


def baseline_builds(ctx: SweepContext) -> Iterator[tuple]:
    """The builds of the baselines the plan's tournaments play (once each), as
    ``AfterRunTask.others`` yields them."""
    seen = set()
    for t in ctx.sweep.tournaments:
        for p in t.participants:
            if p.baseline is None or (t.case, t.version, p.baseline) in seen:
                continue
            seen.add((t.case, t.version, p.baseline))
            name = baseline_build_name(t.case, t.version, p.baseline)
            yield (name, ctx.layout.module_record(name), [],
                   lambda a=(t.case, t.version, p.baseline): baseline_build_inputs(ctx, *a),
                   do_baseline_build, (t.case, t.version, p.baseline),
                   f"baseline {p.baseline} of {t.case} {t.version}")


#: The adversarial type's after-run task (tcab.testtypes.adversarial names it):
#: the module of each run's tree, and of the baselines (build/wasm/).
BUILD = AfterRunTask(
    doc="Controller modules: of each adversarial run's tree and of the baselines (build/wasm/).",
    subdoc="module of run {name}",
    record=lambda ctx, spec: ctx.layout.module_record(spec.name),
    inputs=lambda ctx, spec: run_build_inputs(ctx, spec),
    action=lambda ctx, spec: do_run_build(ctx, spec),
    others=baseline_builds,
)


# ---- the field of a tournament: its one manifest

def entrants_inputs(ctx: SweepContext, t: TournamentSpec) -> dict[str, str]:
    # The participants' names and modules only: rounds and seed are the
    # tournament's inputs, so changing them does not rewrite the field.
    inputs = {}
    for p in t.participants:
        doc = _record_doc(ctx, ctx.layout.module_record(_module_name(t, p)), f"module of {p.name}")
        inputs[p.name] = doc["sha256"] if doc.get("ok") else f"failed:{doc['key']}"
    return inputs


def write_entrants(ctx: SweepContext, t: TournamentSpec) -> bool:
    inputs = entrants_inputs(ctx, t)
    record = ctx.layout.entrants_record(t)
    if current_target(record, inputs, ctx.cache) is None:
        field = []
        for p in t.participants:
            doc = _record_doc(ctx, ctx.layout.module_record(_module_name(t, p)), f"module of {p.name}")
            field.append({"name": p.name, "sha256": doc["sha256"] if doc.get("ok") else None,
                          "module": doc.get("module") if doc.get("ok") else None, "detail": doc.get("detail", "")})
        write_target(record, inputs, {"entrants": field})
    return True


def tournament_inputs(ctx: SweepContext, t: TournamentSpec) -> dict[str, str]:
    entrants = ctx.layout.entrants_record(t)
    sha = ctx.cache.stamp(entrants)
    if sha is None:
        raise KeyError(f"entrants of {t.name} not written")
    case = ctx.lookups.case(t.case, t.version)
    return {"entrants": sha, "game": game_inputs(case, case.variant(t.variant), ctx.cache), "entry": t.entry_digest}


def _drop_damaged(ctx: SweepContext, digests: dict) -> list[str]:
    """Remove the replays (relative path -> recorded SHA-256) whose bytes are not
    what was recorded: the arena plays a match whose replay is missing again,
    where it would reuse a cached match whose replay is damaged."""
    dropped = []
    for rel, sha in digests.items():
        path = ctx.settings.root / rel
        if path.exists() and ctx.cache.sha256(path) != sha:
            path.unlink()
            dropped.append(rel)
    return dropped


def _play(ctx: SweepContext, t: TournamentSpec, field: tuple) -> dict:
    return ctx.executors.tournament(
        TournamentRequest(t, ctx.lookups.case(t.case, t.version), field, ctx.layout.tournament_dir(t), ctx.settings,
                          jobs=ctx.sweep.plan.parallelism)
    )


def play_tournament(ctx: SweepContext, t: TournamentSpec) -> bool:
    """Play the field and write standings.json, which requires every replay with
    its SHA-256: a replay damaged later makes the tournament stale, and the
    redo plays that match again."""
    inputs = tournament_inputs(ctx, t)
    record = ctx.layout.standings_record(t)
    if current_target(record, inputs, ctx.cache) is not None:
        return True
    old = ctx.cache.target(record)
    if old is not None:
        # Already named on stderr by keys.keyed, as what made the task stale.
        _drop_damaged(ctx, old.get("requires") or {})
    doc = _record_doc(ctx, ctx.layout.entrants_record(t), f"entrants of {t.name}")
    field = tuple(
        TournamentEntrant(e["name"], e["sha256"], None if e["module"] is None else ctx.settings.root / e["module"])
        for e in doc["entrants"]
    )
    result = _play(ctx, t, field)
    # The arena's own record of each replay's digest (real tournaments): a
    # replay damaged behind a cached match is dropped and its match replayed.
    known = result.pop("replay_sha256", None)
    dropped = _drop_damaged(ctx, known) if known else []
    if dropped:
        print(f"tcab: tournament:{t.name}: {len(dropped)} damaged replays ({', '.join(dropped[:3])}"
              f"{', ...' if len(dropped) > 3 else ''}): their matches are played again", file=sys.stderr, flush=True)
        result = _play(ctx, t, field)
        result.pop("replay_sha256", None)
    digests = {}
    for rel in result.get("match_replays", []):
        sha = ctx.cache.sha256(ctx.settings.root / rel)
        if sha is None:
            return TaskFailed(f"tournament {t.name}: replay {rel} was not written")
        digests[rel] = sha
    write_target(record, inputs, {"tournament": t.name, "case": t.case_path, **result}, requires=digests)
    return True


def task_entrants(ctx: SweepContext) -> Iterator[dict]:
    """Each tournament's field: participants and module digests (one manifest per tournament)."""
    yield {"basename": "entrants", "name": None, "doc": task_entrants.__doc__}
    for t in ctx.sweep.tournaments:
        yield ctx.keyed_task(
            "entrants", t.name, ctx.layout.entrants_record(t),
            [f"build:{_module_name(t, p)}" for p in t.participants],
            lambda x=t: entrants_inputs(ctx, x), write_entrants, ctx, t,
            doc=f"field of tournament {t.name}",
        )
    ctx.freshness.settle_group("entrants", [f"entrants:{t.name}" for t in ctx.sweep.tournaments])


def task_tournament(ctx: SweepContext) -> Iterator[dict]:
    """Tournaments: matches, replays, standings and ratings (results/sweep/tournaments/)."""
    yield {"basename": "tournament", "name": None, "doc": task_tournament.__doc__}
    names = []
    for t in ctx.sweep.tournaments:
        names.append(f"tournament:{t.name}")
        yield ctx.keyed_task(
            "tournament", t.name, ctx.layout.standings_record(t), [f"entrants:{t.name}"],
            lambda x=t: tournament_inputs(ctx, x), play_tournament, ctx, t,
            doc=f"{t.name}: {len(t.participants)} participants on {t.case_path}, {t.rounds} rounds",
        )
    ctx.freshness.settle_group("tournament", names)


# ---- replays: every match of a tournament re-simulated from its replay

def replay_inputs(ctx: SweepContext, t: TournamentSpec) -> dict[str, str]:
    standings = _record_doc(ctx, ctx.layout.standings_record(t), f"tournament {t.name}")
    case = ctx.lookups.case(t.case, t.version)
    return {"standings": standings["stamp"], "game": game_inputs(case, case.variant(t.variant), ctx.cache)}


def verify_tournament_replays(ctx: SweepContext, t: TournamentSpec) -> bool | TaskFailed:
    """Re-simulate every replay of the tournament; a replay that does not reproduce
    its result fails the task and writes no record, so every sweep says so."""
    inputs = replay_inputs(ctx, t)
    record = ctx.layout.replays_record(t)
    if current_target(record, inputs, ctx.cache) is not None:
        return True
    standings = _record_doc(ctx, ctx.layout.standings_record(t), f"tournament {t.name}")
    paths = [ctx.settings.root / p for p in standings.get("match_replays", [])]
    if not paths and standings.get("matches"):
        return TaskFailed(f"{t.name}: standings.json lists no replays; redo it: doit clean tournament:{t.name}")
    verdicts = ctx.executors.verify_replays(ctx.lookups.case(t.case, t.version), t.variant, paths)
    failed = [v for v in verdicts if not v["ok"]]
    if failed:
        lines = "\n".join(f"  {v['replay']}: {'; '.join(v['problems'])}" for v in failed)
        return TaskFailed(f"{len(failed)} of {len(verdicts)} replays of {t.name} do not reproduce:\n{lines}")
    write_target(record, inputs, {"tournament": t.name, "verified": len(verdicts)})
    return True


def task_replay(ctx: SweepContext) -> Iterator[dict]:
    """Replay checks: each tournament's matches re-simulated without wasm (tcab replay verify)."""
    yield {"basename": "replay", "name": None, "doc": task_replay.__doc__}
    names = []
    for t in ctx.sweep.tournaments:
        names.append(f"replay:{t.name}")
        yield ctx.keyed_task(
            "replay", t.name, ctx.layout.replays_record(t), [f"tournament:{t.name}"],
            lambda x=t: replay_inputs(ctx, x), verify_tournament_replays, ctx, t,
            doc=f"replays of {t.name} verified",
        )
    ctx.freshness.settle_group("replay", names)
