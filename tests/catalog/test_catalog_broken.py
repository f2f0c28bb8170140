"""The broken fixture catalog: every problem found in one pass, each naming file and key.

Symlinks (leading out, loops) are made at test time in a copy of the fixture
catalog, so the repository itself holds no symlink loop.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tcab.catalog import load_catalog, scan_catalog
from tcab.errors import CatalogError, Problem
from tcab.seeding import check_case

BROKEN = Path(__file__).resolve().parents[2] / "tests/fixtures/catalogs/broken"
E2E = "end-to-end/easy"
ADV = "adversarial/hard"

# folder (relative to the catalog) -> (file the problem names, key, fragment of the message)
EXPECTED: dict[str, tuple[str, str | None, str]] = {
    f"{E2E}/unknown-key": ("test-case.toml", "colour", "unknown key; allowed keys: slug, name"),
    f"{E2E}/missing-slug": ("test-case.toml", "slug", "missing required key"),
    f"{E2E}/missing-changelog": ("test-case.toml", "changelog", "missing required key"),
    f"{E2E}/tags-not-array": ("test-case.toml", "tags", 'expected an array of non-empty strings, got "fixture"'),
    f"{E2E}/bad-difficulty": ("test-case.toml", "difficulty", 'expected one of easy, medium, hard, got "extreme"'),
    f"{E2E}/difficulty-mismatch": ("test-case.toml", "difficulty", "lives under easy/"),
    f"{E2E}/path-dotdot": ("test-case.toml", "changelog", "without '..'"),
    f"{E2E}/path-absolute": ("test-case.toml", "description", '"/etc/passwd"'),
    f"{E2E}/missing-file": ("test-case.toml", "prompt", '"nope.hbs": no such file'),
    f"{E2E}/prompt-not-hbs": ("test-case.toml", "prompt", "expected a .hbs file"),
    f"{E2E}/bad-runtime": ("test-case.toml", "max_runtime_hours", "expected a positive number, got -1"),
    f"{E2E}/bad-experimental": ("test-case.toml", "experimental", 'expected true or false, got "yes"'),
    f"{E2E}/build-not-table": ("test-case.toml", "build", 'expected a table, got "make"'),
    f"{E2E}/duplicate-spec-dest": ("test-case.toml", "spec", 'two specs have the dest "specs/a.md"'),
    f"{E2E}/reference-both": ("test-case.toml", "[[reference]][1]", "exactly one of media"),
    f"{E2E}/duplicate-variant-slug": ("variants/again.toml", "slug", 'duplicate variant slug "base"'),
    f"{E2E}/variant-unknown-key": ("variants/base.toml", "colour", "allowed keys: slug, name, description"),
    f"{E2E}/variant-missing-slug": ("variants/base.toml", "slug", "missing required key"),
    f"{E2E}/variant-invalid-toml": ("variants/base.toml", None, "invalid TOML"),
    f"{E2E}/variant-spec-no-source": ("variants/base.toml", "[[spec]][1].source", "missing required key"),
    f"{E2E}/variants-empty": ("test-case.toml", "variants", "at least one variant file"),
    f"{E2E}/invalid-toml": ("test-case.toml", None, "invalid TOML"),
    f"{E2E}/empty-manifest": ("test-case.toml", None, "empty file"),
    f"{E2E}/binary-garbage": ("test-case.toml", None, "not a TOML file"),
    f"{E2E}/slug-differs": ("v1.1.0/test-case.toml", "slug", "a slug is the same across versions"),
    "end-to-end/medium/slug-taken": ("test-case.toml", "slug", 'is also the slug of'),
    f"{E2E}/bad-version-folder": ("version-1", None, "must be named vX.Y.Z"),
    "unit": ("unit", None, "unknown test type folder"),
    f"{ADV}/adv-bad-fuel": ("test-case.toml", "[sandbox].fuel_per_tick", 'expected a positive integer, got "lots"'),
    f"{ADV}/adv-bad-structure": ("test-case.toml", "[match].structure", 'expected one of round-robin, bracket, got "swiss"'),
    f"{ADV}/adv-missing-contract": ("test-case.toml", "contract", "missing required key"),
    f"{ADV}/adv-schema-not-json": ("test-case.toml", "[contract].world", "is not valid JSON"),
    f"{ADV}/adv-e2e-key": ("test-case.toml", "reference", "unknown key"),
    # made at test time
    f"{E2E}/symlink-out": ("test-case.toml", "workspace", "leads outside the version folder"),
    f"{E2E}/symlink-loop": ("test-case.toml", "workspace", "symlink loop"),
    f"{E2E}/manifest-loop": ("test-case.toml", None, "cannot read"),
}

# Found by the deep check (templates, prompt, seeding plan), not by the parser.
EXPECTED_DEEP: dict[str, tuple[str, str]] = {
    f"{E2E}/spec-template-syntax": ("specs/rules.md.hbs:6:1", "{{/iff}} does not close {{#if}}"),
    f"{E2E}/spec-template-unknown-var": ("specs/rules.md.hbs:3", "unknown variable 'variant.params.size'"),
    f"{E2E}/prompt-unknown-var": ("prompt.hbs:1", "unknown variable 'workspce'"),
    f"{E2E}/seed-collision": ("specs/a.md", "from workspace and from spec specs/a.md"),
    f"{E2E}/symlink-in-workspace": ("workspace/evil", "leads outside the workspace"),
}


def _copy_case(root: Path, src: str, dest: str) -> Path:
    shutil.copytree(root / src, root / dest, symlinks=True)
    return root / dest / "v1.0.0"


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("catalog") / "broken"
    shutil.copytree(BROKEN, root, symlinks=True)
    out = _copy_case(root, f"{E2E}/ok-control", f"{E2E}/symlink-out")
    shutil.rmtree(out / "workspace")
    os.symlink("../..", out / "workspace")
    (out / "test-case.toml").write_text(
        (out / "test-case.toml").read_text().replace('"ok-control"', '"symlink-out"'))
    loop = _copy_case(root, f"{E2E}/ok-control", f"{E2E}/symlink-loop")
    shutil.rmtree(loop / "workspace")
    os.symlink("loop-b", loop / "workspace")
    os.symlink("workspace", loop / "loop-b")
    (loop / "test-case.toml").write_text(
        (loop / "test-case.toml").read_text().replace('"ok-control"', '"symlink-loop"'))
    mloop = _copy_case(root, f"{E2E}/ok-control", f"{E2E}/manifest-loop")
    (mloop / "test-case.toml").unlink()
    os.symlink("test-case.toml", mloop / "test-case.toml")
    evil = _copy_case(root, f"{E2E}/ok-control", f"{E2E}/symlink-in-workspace")
    os.symlink("/etc/passwd", evil / "workspace" / "evil")
    (evil / "test-case.toml").write_text(
        (evil / "test-case.toml").read_text().replace('"ok-control"', '"symlink-in-workspace"'))
    # Empty folders: git does not track them, so they are made here too.
    (root / E2E / "bad-version-folder" / "version-1").mkdir(parents=True, exist_ok=True)
    (root / "unit" / "easy").mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture(scope="module")
def scanned(broken):
    return scan_catalog(broken)


def _matching(problems: list[Problem], folder: str, file: str, key: str | None) -> list[Problem]:
    return [p for p in problems
            if f"/{folder}/" in f"{p.path}/" and (p.path.endswith(file) or f"/{file}" in p.path)
            and p.key == key]


def test_fixture_catalog_is_big_enough():
    assert len(EXPECTED) + len(EXPECTED_DEEP) >= 20


@pytest.mark.parametrize("folder", sorted(EXPECTED))
def test_each_broken_manifest_gets_its_error(scanned, folder):
    _, problems = scanned
    file, key, fragment = EXPECTED[folder]
    found = _matching(problems, folder, file, key)
    assert found, f"no problem for {folder} {file} {key}; got:\n" + "\n".join(map(str, problems))
    assert any(fragment in p.message for p in found), [str(p) for p in found]


def test_all_problems_in_one_pass_and_only_the_control_case_parses(scanned, broken):
    catalog, problems = scanned
    slugs = {c.slug for c in catalog.versions}
    assert "ok-control" in slugs
    assert not slugs & {"unknown-key", "adv-bad-fuel", "empty-manifest"}
    assert len(problems) >= len(EXPECTED)
    with pytest.raises(CatalogError) as info:
        load_catalog(broken)
    assert len(info.value.problems) == len(problems)


def test_problem_names_the_line_where_it_can(scanned):
    _, problems = scanned
    [fuel] = _matching(problems, f"{ADV}/adv-bad-fuel", "test-case.toml", "[sandbox].fuel_per_tick")
    assert fuel.line == 21
    assert str(fuel).endswith(
        'test-case.toml:21: [sandbox].fuel_per_tick: expected a positive integer, got "lots"')


@pytest.mark.parametrize("folder", sorted(EXPECTED_DEEP))
def test_deep_check_finds_template_and_seed_problems(scanned, folder):
    catalog, _ = scanned
    slug = folder.rsplit("/", 1)[1]
    case = catalog.resolve(slug)
    problems = check_case(case)
    where, fragment = EXPECTED_DEEP[folder]
    assert any(where in str(p) and fragment in p.message for p in problems), problems


def test_control_case_has_no_deep_problem(scanned):
    catalog, _ = scanned
    assert check_case(catalog.resolve("ok-control")) == []
