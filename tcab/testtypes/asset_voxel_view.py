"""A voxel run's panel in ``tcab view`` and its 3D viewer page
(docs/asset-generation.md, "Reviewing a voxel run").

The panel: each part regenerated from its log (iso render) beside the
run's own preview, the assembled scene in the four views and the posed
render the run left, the required animations with their gaps, the brief,
and the model turned in the viewer (``/runs/<id>/viewer``, an iframe). The
review form (``overall``) is the page's usual one. Exports: the model's
.glb. Only names are checked here (a regular file, no link); the bytes are
served by the view's confined ``/runs/<id>/raw/`` route.
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from tcab.testtypes.asset_files import TREE_DIR, present, viewable
from tcab.testtypes.asset_score import REGENERATED_DIR

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion

VIEWS = ("iso", "front", "side", "top")
MAX_PANEL_PARTS = 64
#: The largest file ``tcab asset export`` copies: what the tool may write (a
#: scene of MAX_SCENE_FACES faces, twice a part's, at ~136 bytes a face, with
#: its baked animations), as the Blender export copies the largest .glb its
#: scorer reads. Not the viewer's MAX_VIEW_GLB: that bounds a page, not a file.
MAX_EXPORT_BYTES = 320 << 20


def _rig(folder: Path | None, section) -> dict | None:
    if folder is None or not section.animated:
        return None
    from tcab.testtypes.asset_score import _file, _Unreadable
    from tcab.voxel.errors import VoxelError
    from tcab.voxel.limits import MAX_RIG_BYTES
    from tcab.voxel.rig import load_rig

    try:
        return load_rig(_file(folder / TREE_DIR, "rig.json", MAX_RIG_BYTES, "rig"))
    except (_Unreadable, VoxelError):
        return None


def model_file(case: CaseVersion, folder: Path) -> str | None:
    """The run-folder relative .glb the viewer turns: an animated model's
    scene (the run's own, which carries the baked animations), a static
    model's regenerated mesh (else its own)."""
    from tcab.voxel.config import DEFAULTS

    if case.section.animated:
        rel = f"{TREE_DIR}/{DEFAULTS['voxel-animation']['scene_mesh']}"
        return rel if present(folder, rel) else None
    for rel in (f"{REGENERATED_DIR}/model.glb", f"{TREE_DIR}/{DEFAULTS['voxel-model']['mesh']}"):
        if present(folder, rel):
            return rel
    return None


def viewer_meta(case: CaseVersion, folder: Path) -> dict[str, Any]:
    """What the viewer shows beside the model: the required animations and the caller joints."""
    rig = _rig(folder, case.section) or {"joints": []}
    joints = [{k: j[k] for k in ("name", "part", "kind", "axis", "pivot", "min", "max", "rest")}
              for j in rig["joints"] if j["drive"] == "caller"]
    return {"title": case.name, "joints": joints[:MAX_PANEL_PARTS],
            "animations": [{"name": a.name, "loop": a.loop, "auto_play": a.auto_play}
                           for a in case.section.animations]}


def voxel_panel(case: CaseVersion, run: dict, folder: Path | None, run_id: str) -> dict[str, Any]:
    section = case.section
    base = f"/runs/{quote(run_id, safe='')}/raw/"

    def url(rel: str) -> str | None:
        return base + quote(rel) if present(folder, rel) else None

    rig = _rig(folder, section)
    names = [p["name"] for p in rig["parts"]][:MAX_PANEL_PARTS] if rig else ([] if section.animated else [None])
    parts = []
    for name in names:
        label = name or "model"
        preview = section.preview.replace("{part}", name) if name else section.preview
        parts.append({"part": label, "regenerated": url(f"{REGENERATED_DIR}/{label}.png"),
                      "preview": url(f"{TREE_DIR}/{preview}")})
    views = [{"view": v, "url": url(f"{TREE_DIR}/scene/{v}.png")} for v in VIEWS] if section.animated else []
    pose = url(f"{TREE_DIR}/scene/pose.png") if section.animated else None
    model = model_file(case, folder) if folder is not None else None
    volume = section.volume_for(case.variant(run["variant"])) if run.get("variant") in \
        [v.slug for v in case.variants] else section.volume
    return {"voxel": {
        "kind": section.kind, "volume": f"{volume.width}×{volume.height}×{volume.depth}",
        "parts": parts, "views": [v for v in views if v["url"]], "pose": pose,
        "animations": [{"name": a.name, "loop": a.loop, "auto_play": a.auto_play} for a in section.animations],
        "viewer": f"/runs/{quote(run_id, safe='')}/viewer" if model and viewable(folder, model) else None,
        "glb": url(model) if model else None,
        "turntable": url("exports/turntable.png"),
        "brief": [f"/cases/{quote(case.slug)}/{quote(case.version)}/raw/{quote(s.source)}"
                  for s in case.specs_for(case.variant(run["variant"]) if run.get("variant") in
                                          [v.slug for v in case.variants] else case.variant())],
    }}


def export_model(case: CaseVersion, run_dir: Path, out: Path) -> list[Path]:
    """Write the run's model (``model.glb``) and its turntable (``turntable.png``)
    into ``out``, each read without following a link and within
    :data:`MAX_EXPORT_BYTES`, both read before either is written. Raises
    ExportError naming the file that is there but refused (a link, a folder,
    too large) or when the run has neither (not regenerated, or its logs
    regenerate to nothing); the OSError of a write into ``out``."""
    from tcab.atomic import write_bytes
    from tcab.reading import read_bytes
    from tcab.testtypes.asset_export import ExportError
    from tcab.testtypes.asset_files import refusal
    from tcab.testtypes.asset_voxel_export import EXPORTS_DIR, TURNTABLE
    from tcab.voxel.config import DEFAULTS

    if case.section.animated:
        models = [f"{TREE_DIR}/{DEFAULTS['voxel-animation']['scene_mesh']}"]
    else:
        models = [f"{REGENERATED_DIR}/model.glb", f"{TREE_DIR}/{DEFAULTS['voxel-model']['mesh']}"]
    found: dict[str, bytes] = {}
    for name, candidates in (("model.glb", models), (TURNTABLE, [f"{EXPORTS_DIR}/{TURNTABLE}"])):
        for rel in candidates:
            why = refusal(run_dir, rel)
            if why is not None:
                raise ExportError(why)
            if not present(run_dir, rel):
                continue
            try:
                found[name] = read_bytes(run_dir / rel, MAX_EXPORT_BYTES, follow=False, what=name)
            except OSError as exc:  # gone or replaced since it was looked at, or too large
                raise ExportError(f"{run_dir / rel}: {exc.strerror or exc}"
                                  + (" (MAX_EXPORT_BYTES)" if exc.errno == errno.EFBIG else "")) from None
            break
    if not found:
        raise ExportError("no model to export: the run has no regenerated or rendered model "
                          "(its regenerate task has not run, or it is no_asset)")
    for name, data in found.items():
        write_bytes(out / name, data)
    return [out / name for name in found]
