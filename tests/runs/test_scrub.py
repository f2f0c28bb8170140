"""scrub_tree on real trees: secret values in folder names, symlink names and
targets, file bytes across chunk boundaries, and git objects (loose and
packed, deltas included, written by the real git) are removed and listed,
the value never repeated."""

from __future__ import annotations

import os
import subprocess
import zlib
from pathlib import Path

import pytest

from tcab.runs import scrub
from tcab.runs.scrub import scrub_tree
from tcab.runs.secrets import Redactor
from tcab.runtime import CollectLimits, Refusal

TOKEN = "sk-scrub-9d8c7b6a5f4e3d2c1b0a"


def _scrub(root: Path, refused=(), **kw) -> dict[str, str]:
    red = Redactor({"TOKEN": TOKEN})
    out = scrub_tree(root, refused, found_in=red.found_in, redact=red.redact, active=bool(red), **kw)
    for r in out:
        assert TOKEN not in r.path and TOKEN not in r.reason
    return {r.path: r.reason for r in out}


def _no_token_anywhere(root: Path) -> None:
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(dirpath, name)
            assert TOKEN not in path, path
            if os.path.islink(path):
                assert TOKEN not in os.readlink(path)
            elif os.path.isfile(path):
                data = Path(path).read_bytes()
                assert TOKEN.encode() not in data, path
                try:
                    assert TOKEN.encode() not in zlib.decompress(data), path
                except zlib.error:
                    pass


def test_names_of_folders_and_links_and_link_targets(tmp_path: Path) -> None:
    (tmp_path / f"dir-{TOKEN}" / "sub").mkdir(parents=True)
    (tmp_path / f"dir-{TOKEN}" / "sub" / "plain.txt").write_text("x")
    (tmp_path / "real").mkdir()
    os.symlink("real", tmp_path / f"dlink-{TOKEN}")
    os.symlink(f"real/{TOKEN}", tmp_path / "dlink-target")
    os.symlink("real", tmp_path / "fine-link")
    (tmp_path / "keep.txt").write_text("ok")
    reasons = _scrub(tmp_path)
    assert reasons["dir-[secret:TOKEN]"] == "folder name contains the value of secret TOKEN"
    assert "symlink" in reasons["dlink-[secret:TOKEN]"] and "symlink" in reasons["dlink-target"]
    assert sorted(os.listdir(tmp_path)) == ["fine-link", "keep.txt", "real"]


def test_file_content_is_streamed_and_a_value_across_chunks_is_found(tmp_path: Path) -> None:
    cut = (1 << 20) - 5  # the value straddles the first 1 MiB chunk boundary
    (tmp_path / "straddle.bin").write_bytes(b"a" * cut + TOKEN.encode() + b"b" * 100)
    (tmp_path / "clean.bin").write_bytes(b"c" * (3 << 20))
    reasons = _scrub(tmp_path)
    assert reasons == {"straddle.bin": "contains the value of secret TOKEN"}
    assert scrub.OVERLAP >= 128 * 1024


def test_refusals_of_the_collection_are_redacted(tmp_path: Path) -> None:
    reasons = _scrub(tmp_path, [Refusal(f"pipe-{TOKEN}", f"symlink leads outside the tree (/{TOKEN})")])
    assert reasons == {"pipe-[secret:TOKEN]": "symlink leads outside the tree (/[secret:TOKEN])"}


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _repo_with_secret(repo: Path, *, pack: bool) -> None:
    repo.mkdir()
    _git(repo, "init", "-q")
    body = "".join(f"line {i} of an ordinary file that git will delta\n" for i in range(400))
    (repo / "notes.txt").write_text(body)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "first")
    # The value goes into a second version, so in a pack it lives in a delta.
    (repo / "notes.txt").write_text(body.replace("line 200 ", f"line 200 {TOKEN} "))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "second")
    (repo / "notes.txt").write_text(body)  # the worktree itself is clean
    if pack:
        _git(repo, "gc", "-q", "--aggressive", "--prune=now")


@pytest.mark.parametrize("pack", [False, True], ids=["loose", "pack"])
def test_git_objects_are_scanned_decompressed(tmp_path: Path, pack: bool) -> None:
    repo = tmp_path / "work"
    _repo_with_secret(repo, pack=pack)
    packs = list((repo / ".git" / "objects" / "pack").glob("*.pack"))
    assert bool(packs) == pack
    assert all(TOKEN.encode() not in p.read_bytes() for p in repo.rglob("*") if p.is_file() and
               "objects" in p.parts)  # compressed: a plain grep misses it
    reasons = _scrub(tmp_path)
    hits = {p: r for p, r in reasons.items() if r == "git object contains the value of secret TOKEN"}
    assert hits, reasons
    if pack:
        assert any(p.endswith(".pack") for p in hits)
        assert any(p.endswith(".idx") and r == "index of a removed pack" for p, r in reasons.items())
    _no_token_anywhere(tmp_path)


def test_git_scan_past_its_bound_removes_what_it_did_not_check(tmp_path: Path) -> None:
    repo = tmp_path / "work"
    _repo_with_secret(repo, pack=False)
    reasons = _scrub(tmp_path, limits=CollectLimits(max_git_objects=1))
    unchecked = [p for p, r in reasons.items() if r.startswith("git object not checked for secrets")]
    assert unchecked and all("over 1 objects" in reasons[p] for p in unchecked)
    left = [p for p in (repo / ".git" / "objects").rglob("*") if p.is_file()]
    assert len(left) <= 1
    _no_token_anywhere(tmp_path)


def test_a_zlib_bomb_object_is_bounded(tmp_path: Path) -> None:
    obj = tmp_path / ".git" / "objects" / "ab"
    obj.mkdir(parents=True)
    (obj / ("c" * 38)).write_bytes(zlib.compress(b"blob 999\0" + bytes(64 << 20), 9))  # 64 MiB of zeros
    reasons = _scrub(tmp_path, limits=CollectLimits(max_git_bytes=1 << 20))
    assert "over 1048576 decompressed bytes" in reasons[".git/objects/ab/" + "c" * 38]


def test_nothing_is_scanned_without_secrets(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(TOKEN)
    red = Redactor({})
    assert scrub_tree(tmp_path, [], found_in=red.found_in, redact=red.redact, active=bool(red)) == []
    assert (tmp_path / "a.txt").exists()
