import os
import stat

import pytest

from tcab import atomic


def test_write_bytes_replaces_whole_file_with_umask_mode(tmp_path):
    target = tmp_path / "sub" / "out.txt"
    atomic.write_text(target, "one")
    atomic.write_text(target, "two")
    assert target.read_text() == "two"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    assert [p.name for p in target.parent.iterdir()] == ["out.txt"]


def test_atomic_dir_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "tree"
    with pytest.raises(RuntimeError), atomic.atomic_dir(target) as tmp:
        (tmp / "half").write_text("x")
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_atomic_dir_replace_swaps_complete_tree(tmp_path):
    target = tmp_path / "tree"
    with atomic.atomic_dir(target) as tmp:
        (tmp / "a").write_text("1")
    with pytest.raises(FileExistsError):
        with atomic.atomic_dir(target):
            pass
    with atomic.atomic_dir(target, replace=True) as tmp:
        (tmp / "b").write_text("2")
    assert sorted(p.name for p in target.iterdir()) == ["b"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree"]


def test_atomic_dir_without_replace_keeps_a_folder_completed_meanwhile(tmp_path):
    target = tmp_path / "tree"
    with pytest.raises(FileExistsError):
        with atomic.atomic_dir(target) as tmp:
            (tmp / "mine").write_text("1")
            target.mkdir()  # another process finished first
            (target / "theirs").write_text("2")
    assert sorted(p.name for p in target.iterdir()) == ["theirs"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree"]
