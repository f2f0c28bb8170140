"""Write a tar stream produced by untrusted code onto the host, safely.

The tree under ``/work`` was written by the harness, so each entry is
checked before anything touches the disk. Refused alone, and listed:

- absolute names and names with a ``..`` component;
- names that are not UTF-8, hold a control character (newline, escape…),
  have a component over 255 bytes, or are deeper / longer than
  ``limits.max_depth`` / ``limits.max_path_bytes``;
- symlinks that do not resolve *physically* inside the tree (see
  :mod:`tcab.links`: the chain is followed link by link on the
  tree as built, so a link through another link cannot point out);
- hardlinks whose target is not an earlier collected regular file;
- files whose apparent size is over ``limits.max_file_bytes``;
- devices, FIFOs and any other special file; duplicate names; an entry
  whose parent is a file or a symlink.

A tree whose files' apparent sizes add up to more than ``limits.max_bytes``
(counted at each header, before the data is read: a sparse file counts its
length, since the engine reads every byte of its holes), that has more than
``limits.max_entries`` entries and refusals, or whose collection takes more
than ``limits.max_seconds`` is refused as a whole and nothing is kept: the
stream is read only up to the limit. Refusals are listed up to
:data:`MAX_REFUSALS_LISTED`, then counted (:class:`Tally`). Runs of zeros
are written as holes, so a sparse file costs the host what it cost the
container. Symlinks are created after every file,
then checked, so no file is ever written through one; files are opened with
O_NOFOLLOW|O_EXCL. Setuid, setgid and sticky bits are dropped. An archive
that ends without its end marker (the engine stopped mid-way) raises
``tarfile.ReadError``: an incomplete tree is never passed off as complete.
"""

from __future__ import annotations

import errno
import os
import posixpath
import shlex
import shutil
import stat
import tarfile
import time
from pathlib import Path
from typing import BinaryIO

from tcab.atomic import atomic_dir
from tcab.links import LinkRefused, LinkResolver
from tcab.runtime.base import CollectLimits, CollectReport, ExecOptions, Refusal

_CHUNK = 1 << 20
#: Zero runs at least this long become holes (the host's block size).
_HOLE = 4096
_ZEROS = memoryview(bytes(_CHUNK))
#: One component's length on every host filesystem we support (NAME_MAX).
NAME_MAX = 255
#: Components walked while checking symlinks, per entry of the tree.
_LINK_STEPS_PER_ENTRY = 64
#: Errors that belong to one entry's name or place (refuse it, go on);
#: anything else (disk full, I/O) is the host failing and propagates.
_ENTRY_ERRNOS = {errno.EEXIST, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG, errno.ELOOP,
                 errno.EILSEQ, errno.EINVAL}
#: Refusals listed one by one; past it they are only counted (one closing entry says how many).
MAX_REFUSALS_LISTED = 1000


def shown(name: str) -> str:
    """``name`` safe to print and store: bad UTF-8 and control characters escaped."""
    text = os.fsencode(name).decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode() for c in text)


def _name_problem(text: str) -> str | None:
    """Why a name or link target cannot be kept on the host, else None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "name is not UTF-8"
    if any(not c.isprintable() and c != " " for c in text):
        return "name holds a control character"
    return None


def _relative(name: str, strip: str) -> str | None:
    """The entry's path inside the tree, '' for the root, None if it escapes."""
    if name.startswith("/"):
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        return None
    if strip:
        if not parts or parts[0] != strip:
            return None
        parts = parts[1:]
    return "/".join(parts)


def _path_problem(rel: str, limits: CollectLimits) -> str | None:
    problem = _name_problem(rel)
    if problem:
        return problem
    parts = rel.split("/")
    if len(parts) > limits.max_depth:
        return f"path deeper than {limits.max_depth} folders"
    if len(os.fsencode(rel)) > limits.max_path_bytes:
        return f"path longer than {limits.max_path_bytes} bytes"
    if any(len(os.fsencode(p)) > NAME_MAX for p in parts):
        return f"a name longer than {NAME_MAX} bytes"
    return None


class TreeRefused(Exception):
    """The whole tree is over a limit (the message is the reason)."""


