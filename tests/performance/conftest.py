"""Fixtures for the performance tests: the Torus Life case, its two reference
engines built with the real Zig compiler once per session, and WAT engines."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import wasmtime

from tcab.catalog import load_version
from tests.support.paths import CATALOG

TORUS = CATALOG / "performance" / "medium" / "torus-life" / "v1.0.0"


@pytest.fixture(scope="session")
def torus():
    case, problems = load_version(TORUS)
    assert problems == [] and case is not None
    return case


def build_engine(case, tree: Path) -> bytes:
    """The case's own [build] command on ``tree`` (python3 -> this interpreter)."""
    command = shlex.split(case.build.build)
    assert command[0] == "python3"
    subprocess.run([sys.executable, *command[1:]], cwd=tree, check=True, capture_output=True, timeout=300)
    return (tree / case.build.module).read_bytes()


@pytest.fixture(scope="session")
def engines(torus, tmp_path_factory) -> dict[str, bytes]:
    """{"naive": the workspace's engine, "fast": the solution laid over it}."""
    out = {}
    for name in ("naive", "fast"):
        tree = tmp_path_factory.mktemp(f"engine-{name}")
        shutil.copytree(torus.path(torus.workspace), tree, dirs_exist_ok=True)
        if name == "fast":
            shutil.copytree(torus.path(torus.solution), tree, dirs_exist_ok=True)
        out[name] = build_engine(torus, tree)
    return out


def wat(text: str) -> bytes:
    return wasmtime.wat2wasm(text)
