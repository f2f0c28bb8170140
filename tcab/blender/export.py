"""The export helper build.py imports inside Blender as ``tcab_blend_export``
(tcab-blend registers the name): ``export(config)`` writes character.glb.

Skinned and animated glTF 2.0 binary, +Y up (``export_yup``), the custom
properties as ``extras`` (the ``tcab_joint`` / ``tcab_socket`` interface),
every action of the single armature exported by its own name. The preview
is not drawn here: tcab-blend renders it from the written glb with tcab's
own renderer after Blender exits.
"""

from __future__ import annotations

import os
from typing import Any


def export(config: dict[str, Any]) -> str:
    import bpy

    path = os.path.abspath(config["outputs"]["model"])
    if os.path.lexists(path):
        os.unlink(path)
    bpy.ops.export_scene.gltf(
        filepath=path, export_format="GLB", export_yup=True, export_apply=False,
        export_animations=True, export_skins=True, export_extras=True, export_colors=True,
        export_anim_single_armature=True, export_force_sampling=True, export_def_bones=False,
        export_cameras=False, export_lights=False, use_selection=False, check_existing=False)
    print(f"tcab_blend_export: wrote {config['outputs']['model']}", flush=True)
    return path
