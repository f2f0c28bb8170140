"""The run record: ``run.json`` and the same record as a ``runs`` row.

The record names everything that decided the run (case version and digest,
variant, harness and its probed version, model, image digest, runtime, seed
commit) and what came of it (status with detail, per-stage durations,
tokens, artifact digest, what collection refused).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcab.atomic import write_text
from tcab.harnesses import Tokens
from tcab.runtime import Refusal

STATUSES = ("completed", "timed_out", "hung", "harness_error", "infrastructure", "canceled")


@dataclass(frozen=True, slots=True)
class StageRecord:
    """One lifecycle step: pull, start, copy_in, install, probe, init, session, collect."""

    stage: str
    status: str  # ok | failed | timed_out | hung | canceled
    started_at: str
    duration_s: float
    exit_code: int | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "status": self.status, "started_at": self.started_at,
                "duration_s": round(self.duration_s, 3), "exit_code": self.exit_code,
                "detail": self.detail}


@dataclass(frozen=True, slots=True)
class RunRecord:
    """Everything a run decided and produced (see module docstring)."""

    id: str
    run_dir: Path
    status: str
    status_detail: str
    started_at: str
    finished_at: str
    duration_s: float
    case_slug: str
    case_version: str
    case_type: str
    case_digest: str
    variant: str
    harness: str
    harness_digest: str
    runtime: str
    harness_version: str | None = None
    model: str | None = None
    image: str | None = None
    image_digest: str | None = None
    image_id: str | None = None
    seed_commit: str | None = None
    stages: tuple[StageRecord, ...] = ()
    tokens: Tokens = field(default_factory=Tokens)
    artifact_digest: str | None = None
    files: int = 0
    bytes: int = 0
    refused: tuple[Refusal, ...] = ()
    plan_digest: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "completed"

    def to_json(self) -> dict[str, Any]:
        """The content of ``run.json``."""
        return {
            "id": self.id,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "duration_s": round(self.duration_s, 3),
            "subject": {
                "case": self.case_slug, "version": self.case_version, "type": self.case_type,
                "case_digest": self.case_digest, "variant": self.variant,
                "harness": self.harness, "harness_version": self.harness_version,
                "harness_digest": self.harness_digest, "model": self.model,
            },
            "image": {"ref": self.image, "digest": self.image_digest, "id": self.image_id},
            "runtime": self.runtime,
            "seed_commit": self.seed_commit,
            "stages": [s.to_json() for s in self.stages],
            "tokens": self.tokens.to_json(),
            "status": self.status,
            "status_detail": self.status_detail,
            "artifact": {
                "path": "work", "digest": self.artifact_digest, "files": self.files,
                "bytes": self.bytes,
                "refused": [{"path": r.path, "reason": r.reason} for r in self.refused],
            },
            "plan_digest": self.plan_digest,
        }

    def write(self) -> Path:
        """Write ``run.json`` atomically into the run folder; return its path."""
        path = self.run_dir / "run.json"
        write_text(path, json.dumps(self.to_json(), indent=2, sort_keys=False) + "\n")
        return path

    def db_rows(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The ``runs`` row and ``stages`` rows for ``tcab.results.record_run``."""
        tokens = self.tokens if self.tokens.reported else None
        run = {
            "id": self.id, "case_slug": self.case_slug, "case_version": self.case_version,
            "case_type": self.case_type, "case_digest": self.case_digest, "variant": self.variant,
            "harness": self.harness, "harness_version": self.harness_version,
            "harness_digest": self.harness_digest, "model": self.model, "image": self.image,
            "image_digest": self.image_digest, "runtime": self.runtime,
            "seed_commit": self.seed_commit, "status": self.status,
            "status_detail": self.status_detail, "started_at": self.started_at,
            "finished_at": self.finished_at, "duration_s": self.duration_s,
            "tokens_input": tokens.input if tokens else None,
            "tokens_output": tokens.output if tokens else None,
            "tokens_cache_read": tokens.cache_read if tokens else None,
            "tokens_cache_write": tokens.cache_write if tokens else None,
            "artifact_digest": self.artifact_digest,
            "refused": [{"path": r.path, "reason": r.reason} for r in self.refused],
            "run_dir": str(self.run_dir), "plan_digest": self.plan_digest,
        }
        stages = [{"stage": s.stage, "status": s.status, "started_at": s.started_at,
                   "duration_s": s.duration_s, "exit_code": s.exit_code, "detail": s.detail}
                  for s in self.stages]
        return run, stages
