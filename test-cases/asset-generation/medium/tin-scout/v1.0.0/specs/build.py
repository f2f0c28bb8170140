"""build.py: the Tin Scout's starter. `tcab-blend` runs it:

    blender --background --python build.py -- blender.config.json

Build the mesh, the armature, the skin weights and one Action per required
animation (config["animations"]), tag the caller joints (config["joints"])
and the weapon socket, then reach the export call at the end.
"""

import json
import sys

import bpy

config = json.load(open(sys.argv[sys.argv.index("--") + 1] if "--" in sys.argv else "blender.config.json"))
BOUNDS = config["bounds"]  # {"width", "height", "depth"}; Blender-native: +Z up, facing -Y

bpy.ops.object.select_all(action="SELECT")
bpy.ops.object.delete()

# TODO: the mesh, the armature, the weights, the tags, the animations.
raise NotImplementedError("TODO: build the Tin Scout")

import tcab_blend_export  # noqa: E402

tcab_blend_export.export(config)
