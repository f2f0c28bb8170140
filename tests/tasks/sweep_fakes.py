"""Fast executors for testing the task layer (what re-runs when), not the parts below it.

Allowed by STYLE.md for code above the runtime: the run answers through a
function instead of a container. It still does what the task layer relies
on: copies the seeded repository (plus the solution for a harness that
stages it) into ``results/runs/<run-id>/work``, writes ``run.json``
atomically, and records one row in the real results.db with the real
``record_run``. Builds hash the tree into a module file; the tournament
ranks by module digest. Every call appends one line to ``calls.log`` so a
test can see which work was really done (not only which doit actions ran).

The image digests come from ``images/<case type>`` in the project, so a
test changes "the image" by writing that file. ``TCAB_FAKE_RUN_SLEEP``
makes each run take that many seconds (for the SIGKILL test);
``TCAB_FAKE_KILL_AFTER_RECORD=<run task name>`` kills the process right after
that run's row is recorded;
``TCAB_FAKE_STATUS=scripted:harness_error`` makes a harness's runs end so;
``TCAB_FAKE_FLAKY=scripted:1`` makes the first attempt of each of its runs
end ``infrastructure``; ``TCAB_FAKE_SPANS=FILE`` appends when each run was
in its session; an ``images/<kind>`` file saying ``missing`` makes that image's lookup fail.
``TCAB_FAKE_TOKENS=N`` makes each run record N input tokens.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import time
import tomllib
from pathlib import Path

from tcab import atomic
from tcab.catalog import tree_digest
from tcab.errors import HarnessError, RuntimeBackendError
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


def _log(settings: Settings, line: str) -> None:
    with open(settings.root / "calls.log", "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def _calls(settings: Settings) -> list[str]:
    log = settings.root / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def make_executors(root: Path) -> Executors:
    root = Path(root)

    def image_digest(kind, runtime):
        path = root / "images" / kind
        found = path.read_text().strip() if path.exists() else f"sha256:{kind}-0"
        if found == "missing":
            raise RuntimeBackendError(f"image {kind}: not found on the runtime")
        return found

    def harness(slug, settings):
        data = (settings.harnesses_dir / f"{slug}.toml").read_bytes()
        secrets = tuple(tomllib.loads(data.decode()).get("secrets", ()))
        return HarnessInfo(hashlib.sha256(data).hexdigest(), stage_solution=b"stage_solution = true" in data,
                           secrets=secrets)

    def run(req: RunRequest) -> RunOutcome:
        from tcab.results import open_db, record_run

        settings = req.settings
        if os.environ.get("TCAB_FAKE_STATUS") == f"{req.spec.harness}:raise":
            # What the lifecycle does for bad input (a missing secret, say).
            raise HarnessError(f"secret API_KEY is not set (needed by harness {req.spec.harness})")
        _log(settings, f"run {req.spec.name}")
        started = time.time()
        run_id = req.run_id
        run_dir = settings.runs_dir / run_id
        with atomic.atomic_dir(run_dir) as tmp:
            shutil.copytree(req.seed_dir, tmp / "work", ignore=shutil.ignore_patterns(".git"))
            if harness(req.spec.harness, settings).stage_solution:
                for sol in req.case.solutions_for(req.case.variant(req.spec.variant)):
                    shutil.copytree(req.case.path(sol), tmp / "work", dirs_exist_ok=True)
            # A real agent's tree differs between runs: so does this one.
            (tmp / "work" / ".run-id").write_text(run_id)
            time.sleep(float(os.environ.get("TCAB_FAKE_RUN_SLEEP", "0")))
            digest = tree_digest(tmp / "work")
            record = {
                "id": run_id, "case_slug": req.spec.case, "case_version": req.spec.version,
                "case_type": req.case.type, "variant": req.spec.variant, "harness": req.spec.harness,
                "model": req.spec.model, "status": "completed", "artifact_digest": digest,
                "run_dir": str(run_dir), "plan_digest": req.spec.entry_digest,
                # TCAB_FAKE_TOKENS: the input tokens each run records (what a price table prices).
                "tokens_input": int(os.environ.get("TCAB_FAKE_TOKENS", "0")) or None,
            }
            atomic.write_text(tmp / "run.json", json.dumps(record, indent=2))
        db = open_db(settings.results_db)
        try:
            record_run(db, record, [{"stage": "session", "status": "completed"}])
        finally:
            db.close()
        if os.environ.get("TCAB_FAKE_KILL_AFTER_RECORD") == req.spec.name:
            # A SIGKILL landing after the row is in results.db, before the task's target.
            os.kill(os.getpid(), signal.SIGKILL)
        if os.environ.get("TCAB_FAKE_SPANS"):
            # When each run was in its session, for the concurrency tests.
            with open(os.environ["TCAB_FAKE_SPANS"], "a", encoding="utf-8") as fh:
                fh.write(f"{req.spec.name} {started} {time.time()} {os.getpid()}\n")
        # TCAB_FAKE_STATUS=harness:status makes that harness's runs end so.
        forced = dict(x.split(":", 1) for x in os.environ.get("TCAB_FAKE_STATUS", "").split(",") if x)
        # TCAB_FAKE_FLAKY=harness:N: the first N attempts of each of its runs end infrastructure.
        flaky = dict(x.split(":", 1) for x in os.environ.get("TCAB_FAKE_FLAKY", "").split(",") if x)
        if req.spec.harness in flaky:
            tries = sum(1 for line in _calls(settings) if line == f"run {req.spec.name}")
            if tries <= int(flaky[req.spec.harness]):
                return RunOutcome(run_id, "infrastructure", run_dir, digest, f"flaky attempt {tries}")
        return RunOutcome(run_id, forced.get(req.spec.harness, "completed"), run_dir, digest)

    def _module(settings: Settings, data: bytes) -> BuildOutcome:
        sha = hashlib.sha256(data).hexdigest()
        path = settings.build_dir / "wasm" / f"{sha}.wasm"
        atomic.write_bytes(path, data)
        return BuildOutcome(True, sha, path)

    def build_run(case, outcome: RunOutcome, settings, runtime, image):
        _log(settings, f"build {outcome.run_id}")
        return _module(settings, f"module of {outcome.artifact_digest}".encode())

    def build_baseline(case, name, settings):
        _log(settings, f"baseline {case.slug}/{name}")
        src = case.path(f"{case.section.game.baselines}/{name}")
        return _module(settings, f"baseline {tree_digest(src)}".encode())

    def tournament(req: TournamentRequest):
        _log(req.settings, f"tournament {req.spec.name}")
        ranked = sorted(req.entrants, key=lambda e: e.sha256 or "")
        standings = [
            {"rank": i + 1, "label": e.name, "module_sha256": e.sha256, "played": 1, "wins": len(ranked) - i - 1, "draws": 0,
             "losses": i, "forfeits": 0, "rating": 100.0 - i, "ci_low": 90.0 - i, "ci_high": 110.0 - i}
            for i, e in enumerate(ranked)
        ]
        replays = []
        for i in range(req.spec.rounds):
            path = req.settings.results_dir / "replays" / f"{req.spec.name}-{i}.json"
            atomic.write_text(path, json.dumps({"entrants": [e.sha256 for e in ranked], "round": i}))
            replays.append(str(path.relative_to(req.settings.root)))
        return {"standings": standings, "rounds": req.spec.rounds, "seed": req.spec.seed,
                "match_replays": replays, "jobs": req.jobs}

    def report(settings, out_dir):
        _log(settings, "report")
        import sqlite3

        conn = sqlite3.connect(settings.results_db)
        try:
            n = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
        finally:
            conn.close()
        atomic.write_text(out_dir / "index.html", f"<p>{n} runs</p>\n")

    def verify_replays(case, variant, replays):
        _log(settings_of(replays), f"verify {len(replays)}")
        bad = os.environ.get("TCAB_FAKE_STATUS") == "replay:diverge"
        return [{"replay": str(p), "ok": not bad and json.loads(Path(p).read_text())["round"] >= 0,
                 "problems": ["final digest differs"] if bad else []} for p in replays]

    def validate(case, outcome: RunOutcome, settings, runtime):
        # Records a real validations row; TCAB_FAKE_STATUS=validate:failed|error forces the status.
        from tcab.results import open_db, record_validation

        _log(settings, f"validate {outcome.run_id}")
        forced = dict(x.split(":", 1) for x in os.environ.get("TCAB_FAKE_STATUS", "").split(",") if x)
        status = forced.get("validate", "passed")
        if status != "error":
            # As tcab.validation does: validation.json in the run's folder.
            atomic.write_text(outcome.run_dir / "validation" / "validation.json", json.dumps({"status": status}))
            db = open_db(settings.results_db)
            try:
                record_validation(db, {"run_id": outcome.run_id, "case_slug": case.slug,
                                       "case_version": case.version, "variant": "-", "status": status,
                                       "checks": [{"name": "fake", "ok": status == "passed"}]})
            finally:
                db.close()
        return ValidationOutcome(status, f"fake {status}")

    def settings_of(replays):
        return Settings.from_env(root, {})

    return Executors(image_digest, harness, run, build_run, build_baseline, tournament, report, verify_replays,
                     validate)
