"""Recording a row does not import numpy (a `tcab run` pays for every import)."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import REPO

PROBE = """
import sys
from tcab.results import open_db, record_run
assert callable(record_run)
db = open_db(sys.argv[1])
db.close()
print("numpy" in sys.modules, "pandas" in sys.modules)
import numpy  # still importable by whoever needs it (validation's SSIM)
print(numpy.asarray([1, 2]).sum())
"""


def test_opening_results_db_imports_no_numpy_and_leaves_it_importable(tmp_path) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "results.db")], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "3"]
