"""Paths from URLs stay inside their root (tcab.view.paths)."""

from __future__ import annotations

import pytest

from tcab.view.paths import PathRefused, confined, inside, smuggled


def test_plain_paths_resolve_inside(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.txt").write_text("x")
    assert confined(tmp_path, "a/b.txt") == (tmp_path / "a" / "b.txt").resolve()
    assert confined(tmp_path, "") == tmp_path.resolve()


@pytest.mark.parametrize("rel", ["../x", "a/../../x", "/etc/passwd", "a\\..\\x", "a/./b", "a\0b", "..", "a/\x1b"])
def test_dot_dot_absolute_backslash_and_controls_are_refused(tmp_path, rel):
    with pytest.raises(PathRefused):
        confined(tmp_path, rel)


def test_a_symlink_out_is_refused_and_one_inside_is_not(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "in.txt").write_text("x")
    (root / "out").symlink_to(tmp_path)
    (root / "ok").symlink_to(root / "in.txt")
    with pytest.raises(PathRefused):
        confined(root, "out")
    with pytest.raises(PathRefused):
        confined(root, "out/root/in.txt/../../x")
    assert confined(root, "ok") == (root / "in.txt").resolve()


def test_recorded_paths_outside_results_are_refused(tmp_path):
    assert inside(tmp_path, "runs/x") == (tmp_path / "runs" / "x").resolve()
    with pytest.raises(PathRefused):
        inside(tmp_path / "results", str(tmp_path))


@pytest.mark.parametrize("raw", [b"/a/..%2fb", b"/a/%2E%2E/b", b"/a%5cb", b"/a%00"])
def test_encoded_separators_are_smuggling(raw):
    assert smuggled(raw)
    assert not smuggled(b"/runs/abc/tree/src/index.html")
