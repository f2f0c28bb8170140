"""The browser toolkit tests' own fixture: a host file they must never leak."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest


@pytest.fixture
def canary(tmp_path: Path) -> tuple[Path, str]:
    """A host file outside the site, holding a unique string."""
    secret = f"CANARY-{uuid.uuid4().hex}"
    path = tmp_path / "host" / "shadow"
    path.parent.mkdir()
    path.write_text(secret + "\n")
    return path, secret
