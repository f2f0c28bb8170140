"""The executors of a real sweep: runs through the run lifecycle in containers,
builds and tournaments through the arena, the report through the results part.

Each function imports its part on first use, so ``doit list`` does not pay
for docker-py or wasmtime, and each opens its own runtime client (from the
plan's one :class:`~tcab.runtime.choice.RuntimeChoice`: runs, builds and
validations alike) and database connection: doit's worker processes are
forked, and a client or connection must never cross a fork.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import sys
from pathlib import Path
from typing import Any

from tcab.errors import ReplayError
from tcab.naming import tournament_id
from tcab.runtime.choice import RuntimeChoice
from tcab.settings import Settings
from tcab.tasks.executors import (
    BuildOutcome,
    Executors,
    HarnessInfo,
    RunOutcome,
    RunRequest,
    TournamentRequest,
    ValidationOutcome,
)


def image_digest(kind: str, runtime: RuntimeChoice) -> str:
    """The digest of the run image ``kind`` (``TestType.run_image``), on the plan's runtime."""
    # In the function: slow import: docker-py; `doit list` must not pay for it.
    from tcab.runtime import resolve_image
    from tcab.runtime.choice import image_digest as digest_on

    return digest_on(runtime.open(), resolve_image(kind)).digest


def harness_info(slug: str, settings: Settings) -> HarnessInfo:
    """Digest of the definition file of harness ``slug`` (validated first)."""
    # In the function: tcab.harnesses imports the runtime (docker-py); `doit list` must not pay for it.
    from tcab.harnesses.definition import load_harness

    harness = load_harness(settings.harnesses_dir, slug)
    path = settings.harnesses_dir / f"{slug}.toml"
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return HarnessInfo(digest=digest, stage_solution=bool(harness.stage_solution), secrets=tuple(harness.secrets))


def run(request: RunRequest) -> RunOutcome:
    """One run through the run lifecycle (tcab.runs.execute_run) on the seeded repository
    the ``seed`` task built. Ctrl-C is recorded as ``canceled`` by the lifecycle, which
    removes its container, and re-raised."""
    # In the function: slow import: the run lifecycle and its runtime; `doit list` must not pay for it.
    from tcab.harnesses.definition import load_harness
    from tcab.runs import RunOptions, SeededRepo, execute_run

    spec, settings, runtime = request.spec, request.settings, request.runtime
    options = RunOptions(
        model=spec.model,
        runtime=runtime,  # opened by the lifecycle, which owns the run's max runtime
        seed=SeededRepo(request.seed_dir, request.seed_commit, request.prompt, request.case_digest),
        plan_digest=spec.entry_digest,
        run_id=request.run_id,
        secrets=runtime.secrets,
        max_runtime_s=runtime.max_runtime_s,
        **({} if runtime.idle_timeout_s is None else {"idle_timeout_s": runtime.idle_timeout_s}),
    )
    case = request.case
    watch = _start_watch(spec) if spec.watch else None
    try:
        record = execute_run(settings, case, case.variant(spec.variant),
                             load_harness(settings.harnesses_dir, spec.harness),
                             dataclasses.replace(options, watch=watch))
    finally:
        if watch is not None:
            print(f"watch {spec.name}: {watch.summary()}", file=sys.stderr, flush=True)
            watch.close()
    return RunOutcome(record.id, record.status, Path(record.run_dir), record.artifact_digest, record.status_detail)


def _start_watch(spec):
    """A watch of one sweep run (``watch: true`` in the plan): its page's URL
    goes to stderr, which doit shows as the task runs."""
    from tcab.watch import Watch

    watch = Watch()
    print(f"watch {spec.name} at {watch.start_page()}", file=sys.stderr, flush=True)
    return watch


def _record_build(settings: Settings, record) -> None:
    # In the function: sqlite-utils: only a sweep that records pays for it; `doit list` must not pay for it.
    from tcab.results import open_db, record_build

    db = open_db(settings.results_db)
    try:
        record_build(db, record.row())
    finally:
        db.close()


def _outcome(settings: Settings, record) -> BuildOutcome:
    _record_build(settings, record)
    return BuildOutcome(
        ok=record.status == "ok", sha256=record.sha256, module=record.module,
        detail=f"{record.status}: {record.log_excerpt[-500:]}" if record.status != "ok" else "",
    )


def build_run(case, outcome: RunOutcome, settings: Settings, runtime: RuntimeChoice, image: str) -> BuildOutcome:
    """Build a run's collected tree in the adversarial image (untrusted code), on
    the plan's runtime; ``image`` is the digest the task's key holds."""
    # In the function: slow import: the arena (wasmtime) and the runtime; `doit list` must not pay for it.
    from tcab.arena.build import build_run as arena_build_run
    from tcab.runs import load_run

    return _outcome(settings, arena_build_run(settings, case, load_run(outcome.run_dir), runtime=runtime,
                                              image_digest=image))


