"""build.py: the Tin Scout, tcab's reference Blender character (solution).

A small boxy robot: one mesh (pelvis, torso, head, two arms, two legs)
skinned to an armature with a chest `aim` bone (the aim_pitch caller joint)
and an empty `weapon_socket` on the right hand; one Action per required
animation. Deterministic: no randomness, built from the config alone.
"""

import json
import math
import sys

import bmesh
import bpy

config = json.load(open(sys.argv[sys.argv.index("--") + 1] if "--" in sys.argv else "blender.config.json"))
B = config["bounds"]
H = float(B["height"])
S = H / 48.0  # the design is 48 units tall

bpy.ops.object.select_all(action="SELECT")
bpy.ops.object.delete()
for block in (bpy.data.meshes, bpy.data.armatures, bpy.data.actions, bpy.data.materials):
    for item in list(block):
        block.remove(item)

# --- mesh: boxes, each weighted wholly to one bone ---------------------------
PARTS = [  # name, bone, centre (x, y, z), size (x, y, z), colour
    ("pelvis", "hips", (0, 0, 24), (8, 5, 4), (0.45, 0.47, 0.5)),
    ("torso", "aim", (0, 0, 32), (10, 6, 10), (0.62, 0.64, 0.66)),
    ("head", "head", (0, 0, 41), (6, 6, 6), (0.8, 0.55, 0.2)),
    ("arm.L", "arm.L", (7, 0, 32), (3, 3, 10), (0.5, 0.52, 0.55)),
    ("arm.R", "arm.R", (-7, 0, 32), (3, 3, 10), (0.5, 0.52, 0.55)),
    ("leg.L", "leg.L", (2.5, 0, 11), (3.5, 4, 22), (0.35, 0.37, 0.4)),
    ("leg.R", "leg.R", (-2.5, 0, 11), (3.5, 4, 22), (0.35, 0.37, 0.4)),
]
mesh = bpy.data.meshes.new("TinScout")
body = bpy.data.objects.new("TinScout", mesh)
bpy.context.scene.collection.objects.link(body)
bm = bmesh.new()
groups = {}
for name, bone, centre, size, colour in PARTS:
    mat = bpy.data.materials.new(name)
    mat.diffuse_color = (*colour, 1.0)
    mat.use_nodes = True
    mat.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (*colour, 1.0)
    body.data.materials.append(mat)
    made = bmesh.ops.create_cube(bm, size=1.0)
    for v in made["verts"]:
        v.co.x = (v.co.x * size[0] + centre[0]) * S
        v.co.y = (v.co.y * size[1] + centre[1]) * S
        v.co.z = (v.co.z * size[2] + centre[2]) * S
    bm.faces.ensure_lookup_table()
    for face in {f for v in made["verts"] for f in v.link_faces}:
        face.material_index = len(body.data.materials) - 1
    groups.setdefault(bone, []).extend(made["verts"])
bm.verts.index_update()
index = {bone: [v.index for v in verts] for bone, verts in groups.items()}
bm.to_mesh(mesh)
bm.free()
for bone, verts in index.items():
    body.vertex_groups.new(name=bone).add(verts, 1.0, "REPLACE")

# --- armature ----------------------------------------------------------------
arm_data = bpy.data.armatures.new("Rig")
rig = bpy.data.objects.new("Rig", arm_data)
bpy.context.scene.collection.objects.link(rig)
bpy.context.view_layer.objects.active = rig
bpy.ops.object.mode_set(mode="EDIT")
BONES = [  # name, parent, head, tail
    ("hips", None, (0, 0, 22), (0, 0, 26)),
    ("aim", "hips", (0, 0, 27), (0, 0, 37)),
    ("head", "aim", (0, 0, 38), (0, 0, 44)),
    ("arm.L", "aim", (7, 0, 37), (7, 0, 27)),
    ("arm.R", "aim", (-7, 0, 37), (-7, 0, 27)),
    ("weapon_socket", "arm.R", (-7, -2, 27), (-7, -5, 27)),
    ("leg.L", "hips", (2.5, 0, 22), (2.5, 0, 0)),
    ("leg.R", "hips", (-2.5, 0, 22), (-2.5, 0, 0)),
]
for name, parent, head, tail in BONES:
    eb = arm_data.edit_bones.new(name)
    eb.head = tuple(c * S for c in head)
    eb.tail = tuple(c * S for c in tail)
    if parent:
        eb.parent = arm_data.edit_bones[parent]
