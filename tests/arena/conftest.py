"""Fixtures for the arena tests: the Tally test case (tests/arena/catalog),
settings in a temporary folder, and compiled WAT controllers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tcab.arena.game import GameSpec
from tcab.arena.resolve import resolve_game
from tcab.settings import Settings
from tests.support.arena_corpus import controller
from tests.support.paths import ARENA_CATALOG as CATALOG


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings.from_env(tmp_path, env={"TCAB_CATALOG": str(CATALOG)})


@pytest.fixture
def tally(settings) -> GameSpec:
    return resolve_game(settings, "tally")[2]


@pytest.fixture
def tally3(tally) -> GameSpec:
    """The same game for three seats (the host is not hard-wired to two)."""
    return replace(tally, participants=3, case_digest=tally.case_digest + "-3seats")


@pytest.fixture(scope="session")
def wasm_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("wasm")
    for n in (0, 1, 2, 3):
        (d / f"dir{n}.wasm").write_bytes(controller(n))
    return d
