"""extract_tree on crafted tar streams: every hostile kind is refused and listed,
nothing lands outside the destination, ordinary trees come out intact."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from pathlib import Path

from tcab.runtime import CollectLimits
from tcab.runtime.collect import extract_tree


def _tar(*members: tuple[tarfile.TarInfo, bytes | None]) -> io.BytesIO:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    buf.seek(0)
    return buf


def _entry(name: str, kind=tarfile.REGTYPE, *, linkname: str = "", mode: int = 0o644) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, linkname, mode
    return info


def _reasons(report) -> dict[str, str]:
    return {r.path: r.reason for r in report.refused}


def test_ordinary_tree_with_inner_links(tmp_path: Path) -> None:
    stream = _tar(
        (_entry("work", tarfile.DIRTYPE, mode=0o755), None),
        (_entry("work/src", tarfile.DIRTYPE, mode=0o755), None),
        (_entry("work/src/a.txt"), b"alpha"),
        (_entry("work/run.sh", mode=0o4755), b"#!/bin/sh\n"),
        (_entry("work/link", tarfile.SYMTYPE, linkname="src/a.txt"), None),
        (_entry("work/src/hard", tarfile.LNKTYPE, linkname="work/src/a.txt"), None),
    )
    report = extract_tree(stream, tmp_path / "out", strip="work")
    out = tmp_path / "out"
    assert report.refused == () and not report.truncated
    assert (out / "src/a.txt").read_bytes() == b"alpha"
    assert os.readlink(out / "link") == "src/a.txt" and (out / "link").read_bytes() == b"alpha"
    # A hardlink inside the tree becomes a separate copy, never a shared inode.
    assert (out / "src/hard").read_bytes() == b"alpha"
    assert (out / "src/hard").stat().st_ino != (out / "src/a.txt").stat().st_ino
    mode = (out / "run.sh").stat().st_mode
    assert mode & stat.S_IXUSR and not mode & stat.S_ISUID
    assert report.files == 3 and report.bytes == len(b"alpha") + len(b"#!/bin/sh\n")


def test_hostile_entries_are_refused_and_listed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("host file")
    stream = _tar(
        (_entry("work", tarfile.DIRTYPE, mode=0o755), None),
        (_entry("work/../escaped.txt"), b"dotdot"),
        (_entry("/abs.txt"), b"absolute"),
        (_entry("work/etc-passwd", tarfile.SYMTYPE, linkname="/etc/passwd"), None),
        (_entry("work/up", tarfile.SYMTYPE, linkname="../../victim.txt"), None),
        (_entry("work/hard-out", tarfile.LNKTYPE, linkname=str(victim)), None),
        (_entry("work/hard-dotdot", tarfile.LNKTYPE, linkname="work/../victim.txt"), None),
        (_entry("work/null", tarfile.CHRTYPE), None),
        (_entry("work/disk", tarfile.BLKTYPE), None),
        (_entry("work/pipe", tarfile.FIFOTYPE), None),
        (_entry("work/ok.txt"), b"fine"),
        (_entry("work/ok.txt"), b"overwrite attempt"),
        (_entry("other/outside-strip.txt"), b"not under work/"),
    )
    out = tmp_path / "out"
    report = extract_tree(stream, out, strip="work")
    reasons = _reasons(report)
    assert "work/../escaped.txt" in reasons and "escapes" in reasons["work/../escaped.txt"]
    assert "/abs.txt" in reasons
    assert "outside" in reasons["etc-passwd"] and "outside" in reasons["up"]
    assert "hardlink" in reasons["hard-out"] and "hardlink" in reasons["hard-dotdot"]
    assert reasons["null"] == "device refused" and reasons["disk"] == "device refused"
    assert reasons["pipe"] == "FIFO refused"
    assert reasons["ok.txt"] == "duplicate entry"
    assert "other/outside-strip.txt" in reasons
    assert sorted(p.name for p in out.iterdir()) == ["ok.txt"]
    assert (out / "ok.txt").read_bytes() == b"fine"
    assert victim.read_text() == "host file"
    assert not (tmp_path / "escaped.txt").exists() and not Path("/abs.txt").exists()


def test_no_file_is_written_through_a_symlink(tmp_path: Path) -> None:
    # "d" -> "real" is inside the tree, but a later entry "d/x" must not be
    # written through it: links are created last, so "d" is a plain folder
    # when "d/x" lands and the link then clashes and is refused.
    stream = _tar(
        (_entry("work/real", tarfile.DIRTYPE, mode=0o755), None),
        (_entry("work/d", tarfile.SYMTYPE, linkname="real"), None),
        (_entry("work/d/x"), b"x"),
    )
    out = tmp_path / "out"
    report = extract_tree(stream, out, strip="work")
    assert (out / "d").is_dir() and not (out / "d").is_symlink()
    assert not (out / "real" / "x").exists()
    assert "d" in _reasons(report)


def test_tree_over_the_size_cap_is_refused_whole(tmp_path: Path) -> None:
    stream = _tar(
        (_entry("work/a.bin"), b"a" * 600),
        (_entry("work/b.bin"), b"b" * 600),
    )
    out = tmp_path / "out"
    report = extract_tree(stream, out, strip="work", limits=CollectLimits(max_bytes=1000))
    assert report.truncated and report.files == 0
    assert "size cap" in report.refused[0].reason
    assert list(out.iterdir()) == []


def test_too_many_entries_is_refused_whole(tmp_path: Path) -> None:
    stream = _tar(*[(_entry(f"work/f{i}"), b"") for i in range(10)])
    report = extract_tree(stream, tmp_path / "out", strip="work", limits=CollectLimits(max_entries=5))
    assert report.truncated and "entries" in report.refused[0].reason
