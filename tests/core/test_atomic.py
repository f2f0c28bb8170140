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


def _specials(tmp_path):
    """A FIFO, a symlink and (as root) a character device like /dev/null, all in ``tmp_path``."""
    made = {}
    os.mkfifo(tmp_path / "fifo")
    made["fifo"] = stat.S_ISFIFO
    (tmp_path / "real").write_text("keep")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    made["link"] = stat.S_ISLNK
    if os.geteuid() == 0:
        os.mknod(tmp_path / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
        made["null"] = stat.S_ISCHR
    return made


def test_write_bytes_refuses_a_destination_that_is_not_a_regular_file(tmp_path):
    made = _specials(tmp_path)
    assert os.geteuid() != 0 or "null" in made
    for name, is_kind in made.items():
        with pytest.raises(atomic.DestinationRefused, match=f"{name}: .*not a regular file"):
            atomic.write_bytes(tmp_path / name, b"page")
        assert is_kind(os.lstat(tmp_path / name).st_mode), name  # still what it was
    assert (tmp_path / "real").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*made, "real"])  # no temp file left


def test_atomic_dir_refuses_to_replace_what_is_not_a_folder(tmp_path):
    made = _specials(tmp_path)
    for name, is_kind in made.items():
        with pytest.raises(atomic.DestinationRefused, match=f"{name}: .*not a folder"):
            with atomic.atomic_dir(tmp_path / name, replace=True) as tmp:
                (tmp / "a").write_text("1")
        assert is_kind(os.lstat(tmp_path / name).st_mode), name
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*made, "real"])


def test_refuse_same_file_finds_an_input_by_inode(tmp_path):
    src = tmp_path / "in.gz"
    src.write_bytes(b"x")
    (tmp_path / "alias").symlink_to(src)
    os.link(src, tmp_path / "hard")
    for out in (src, tmp_path / "alias", tmp_path / "hard", tmp_path / "." / "in.gz"):
        with pytest.raises(atomic.DestinationRefused, match="is also an input"):
            atomic.refuse_inputs(out, [src])
    atomic.refuse_inputs(tmp_path / "new.html", [src])  # absent: fine
    (tmp_path / "other").write_bytes(b"x")
    atomic.refuse_inputs(tmp_path / "other", [src])
