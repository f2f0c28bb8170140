"""Run folders for tests, written the way a run leaves them: a ``work/``
tree and ``run.json`` from the real writer (:meth:`RunRecord.write`), so a
test never hand-writes a record shape the reader would not accept.

Import it as ``from run_folders import write_run`` (``tests/`` is on
``sys.path``: pytest puts the root conftest's folder there).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tcab.catalog import CaseVersion, case_digest
from tcab.runs import RunRecord, StageRecord


def write_run(runs_dir: Path, run_id: str, case: CaseVersion, *, variant: str | None = None,
              tree: Path | None = None, files: dict[str, str] | None = None,
              status: str = "completed") -> RunRecord:
    """A run folder ``runs_dir/run_id`` of ``case``: ``work/`` is a copy of
    ``tree`` (else empty) with ``files`` ({relative path: text}) written over
    it; ``run.json`` is written last, by the real writer. Returns the record."""
    run_dir = runs_dir / run_id
    work = run_dir / "work"
    if tree is not None:
        shutil.copytree(tree, work)
    work.mkdir(parents=True, exist_ok=True)
    for rel, text in (files or {}).items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
    record = RunRecord(
        id=run_id, run_dir=run_dir, status=status, status_detail="",
        started_at="2025-01-01T12:00:00+00:00", finished_at="2025-01-01T12:01:00+00:00", duration_s=60.0,
        case_slug=case.slug, case_version=case.version, case_type=case.type, case_digest=case_digest(case),
        variant=case.variant(variant).slug, harness="reference", harness_digest="0" * 64, runtime="docker",
        stages=(StageRecord("session", "ok", "2025-01-01T12:00:01+00:00", 58.0, 0),),
    )
    record.write()
    return record
