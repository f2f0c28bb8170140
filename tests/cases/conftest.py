"""Fixtures for the capture case: its controllers built once per session
(helpers in tests/support/capture.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.capture import CASE, CONTROLLERS, MANIFEST, build_tree, over_workspace


@pytest.fixture(scope="session")
def modules(tmp_path_factory) -> dict[str, Path]:
    """Every controller of the case built like a submission: the baselines and the
    reference solution laid over the starter workspace, and the bare starter."""
    out = tmp_path_factory.mktemp("capture-builds")
    built = {name: build_tree(over_workspace(CASE / MANIFEST["game"]["baselines"] / name,
                                             out / "trees" / name), out)
             for name in CONTROLLERS}
    built["reference"] = build_tree(over_workspace(CASE / MANIFEST["solution"], out / "solution"), out / "ref")
    built["starter"] = build_tree(CASE / MANIFEST["workspace"], out / "starter")
    return built
