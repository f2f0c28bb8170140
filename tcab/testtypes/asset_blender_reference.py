"""Rendering a blender-character case's reference for case authors
(``tcab asset render-reference``, docs/asset-generation.md, "Blender
characters").

Blender is not on the host: the variant is seeded into a temporary folder,
the solution laid over it (as the reference harness does), and its
``build.py`` (the starter the solution replaced) run by ``tcab-blend`` in a
fresh offline container of the Blender image, as provenance does. The glb
is checked as a run's is (:func:`tcab.testtypes.asset_blender.score_blender`)
and ``character.glb``, ``model.png`` (tcab's renderer) and ``summary.json``
are written to the output folder.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from tcab.atomic import write_bytes
from tcab.testtypes.asset_blender import REGENERATED_DIR, container_rebuild, score_blender
from tcab.testtypes.asset_reference import ReferenceError, ReferenceRender, _lay_solution

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion, Variant


def render_blender_reference(case: CaseVersion, variant: Variant, out_dir: Path, tmp_root: Path, *,
                             timeout_s: float, runtime: str = "docker") -> ReferenceRender:
    from tcab.blender.config import MODEL
    from tcab.errors import RuntimeBackendError
    from tcab.runtime.choice import open_runtime
    from tcab.seeding import seed_repository

    section = case.section.for_variant(variant)
    tmp_root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="render-reference-", dir=tmp_root))
    try:
        work = scratch / "work"
        seed_repository(case, variant, work)
        _lay_solution(case, variant, work)
        try:
            rt = open_runtime(runtime)
        except RuntimeBackendError as exc:
            raise ReferenceError(f"{case.ref}: a Blender character is built in a container: {exc}") from None
        rebuild = container_rebuild(rt, f"reference-{case.slug}", scratch / "tmp", timeout_s=timeout_s)
        try:
            data, why = rebuild(section, (work / section.actions).read_bytes())
        except RuntimeBackendError as exc:
            raise ReferenceError(f"{case.ref}: the Blender container failed: {exc}") from None
        if data is None:
            raise ReferenceError(f"{case.ref}: the reference build.py built no {MODEL}: {why}")
        write_bytes(work / MODEL, data)
        run_dir = scratch / "run"
        score = score_blender(section, work, run_dir, lambda sec, script: (data, ""))
        if score.status != "regenerated":
            raise ReferenceError(f"{case.ref}: the reference's {MODEL}: {score.detail}")
        written = []
        for name, src in ((MODEL, work / MODEL), ("model.png", run_dir / REGENERATED_DIR / "model.png"),
                          ("summary.json", run_dir / REGENERATED_DIR / "summary.json")):
            write_bytes(out_dir / name, src.read_bytes())
            written.append(out_dir / name)
        return ReferenceRender(score, tuple(written))  # type: ignore[arg-type]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
