"""``tcab run --watch`` as a user runs it: the page's loopback URL is printed
before the run, the frames are counted after it; a case whose type cannot be
watched is exit 2 with the reason, before any container starts."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.support.harness_files import scripted_harness
from tests.support.paths import CATALOG_FIXTURES, REPO
from tests.support.toy_type import ENTRY
from tests.watch.sender import script


def _tcab(settings, *args: str, catalog) -> subprocess.CompletedProcess:
    env = {**os.environ, "TCAB_CATALOG": str(catalog), "TCAB_HARNESSES": str(settings.harnesses_dir),
           "TCAB_RESULTS": str(settings.results_dir), "TCAB_TMP": str(settings.tmp_dir),
           "TCAB_BUILD": str(settings.build_dir), "TCAB_TEST_TYPES": ENTRY,
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "tcab", "run", *args], env=env, cwd=settings.root,
                          capture_output=True, text=True, timeout=240)


@pytest.mark.timeout(300)
def test_tcab_run_watch_prints_the_page_and_counts_the_frames(settings, podman_runtime) -> None:
    scripted_harness(settings, script([0, 1]), slug="draws")
    done = _tcab(settings, "tally-word", "--harness", "draws", "--watch", catalog=CATALOG_FIXTURES / "toy")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"watch the run at http://127\.0\.0\.1:\d+/", done.stdout), done.stdout
    assert "watch: 2 frames shown, dropped: wrong token 1" in done.stdout


def test_tcab_run_watch_on_an_unwatchable_case_is_exit_2(settings, podman_runtime) -> None:
    scripted_harness(settings, "echo never", slug="never")
    done = _tcab(settings, "lights-out", "--harness", "never", "--watch", catalog=settings.catalog_dir)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "a end-to-end run cannot be watched (lights-out@v1.0.0)" in done.stderr + done.stdout
    assert "Traceback" not in done.stderr
    assert not settings.runs_dir.exists() or list(settings.runs_dir.iterdir()) == []
