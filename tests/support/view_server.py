"""``tcab view --port 0`` started for real over a settings' results folder."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

from tests.support.settings import cli_env


@contextlib.contextmanager
def view_server(settings, timeout_s: float = 20) -> Iterator[str]:
    """The base URL (no trailing slash) of a running ``tcab view``, once it answers."""
    proc = subprocess.Popen([sys.executable, "-m", "tcab", "view", "--port", "0"], env=cli_env(settings),
                            cwd=settings.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, (line, proc.stderr.read() if proc.poll() is not None else "no URL printed")
        url = found.group(0).rstrip("/")
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                urllib.request.urlopen(url, timeout=5).read()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "tcab view did not answer"
                time.sleep(0.2)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
