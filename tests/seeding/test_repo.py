"""Seeding with pygit2: one commit on main, deterministic id, git-readable, atomic."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tcab.catalog import load_catalog, load_version
from tcab.errors import SeedError, TemplateError
from tcab.seeding import plan_seed, render_prompt, seed_repository

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "test-cases/end-to-end/easy/lights-out/v1.0.0"
GOOD = REPO / "tests/fixtures/catalogs/good"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True,
                          capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def sample():
    case, problems = load_version(SAMPLE)
    assert problems == []
    return case


def test_seed_is_one_commit_on_main_without_remote(sample, tmp_path):
    result = seed_repository(sample, sample.variant("torus"), tmp_path / "seed")
    repo = result.path
    git(repo, "fsck", "--strict", "--no-dangling")
    assert git(repo, "rev-list", "--all").split() == [result.commit]
    assert git(repo, "for-each-ref", "--format=%(refname)").split() == ["refs/heads/main"]
    assert git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert git(repo, "remote").strip() == ""
    assert git(repo, "status", "--porcelain").strip() == ""
    assert git(repo, "log", "-1", "--format=%an <%ae> %at %s") == "tcab <tcab@localhost> 946684800 Initial commit\n"
    tracked = git(repo, "ls-files").split()
    assert tracked == list(result.files)


def test_seeded_content_order_and_rendering(sample, tmp_path):
    torus = seed_repository(sample, sample.variant("torus"), tmp_path / "torus")
    classic = seed_repository(sample, sample.variant("classic"), tmp_path / "classic")
    # Workspace verbatim, specs rendered per variant, the variant's extra spec, assets, reference.
    assert (torus.path / "build.js").read_bytes() == (SAMPLE / "workspaces/base/build.js").read_bytes()
    assert "6 lights by 6 lights" in (torus.path / "specs/rules.md").read_text()
    assert "5 lights by 5 lights" in (classic.path / "specs/rules.md").read_text()
    assert "{{" not in (torus.path / "specs/rules.md").read_text()
    assert (torus.path / "specs/torus.md").exists() and not (classic.path / "specs/torus.md").exists()
    assert (torus.path / "assets/palette.json").exists()
    assert (torus.path / "reference/board.png").read_bytes() == (SAMPLE / "reference/board.png").read_bytes()
    # Never seeded: the solution, the manifest, the prompt, the changelog, the variant files.
    for absent in ("solutions", "test-case.toml", "prompt.hbs", "changelog.md", "variants"):
        assert not (torus.path / absent).exists()
    assert torus.commit != classic.commit


def test_commit_id_is_a_pure_function_of_the_inputs(sample, tmp_path):
    variant = sample.variant("classic")
    one = seed_repository(sample, variant, tmp_path / "one")
    two = seed_repository(sample, variant, tmp_path / "deeper" / "two")
    assert one.commit == two.commit


def test_exec_bits_are_kept(sample, tmp_path):
    result = seed_repository(sample, sample.variant(), tmp_path / "seed")
    assert os.access(result.path / "build.js", os.X_OK)
    assert not os.access(result.path / "package.json", os.X_OK)
    modes = {}
    for line in git(result.path, "ls-files", "-s").splitlines():
        mode, _sha, _stage, path = line.split()
        modes[path] = mode
    assert modes["build.js"] == "100755" and modes["package.json"] == "100644"


def test_adversarial_seed_includes_contract_schemas(tmp_path):
    case = load_catalog(GOOD).resolve("mini-duel")
    result = seed_repository(case, case.variant("big"), tmp_path / "adv")
    assert {"schemas/world.json", "schemas/action.json", "specs/board.md", "specs/big.md"} <= set(result.files)
    assert "16x16 board (big)" in (result.path / "specs/board.md").read_text()
    assert "game/rules.py" not in result.files and "replay/index.html" not in result.files
    assert os.access(result.path / "run.sh", os.X_OK)


def _copy(tmp_path: Path) -> Path:
    dest = tmp_path / "case" / "end-to-end" / "easy" / "lights-out" / "v1.0.0"
    shutil.copytree(SAMPLE, dest, symlinks=True)
    return dest


def test_collision_is_rejected_before_anything_is_written(tmp_path):
    root = _copy(tmp_path)
    (root / "workspaces/base/specs").mkdir()
    (root / "workspaces/base/specs/rules.md").write_text("clash")
    (root / "workspaces/base/reference").write_text("a file where a folder goes")
    case, problems = load_version(root)
    assert problems == []
    dest = tmp_path / "out"
    with pytest.raises(SeedError) as info:
        seed_repository(case, case.variant(), dest)
    message = str(info.value)
    assert "specs/rules.md: from workspace and from spec specs/rules.md.hbs" in message
    assert "reference: a file from workspace but a folder for reference/board.png" in message
    assert not dest.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["case"]


def test_failed_template_leaves_no_half_made_folder(tmp_path):
    root = _copy(tmp_path)
    (root / "specs/rules.md.hbs").write_text("{{variant.params.nope}}\n")
    case, _ = load_version(root)
    dest = tmp_path / "out" / "seed"
    with pytest.raises(TemplateError, match="unknown variable 'variant.params.nope'"):
        seed_repository(case, case.variant(), dest)
    assert not dest.exists()
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []


def test_existing_destination_is_refused_unless_replacing(sample, tmp_path):
    dest = tmp_path / "seed"
    dest.mkdir()
    (dest / "keep").write_text("mine")
    with pytest.raises(SeedError, match="already exists"):
        seed_repository(sample, sample.variant(), dest)
    assert (dest / "keep").read_text() == "mine"
    result = seed_repository(sample, sample.variant(), dest, replace=True)
    assert not (dest / "keep").exists() and (dest / ".git").is_dir()
    assert git(result.path, "rev-parse", "HEAD").strip() == result.commit


def test_symlink_leading_out_of_the_workspace_is_refused(tmp_path):
    root = _copy(tmp_path)
    os.symlink("/etc/passwd", root / "workspaces/base/passwd")
    case, _ = load_version(root)
    with pytest.raises(SeedError, match="leads outside the workspace"):
        plan_seed(case, case.variant())


def test_symlink_inside_the_workspace_is_seeded_as_a_link(tmp_path):
    root = _copy(tmp_path)
    os.symlink("src/index.html", root / "workspaces/base/index.html")
    case, _ = load_version(root)
    result = seed_repository(case, case.variant(), tmp_path / "seed")
    link = result.path / "index.html"
    assert link.is_symlink() and os.readlink(link) == "src/index.html"
    git(result.path, "fsck", "--strict")


def test_mockup_reference_needs_a_renderer(tmp_path):
    root = _copy(tmp_path)
    (root / "reference/board.html").write_text("<p>board</p>")
    manifest = root / "test-case.toml"
    manifest.write_text(manifest.read_text().replace(
        'media = "reference/board.png"', 'mockup = "reference/board.html"'))
    case, problems = load_version(root)
    assert problems == []
    with pytest.raises(SeedError, match="HTML mockup"):
        seed_repository(case, case.variant(), tmp_path / "no")
    assert not (tmp_path / "no").exists()
    result = seed_repository(case, case.variant(), tmp_path / "yes",
                             render_mockup=lambda path: b"PNG of " + path.name.encode())
    assert (result.path / "reference/board.png").read_bytes() == b"PNG of board.html"


def test_prompt_lists_specs_common_first_with_container_paths(sample):
    text = render_prompt(sample, sample.variant("torus"))
    assert "`/work`" in text and "Torus variant" in text
    lines = [line for line in text.splitlines() if line.startswith("- `/work/specs/")]
    assert lines == [
        # a spec's name is its destination's file stem, as the original defines it
        "- `/work/specs/overview.md` (overview)",
        "- `/work/specs/rules.md` (rules)",
        "- `/work/specs/torus.md` (torus)",
    ]
    assert "{{" not in text