class Tally:
    """One copy-out's counts and clock, shared by the extraction and the
    backend feeding it: entries, refusals (a bounded list plus a count),
    refusals that are no entry of the archive (``outside``: files the
    collector could not read, paths pruned in the container), and the wall
    time since it was made. Every ``add`` and ``check`` raises
    :class:`TreeRefused` once a limit is passed."""

    def __init__(self, limits: CollectLimits):
        self.limits = limits
        self.deadline = time.monotonic() + limits.max_seconds
        self.entries = self.outside = self.count = 0
        self.files = 0  # regular files and hardlinks in the archive, kept or not
        self.listed: list[Refusal] = []

    def check(self) -> None:
        if self.entries + self.outside > self.limits.max_entries:
            raise TreeRefused(f"tree over {self.limits.max_entries} entries (refusals included)")
        if time.monotonic() > self.deadline:
            raise TreeRefused(f"collection took over {self.limits.max_seconds:g} s")

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def refuse(self, path: str, reason: str, *, outside: bool = False) -> None:
        """List (or count) one refusal; ``path`` is shown as given (already safe)."""
        self.count += 1
        if len(self.listed) < MAX_REFUSALS_LISTED:
            self.listed.append(Refusal(path, reason))
        if outside:
            self.outside += 1
            self.check()

    def refusals(self) -> tuple[Refusal, ...]:
        more = self.count - len(self.listed)
        if more <= 0:
            return tuple(self.listed)
        return (*self.listed, Refusal(".", f"{more} more refused entries (not listed; {self.count} in all)"))


class _Counting:
    """A read-only stream that counts the bytes handed out (to check the end
    marker) and asks the tally's clock at every read."""

    def __init__(self, raw: BinaryIO, tally: Tally):
        self._raw, self._tally, self.total = raw, tally, 0

    def read(self, size: int = -1) -> bytes:
        self._tally.check()
        data = self._raw.read(size)
        self.total += len(data)
        return data


