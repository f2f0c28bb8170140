"""The Khronos glTF validator (the ``gltf-validator`` npm package of
tests/templates/node), run on .glb files a test wrote."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

NODE_DIR = Path(__file__).resolve().parents[1] / "templates" / "node"


def validate_glb(*paths: Path) -> list[dict]:
    """One report a file: ``errors``, ``warnings`` and the ``messages``."""
    node = shutil.which("node")
    assert node, "node is needed for the glTF validator"
    assert (NODE_DIR / "node_modules/gltf-validator").is_dir(), \
        "run `npm ci --prefix tests/templates/node --no-audit --no-fund`"
    done = subprocess.run([node, str(NODE_DIR / "validate_gltf.js"), *map(str, paths)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def assert_valid(*paths: Path) -> None:
    """No error and no warning from the validator on any of ``paths``."""
    for report in validate_glb(*paths):
        assert report["errors"] == 0 and report["warnings"] == 0, report
