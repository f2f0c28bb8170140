"""Settings in a temporary folder, and ``tcab`` run as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tcab.settings import Settings
from tests.support.paths import CATALOG


def tmp_settings(tmp_path: Path, catalog: Path = CATALOG) -> Settings:
    """Every folder under ``tmp_path`` except the catalog (the shipped one by default)."""
    (tmp_path / "harnesses").mkdir(exist_ok=True)
    return Settings(root=tmp_path, catalog_dir=catalog,
                    harnesses_dir=tmp_path / "harnesses", build_dir=tmp_path / "build",
                    results_dir=tmp_path / "results", tmp_dir=tmp_path / "tmp")


def cli_env(settings: Settings) -> dict[str, str]:
    """The environment that points a ``tcab`` process at ``settings``' folders."""
    return {**os.environ, "TCAB_CATALOG": str(settings.catalog_dir),
            "TCAB_HARNESSES": str(settings.harnesses_dir), "TCAB_RESULTS": str(settings.results_dir),
            "TCAB_TMP": str(settings.tmp_dir), "TCAB_BUILD": str(settings.build_dir)}


def run_tcab(settings: Settings, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m tcab ARGS`` in ``settings.root``, output captured as text."""
    return subprocess.run([sys.executable, "-m", "tcab", *args], env=cli_env(settings), cwd=settings.root,
                          capture_output=True, text=True, timeout=timeout)
