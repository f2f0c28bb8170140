"""A sweep's seed of a case with a mockup: re-done when the mockup or a file it
loads changes, not when an unrelated file does, and rendered once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tasks.sweep_project import Project

MINI = "test-cases/end-to-end/easy/mini/v1.0.0"
SEEDS = {"seed:mini/v1.0.0/one", "seed:mini/v1.0.0/two"}


def _seeds(ran: set[str]) -> set[str]:
    return {t for t in ran if t.startswith("seed:mini/")}


def _shots(project: Project) -> int:
    return len(list(project.path("build/mockup-cache").rglob("shot.png")))


@pytest.mark.timeout(300)
def _board(project) -> bytes:
    """The seeded screenshot, where the seed record says its repository is (the seed store)."""
    import json

    record = json.loads(project.path("build/seeds/mini/v1.0.0/one/seed.json").read_text())
    return project.path(record["repo"]).joinpath("reference/board.png").read_bytes()


def test_sweep_seed_follows_the_mockup_and_what_it_loads(tmp_path: Path):
    project = Project(tmp_path / "proj")
    case = project.path(MINI)
    (case / "mock").mkdir()
    (case / "mock/board.html").write_text('<!doctype html><link rel="stylesheet" href="board.css"><p>board</p>')
    (case / "mock/board.css").write_text("body { background: #123456; }\n")
    project.edit(f"{MINI}/test-case.toml", '\n[[reference]]\nview = "board"\nmockup = "mock/board.html"\n')

    code, ran, out = project.doit("seed")
    assert code == 0, out
    assert _seeds(ran) == SEEDS
    assert _shots(project) == 1  # two variants, one render
    seeded = _board(project)
    assert seeded.startswith(b"\x89PNG")

    code, ran, out = project.doit("seed")
    assert code == 0 and ran == set(), out  # the record holds the inputs after rendering

    project.edit(f"{MINI}/changelog.md", "\nReworded.\n")  # seeding does not read it
    code, ran, _ = project.doit("seed")
    assert code == 0 and ran == set()

    project.edit(f"{MINI}/mock/board.css", "p { color: red; }\n")  # loaded by the mockup only
    code, ran, out = project.doit("seed")
    assert code == 0, out
    assert _seeds(ran) == SEEDS
    assert _shots(project) == 2
    assert _board(project) != seeded
    code, ran, _ = project.doit("seed")
    assert code == 0 and ran == set()