def build_baseline(case, name: str, settings: Settings) -> BuildOutcome:
    """Build a baseline the case ships, on the host (trusted code)."""
    # In the function: slow import: the arena (wasmtime); `doit list` must not pay for it.
    from tcab.arena.build import build_baseline as arena_build_baseline

    return _outcome(settings, arena_build_baseline(settings, case, name))


def tournament(request: TournamentRequest) -> dict[str, Any]:
    """Play the field, record it in results.db, return standings for standings.json."""
    # In the function: slow import: the arena (wasmtime); `doit list` must not pay for it.
    from tcab.arena.game import GameSpec
    from tcab.arena.store import record_tournament_result
    from tcab.arena.tournament import Contestant, run_tournament
    from tcab.results import open_db

    t, settings = request.spec, request.settings
    spec = GameSpec.from_case(request.case, request.case.variant(t.variant))
    field = [Contestant(e.name, e.module, e.sha256) for e in request.entrants if e.sha256 is not None]
    excluded = [e.name for e in request.entrants if e.sha256 is None]
    structure = request.case.section.match.structure if request.case.section.match is not None else "round-robin"
    tid = tournament_id(t.name, case=spec.case, version=spec.version, variant=spec.variant, structure=structure,
                        rounds=t.rounds, seed=t.seed, modules=[c.sha256 for c in field])
    created = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    result = run_tournament(
        spec, field, seed=t.seed, rounds=t.rounds, structure=structure, jobs=request.jobs,
        results_dir=settings.results_dir, modules_dir=settings.build_dir / "modules",
    )
    db = open_db(settings.results_db)
    try:
        record_tournament_result(db, spec, tid, result, created)
    finally:
        db.close()
    return {
        "tournament_id": tid,
        "structure": result.structure,
        "matches": len(result.matches),
        "played": result.played,
        "excluded": excluded,
        "replays": _rel(settings, settings.results_dir / "replays"),
        "match_replays": sorted({_rel(settings, Path(m["replay"])) for m in result.matches}),
        # What the arena recorded of each replay: the task checks the files against it.
        "replay_sha256": {_rel(settings, Path(m["replay"])): m["replay_sha256"]
                          for m in result.matches if m.get("replay_sha256")},
        "standings": result.standings_json(),
    }


def _rel(settings: Settings, path: Path) -> str:
    try:
        return str(path.resolve().relative_to(settings.root))
    except ValueError:
        return str(path)


def verify_replays(case, variant: str, replays: list[Path]) -> list[dict[str, Any]]:
    """Re-simulate each replay with the case's rules (no wasm): does it reproduce its result?"""
    # In the function: the arena's rules host; `doit list` must not pay for it.
    from tcab.arena.game import GameSpec
    from tcab.arena.replay import read_replay, verify_replay

    spec = GameSpec.from_case(case, case.variant(variant))
    verdicts = []
    for path in replays:
        try:
            verdict = verify_replay(read_replay(path), spec.rules_path, spec.action_schema)
            verdicts.append({"replay": str(path), "ok": verdict.ok, "problems": list(verdict.problems)})
        except ReplayError as exc:
            verdicts.append({"replay": str(path), "ok": False, "problems": [str(exc)]})
    return verdicts


def report(settings: Settings, out_dir: Path) -> None:
    """Write the static HTML report of results.db into ``out_dir``."""
    # In the function: the report's templates; `doit list` must not pay for it.
    from tcab.catalog.typetable import report_columns, report_table, success_rule
    from tcab.results.html import write_html
    from tcab.results.report import Filters, build_report, connect
    from tcab.view.player import export_replay

    path = settings.results_db.resolve()
    conn = connect(path)
    try:
        report = build_report(conn, Filters(), database=str(path), type_columns=report_columns,
                              type_table=report_table, success_rule=success_rule)
        write_html(report, conn, out_dir, path.parent, settings.catalog_dir, export_replay=export_replay)
    finally:
        conn.close()


def validate(case, outcome: RunOutcome, settings: Settings, runtime: RuntimeChoice) -> ValidationOutcome:
    """Validate the run (tcab.validation) on the plan's runtime and record its ``validations`` row."""
    # In the function: slow import: the validation stack (Playwright); `doit list` must not pay for it.
    from tcab.results import open_db, record_validation
    from tcab.runs import load_run
    from tcab.validation import validate_run
    from tcab.validation.scripts import record_item_decisions

    record = validate_run(settings, case, load_run(outcome.run_dir), runtime=runtime)
    db = open_db(settings.results_db)
    try:
        record_validation(db, record.row())
        record_item_decisions(db, case, record.run_id, record.variant, outcome.run_dir, record.item_decisions,
                              digest=record.case_digest)
    finally:
        db.close()
    return ValidationOutcome(record.status, record.detail)


def real_executors() -> Executors:
    return Executors(
        image_digest=image_digest,
        harness=harness_info,
        run=run,
        build_run=build_run,
        build_baseline=build_baseline,
        tournament=tournament,
        report=report,
        verify_replays=verify_replays,
        validate=validate,
    )
