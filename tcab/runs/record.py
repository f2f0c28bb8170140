"""The run record: ``run.json`` and the same record as a ``runs`` row.

The record names everything that decided the run (case version and digest,
variant, harness and its probed version, model, image digest, runtime, seed
commit) and what came of it (status with detail, per-stage durations,
tokens, artifact digest, what collection refused). ``secrets`` names (never
the values) the host variables the session was given, so that whatever reads
the run's output later (validation) redacts them too.

``RunRecord.write`` is the one writer of ``run.json``; :func:`load_run` its
one reader (the exact inverse), and :func:`find_run` turns a run id given on
the command line into a run folder. ``run.json`` sits next to the untrusted
tree a run collected, so the reader bounds its size, refuses a symlink or a
non-regular file, and checks every key's type: a garbled record is a
``RunError`` naming the file and the key, never a traceback.
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcab.atomic import write_text
from tcab.errors import RunError
from tcab.harnesses import Tokens
from tcab.outcomes import RUN_STATUSES, RunStatus
from tcab.runtime import Refusal

RUN_FILE = "run.json"
#: The folder, inside a run folder, holding the collected tree (``artifact.path``).
TREE_DIR = "work"
#: ``run.json`` larger than this is refused unread. The refusals list of a
#: collection is its only unbounded part (up to ``CollectLimits.max_entries``
#: entries); 64 MiB holds ~500,000 of them.
MAX_RUN_JSON_BYTES = 64 * 1024 * 1024
#: A run id: the name of a folder under ``results/runs/``.
MAX_RUN_ID_CHARS = 200
#: ``environment`` (the image's tool versions) holds at most this many keys.
MAX_ENVIRONMENT_KEYS = 32
#: ``secrets`` (the names of the variables a run was given) holds at most this many.
MAX_SECRET_NAMES = 256


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
    status: RunStatus
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
    #: The image's tool versions ({"os", "node", "npm", "python", "pip"}), probed
    #: after the container started; None when unknown (or an older record).
    environment: dict[str, str | None] | None = None
    #: The names of the secrets the session was given (declared by the harness
    #: or passed with --secret); the values are never recorded.
    secrets: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status is RunStatus.COMPLETED

    @property
    def tree(self) -> Path:
        """The collected tree (untrusted: what the harness left in ``/work``)."""
        return self.run_dir / TREE_DIR

    def has_tree(self) -> bool:
        """Whether the collected tree is there: a real folder, not a link that
        would have a build copy some other host folder into its container."""
        return self.tree.is_dir() and not self.tree.is_symlink()

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
                "path": TREE_DIR, "digest": self.artifact_digest, "files": self.files,
                "bytes": self.bytes,
                "refused": [{"path": r.path, "reason": r.reason} for r in self.refused],
            },
            "plan_digest": self.plan_digest,
            "environment": self.environment,
            "secrets": list(self.secrets),
        }

    def write(self) -> Path:
        """Write ``run.json`` atomically into the run folder; return its path."""
        path = self.run_dir / RUN_FILE
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


# ---- reading run.json back

class _Doc:
    """Typed access to one JSON object of ``run.json``; every miss names the file and key."""

    def __init__(self, path: Path, data: Any, where: str = ""):
        if not isinstance(data, dict):
            raise RunError(f"{path}: {where or 'the record'}: expected an object, got {type(data).__name__}")
        self.path, self.data, self.where = path, data, where

    def _fail(self, key: str, what: str) -> RunError:
        return RunError(f"{self.path}: {self.where}{key}: {what}")

    def _get(self, key: str) -> Any:
        if key not in self.data:
            raise self._fail(key, "missing required key")
        return self.data[key]

    def str(self, key: str) -> str:
        value = self._get(key)
        if not isinstance(value, str):
            raise self._fail(key, f"expected a string, got {json.dumps(value)[:80]}")
        return value

    def opt_str(self, key: str) -> str | None:
        return None if self._get(key) is None else self.str(key)

    def int(self, key: str) -> int:
        value = self._get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise self._fail(key, f"expected a non-negative integer, got {json.dumps(value)[:80]}")
        return value

    def opt_int(self, key: str) -> int | None:
        value = self._get(key)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise self._fail(key, f"expected an integer or null, got {json.dumps(value)[:80]}")
        return value

    def seconds(self, key: str) -> float:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise self._fail(key, f"expected a non-negative number, got {json.dumps(value)[:80]}")
        return float(value)

    def obj(self, key: str) -> _Doc:
        return _Doc(self.path, self._get(key), f"{self.where}{key}.")

    def objs(self, key: str) -> list[_Doc]:
        value = self._get(key)
        if not isinstance(value, list):
            raise self._fail(key, f"expected an array, got {type(value).__name__}")
        return [_Doc(self.path, item, f"{self.where}{key}[{i}].") for i, item in enumerate(value)]


def _tokens(doc: _Doc) -> Tokens:
    if doc.data.get("tokens", ...) is None:
        return Tokens()
    t = doc.obj("tokens")
    return Tokens(t.int("input"), t.int("output"), t.int("cache_read"), t.int("cache_write"), reported=True)


def _environment(doc: _Doc) -> dict[str, str | None] | None:
    if doc.data.get("environment") is None:  # absent in records written before it existed
        return None
    env = doc.obj("environment")
    if len(env.data) > MAX_ENVIRONMENT_KEYS:
        raise RunError(f"{doc.path}: environment: over {MAX_ENVIRONMENT_KEYS} keys")
    for key, value in env.data.items():
        if value is not None and not isinstance(value, str):
            raise env._fail(key, f"expected a string or null, got {json.dumps(value)[:80]}")
    return dict(env.data)


def _secret_names(doc: _Doc) -> tuple[str, ...]:
    if doc.data.get("secrets") is None:  # absent in records written before it existed
        return ()
    names = doc.data["secrets"]
    if not isinstance(names, list) or len(names) > MAX_SECRET_NAMES:
        raise doc._fail("secrets", f"expected an array of at most {MAX_SECRET_NAMES} variable names")
    for name in names:
        if not isinstance(name, str) or not name or len(name) > 255 or "=" in name or "\0" in name:
            raise doc._fail("secrets", f"expected variable names, got {json.dumps(name)[:80]}")
    return tuple(names)


def _stage(doc: _Doc) -> StageRecord:
    return StageRecord(doc.str("stage"), doc.str("status"), doc.str("started_at"), doc.seconds("duration_s"),
                       doc.opt_int("exit_code"), doc.str("detail"))


def _record(path: Path, data: Any) -> RunRecord:
    doc = _Doc(path, data)
    subject, image, artifact = doc.obj("subject"), doc.obj("image"), doc.obj("artifact")
    status = doc.str("status")
    if status not in RUN_STATUSES:
        raise RunError(f"{path}: status: expected one of {', '.join(RUN_STATUSES)}, got {json.dumps(status)[:80]}")
    run_id = doc.str("id")
    if run_id != path.parent.name:
        # The id names caches and containers (build-<id>): it must be the folder's own name.
        raise RunError(f"{path}: id: expected the run folder's name {path.parent.name!r}, "
                       f"got {json.dumps(run_id)[:80]}")
    if artifact.str("path") != TREE_DIR:
        # The tree is always <run>/work: a record must not point the build elsewhere.
        raise RunError(f"{path}: artifact.path: expected {TREE_DIR!r}, got {json.dumps(artifact.data['path'])[:80]}")
    return RunRecord(
        id=run_id, run_dir=path.parent, status=RunStatus(status), status_detail=doc.str("status_detail"),
        started_at=doc.str("started_at"), finished_at=doc.str("finished_at"), duration_s=doc.seconds("duration_s"),
        case_slug=subject.str("case"), case_version=subject.str("version"), case_type=subject.str("type"),
        case_digest=subject.str("case_digest"), variant=subject.str("variant"), harness=subject.str("harness"),
        harness_digest=subject.str("harness_digest"), runtime=doc.str("runtime"),
        harness_version=subject.opt_str("harness_version"), model=subject.opt_str("model"),
        image=image.opt_str("ref"), image_digest=image.opt_str("digest"), image_id=image.opt_str("id"),
        seed_commit=doc.opt_str("seed_commit"), stages=tuple(_stage(s) for s in doc.objs("stages")),
        tokens=_tokens(doc), artifact_digest=artifact.opt_str("digest"), files=artifact.int("files"),
        bytes=artifact.int("bytes"),
        refused=tuple(Refusal(r.str("path"), r.str("reason")) for r in artifact.objs("refused")),
        plan_digest=doc.opt_str("plan_digest"), environment=_environment(doc), secrets=_secret_names(doc),
    )


def _read_bounded(path: Path, max_bytes: int) -> bytes:
    # O_NOFOLLOW + fstat: a symlink or a FIFO planted where run.json belongs is
    # refused, and the read stops one byte past the cap whatever the file claims.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise RunError(f"{path}: no run record (not a run folder, or the run is still going)") from None
    except OSError as exc:
        raise RunError(f"{path}: cannot open the run record ({exc.strerror or exc})") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RunError(f"{path}: the run record is not a regular file")
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise RunError(f"{path}: the run record is over the {max_bytes}-byte cap")
    return data


def load_run(run_dir: Path | str, *, max_bytes: int = MAX_RUN_JSON_BYTES) -> RunRecord:
    """The record of the run folder ``run_dir``: the exact inverse of
    :meth:`RunRecord.write` (``load_run(r.run_dir).to_json() == r.to_json()``).

    Raises ``RunError`` naming the file (and the key) when ``run.json`` is
    missing, not a regular file, over ``max_bytes``, not JSON, or not the
    shape the writer writes.
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
        raise ValueError(f"max_bytes: expected a positive integer, got {max_bytes!r}")
    path = Path(run_dir) / RUN_FILE
    raw = _read_bounded(path, max_bytes)
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RunError(f"{path}: not a readable run record ({exc})") from None
    return _record(path, data)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def check_run_id(run_id: str) -> str:
    """``run_id`` when it can only name a folder directly under ``results/runs/``.

    Raises ``RunError`` for an empty id, one with ``/``, ``\\`` or NUL, one
    starting with ``.`` (``..``, hidden folders), or one over
    ``MAX_RUN_ID_CHARS`` characters.
    """
    if not run_id or run_id.startswith(".") or any(c in run_id for c in "/\\\0"):
        raise RunError(f"{run_id[:MAX_RUN_ID_CHARS]!r}: not a run id (a folder name under results/runs/)")
    if len(run_id) > MAX_RUN_ID_CHARS:
        raise RunError(f"{run_id[:40]!r}...: not a run id (over {MAX_RUN_ID_CHARS} characters)")
    return run_id


def find_run(runs_dir: Path, run_id: str) -> RunRecord:
    """The run ``run_id`` of ``runs_dir`` (``results/runs/``), read once.

    Raises ``RunError`` for an id that is not a plain folder name, an
    unknown run, or an unreadable record (see :func:`load_run`).
    """
    run_dir = Path(runs_dir) / check_run_id(run_id)
    if not run_dir.is_dir() or run_dir.is_symlink():
        raise RunError(f"{run_dir / RUN_FILE}: no such run {run_id!r} (see {runs_dir}/)")
    return load_run(run_dir)