bpy.ops.object.mode_set(mode="OBJECT")
# Not parented to the rig: a skinned mesh node stays a root (glTF ignores its parents).
mod = body.modifiers.new("Rig", "ARMATURE")
mod.object = rig

# --- the game-facing interface -----------------------------------------------
for joint in config["joints"]:
    arm_data.bones["aim"]["tcab_joint"] = {
        "name": joint["name"], "kind": joint["kind"], "axis": joint["axis"],
        "min": math.radians(joint["min"]), "max": math.radians(joint["max"]),
        "rest": math.radians(joint["rest"])}
arm_data.bones["weapon_socket"]["tcab_socket"] = "weapon_socket"

# --- animations: one Action per required name -------------------------------
KEYS = {  # name: (frames, {bone: [(frame, (x, y, z) euler degrees)]})
    "idle": (48, {"aim": [(0, (0, 0, 0)), (24, (3, 0, 0)), (48, (0, 0, 0))]}),
    "run": (24, {"leg.L": [(0, (30, 0, 0)), (12, (-30, 0, 0)), (24, (30, 0, 0))],
                 "leg.R": [(0, (-30, 0, 0)), (12, (30, 0, 0)), (24, (-30, 0, 0))],
                 "arm.L": [(0, (-25, 0, 0)), (12, (25, 0, 0)), (24, (-25, 0, 0))],
                 "arm.R": [(0, (25, 0, 0)), (12, (-25, 0, 0)), (24, (25, 0, 0))]}),
    "fire": (16, {"arm.R": [(0, (-80, 0, 0)), (3, (-95, 0, 0)), (16, (-80, 0, 0))],
                  "aim": [(0, (0, 0, 0)), (3, (-6, 0, 0)), (16, (0, 0, 0))]}),
    "reload": (32, {"arm.L": [(0, (0, 0, 0)), (16, (-60, 0, 0)), (32, (0, 0, 0))],
                    "weapon_socket": [(0, (0, 0, 0)), (16, (0, 0, 40)), (32, (0, 0, 0))]}),
    "hit": (16, {"aim": [(0, (0, 0, 0)), (4, (-15, 0, 5)), (16, (0, 0, 0))],
                 "head": [(0, (0, 0, 0)), (4, (-20, 0, 0)), (16, (0, 0, 0))]}),
    "death": (40, {"hips": [(0, (0, 0, 0)), (40, (-85, 0, 0))],
                   "aim": [(0, (0, 0, 0)), (40, (-20, 0, 0))]}),
}
rig.animation_data_create()
for anim in config["animations"]:
    frames, bones = KEYS.get(anim["name"], (24, {"aim": [(0, (0, 0, 0)), (24, (5, 0, 0))]}))
    action = bpy.data.actions.new(anim["name"])
    action.use_fake_user = True
    rig.animation_data.action = action
    for bone, keys in bones.items():
        pb = rig.pose.bones[bone]
        pb.rotation_mode = "XYZ"
        for frame, euler in keys:
            pb.rotation_euler = tuple(math.radians(a) for a in euler)
            pb.keyframe_insert("rotation_euler", frame=frame, group=bone)
    for pb in rig.pose.bones:
        pb.rotation_euler = (0, 0, 0)
rig.animation_data.action = None

import tcab_blend_export  # noqa: E402

tcab_blend_export.export(config)
