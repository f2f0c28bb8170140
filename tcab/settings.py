"""Where tcab finds its inputs and puts its outputs.

Read once from the environment (and the global CLI options) into a frozen
object that is passed explicitly; nothing below the CLI reads ``os.environ``
for paths.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Settings:
    """Project folders. All paths are absolute."""

    root: Path
    catalog_dir: Path
    harnesses_dir: Path
    build_dir: Path
    results_dir: Path
    tmp_dir: Path

    @property
    def results_db(self) -> Path:
        return self.results_dir / "results.db"

    @property
    def runs_dir(self) -> Path:
        return self.results_dir / "runs"

    @classmethod
    def from_env(cls, root: Path | str | None = None, env: dict[str, str] | None = None) -> Settings:
        """Defaults relative to ``root`` (the working directory), overridden by
        ``TCAB_CATALOG``, ``TCAB_HARNESSES``, ``TCAB_BUILD``, ``TCAB_RESULTS``, ``TCAB_TMP``."""
        env = os.environ if env is None else env
        base = Path(root or os.getcwd()).resolve()

        def pick(var: str, default: str) -> Path:
            return Path(env.get(var) or base / default).resolve()

        return cls(
            root=base,
            catalog_dir=pick("TCAB_CATALOG", "test-cases"),
            harnesses_dir=pick("TCAB_HARNESSES", "harnesses"),
            build_dir=pick("TCAB_BUILD", "build"),
            results_dir=pick("TCAB_RESULTS", "results"),
            tmp_dir=pick("TCAB_TMP", "tmp"),
        )