class _Extractor:
    def __init__(self, root: str, strip: str, limits: CollectLimits, tally: Tally):
        self.root, self.strip, self.limits, self.tally = root, strip, limits, tally
        self.files = self.written = self.apparent = 0
        self.seen: set[str] = set()
        self.regular: set[str] = set()
        self.links: list[tuple[str, str]] = []

    @property
    def entries(self) -> int:
        return self.tally.entries

    def refuse(self, rel: str, reason: str) -> None:
        self.tally.refuse(shown(rel), reason)

    def _count(self, size: int) -> None:
        """Count ``size`` apparent bytes against the cap, before any is read."""
        self.apparent += size
        if self.apparent > self.limits.max_bytes:
            raise TreeRefused(f"tree over the size cap of {self.limits.max_bytes} bytes "
                              "(apparent sizes: a sparse file counts its whole length)")

    def member(self, tar: tarfile.TarFile, member: tarfile.TarInfo) -> None:
        self.tally.entries += 1
        self.tally.files += member.isreg() or member.islnk()
        self.tally.check()
        rel = _relative(member.name, self.strip)
        if rel is None:
            self.refuse(member.name, "path escapes the tree (absolute or '..')")
            return
        if rel == "" and member.isreg() and self.strip:
            rel = self.strip  # copying out one file: it lands as dest/<name>
        elif rel == "":
            return
        problem = _path_problem(rel, self.limits)
        if problem:
            self.refuse(rel, problem)
            return
        if rel in self.seen:
            self.refuse(rel, "duplicate entry")
            return
        self.seen.add(rel)
        try:
            self._place(tar, member, rel)
        except OSError as exc:
            if exc.errno not in _ENTRY_ERRNOS:
                raise
            self.refuse(rel, f"cannot be placed ({exc.strerror})")

    def _place(self, tar: tarfile.TarFile, member: tarfile.TarInfo, rel: str) -> None:
        target = os.path.join(self.root, rel)
        if member.isdir():
            if self._parents(rel):
                if not os.path.isdir(target) or os.path.islink(target):
                    os.mkdir(target, 0o755)
        elif member.isreg():
            if member.size > self.limits.max_file_bytes:
                self.refuse(rel, f"file of {member.size} bytes over the per-file cap of "
                                 f"{self.limits.max_file_bytes}")
                return
            self._count(member.size)
            if self._parents(rel):
                self._write(tar.extractfile(member), target, member.mode, member.size)
                if member.mtime:
                    os.utime(target, (member.mtime, member.mtime), follow_symlinks=False)
                self.regular.add(rel)
        elif member.issym():
            problem = _name_problem(member.linkname)
            if problem:
                self.refuse(rel, f"symlink target: {problem}")
            elif member.linkname.startswith("/"):
                self.refuse(rel, f"symlink leads outside the tree ({member.linkname})")
            elif len(os.fsencode(member.linkname)) > self.limits.max_path_bytes:
                self.refuse(rel, f"symlink target longer than {self.limits.max_path_bytes} bytes")
            else:
                self.links.append((rel, member.linkname))
        elif member.islnk():
            src = _relative(member.linkname, self.strip)
            if src is None or src not in self.regular:
                self.refuse(rel, f"hardlink to something not collected as a file ({shown(member.linkname)})")
                return
            if self._parents(rel):
                # A copy, not a link: the host tree must not share inodes.
                fd = os.open(os.path.join(self.root, src), os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, "rb") as fh:
                    mode, size = os.fstat(fh.fileno()).st_mode, os.fstat(fh.fileno()).st_size
                    self._count(size)
                    self._write(fh, target, mode, size)
                self.regular.add(rel)
        else:
            kind = "device" if member.ischr() or member.isblk() else "FIFO" if member.isfifo() else "special file"
            self.refuse(rel, f"{kind} refused")

    def _parents(self, rel: str) -> bool:
        """Create the folders above ``rel``, none of them through a link; False
        (refused and listed) when one of them is a file or a symlink."""
        path = self.root
        for part in rel.split("/")[:-1]:
            path = os.path.join(path, part)
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                os.mkdir(path, 0o755)
                continue
            if not stat.S_ISDIR(mode):
                kind = "symlink" if stat.S_ISLNK(mode) else "file"
                self.refuse(rel, f"parent is a {kind}, not a folder")
                return False
        return True

    def _write(self, src: BinaryIO | None, target: str, mode_bits: int, size: int) -> None:
        mode = 0o755 if mode_bits & 0o111 else 0o644
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        try:
            offset = 0
            while src is not None:
                self.tally.check()  # a hardlink's copy reads the host, not the stream
                chunk = src.read(_CHUNK)
                if not chunk:
                    break
                self._write_chunk(fd, chunk, offset)
                offset += len(chunk)
            os.ftruncate(fd, max(offset, 0))  # a trailing hole still sets the size
        finally:
            os.close(fd)
        os.chmod(target, mode)
        self.files += 1

    def _write_chunk(self, fd: int, chunk: bytes, offset: int) -> None:
        """Write ``chunk`` at ``offset``, leaving aligned zero blocks as holes."""
        if chunk == _ZEROS[: len(chunk)]:
            return
        view = memoryview(chunk)
        for start in range(0, len(chunk), _HOLE):
            block = view[start:start + _HOLE]
            if block == _ZEROS[: len(block)]:
                continue
            os.pwrite(fd, block, offset + start)
            self.written += len(block)

    def make_links(self) -> None:
        """Create every symlink, then keep only those that resolve inside the tree."""
        made: list[str] = []
        for rel, linkname in self.links:
            try:
                if self._parents(rel):
                    os.symlink(linkname, os.path.join(self.root, rel))
                    made.append(rel)
            except OSError as exc:
                if exc.errno not in _ENTRY_ERRNOS:
                    raise
                self.refuse(rel, f"symlink clashes with another entry ({exc.strerror})")
        resolver = LinkResolver(self.root, budget=_LINK_STEPS_PER_ENTRY * max(self.entries, 1))
        bad: list[tuple[str, str]] = []
        for rel in made:
            try:
                resolver.check(rel)
            except LinkRefused as exc:
                bad.append((rel, str(exc)))
        # Removing a bad link only leaves the links through it dangling: it
        # can never make a checked one lead out.
        for rel, reason in bad:
            os.unlink(os.path.join(self.root, rel))
            self.refuse(rel, reason)


def refused_whole(reason: str) -> CollectReport:
    """The report of a tree refused as a whole (nothing of it kept)."""
    return CollectReport(files=0, bytes=0, refused=(Refusal(".", reason),), truncated=True)


