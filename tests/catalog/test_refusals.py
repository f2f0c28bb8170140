"""What tcab refuses, and how it says so (docs/catalog.md; issue 25, item 4):
a case of a type tcab does not read is listed with a warning naming the type,
and the one-case commands say ``case X is of type T, which tcab does not run``
(one message, for an unknown ``<type>/`` folder and an unknown ``type =`` key)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

LIGHTS = REPO / "test-cases" / "end-to-end" / "easy" / "lights-out"
KNOWN = "(known: end-to-end, adversarial, performance, asset-generation)"


def _catalog(tmp_path: Path) -> Path:
    root = tmp_path / "catalog"
    shutil.copytree(LIGHTS, root / "end-to-end" / "easy" / "lights-out")
    # A type folder tcab does not know.
    shutil.copytree(LIGHTS, root / "voxel-dungeon" / "easy" / "crypt")
    for manifest in (root / "voxel-dungeon" / "easy" / "crypt").glob("*/test-case.toml"):
        manifest.write_text(manifest.read_text().replace('slug = "lights-out"', 'slug = "crypt"'))
    # A known type folder whose `type =` names a type tcab does not know.
    shutil.copytree(LIGHTS, root / "end-to-end" / "easy" / "speedy")
    for manifest in (root / "end-to-end" / "easy" / "speedy").glob("*/test-case.toml"):
        manifest.write_text(manifest.read_text().replace('slug = "lights-out"',
                                                         'slug = "speedy"\ntype = "performance-v2"'))
    return root


def _tcab(tmp_path: Path, root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TCAB_CATALOG": str(root), "TCAB_BUILD": str(tmp_path / "build"),
           "TCAB_RESULTS": str(tmp_path / "results"), "TCAB_TMP": str(tmp_path / "tmp"),
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
    env.pop("TCAB_TEST_TYPES", None)
    return subprocess.run([sys.executable, "-m", "tcab", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=180)


def test_catalog_lists_cases_of_unknown_types_with_a_warning(tmp_path: Path) -> None:
    root = _catalog(tmp_path)
    listed = _tcab(tmp_path, root, "catalog", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {r["slug"]: r["type"] for r in json.loads(listed.stdout)}
    assert rows == {"lights-out": "end-to-end", "crypt": "voxel-dungeon", "speedy": "performance-v2"}
    assert f'case crypt is of type "voxel-dungeon", which tcab does not run {KNOWN}' in listed.stderr
    assert f'case speedy is of type "performance-v2", which tcab does not run {KNOWN}' in listed.stderr
    table = _tcab(tmp_path, root, "catalog")
    assert table.returncode == 0, table.stderr
    assert "3 test case(s)" in table.stdout
    assert 'case crypt is of type "voxel-dungeon"' in table.stderr


@pytest.mark.parametrize("slug, case_type", [("crypt", "voxel-dungeon"), ("speedy", "performance-v2")])
@pytest.mark.parametrize("command", [["seed"], ["prompt"], ["run", "--harness", "reference"]])
def test_one_case_commands_refuse_an_unknown_type(tmp_path: Path, slug: str, case_type: str,
                                                  command: list[str]) -> None:
    root = _catalog(tmp_path)
    result = _tcab(tmp_path, root, command[0], slug, *command[1:])
    assert result.returncode == 2, result.stdout + result.stderr
    assert f'case {slug} is of type "{case_type}", which tcab does not run {KNOWN}' in result.stderr
    assert "no test case" not in result.stderr
    assert "Traceback" not in result.stderr


OLDER = """name = "Old Maze"
type = "end-to-end"
difficulty = "easy"
prompt = "prompt.hbs"
max_runtime_seconds = 1800

[[variant]]
slug = "classic"
name = "Classic"

[[variant]]
slug = "fog"
name = "Fog"
"""
OLDER_MESSAGE = ("is in the original's older pre-catalog layout: move each [[variant]] table to "
                 "variants/<slug>.toml and list those files in variants = [...]; add slug and changelog")


def test_a_pre_catalog_manifest_gets_one_message(tmp_path: Path) -> None:
    root = _catalog(tmp_path)
    vdir = root / "end-to-end" / "easy" / "old-maze" / "v1.0.0"
    vdir.mkdir(parents=True)
    (vdir / "test-case.toml").write_text(OLDER)
    (vdir / "prompt.hbs").write_text("Build a maze.\n")
    seeded = _tcab(tmp_path, root, "seed", "old-maze")
    assert seeded.returncode == 2, seeded.stderr
    assert OLDER_MESSAGE in seeded.stderr and "Traceback" not in seeded.stderr
    assert "expected a kebab-case slug" not in seeded.stderr and "unknown key" not in seeded.stderr
    listed = _tcab(tmp_path, root, "catalog")
    assert listed.returncode == 0
    validated = _tcab(tmp_path, root, "catalog", "validate")
    assert validated.returncode == 1
    lines = [line for line in validated.stderr.splitlines() + validated.stdout.splitlines() if "old-maze" in line]
    assert len(lines) == 1 and OLDER_MESSAGE in lines[0], validated.stdout + validated.stderr


def test_validate_reports_every_broken_template_at_once(tmp_path: Path) -> None:
    root = _catalog(tmp_path)
    vdir = root / "end-to-end" / "easy" / "lights-out" / "v1.0.0"
    (vdir / "specs" / "overview.md.hbs").write_text("Overview {{no_such_thing}}\n")
    manifest = vdir / "test-case.toml"
    manifest.write_text(manifest.read_text().replace('source = "specs/overview.md"',
                                                     'source = "specs/overview.md.hbs"'))
    (vdir / "specs" / "rules.md.hbs").write_text("Rules {{#if}}\n")
    (vdir / "prompt.hbs").write_text("Prompt {{also_missing}}\n")
    result = _tcab(tmp_path, root, "catalog", "validate", str(vdir))
    assert result.returncode == 1, result.stdout + result.stderr
    for name in ("overview.md.hbs", "rules.md.hbs", "prompt.hbs"):
        assert name in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
