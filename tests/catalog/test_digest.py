"""The content digest: same content, same digest; any content change, another digest."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from tcab.catalog import case_digest, load_version, tree_digest

SAMPLE = Path(__file__).resolve().parents[2] / "test-cases/end-to-end/easy/lights-out/v1.0.0"


def _frame(kind: bytes, path: bytes, data: bytes) -> bytes:
    return kind + len(path).to_bytes(8, "big") + path + len(data).to_bytes(8, "big") + data


def test_digest_follows_the_documented_framing(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.txt").write_bytes(b"xx")
    (tmp_path / "a.sh").write_bytes(b"#!/bin/sh\n")
    (tmp_path / "a.sh").chmod(0o755)
    os.symlink("b/x.txt", tmp_path / "link")
    expected = hashlib.sha256(
        b"tcab-case-digest/1\n"
        + _frame(b"x", b"a.sh", b"#!/bin/sh\n")
        + _frame(b"f", b"b/x.txt", b"xx")
        + _frame(b"l", b"link", b"b/x.txt")
    ).hexdigest()
    assert tree_digest(tmp_path) == expected


def test_same_content_same_digest_whatever_the_creation_order(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    names = [f"f{i}" for i in range(30)]
    for name in names:
        (one / name).write_text(name)
    for name in reversed(names):
        (two / name).write_text(name)
    assert tree_digest(one) == tree_digest(two)


def test_sample_case_digest_is_stable_across_copies(tmp_path):
    case, _ = load_version(SAMPLE)
    copy = tmp_path / "copy"
    shutil.copytree(SAMPLE, copy, symlinks=True)
    assert tree_digest(copy) == case_digest(case)
    pycache = copy / "__pycache__"
    pycache.mkdir()
    (pycache / "x.cpython-311.pyc").write_bytes(b"junk")
    assert tree_digest(copy) == case_digest(case)


def test_any_change_changes_the_digest(tmp_path):
    (tmp_path / "a").write_bytes(b"1")
    base = tree_digest(tmp_path)
    (tmp_path / "a").write_bytes(b"2")
    assert tree_digest(tmp_path) != base
    (tmp_path / "a").write_bytes(b"1")
    (tmp_path / "a").chmod(0o755)
    assert tree_digest(tmp_path) != base
    (tmp_path / "a").chmod(0o644)
    assert tree_digest(tmp_path) == base
    (tmp_path / "a").rename(tmp_path / "b")
    assert tree_digest(tmp_path) != base