def refuse_tree(dest: Path, reason: str) -> CollectReport:
    """Leave ``dest`` an empty new folder and report the tree refused whole."""
    with atomic_dir(Path(dest), replace=True):
        pass
    return refused_whole(reason)


def measure_command(src: str, limits: CollectLimits, *, readable_only: bool = False) -> list[str]:
    """argv printing ``FILES BYTES``: the regular files under ``src`` (only
    those its user can read, with ``readable_only``) and the apparent sizes
    of those within the per-file cap, in all (a larger file is refused on
    its own, as extraction does, and costs no read). Run before the archive
    is read, so a tree of sparse files over the cap is refused without
    reading a byte of its holes."""
    readable = "-readable " if readable_only else ""
    return ["sh", "-c", f'find "$0" -type f {readable}-printf "%s\\n" 2>/dev/null '
            "| awk -v cap=\"$1\" '{n++; if ($1 <= cap + 0) s += $1} END {printf \"%d %.0f\\n\", n, s}'",
            src, str(limits.max_file_bytes)]


def parse_measure(text: str) -> tuple[int, int] | None:
    """(files, bytes) from :func:`measure_command`'s output, None when unreadable."""
    parts = text.split()
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def over_cap(measured: tuple[int, int] | None, limits: CollectLimits) -> str | None:
    """Why a measured tree is refused before it is read, else None."""
    if measured is not None and measured[1] > limits.max_bytes:
        return (f"tree over the size cap of {limits.max_bytes} bytes: its files' apparent sizes add up "
                f"to {measured[1]} (measured in the container, before reading)")
    return None


def extract_tree(
    stream: BinaryIO, dest: Path, *, strip: str = "", limits: CollectLimits | None = None,
    tally: Tally | None = None,
) -> CollectReport:
    """Extract the tar ``stream`` to the new folder ``dest`` (atomically).

    ``strip`` is the leading folder name to remove (``work`` for a copy of
    ``/work``); entries outside it are refused. ``tally`` is the copy-out's
    own (its clock started before this was called, its refusals made
    outside the archive counted) when the backend made one. Raises
    ``tarfile.TarError`` when the stream is not a tar archive or ends early
    (the caller translates it).
    """
    limits = limits or CollectLimits()
    tally = tally or Tally(limits)
    with atomic_dir(dest, replace=True) as tmp:
        ex = _Extractor(str(tmp), strip, limits, tally)
        counted = _Counting(stream, tally)
        try:
            with tarfile.open(fileobj=counted, mode="r|") as tar:
                for member in tar:
                    ex.member(tar, member)
                if counted.total < tar.offset + tarfile.BLOCKSIZE:
                    raise tarfile.ReadError(f"the archive ended after {ex.entries} entries without its end "
                                            "marker: the engine stopped sending it")
            tally.check()
        except TreeRefused as exc:
            # Nothing of an over-limit tree is kept; drain nothing more.
            for child in os.listdir(tmp):
                p = os.path.join(tmp, child)
                shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)
            return refused_whole(str(exc))
        ex.make_links()
    return CollectReport(files=ex.files, bytes=ex.written, refused=tally.refusals(), truncated=False,
                         refused_count=tally.count)


def prune_command(src: str, limits: CollectLimits) -> list[str]:
    """argv (GNU find, run as root in the container before the archive is
    taken) that removes and prints, NUL-separated, every entry of ``src``
    deeper or longer than the limits allow.

    Why in the container: the engine builds the archive from the container's
    storage path on the host, so a path near the host's PATH_MAX stops the
    archive mid-way and every later entry would be lost. Pruning there keeps
    the rest of the tree. ``(.|\\n)`` because names may hold newlines.
    """
    base = src.rstrip("/") or "/"
    longest = len(base.encode()) + 1 + limits.max_path_bytes
    return ["find", base, "-mindepth", "1", "-regextype", "posix-extended",
            "(", "-regex", f"(.|\n){{{longest + 1},}}", "-o",
            "-regex", f"{_ere_escape(base)}(/[^/]*){{{limits.max_depth + 1},}}", ")",
            "-prune", "-printf", "%P\\0", "-exec", "rm", "-rf", "--", "{}", "+"]


def _ere_escape(text: str) -> str:
    return "".join("\\" + c if c in ".[]()*+?{}|^$\\" else c for c in text)


