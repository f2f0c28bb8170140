"""What a watch has seen: the latest frame of each sheet frame, and the counts.

The listener posts accepted frames here (its thread) and the page reads them
(its threads); one lock guards it all. Memory is bounded: only the newest
image of each frame index is kept, and when the kept images pass
``max_kept_bytes`` the frames updated longest ago are forgotten first.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LiveFrame:
    """One accepted frame as the page shows it."""

    seq: int  # the order frames arrived in, over the whole watch
    run_id: str
    frame: int | None  # the sheet frame; None for a sprite's one image
    op: str
    count: int
    width: int
    height: int
    at: float
    png: bytes
    mesh: bytes = b""  # a voxel render's .glb, when the frame carries one

    @property
    def size(self) -> int:
        return len(self.png) + len(self.mesh)

    def summary(self) -> dict:
        return {"seq": self.seq, "run": self.run_id, "frame": self.frame, "op": self.op,
                "count": self.count, "width": self.width, "height": self.height, "at": round(self.at, 3),
                "mesh": bool(self.mesh)}


class Board:
    """The frames and counters of one watch (one or several runs)."""

    def __init__(self, max_kept_bytes: int) -> None:
        self._lock = threading.Lock()
        self._max = max_kept_bytes
        self._kept: OrderedDict[tuple[str, int | None], LiveFrame] = OrderedDict()
        self._bytes = 0
        self._seq = 0
        self.accepted = 0
        self.dropped: Counter[str] = Counter()
        self.runs: list[str] = []

    def add_run(self, run_id: str) -> None:
        with self._lock:
            if run_id not in self.runs:
                self.runs.append(run_id)

    def post(self, run_id: str, frame: int | None, op: str, count: int, width: int, height: int,
             png: bytes, mesh: bytes = b"") -> None:
        with self._lock:
            self._seq += 1
            self.accepted += 1
            key = (run_id, frame)
            old = self._kept.pop(key, None)
            if old is not None:
                self._bytes -= old.size
            shown = LiveFrame(self._seq, run_id, frame, op, count, width, height, time.time(), png, mesh)
            self._kept[key] = shown
            self._bytes += shown.size
            while self._bytes > self._max and len(self._kept) > 1:
                _, gone = self._kept.popitem(last=False)
                self._bytes -= gone.size

    def drop(self, reason: str) -> None:
        with self._lock:
            self.dropped[reason] += 1

    def state(self) -> dict:
        """What the page polls: every kept frame (without its bytes) and the counters."""
        with self._lock:
            frames = sorted((s.summary() for s in self._kept.values()),
                            key=lambda s: (s["run"], -1 if s["frame"] is None else s["frame"]))
            return {"seq": self._seq, "accepted": self.accepted, "dropped": dict(self.dropped),
                    "runs": list(self.runs), "frames": frames}

    def image(self, seq: int) -> bytes | None:
        """The PNG of the kept frame numbered ``seq`` (None once replaced)."""
        with self._lock:
            for shown in self._kept.values():
                if shown.seq == seq:
                    return shown.png
        return None

    def mesh(self, seq: int) -> bytes | None:
        """The .glb of the kept frame numbered ``seq`` (None once replaced, or without one)."""
        with self._lock:
            for shown in self._kept.values():
                if shown.seq == seq:
                    return shown.mesh or None
        return None

    @property
    def kept_bytes(self) -> int:
        with self._lock:
            return self._bytes
