"""Fixtures for results.db tests: real SQLite files under tmp_path."""

from __future__ import annotations

import pytest

from tcab.results import open_db


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "results" / "results.db"


@pytest.fixture
def db(db_path):
    database = open_db(db_path)
    yield database
    database.close()
