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

# Each broken folder gets exactly this one problem: (path relative to the
# catalog, line, key, message); ``{root}`` stands for the catalog's folder.
EXPECTED: list[tuple[str, int | None, str | None, str]] = [
    ('adversarial/hard/adv-bad-fuel/v1.0.0/test-case.toml', 21, '[sandbox].fuel_per_tick',
         'expected a positive integer, got "lots"'),
    ('adversarial/hard/adv-bad-structure/v1.0.0/test-case.toml', 30, '[match].structure',
         'expected one of round-robin, bracket, got "swiss"'),
    ('adversarial/hard/adv-e2e-key/v1.0.0/test-case.toml', None, 'reference',
         'unknown key; allowed keys: format, slug, name, type, difficulty, tags, experimental, summary, description, changelog, prompt, max_runtime_hours, max_runtime_seconds, workspace, init, assets, solution, variants, engines, packages, spec, build, instrumentation, proof, domain, review_item, review, contract, sandbox, simulation, match, replay, game'),
    ('adversarial/hard/adv-missing-contract/v1.0.0/test-case.toml', None, 'contract',
         'missing required key'),
    ('adversarial/hard/adv-schema-not-json/v1.0.0/test-case.toml', 17, '[contract].world',
         '"schemas/world.json" is not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)'),
    ('end-to-end/easy/bad-difficulty/v1.0.0/test-case.toml', 3, 'difficulty',
         'expected one of easy, medium, hard, got "extreme"'),
    ('end-to-end/easy/bad-experimental/v1.0.0/test-case.toml', 9, 'experimental',
         'expected true or false, got "yes"'),
    ('end-to-end/easy/bad-runtime/v1.0.0/test-case.toml', 9, 'max_runtime_hours',
         'expected a positive number, got -1'),
    ('end-to-end/easy/bad-version-folder/version-1', None, None,
         'version folder must be named vX.Y.Z'),
    ('end-to-end/easy/binary-garbage/v1.0.0/test-case.toml', None, None,
         'not a TOML file: it contains NUL bytes'),
    ('end-to-end/easy/build-not-table/v1.0.0/test-case.toml', 9, 'build',
         'expected a table, got "make"'),
    ('end-to-end/easy/difficulty-mismatch/v1.0.0/test-case.toml', 3, 'difficulty',
         'is "hard" but the case lives under easy/'),
    ('end-to-end/easy/duplicate-spec-dest/v1.0.0/test-case.toml', None, 'spec',
         'two specs have the dest "specs/a.md"'),
    ('end-to-end/easy/duplicate-variant-slug/v1.0.0/variants/again.toml', 1, 'slug',
         'duplicate variant slug "base" (also in variants/base.toml)'),
    ('end-to-end/easy/empty-manifest/v1.0.0/test-case.toml', None, None,
         'empty file: expected a TOML document'),
    ('end-to-end/easy/invalid-toml/v1.0.0/test-case.toml', 1, None,
         "invalid TOML: Illegal character '\\n'"),
    ('end-to-end/easy/manifest-loop/v1.0.0/test-case.toml', None, None,
         'cannot read: Too many levels of symbolic links'),
    ('end-to-end/easy/missing-changelog/v1.0.0/test-case.toml', None, 'changelog',
         'missing required key'),
    ('end-to-end/easy/missing-file/v1.0.0/test-case.toml', 6, 'prompt',
         '"nope.hbs": no such file or folder'),
    ('end-to-end/easy/missing-slug/v1.0.0/test-case.toml', None, 'slug',
         'missing required key'),
    ('end-to-end/easy/path-absolute/v1.0.0/test-case.toml', 9, 'description',
         'expected a path relative to the version folder without \'..\', got "/etc/passwd"'),
    ('end-to-end/easy/path-dotdot/v1.0.0/test-case.toml', 5, 'changelog',
         'expected a path relative to the version folder without \'..\', got "../changelog.md"'),
    ('end-to-end/easy/prompt-not-hbs/v1.0.0/test-case.toml', 6, 'prompt',
         'expected a .hbs file, got "changelog.md"'),
    ('end-to-end/easy/reference-both/v1.0.0/test-case.toml', 18, '[[reference]][1]',
         'expected exactly one of media (an image), path or mockup (an HTML page)'),
    ('end-to-end/easy/slug-differs/v1.1.0/test-case.toml', None, 'slug',
         'is "slug-renamed" but v1.0.0 of this case says "slug-differs"; a slug is the same across versions'),
    ('end-to-end/easy/symlink-loop/v1.0.0/test-case.toml', 7, 'workspace',
         '"workspace": symlink loop'),
    ('end-to-end/easy/symlink-out/v1.0.0/test-case.toml', 7, 'workspace',
         '"workspace": leads outside the version folder (to {root}/end-to-end/easy)'),
    ('end-to-end/easy/tags-not-array/v1.0.0/test-case.toml', 4, 'tags',
         'expected an array of non-empty strings, got "fixture"'),
    ('end-to-end/easy/unknown-key/v1.0.0/test-case.toml', 9, 'colour',
         'unknown key; allowed keys: format, slug, name, type, difficulty, tags, experimental, summary, description, changelog, prompt, max_runtime_hours, max_runtime_seconds, workspace, init, assets, solution, variants, engines, packages, spec, build, instrumentation, proof, domain, review_item, review, reference, check, toolchain'),
    ('end-to-end/easy/variant-invalid-toml/v1.0.0/variants/base.toml', 2, None,
         'invalid TOML: Invalid value'),
    ('end-to-end/easy/variant-missing-slug/v1.0.0/variants/base.toml', None, 'slug',
         'missing required key'),
    ('end-to-end/easy/variant-spec-no-source/v1.0.0/variants/base.toml', 4, '[[spec]][1].source',
         'missing required key'),
    ('end-to-end/easy/variant-unknown-key/v1.0.0/variants/base.toml', 5, 'colour',
         'unknown key; allowed keys: slug, name, description, spec, workspace, solution, params, reference, proof, domain, review_item, review, reference_implementation'),
    ('end-to-end/easy/variants-empty/v1.0.0/test-case.toml', 8, 'variants',
         'expected at least one variant file'),
    ('end-to-end/medium/slug-taken/v1.0.0/test-case.toml', None, 'slug',
         '"ok-control" is also the slug of {root}/end-to-end/easy/ok-control'),
    ('unit', None, None,
         'unknown test type folder; expected one of end-to-end, adversarial, performance, asset-generation'),
]

