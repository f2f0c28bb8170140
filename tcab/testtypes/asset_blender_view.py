"""A blender-character run's panel in ``tcab view``: the preview tcab drew
again from the run's glb beside the model's own, the glb to download, the
required animations and caller joints with what the run's glb holds of
them (``regenerated/summary.json``), the provenance note, and the
character turned in the 3D viewer (``/runs/<id>/viewer``, tcab.web3d): each
animation played by name, one slider per caller joint driving the node
build.py tagged with it (``extras.tcab_joint``, see tcab/blender/export.py).

Only names are checked here (a regular file, no link); the bytes are served
by the view's ``/runs/<id>/raw/`` route, confined to the run's folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from tcab.blender.config import MODEL as GLB
from tcab.testtypes.asset_blender import REGENERATED_DIR

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion

MAX_SUMMARY_BYTES = 1 << 20


def _summary(folder: Path | None, present) -> dict[str, Any]:
    rel = f"{REGENERATED_DIR}/summary.json"
    if folder is None or not present(folder, rel):
        return {}
    from tcab.reading import read_bytes

    try:
        data = json.loads(read_bytes(folder / rel, MAX_SUMMARY_BYTES, follow=False))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def model_file(folder: Path) -> str | None:
    """The run-folder relative .glb the viewer turns: the run's own character."""
    from tcab.testtypes.asset_files import TREE_DIR, present

    rel = f"{TREE_DIR}/{GLB}"
    return rel if present(folder, rel) else None


def viewer_meta(case: CaseVersion) -> dict[str, Any]:
    """What the viewer shows beside the character: the required animations and
    one slider per declared caller joint. ``tagged``: the viewer finds the
    node by its ``tcab_joint`` name (not by part) and poses it from its rest
    transform; a rotation's bounds are degrees in the manifest, radians here."""
    import math

    section = case.section
    joints = []
    for j in section.joints:
        unit = math.radians if j.kind == "rotation" else float
        joints.append({"name": j.name, "kind": j.kind, "axis": j.axis, "tagged": True,
                       "min": unit(j.min), "max": unit(j.max), "rest": unit(j.rest)})
    return {"title": case.name, "joints": joints,
            "animations": [{"name": a.name, "loop": a.loop, "auto_play": a.auto_play} for a in section.animations]}


def panel(case: CaseVersion, run: dict, folder: Path | None, run_id: str) -> dict[str, Any]:
    from tcab.testtypes.asset_files import TREE_DIR, present, viewable

    known = run.get("variant") in [v.slug for v in case.variants]
    section = case.section.for_variant(case.variant(run["variant"] if known else None))
    base = f"/runs/{quote(run_id, safe='')}/raw/"
    regenerated = f"{REGENERATED_DIR}/model.png"
    preview = f"{TREE_DIR}/{section.preview}"
    glb = f"{TREE_DIR}/{GLB}"
    turn = f"{REGENERATED_DIR}/turntable.png"
    frames = [{"frame": "character",
               "regenerated": base + regenerated if present(folder, regenerated) else None,
               "preview": base + quote(preview) if present(folder, preview) else None}]
    summary = _summary(folder, present)
    held = {a.get("name"): a for a in (summary.get("run") or {}).get("animations", []) if isinstance(a, dict)}
    tagged = {j.get("name") for j in (summary.get("run") or {}).get("caller_joints", []) if isinstance(j, dict)}
    animations = [{"name": a.name, "loop": a.loop, "auto_play": a.auto_play, "present": a.name in held,
                   "duration": (held.get(a.name) or {}).get("duration")} for a in section.animations]
    joints = [{**j.to_json(), "present": j.name in tagged} for j in section.joints]
    exports = {name: base + rel for name, rel in (("character.glb", glb), ("turntable.png", turn))
               if present(folder, rel)}
    return {"asset_frames": frames, "asset_sequences": [], "asset_width": 512, "asset_exports": exports,
            "blender": {"box": f"{section.width}×{section.height}×{section.depth}", "animations": animations, "joints": joints, "gaps": summary.get("gaps", []),
                        "provenance": summary.get("provenance", ""),
                        "glb": base + glb if present(folder, glb) else None,
                        "viewer": f"/runs/{quote(run_id, safe='')}/viewer" if viewable(folder, glb) else None,
                        "turntable": base + turn if present(folder, turn) else None}}
