"""The asset-generation type's panel on a run's page in ``tcab view``: each
frame regenerated from the run's logs beside the model's own preview, and
the sheet's named sequences, each played by its animated PNG and the atlas
linked when the sweep exported them (``TestType.view_panel``).

Only names are checked here (a regular file, no link); the bytes are served
by the view's ``/runs/<id>/raw/`` route, confined to the run's folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from tcab.testtypes.asset_files import TREE_DIR, present
from tcab.testtypes.asset_score import REGENERATED_DIR

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion

#: How many times a frame is enlarged on the page (pixel art is small).
ZOOM_PIXELS = 256


def panel(case: CaseVersion, run: dict, folder: Path | None, run_id: str) -> dict[str, Any]:
    """``asset_frames`` (frame, regenerated URL or None, preview URL or None),
    ``asset_sequences`` (slug, name, fps, frame names) and ``asset_width``
    (the enlarged width the page draws a frame at)."""
    section = case.section
    if getattr(section, "blender", False):
        from tcab.testtypes.asset_blender_view import panel as blender_panel

        return blender_panel(case, run, folder, run_id)
    from tcab.testtypes.asset_voxel import VoxelSection

    if isinstance(section, VoxelSection):
        from tcab.testtypes.asset_voxel_view import voxel_panel

        return voxel_panel(case, run, folder, run_id)
    config = section.tool_config()
    base = f"/runs/{quote(run_id, safe='')}/raw/"
    frames = []
    for frame in config.frame_keys():
        name = "sprite" if frame is None else str(frame)
        regenerated = f"{REGENERATED_DIR}/{name}.png"
        preview = f"{TREE_DIR}/{config.preview_path(frame)}"
        frames.append({"frame": name,
                       "regenerated": base + regenerated if present(folder, regenerated) else None,
                       "preview": base + quote(preview) if present(folder, preview) else None})
    from tcab.testtypes.asset_export import ATLAS_JSON, ATLAS_PNG, EXPORTS_DIR, SEQUENCES_DIR

    sequences = []
    for s in section.sequences:
        animation = f"{EXPORTS_DIR}/{SEQUENCES_DIR}/{s.slug}.png"
        sequences.append({"slug": s.slug, "name": s.name, "fps": s.fps, "frames": [str(f) for f in s.frames],
                          "animation": base + animation if present(folder, animation) else None})
    exports = {name: base + f"{EXPORTS_DIR}/{name}" for name in (ATLAS_PNG, ATLAS_JSON)
               if section.sheet and present(folder, f"{EXPORTS_DIR}/{name}")}
    width = max(section.width, min(ZOOM_PIXELS, section.width * max(1, ZOOM_PIXELS // max(section.width, 1))))
    return {"asset_frames": frames, "asset_sequences": sequences, "asset_width": width, "asset_exports": exports}
