"""Every bound of the voxel library, in one place.

The tools, the validator's replay and the manifest check read these same
names, so a volume the manifest accepts is one the tool can sculpt and a log
the tool wrote is one replay accepts.
"""

#: Largest volume side (x, y or z), and largest volume, in voxels (4 bytes each).
MAX_SIDE = 1024
MAX_VOXELS = 1 << 23
#: Most operations one log holds; largest log file and line.
MAX_OPS = 100_000
MAX_LOG_BYTES = 16 << 20
MAX_LINE_BYTES = 1024
#: Largest absolute integer a log or a flag may carry (coordinates are clipped, not refused).
MAX_INT = (1 << 63) - 1
#: The work one replay may do: voxels visited, summed over every operation
#: (a whole-volume op on the largest volume costs MAX_VOXELS: 256 of those).
#: ~1 ns a unit in numpy, so a log stops within a few seconds.
MAX_WORK = 1 << 31
#: The work all the parts of one rig may do together (replayed one after another).
MAX_RIG_WORK = 1 << 32
#: Most faces one mesh may have (a glb of ~136 bytes a face), and all the parts
#: of a rig together (the assembled scene is drawn from all of them at once).
MAX_FACES = 1 << 20
MAX_SCENE_FACES = 1 << 21
#: Rig bounds: parts, joints, animations, keyframes (over every track).
MAX_PARTS = 256
MAX_JOINTS = 512
MAX_ANIMATIONS = 64
MAX_KEYFRAMES = 8192
#: Largest keyframe time and animation period, in ms (one hour).
MAX_TIME_MS = 3_600_000
#: Largest absolute joint value, pivot coordinate or handle (radians or voxels).
MAX_VALUE = 1e6
#: Largest rig.json and tool config files.
MAX_RIG_BYTES = 4 << 20
MAX_CONFIG_BYTES = 64 << 10
#: Longest part, joint or animation name.
MAX_NAME = 64
#: The preview's side, in pixels.
PREVIEW_SIDE = 512


def check_bounds(width: object, height: object, depth: object) -> str | None:
    """Why a volume of that size is refused (the limit named), or None."""
    for key, value in (("width", width), ("height", height), ("depth", depth)):
        if type(value) is not int or not 1 <= value <= MAX_SIDE:
            return f"{key}: expected an integer 1..{MAX_SIDE} (MAX_SIDE), got {value!r}"[:160]
    if width * height * depth > MAX_VOXELS:  # type: ignore[operator]
        return f"{width}x{height}x{depth} is {width * height * depth} voxels, over the {MAX_VOXELS} limit (MAX_VOXELS)"  # type: ignore[operator]
    return None
