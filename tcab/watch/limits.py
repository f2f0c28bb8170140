"""The preview listener's limits (docs/security.md, "Watching a run").

Everything a watched run's container sends is hostile: each frame is bounded
in header bytes, body bytes, time and image size, and the listener as a whole
in connections at once and frames per second. A frame over any of them is
dropped and counted; none is fatal to the listener or the run.
"""

from __future__ import annotations

from dataclasses import dataclass

from tcab.limits import check_limits

#: Bytes of one frame's JSON header line, its newline included.
MAX_HEADER_BYTES = 4 * 1024
#: Bytes of one frame's PNG (the header's ``length``); a larger one is refused unread.
MAX_BODY_BYTES = 8 * 1024 * 1024
#: Seconds one connection may take to deliver its header and body.
READ_TIMEOUT_S = 5.0
#: Connections read at once; one past it is closed as soon as it is accepted.
MAX_CONNECTIONS = 8
#: Frames accepted in any one second; the next is dropped before its body is read.
MAX_FRAMES_PER_SECOND = 30
#: Width and height of a frame's image (its IHDR), each.
MAX_SIDE = 4096
#: A sheet frame's index (the header's ``frame``), exclusive: the draw tool's own cap, plus one.
MAX_FRAME_INDEX = 10_000
#: Characters of the header's ``op``.
MAX_OP_CHARS = 64
#: Bytes of one frame's mesh (a voxel render's .glb after its PNG, the header's ``meshLength``).
MAX_MESH_BYTES = 16 * 1024 * 1024
#: Bytes of frames a watch keeps for its page (the latest of each sheet frame).
MAX_KEPT_BYTES = 64 * 1024 * 1024


class WatchLimitError(ValueError):
    """A limit that is not a finite positive number."""


@dataclass(frozen=True, slots=True)
class WatchLimits:
    """The limits one listener enforces (the constants above by default)."""

    max_header_bytes: int = MAX_HEADER_BYTES
    max_body_bytes: int = MAX_BODY_BYTES
    read_timeout_s: float = READ_TIMEOUT_S
    max_connections: int = MAX_CONNECTIONS
    max_frames_per_second: int = MAX_FRAMES_PER_SECOND
    max_side: int = MAX_SIDE
    max_frame_index: int = MAX_FRAME_INDEX
    max_op_chars: int = MAX_OP_CHARS
    max_kept_bytes: int = MAX_KEPT_BYTES
    max_mesh_bytes: int = MAX_MESH_BYTES

    def __post_init__(self) -> None:
        check_limits(self, "watch", WatchLimitError)
