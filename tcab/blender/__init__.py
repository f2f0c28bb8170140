"""Blender characters (docs/asset-generation.md, "Blender characters").

Standalone (standard library, plus numpy for the preview), so the run image
carries it unchanged (containers/blender/context.sh):

- :mod:`tcab.blender.glb`: the bounded glTF binary reader and its summary
  (meshes, skins, animations, caller joints);
- :mod:`tcab.blender.contract`: what a glb lacks against its contract
  (tcab-blend's notes and scoring's gaps);
- :mod:`tcab.blender.render`: the deterministic software preview;
- :mod:`tcab.blender.config`: ``blender.config.json``, the seeded config;
- :mod:`tcab.blender.runner`: ``tcab-blend``;
- :mod:`tcab.blender.export`: the export helper build.py imports inside
  Blender (as ``tcab_blend_export``).
"""
