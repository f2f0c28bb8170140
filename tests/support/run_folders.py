"""Run folders for tests, written the way a run leaves them: a ``work/``
tree and ``run.json`` from the real writer (:meth:`RunRecord.write`), so a
test never hand-writes a record shape the reader would not accept.

``lights_out_run`` lays the sample case's starter workspace with its
solution over it, the way a finished run of lights-out leaves its folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tcab.catalog import CaseVersion, case_digest, resolve_case
from tcab.runs import RunRecord, StageRecord
from tcab.settings import Settings
from tests.support.paths import LIGHTS_OUT


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


def lights_out_run(settings: Settings, trees: Path, run_id: str, files: dict[str, str] | None = None,
                   case: str = "lights-out", version: str = "v1.0.0", solution: bool = True) -> RunRecord:
    """A run folder of ``case`` under ``settings.runs_dir``. For lights-out,
    ``work/`` is the starter workspace with the classic solution laid over it
    (unless ``solution`` is false; copied through ``trees``); then ``files``."""
    case_v = resolve_case(settings.catalog_dir, case, version)
    tree = None
    if case == "lights-out":
        tree = trees / run_id
        shutil.copytree(LIGHTS_OUT / "workspaces" / "base", tree)
        if solution:
            for layer in ("common", "classic"):
                shutil.copytree(LIGHTS_OUT / "solutions" / layer, tree, dirs_exist_ok=True)
    variant = "classic" if case == "lights-out" else None
    return write_run(settings.runs_dir, run_id, case_v, variant=variant, tree=tree, files=files)