def pruned_refusals(output: str, limits: CollectLimits, cut: bool) -> list[Refusal]:
    """Refusals for what :func:`prune_command` printed (``cut``: the output
    was cut at its head, so its first name is partial and more existed)."""
    names = [n for n in output.split("\0") if n]
    refused = []
    if cut and names:
        names = names[1:]
        refused.append(Refusal(".", "more entries too deep or too long (list cut)"))
    reason = f"path deeper than {limits.max_depth} folders or longer than {limits.max_path_bytes} bytes"
    refused.extend(Refusal(shown(posixpath.normpath(n)), reason) for n in names)
    return refused


def prune_deep(runtime, container: str, src: str, limits: CollectLimits, tally: Tally | None = None) -> list[Refusal]:
    """Run :func:`prune_command` in ``container`` through ``runtime`` (a
    :class:`~tcab.runtime.base.Runtime`); return what it removed as refusals
    (also counted in ``tally``, as refusals outside the archive, when given).
    A missing ``find`` removes nothing: the end-marker check of
    :func:`extract_tree` still catches an archive the engine cut short."""
    timeout = min(_PRUNE_TIMEOUT_S, tally.remaining()) if tally is not None else _PRUNE_TIMEOUT_S
    options = ExecOptions(user="root", workdir="/", timeout_s=max(timeout, 1.0))
    result = runtime.exec(container, prune_command(src, limits), options)
    return _count_pruned(result.stdout, _was_cut(result.stdout, options), limits, tally)


def _was_cut(output: str, options: ExecOptions) -> bool:
    """Whether an exec's output filled its kept tail (so its head was cut)."""
    return len(output.encode("utf-8", "replace")) >= options.tail_bytes - 4


def _count_pruned(output: str, cut: bool, limits: CollectLimits, tally: Tally | None) -> list[Refusal]:
    refused = pruned_refusals(output, limits, cut)
    if tally is not None:
        for r in refused:
            tally.refuse(r.path, r.reason, outside=True)
    return refused


#: Printed between the prune's names and the measure's line by settle_command.
_MEASURE_MARK = "\0\n#measure "


def settle_command(src: str, limits: CollectLimits, run_user: str) -> list[str]:
    """One argv (as root in the container) doing what a copy-out needs before
    the archive is taken, in one exec rather than three (each exec costs an
    engine round trip, ~0.2 s under Podman): SIGKILL every process of
    ``run_user`` (:data:`REAP_COMMAND`), then :func:`prune_command`, then
    :func:`measure_command`, whose line follows a marker. Read its output
    with :func:`settled`."""
    reap, prune, measure = REAP_COMMAND[2], prune_command(src, limits), measure_command(src, limits)
    script = (f"sh -c {shlex.quote(reap)} {shlex.quote(run_user)}; "
              f"{shlex.join(prune)} 2>/dev/null; printf '\\0\\n#measure '; {shlex.join(measure)}")
    return ["sh", "-c", script]


def settle(runtime, container: str, src: str, limits: CollectLimits, tally: Tally,
           run_user: str) -> tuple[int, int] | None:
    """Run :func:`settle_command`; count the pruned entries in ``tally`` (as
    :func:`prune_deep` does) and return the measure's (files, bytes), None
    when it did not finish or printed nothing readable."""
    timeout = max(1.0, min(2 * _PRUNE_TIMEOUT_S, tally.remaining()))
    options = ExecOptions(user="root", workdir="/", timeout_s=timeout)
    result = runtime.exec(container, settle_command(src, limits, run_user), options)
    pruned, mark, measured = result.stdout.rpartition(_MEASURE_MARK)
    _count_pruned(pruned if mark else result.stdout, _was_cut(result.stdout, options), limits, tally)
    return parse_measure(measured) if mark and result.ok else None


#: Wall time for the in-container prune (a walk of /work with find).
_PRUNE_TIMEOUT_S = 120.0

#: argv (as root in a docker container) that SIGKILLs every process of user
#: ``$0`` until none is left (10 rounds at most); exit 0 once none is.
REAP_COMMAND = ["sh", "-c", 'for i in 1 2 3 4 5 6 7 8 9 10; do pkill -KILL -U "$0" || pkill -KILL -u "$0" '
                '|| exit 0; sleep 0.1; done; exit 1']