# Found by the deep check (templates, prompt, seeding plan), not by the parser;
# each of these versions parses and has exactly this one deep problem.
EXPECTED_DEEP: list[tuple[str, int | None, str | None, str]] = [
    ('end-to-end/easy/prompt-unknown-var/v1.0.0/prompt.hbs', 1, None,
         "unknown variable 'workspce' (column 9)"),
    ('end-to-end/easy/seed-collision/v1.0.0/variants/base.toml', None, None,
         'variant base: seed-collision@v1.0.0 variant base: sources collide:\n  specs/a.md: from workspace and from spec specs/a.md'),
    ('end-to-end/easy/spec-template-syntax/v1.0.0/specs/rules.md.hbs', 6, None,
         "{{/iff}} does not close {{#if}} (column 1)"),
    ('end-to-end/easy/spec-template-unknown-var/v1.0.0/specs/rules.md.hbs', 3, None,
         "unknown variable 'variant.params.size' (column 14)"),
    ('end-to-end/easy/symlink-in-workspace/v1.0.0/variants/base.toml', None, None,
         "variant base: {root}/end-to-end/easy/symlink-in-workspace/v1.0.0/workspace/evil: symlink to '/etc/passwd' leads outside the workspace workspace/"),
]


def _folder(rel: str) -> str:
    """The case folder (type/difficulty/slug) a problem path is under, or the top folder."""
    parts = rel.split("/")
    return "/".join(parts[:3]) if len(parts) >= 3 else parts[0]


def _as_tuples(problems: list[Problem], root: Path) -> list[tuple]:
    prefix = f"{root}/"
    return [(p.path.removeprefix(prefix), p.line, p.key, p.message.replace(str(root), "{root}"))
            for p in problems]


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


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda e: _folder(e[0]))
def test_each_broken_folder_gets_exactly_its_problem(scanned, broken, expected):
    _, problems = scanned
    folder = _folder(expected[0])
    found = [t for t in _as_tuples(problems, broken) if _folder(t[0]) == folder]
    assert found == [expected]


def test_all_problems_in_one_pass_and_nothing_else(scanned, broken):
    """The scan reports the listed problems and no other, load_catalog raises
    with the same list, and only the valid versions parse."""
    catalog, problems = scanned
    assert sorted(_as_tuples(problems, broken), key=repr) == sorted(EXPECTED, key=repr)
    assert sorted((c.slug, c.version) for c in catalog.versions) == sorted(
        [("ok-control", "v1.0.0"), ("slug-differs", "v1.0.0")]
        + [(_folder(e[0]).rsplit("/", 1)[1], "v1.0.0") for e in EXPECTED_DEEP])
    with pytest.raises(CatalogError) as info:
        load_catalog(broken)
    assert info.value.problems == problems


def test_problem_names_the_line_where_it_can(scanned):
    _, problems = scanned
    [fuel] = [p for p in problems if p.key == "[sandbox].fuel_per_tick"]
    assert str(fuel).endswith(
        'adv-bad-fuel/v1.0.0/test-case.toml:21: [sandbox].fuel_per_tick: expected a positive integer, got "lots"')


@pytest.mark.parametrize("expected", EXPECTED_DEEP, ids=lambda e: _folder(e[0]))
def test_deep_check_finds_template_and_seed_problems(scanned, broken, expected):
    catalog, _ = scanned
    case = catalog.resolve(_folder(expected[0]).rsplit("/", 1)[1])
    assert _as_tuples(check_case(case), broken) == [expected]


def test_control_case_has_no_deep_problem(scanned):
    catalog, _ = scanned
    assert check_case(catalog.resolve("ok-control")) == []
