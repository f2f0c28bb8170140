"""extract_tree on crafted tar streams: every hostile kind is refused and listed,
nothing lands outside the destination, ordinary trees come out intact."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from pathlib import Path

import pytest

from tcab.runtime import CollectLimits
from tcab.runtime.collect import extract_tree, prune_command


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
    # The hardlink's copy lands on the host too, so its bytes count.
    assert report.files == 3 and report.bytes == 2 * len(b"alpha") + len(b"#!/bin/sh\n")


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


def _chain(depth: int) -> list[tuple[tarfile.TarInfo, bytes | None]]:
    """d1/.../dN/l -> ../../..(N times): lexically inside, physically the root."""
    dirs = "/".join(f"d{i}" for i in range(1, depth + 1))
    members = [(_entry(f"work/{'/'.join(f'd{i}' for i in range(1, k + 1))}", tarfile.DIRTYPE, mode=0o755), None)
               for k in range(1, depth + 1)]
    members.append((_entry(f"work/{dirs}/l", tarfile.SYMTYPE, linkname="/".join([".."] * depth)), None))
    return members


def test_symlink_chain_through_another_link_cannot_escape(tmp_path: Path) -> None:
    # l resolves to the tree's root (kept); esc passes through l and then
    # climbs twelve more levels: lexically inside, physically the host's /.
    dirs = "/".join(f"d{i}" for i in range(1, 13))
    climb = "/".join([".."] * 12)
    stream = _tar(*_chain(12),
                  (_entry("work/esc", tarfile.SYMTYPE, linkname=f"{dirs}/l/{climb}/etc/passwd"), None),
                  (_entry("work/via-esc", tarfile.SYMTYPE, linkname="esc"), None),
                  (_entry("work/loop-a", tarfile.SYMTYPE, linkname="loop-b"), None),
                  (_entry("work/loop-b", tarfile.SYMTYPE, linkname="loop-a"), None),
                  (_entry("work/through-file", tarfile.SYMTYPE, linkname="f/../.."), None),
                  (_entry("work/f"), b"file"),
                  (_entry("work/good", tarfile.SYMTYPE, linkname=f"{dirs}/l/f"), None),
                  (_entry("work/dangling", tarfile.SYMTYPE, linkname="d1/not-yet"), None))
    out = tmp_path / "out"
    report = extract_tree(stream, out, strip="work")
    reasons = _reasons(report)
    assert "outside" in reasons["esc"] and "outside" in reasons["via-esc"]
    assert "loop" in reasons["loop-a"] and "loop" in reasons["loop-b"]
    assert "file" in reasons["through-file"]
    assert not (out / "esc").is_symlink() and not (out / "via-esc").is_symlink()
    assert (out / "good").read_bytes() == b"file" and os.readlink(out / "dangling") == "d1/not-yet"
    # Every kept link resolves inside the tree.
    for path in out.rglob("*"):
        if path.is_symlink():
            assert path.resolve().is_relative_to(out.resolve()), path


def test_a_long_chain_of_links_is_refused_past_the_hop_limit(tmp_path: Path) -> None:
    members = [(_entry("work/t"), b"t")]
    members += [(_entry(f"work/c{i}", tarfile.SYMTYPE, linkname=f"c{i + 1}" if i < 60 else "t"), None)
                for i in range(61)]
    report = extract_tree(_tar(*members), tmp_path / "out", strip="work")
    reasons = _reasons(report)
    assert "c0" in reasons and "longer than 40" in reasons["c0"]
    assert "c60" not in reasons and (tmp_path / "out" / "c60").read_bytes() == b"t"


def test_names_that_cannot_live_on_the_host_are_refused_alone(tmp_path: Path) -> None:
    stream = _tar(
        (_entry("work/bad\udcffname"), b"x"),
        (_entry("work/badlink", tarfile.SYMTYPE, linkname="tgt\udcfe"), None),
        (_entry("work/new\nline"), b"x"),
        (_entry("work/esc\x1b[2Jape"), b"x"),
        (_entry("work/" + "n" * 256), b"x"),
        (_entry("work/" + "/".join(["d"] * 70) + "/deep.txt"), b"x"),
        (_entry("work/" + "/".join(["p" * 200] * 6) + "/long.txt"), b"x"),
        (_entry("work/ok.txt"), b"kept"),
    )
    out = tmp_path / "out"
    report = extract_tree(stream, out, strip="work", limits=CollectLimits(max_path_bytes=1024, max_depth=64))
    reasons = _reasons(report)
    assert reasons["bad\\xffname"] == "name is not UTF-8"
    assert reasons["badlink"] == "symlink target: name is not UTF-8"
    assert reasons["new\\nline"] == "name holds a control character"
    assert reasons["esc\\x1b[2Jape"] == "name holds a control character"
    assert "longer than 255" in reasons["n" * 256]
    assert any("deeper than 64" in r for r in reasons.values())
    assert any("longer than 1024 bytes" in r for r in reasons.values())
    assert sorted(os.listdir(out)) == ["ok.txt"]
    for r in report.refused:  # what is listed is printable text
        assert r.path.isprintable() and r.path.encode("utf-8")


def test_sparse_file_writes_holes_and_counts_written_bytes(tmp_path: Path) -> None:
    data = bytes(8 << 20) + b"end" + bytes(1 << 20)
    stream = _tar((_entry("work/sparse.bin"), data), (_entry("work/big.bin"), b"b" * 5000))
    out = tmp_path / "out"
    report = extract_tree(stream, out, strip="work")
    sparse = out / "sparse.bin"
    assert sparse.stat().st_size == len(data) and sparse.read_bytes() == data
    assert sparse.stat().st_blocks * 512 <= 64 * 1024  # holes, not 9 MiB on disk
    assert report.bytes == 4096 + 5000  # the one block holding b"end", and big.bin


def test_file_over_the_per_file_cap_is_refused_alone(tmp_path: Path) -> None:
    stream = _tar((_entry("work/huge.bin"), b"h" * 20_000), (_entry("work/small.txt"), b"s"),
                  (_entry("work/copy", tarfile.LNKTYPE, linkname="work/huge.bin"), None))
    out = tmp_path / "out"
    report = extract_tree(stream, out, strip="work", limits=CollectLimits(max_file_bytes=10_000))
    reasons = _reasons(report)
    assert "per-file cap" in reasons["huge.bin"] and "hardlink" in reasons["copy"]
    assert sorted(os.listdir(out)) == ["small.txt"] and not report.truncated


def test_hardlink_copies_count_against_the_tree_cap(tmp_path: Path) -> None:
    members = [(_entry("work/a.bin"), b"a" * 6000)]
    members += [(_entry(f"work/h{i}", tarfile.LNKTYPE, linkname="work/a.bin"), None) for i in range(10)]
    report = extract_tree(_tar(*members), tmp_path / "out", strip="work", limits=CollectLimits(max_bytes=30_000))
    assert report.truncated and "size cap" in report.refused[0].reason


def test_file_replaced_by_a_folder_and_entries_under_a_file(tmp_path: Path) -> None:
    stream = _tar((_entry("work/x"), b"file"), (_entry("work/x", tarfile.DIRTYPE), None),
                  (_entry("work/x/y"), b"under a file"), (_entry("work/z"), b"z"))
    out = tmp_path / "out"
    report = extract_tree(stream, out, strip="work")
    reasons = _reasons(report)
    assert reasons["x"] == "duplicate entry" and "parent is a file" in reasons["x/y"]
    assert (out / "x").read_bytes() == b"file" and (out / "z").exists()


def test_archive_cut_before_its_end_marker_is_an_error(tmp_path: Path) -> None:
    whole = _tar((_entry("work/a"), b"a" * 700), (_entry("work/b"), b"b")).getvalue()
    cut = io.BytesIO(whole[: 512 + 1024])  # header + data of a, then nothing
    with pytest.raises(tarfile.ReadError, match="end marker"):
        extract_tree(cut, tmp_path / "out", strip="work")


def test_many_empty_entries_stay_fast(tmp_path: Path) -> None:
    import time

    # Many entries plus as many links between them: no step may be quadratic.
    members = [(_entry(f"work/d{i // 500}", tarfile.DIRTYPE), None) for i in range(0, 4000, 500)]
    members += [(_entry(f"work/d{i // 500}/f{i}"), b"") for i in range(4000)]
    members += [(_entry(f"work/d{i // 500}/l{i}", tarfile.SYMTYPE, linkname=f"../d{(i + 1) // 500 % 8}/l{i + 1}"), None)
                for i in range(3999)]
    members += [(_entry("work/d7/l3999", tarfile.SYMTYPE, linkname="f3999"), None)]
    stream = _tar(*members)
    t0 = time.monotonic()
    report = extract_tree(stream, tmp_path / "out", strip="work")
    assert report.files == 4000
    # Each link is a chain of the ones after it: the last 40 are within the hop limit.
    assert report.refused_count == 4000 - 40 and all("longer than 40" in r.reason for r in report.refused[:-1])
    assert time.monotonic() - t0 < 60


def test_limits_reject_values_that_are_not_positive_and_finite() -> None:
    for bad in ({"max_bytes": 0}, {"max_depth": -1}, {"max_entries": 1.5}, {"max_path_bytes": True},
                {"max_git_scan_s": float("nan")}, {"max_git_scan_s": float("inf")}):
        with pytest.raises(ValueError, match=f"CollectLimits.{next(iter(bad))}"):
            CollectLimits(**bad)


def test_prune_command_matches_deep_and_long_paths() -> None:
    import re
    import subprocess

    limits = CollectLimits(max_depth=3, max_path_bytes=20)
    argv = prune_command("/work", limits)
    assert argv[0] == "find" and "-prune" in argv
    # The same regexes, checked here with Python's engine on sample paths.
    long_re, deep_re = argv[argv.index("-regex") + 1], argv[argv.index("-o") + 2]
    assert re.fullmatch(long_re, "/work/" + "x" * 21, re.S) and not re.fullmatch(long_re, "/work/" + "x" * 20, re.S)
    assert re.fullmatch(deep_re, "/work/a/b/c/d") and not re.fullmatch(deep_re, "/work/a/b/c")
    assert re.fullmatch(deep_re, "/work/a/b\nb/c/d")
    del subprocess


class _Metered:
    """A stream that counts what was read from it and can trickle (``delay`` per read)."""

    def __init__(self, raw: io.BytesIO, delay: float = 0.0, piece: int = 1 << 20):
        self.raw, self.delay, self.piece, self.read_bytes = raw, delay, piece, 0

    def read(self, size: int = -1) -> bytes:
        import time

        if self.delay:
            time.sleep(self.delay)
        data = self.raw.read(min(size, self.piece) if size >= 0 else self.piece)
        self.read_bytes += len(data)
        return data


def test_apparent_size_counts_against_the_cap_before_it_is_read(tmp_path: Path) -> None:
    # Sparse files cost the container nothing and the host nothing (holes),
    # but reading their zeros costs time: their apparent size is what counts,
    # and the tree is refused at the header that crosses the cap, unread.
    members = [(_entry(f"work/s{i}.bin"), bytes(400_000)) for i in range(10)]
    stream = _Metered(_tar(*members))
    report = extract_tree(stream, tmp_path / "out", strip="work", limits=CollectLimits(max_bytes=1_000_000))
    assert report.truncated and "size cap" in report.refused[0].reason
    assert stream.read_bytes < 1_300_000 + (1 << 20)  # stopped near the cap, not at 4 MB
    assert list((tmp_path / "out").iterdir()) == []


def test_collection_has_a_wall_time_bound_of_its_own(tmp_path: Path) -> None:
    import time

    # An engine that trickles the archive (as one reading gigabytes of holes does).
    members = [(_entry(f"work/f{i}"), b"x" * 4000) for i in range(200)]
    stream = _Metered(_tar(*members), delay=0.02, piece=1024)
    t0 = time.monotonic()
    report = extract_tree(stream, tmp_path / "out", strip="work", limits=CollectLimits(max_seconds=0.5))
    assert time.monotonic() - t0 < 3
    assert report.truncated and "0.5 s" in report.refused[0].reason
    assert list((tmp_path / "out").iterdir()) == []


def test_refusals_are_a_bounded_list_plus_a_count(tmp_path: Path) -> None:
    from tcab.runtime.collect import MAX_REFUSALS_LISTED

    n = MAX_REFUSALS_LISTED + 500
    stream = _tar(*[(_entry(f"work/p{i}", tarfile.FIFOTYPE), None) for i in range(n)], (_entry("work/ok"), b"k"))
    report = extract_tree(stream, tmp_path / "out", strip="work")
    assert len(report.refused) == MAX_REFUSALS_LISTED + 1 and report.refused_count == n
    assert report.refused[-1].path == "." and "500 more" in report.refused[-1].reason
    assert (tmp_path / "out" / "ok").read_bytes() == b"k"


def test_the_measured_size_leaves_out_files_over_the_per_file_cap(tmp_path) -> None:
    # A file over the per-file cap is refused on its own, so it must not get the whole tree refused.
    import subprocess

    from tcab.runtime.base import CollectLimits
    from tcab.runtime.collect import measure_command, parse_measure

    (tmp_path / "small").write_bytes(b"x" * 10)
    with open(tmp_path / "sparse", "wb") as f:
        f.truncate(5000)
    def measured(limits):
        return parse_measure(subprocess.run(measure_command(str(tmp_path), limits), capture_output=True,
                                            text=True, check=True).stdout)
    assert measured(CollectLimits(max_file_bytes=100)) == (2, 10)
    assert measured(CollectLimits()) == (2, 5010)
