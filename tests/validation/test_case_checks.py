"""A case's [[check]]s become runnable specs with references from the catalog."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tcab.catalog.actions import Click, Key, Wait
from tcab.catalog.loader import load_version
from tcab.validation.case_checks import case_check_specs
from tests.support.original import GLINT, PNG


def _glint(tmp_path: Path):
    root = tmp_path / "catalog" / "end-to-end/easy/glint/v1.0.0"
    shutil.copytree(GLINT, root)
    case, problems = load_version(root)
    assert problems == [] and case is not None
    return case


@pytest.mark.timeout(240)
def test_mockup_references_are_rendered_from_the_catalog_not_taken_from_the_run(tmp_path):
    case = _glint(tmp_path)
    validation = tmp_path / "run" / "validation"
    # What a hostile run could leave in its own tree: never read.
    (tmp_path / "run" / "work" / "reference").mkdir(parents=True)
    (tmp_path / "run" / "work" / "reference" / "title.png").write_bytes(b"forged")
    specs = case_check_specs(case, case.variant("night"), tmp_path / "mockup-cache", validation)
    assert [(s.view, s.name, s.actions) for s in specs] == [
        ("board-lit", "Board, one tile lit", (Click(40, 40), Key("Enter"), Wait(200))),
        ("title", "Title", ()),
    ]
    title = specs[1].reference_png
    assert title == validation / "references" / "title.png"
    assert title.read_bytes().startswith(PNG)
    # The night variant's own title mockup, not the common board one.
    assert title.read_bytes() != specs[0].reference_png.read_bytes()


def test_a_case_without_checks_renders_nothing(tmp_path):
    case = _glint(tmp_path)
    manifest = case.manifest.read_text()
    start = manifest.index("[[check]]")
    end = manifest.index("[[proof]]")
    case.manifest.write_text(manifest[:start] + manifest[end:])
    case, problems = load_version(case.root)
    assert problems == [] and case.section.checks == ()
    assert case_check_specs(case, case.variant("base"), tmp_path / "cache", tmp_path / "validation") == ()
    assert not (tmp_path / "validation").exists()
