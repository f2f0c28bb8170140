"""The errors of the voxel library (no other tcab import).

Each message says where: the config key, the log's op number and field, the
flag. Callers in tcab wrap them in their own error tree.
"""


class VoxelError(Exception):
    """Anything the voxel library refuses."""


class VoxelConfigError(VoxelError):
    """A tool config (``.tcab/voxel.json``) that is not valid."""


class VoxelLogError(VoxelError):
    """A recorded log that cannot be replayed: unreadable, too large, too much
    work, or an operation that is not valid (the message names its number and field)."""


class RigError(VoxelError):
    """A ``rig.json`` or a rig edit that is not valid (a cycle, a bound, a bad time)."""


class VoxelUsageError(VoxelError):
    """A bad flag on the command line (exit 1, nothing recorded)."""
