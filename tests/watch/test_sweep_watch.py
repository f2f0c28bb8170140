"""A sweep whose plan says ``watch: yes``: the run's task prints its page's
URL and, after the run, its counts; the frames of the real run (Podman)
reached the listener. Uses the toy type (TCAB_TEST_TYPES) and doit."""

from __future__ import annotations

import re

import pytest

from tests.support.harness_files import toml_value
from tests.testtypes.test_toy_type import _doit, _project
from tests.watch.sender import script

PLAN = """name: watched
watch: yes
runs:
  - cases:
      - case: tally-word
    harnesses:
      - draws
report: no
"""


@pytest.mark.timeout(600)
def test_a_watched_sweep_prints_its_page_and_the_frames(tmp_path, podman_runtime) -> None:
    root = _project(tmp_path)
    (root / "benchmark.yaml").write_text(PLAN)
    harness = {"slug": "draws", "name": "Draws", "binary": "sh", "version_args": ["-c", "echo draws 1.0"],
               "args": ["-c", script([0, 1, 2])]}
    (root / "harnesses" / "draws.toml").write_text("".join(f"{k} = {toml_value(v)}\n" for k, v in harness.items()))
    swept = _doit(root)
    out = swept.stdout + swept.stderr
    assert swept.returncode == 0, out
    assert re.search(r"watch tally-word/v1\.0\.0/base/draws/1 at http://127\.0\.0\.1:\d+/", out), out
    assert "watch tally-word/v1.0.0/base/draws/1: 3 frames shown, dropped: wrong token 1" in out, out
