"""tcab's voxel library: the ``voxel`` and ``voxel-anim`` tools and the
validator's regeneration of what they sculpted, from one implementation.

Public surface (kept stable: the voxel test type and the Blender type build on it):

- ``tcab.voxel.volume.Volume``: the occupied-colour grid and the 13 operations;
- ``tcab.voxel.log.replay(log_path, bounds)``: a recorded log replayed to a Volume;
- ``tcab.voxel.mesh.mesh_volume(volume)``: the face-culled mesh;
- ``tcab.voxel.render.render_png(mesh, view, bounds, background)``: the 512x512 preview;
- ``tcab.voxel.regenerate.part_files(log_path, bounds, ...)``: the tool's exact .glb and preview bytes;
- ``tcab.voxel.regenerate.mesh_ops(ops, bounds, label, budget)``: the replay and mesh of ``render``, a
  rig's parts sharing one ``RigBudget`` (MAX_RIG_WORK, MAX_SCENE_FACES), the tool's and the scorer's;
- ``tcab.voxel.rig`` (``rig.json``: parts, joints, animations), ``tcab.voxel.pose`` (F-curves,
  world matrices) and ``tcab.voxel.scene`` (assembled, posed and baked scenes);
- ``tcab.gltf.writer.write_glb`` / ``tcab.gltf.reader.read_glb(path, limits)``.

numpy is the only dependency outside the standard library. ``VERSION`` is
recorded with a run; bump it when the voxels an op sets, the mesh bytes or
the preview bytes change.
"""

VERSION = "1.0.0"
