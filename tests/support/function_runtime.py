"""A runtime that answers through a function and wraps no exception
(STYLE.md: allowed for tests of the code above the runtime).

Every command but the session prints ``scripted 1.0`` and exits 0; the
session (a command whose argv holds ``session-marker``) prints ``session_lines``
through the caller's sink and exits ``session_exit``. Collection leaves one
file. Nothing it calls is translated, so an exception of the caller's code
reaches the lifecycle as it was raised.
"""

from __future__ import annotations

import time
from pathlib import Path

from tcab.runtime import CollectReport, ExecEnd, ExecResult, ImageInfo


class FunctionRuntime:
    """See the module docstring."""

    name = "function"

    def __init__(self, session_lines: list[str], session_exit: int = 0):
        self.lines, self.exit = session_lines, session_exit
        self.removed: list[str] = []

    def ensure_image(self, ref, *, pull=True):
        return ImageInfo(ref=ref, id="sha256:f", digest="sha256:f")

    def image_digest(self, container):
        return ImageInfo(ref="fake", id="sha256:f", digest="sha256:f")

    def start(self, spec):
        return "fn-1"

    def copy_in(self, container, src, dest="/work"):
        return None

    def exec(self, container, argv, options=None):
        t = time.time()
        session = "session-marker" in " ".join(argv)
        lines = self.lines if session else ["scripted 1.0"]
        if options is not None and options.on_output is not None:
            for line in lines:
                options.on_output("stdout", line, t)
        return ExecResult(ExecEnd.EXITED, self.exit if session else 0, 0.01, stdout="\n".join(lines))

    def copy_out(self, container, src, dest, limits=None):
        Path(dest).mkdir(parents=True)
        (Path(dest) / "made.txt").write_text("made\n")
        return CollectReport(files=1, bytes=5)

    def remove(self, container):
        self.removed.append(container)

    def list_run_containers(self, run_id=None):
        return []
