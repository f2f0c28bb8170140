"""glTF 2.0 binary (.glb): tcab's writer (``writer.write_glb``) and its bounded
reader (``reader.read_glb``). Used by the voxel tools, the voxel scoring and
the Blender characters' checks.
"""
