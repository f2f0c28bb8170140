"""The run lifecycle: one harness on one case variant, in one container.

seed → pull → start → copy_in → install → probe → init → [stage solution]
→ session → collect → remove; then ``run.json``, the logs and one row in
``results.db``. :func:`execute_run` is the whole of it, for ``tcab run`` and
for doit tasks alike.

Outcomes are data (the returned record's ``status``); only bad input raises
(unknown harness secret, missing solution, a broken case: ``InputError``).
The engine failing at any step is the ``infrastructure`` status, never an
exception; a bug in tcab during the run is ``internal_error`` (or, in event
handling, a note on the run's own status) with its traceback in
``internal-error.txt`` (:mod:`tcab.runs.faults`); the container is removed
whatever happened.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tcab.atomic import write_text
from tcab.catalog import CaseVersion, Variant
from tcab.errors import HarnessError
from tcab.harnesses import Harness, make_adapter
from tcab.naming import new_run_id
from tcab.runs.environments import FOLDER as ENVIRONMENTS
from tcab.runs.faults import GuardedAdapter, guarded_sink
from tcab.runs.log import DEFAULT_MAX_LOG_BYTES, EventSink, RunLog, readable
from tcab.runs.record import INTERNAL_ERROR_FILE, RunRecord
from tcab.runs.secrets import Redactor
from tcab.runs.session import Outcome, RunState
from tcab.runtime import CollectLimits, Runtime, resolve_image
from tcab.runtime.base import check_limit
from tcab.runtime.choice import RuntimeChoice, open_runtime
from tcab.seeding.cache import seed_from_cache, store_dir
from tcab.settings import Settings

if TYPE_CHECKING:
    from tcab.watch import RunListener, Watch

DEFAULT_IDLE_TIMEOUT_S = 30 * 60.0


@dataclass(frozen=True, slots=True)
class RunOptions:
    """Everything about a run that is not the case, variant or harness.

    ``max_runtime_s`` defaults to the case's ``max_runtime_hours``
    (:func:`max_runtime_s`, the one place that decides it).
    ``secrets`` are host variable names passed into the session (on top of
    the harness's own); their values come from ``env`` (default: the process
    environment). ``runtime`` is a backend name, the
    :class:`~tcab.runtime.choice.RuntimeChoice` of the command line or the
    plan (opened here, bounded by the run's max runtime) or an open Runtime.
    ``seed`` is an already seeded repository with what its record holds (a
    sweep's seed task: nothing is read back from git or hashed again) instead
    of a seed made for this run. ``cancel`` stops the run as ``canceled``.
    ``max_log_bytes`` caps raw.jsonl and events.jsonl each (the rest of the
    output is counted and dropped, with a marker line). ``watch`` (a
    :class:`tcab.watch.Watch`) makes a watched run: a preview listener for
    it on the runtime's host address, the case type's ``watch_setup`` on
    the staged workspace, and ``host.docker.internal`` in its container;
    None (the default) is an unwatched run, with no host mapping at all.

    Limits must be finite and positive: ValueError names the field otherwise
    (NaN or infinity would silently switch a watchdog off).
    """

    model: str | None = None
    max_runtime_s: float | None = None
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S
    runtime: str | RuntimeChoice | Runtime = "docker"
    secrets: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    out_dir: Path | None = None
    limits: CollectLimits = field(default_factory=CollectLimits)
    watch: Watch | None = None
    record_db: bool = True
    run_id: str | None = None
    seed: SeededRepo | None = None
    plan_digest: str | None = None
    on_event: EventSink | None = None
    cancel: threading.Event | None = None
    max_log_bytes: int = DEFAULT_MAX_LOG_BYTES

    def __post_init__(self) -> None:
        check_limit("RunOptions", "max_runtime_s", self.max_runtime_s)
        check_limit("RunOptions", "idle_timeout_s", self.idle_timeout_s, optional=False)
        check_limit("RunOptions", "max_log_bytes", self.max_log_bytes, optional=False)


@dataclass(frozen=True, slots=True)
class SeededRepo:
    """A seeded repository made before the run, with what its record holds."""

    dir: Path
    commit: str
    prompt: str
    case_digest: str  # of the case folder it was seeded from


def max_runtime_s(case: CaseVersion, options: RunOptions) -> float:
    """The run's wall-clock cap: the one given (``--max-runtime``, the plan's
    ``max_runtime_s``), else the case's ``max_runtime_hours``. The session's
    deadline and a kubernetes pod's leak guard both come from here."""
    return options.max_runtime_s or case.max_runtime_s


def _secret_values(harness: Harness, options: RunOptions) -> dict[str, str]:
    env = os.environ if options.env is None else options.env
    names = tuple(dict.fromkeys((*harness.secrets, *options.secrets)))
    for name in names:
        if not env.get(name):
            raise HarnessError(f"secret {name} is not set in the environment "
                               f"(needed by harness {harness.slug} or --secret)")
    return {name: env[name] for name in names}


def _solution_dirs(case: CaseVersion, variant: Variant, harness: Harness) -> tuple[Path, ...]:
    if not harness.stage_solution:
        return ()
    rels = case.solutions_for(variant)
    if not rels:
        raise HarnessError(f"{case.manifest}: solution: {case.ref} variant {variant.slug} has no "
                           f"reference solution, which the {harness.slug} harness needs")
    paths = tuple(case.path(rel) for rel in rels)
    for path in paths:
        if not path.is_dir():
            raise HarnessError(f"{case.manifest}: solution: {path} is not a folder")
    return paths


def execute_run(settings: Settings, case: CaseVersion, variant: Variant, harness: Harness,
                options: RunOptions | None = None) -> RunRecord:
    """Run ``harness`` on ``case``/``variant`` and return its record (also in
    ``run.json`` and, unless ``record_db`` is off, ``results.db``).

    Raises HarnessError for a missing secret or reference solution, SeedError
    or CatalogError for a broken case, ResultsError when results.db is
    unusable; every outcome of the run itself is the record's status. A
    KeyboardInterrupt is recorded as ``canceled`` and then re-raised; once
    the run folder exists, interrupts during the cleanup are held back until
    ``run.json`` and the row are written (:mod:`tcab.runs.interrupts`).
    """
    options = options or RunOptions()
    secret_values = _secret_values(harness, options)
    solutions = _solution_dirs(case, variant, harness)
    cap = max_runtime_s(case, options)
    runtime = open_runtime(options.runtime, max_runtime_s=cap)
    run_id = options.run_id or new_run_id(case.slug, variant.slug, harness.slug)
    run_dir = Path(options.out_dir or settings.runs_dir) / run_id
    seed_started = time.time()
    seed = _seed(settings, case, variant, options, run_id)
    watching = contextlib.ExitStack()
    state: RunState | None = None
    try:
        on_started = None
        if options.watch is not None:
            seed, listener = _watched(settings, case, variant, options.watch, runtime, run_id, seed, watching)
            on_started = _peer_of(listener, runtime)
        redactor = Redactor(secret_values)
        state = RunState(
            run_id=run_id, run_dir=run_dir, runtime=runtime, harness=harness, options=options,
            image_ref=resolve_image(case.test_type.run_image_for(case)), seed_dir=seed.dir, solutions=solutions,
            prompt=seed.prompt, init=case.init, secrets=secret_values,
            max_runtime_s=cap, seed_started=seed_started,
            environment_cache=settings.build_dir / ENVIRONMENTS, on_started=on_started,
        )
        run_dir.mkdir(parents=True, exist_ok=False)
        adapter = GuardedAdapter(make_adapter(harness.adapter), state.faults)
        with RunLog(run_dir, redactor, adapter, guarded_sink(options.on_event, state.faults),
                    options.max_log_bytes) as log:
            outcome = state.execute(log)  # holds interrupts back from its cleanup on
        watching.close()  # the container is gone: no frame can come any more
        record = _run_record(state, case, variant, seed, redactor, outcome)
        if state.faults:  # before run.json, which says the run folder is complete
            write_text(run_dir / INTERNAL_ERROR_FILE, redactor.redact(state.faults.report()))
        record.write()
        if options.record_db:
            _record_row(settings, record)
    finally:
        watching.close()
        if seed.own:
            shutil.rmtree(seed.dir, ignore_errors=True)
        if state is not None:
            state.shield.release()  # an interrupt that waited is delivered here
    if outcome.interrupted:
        raise KeyboardInterrupt
    return record


@dataclass(frozen=True, slots=True)
class _Seed:
    dir: Path
    commit: str
    prompt: str
    case_digest: str  # of the case folder when it was seeded, not when the run ends
    own: bool  # made for this run (removed after it), not a doit target


def _seed(settings: Settings, case: CaseVersion, variant: Variant, options: RunOptions, run_id: str) -> _Seed:
    """The seeded repository and prompt: the one a sweep's seed task made and
    recorded (``options.seed``, taken as it is), or a copy from the seed store."""
    if options.seed is not None:
        given = options.seed
        return _Seed(Path(given.dir), given.commit, given.prompt, given.case_digest, own=False)
    seed_dir = Path(settings.tmp_dir) / "run-seeds" / run_id
    seed = seed_from_cache(store_dir(settings.build_dir), case, variant, seed_dir)
    return _Seed(seed_dir, seed.commit, seed.prompt, seed.case_digest, own=True)


def _watched(settings: Settings, case: CaseVersion, variant: Variant, watch: Watch, runtime: Runtime,
             run_id: str, seed: _Seed, stack: contextlib.ExitStack) -> tuple[_Seed, RunListener]:
    """Set a watched run up before its folder exists: bind its listener on
    the runtime's host address, stage the workspace (a copy of its own when
    the seed is a sweep's target, never written to), let the case's type
    write the live endpoint into it (InputError: the type cannot be
    watched), then open the firewall's hook and serve until ``stack`` closes.
    Returns the staged seed (removed after the run) and the listener, which
    takes frames from nobody until the container's address is known."""
    listener: RunListener = watch.listener(runtime.preview_address(), run_id)
    stack.callback(listener.close)
    listener.expect_peer()
    if not seed.own:
        staged = Path(settings.tmp_dir) / "run-seeds" / f"{run_id}-watched"
        staged.parent.mkdir(parents=True, exist_ok=True)
        stack.callback(shutil.rmtree, staged, ignore_errors=True)
        shutil.copytree(seed.dir, staged, symlinks=True)
        seed = dataclasses.replace(seed, dir=staged, own=True)
    case.test_type.watch_setup(case, variant, seed.dir, listener.live)
    stack.enter_context(listener.serving())
    return seed, listener


def _peer_of(listener: RunListener, runtime: Runtime):
    """What the run does once its container started: name it as the one peer
    its listener takes frames from (another container of the run network,
    token or not, is reset at accept)."""
    def allow(container: str) -> None:
        listener.allow_peer(runtime.container_address(container))
    return allow


def _run_record(state: RunState, case: CaseVersion, variant: Variant, seed: _Seed,
                redactor: Redactor, outcome: Outcome) -> RunRecord:
    """The record of a finished run; every detail redacted and made readable."""
    harness, options = state.harness, state.options
    return RunRecord(
        id=state.run_id, run_dir=state.run_dir, status=outcome.status,
        status_detail=readable(redactor.redact(outcome.detail)), started_at=outcome.started_at,
        finished_at=outcome.finished_at, duration_s=outcome.duration_s, case_slug=case.slug,
        case_version=case.version, case_type=case.type, case_digest=seed.case_digest,
        variant=variant.slug, harness=harness.slug, harness_digest=harness.digest,
        runtime=state.runtime.name, harness_version=outcome.harness_version,
        model=options.model or harness.default_model, image=state.image_ref,
        image_digest=outcome.image_digest, image_id=outcome.image_id, seed_commit=seed.commit,
        stages=tuple(dataclasses.replace(s, detail=readable(redactor.redact(s.detail))) for s in outcome.stages),
        tokens=outcome.tokens,
        artifact_digest=outcome.artifact_digest, files=outcome.files, bytes=outcome.bytes,
        refused=tuple(outcome.refused), plan_digest=options.plan_digest, environment=outcome.environment,
        internal_error=readable(redactor.redact(outcome.internal_error)) if outcome.internal_error else None,
        secrets=tuple(state.secrets),
    )


def _record_row(settings: Settings, record: RunRecord) -> None:
    # tcab.results loads sqlite-utils (and numpy) on first use: a slow import
    # that a run without a database (record_db off) never pays.
    from tcab.results import open_db, record_run

    db = open_db(settings.results_db)
    try:
        record_run(db, *record.db_rows())
    finally:
        db.close()
