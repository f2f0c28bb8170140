"""Write a tar stream produced by untrusted code onto the host, safely.

The tree under ``/work`` was written by the harness, so each entry is
checked before anything touches the disk. Refused, and listed:

- absolute names and names with a ``..`` component;
- symlinks whose target is absolute or resolves outside the tree;
- hardlinks whose target is outside the tree or not an earlier regular file;
- devices, FIFOs and any other special file;
- duplicate names.

A tree whose files add up to more than ``limits.max_bytes`` (or with more
than ``limits.max_entries`` entries) is refused as a whole and nothing is
kept: the stream is read only up to the limit, so a huge tree cannot fill
the host disk. Symlinks are created last, so no file is ever written through
one, and files are opened with O_NOFOLLOW|O_EXCL. Setuid, setgid and sticky
bits are dropped.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tarfile
from pathlib import Path
from typing import BinaryIO

from tcab.atomic import atomic_dir
from tcab.runtime.base import CollectLimits, CollectReport, Refusal

_CHUNK = 1 << 20


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


def _inside(rel_dir: str, target: str) -> bool:
    """Whether symlink ``target`` placed in ``rel_dir`` stays inside the tree."""
    if target.startswith("/"):
        return False
    joined = posixpath.normpath(posixpath.join(rel_dir or ".", target))
    return joined != ".." and not joined.startswith("../")


def extract_tree(
    stream: BinaryIO, dest: Path, *, strip: str = "", limits: CollectLimits | None = None
) -> CollectReport:
    """Extract the tar ``stream`` to the new folder ``dest`` (atomically).

    ``strip`` is the leading folder name to remove (``work`` for a copy of
    ``/work``); entries outside it are refused. Raises ``tarfile.TarError``
    when the stream is not a tar archive (the caller translates it).
    """
    limits = limits or CollectLimits()
    refused: list[Refusal] = []
    files = total = entries = 0
    seen: set[str] = set()
    regular: set[str] = set()
    links: list[tuple[str, str]] = []
    truncated = False

    with atomic_dir(dest, replace=True) as tmp:
        root = str(tmp)
        with tarfile.open(fileobj=stream, mode="r|") as tar:
            for member in tar:
                entries += 1
                if entries > limits.max_entries:
                    refused = [Refusal(".", f"tree over {limits.max_entries} entries")]
                    truncated = True
                    break
                rel = _relative(member.name, strip)
                shown = member.name
                if rel is None:
                    refused.append(Refusal(shown, "path escapes the tree (absolute or '..')"))
                    continue
                if rel == "" and member.isreg() and strip:
                    rel = strip  # copying out one file: it lands as dest/<name>
                elif rel == "":
                    continue
                if rel in seen:
                    refused.append(Refusal(rel, "duplicate entry"))
                    continue
                seen.add(rel)
                target = os.path.join(root, rel)
                if member.isdir():
                    os.makedirs(target, mode=0o755, exist_ok=True)
                elif member.isreg():
                    if total + member.size > limits.max_bytes:
                        refused = [Refusal(".", f"tree over the size cap of {limits.max_bytes} bytes")]
                        truncated = True
                        break
                    os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
                    _write_file(tar, member, target)
                    regular.add(rel)
                    files += 1
                    total += member.size
                elif member.issym():
                    if not _inside(posixpath.dirname(rel), member.linkname):
                        refused.append(Refusal(rel, f"symlink leads outside the tree ({member.linkname})"))
                        continue
                    links.append((rel, member.linkname))
                elif member.islnk():
                    src = _relative(member.linkname, strip)
                    if src is None or src not in regular:
                        refused.append(Refusal(rel, f"hardlink leads outside the tree ({member.linkname})"))
                        continue
                    os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
                    # A copy, not a link: the host tree must not share inodes.
                    shutil.copyfile(os.path.join(root, src), target, follow_symlinks=False)
                    files += 1
                else:
                    kind = "device" if member.ischr() or member.isblk() else "FIFO" if member.isfifo() else "special file"
                    refused.append(Refusal(rel, f"{kind} refused"))
        if truncated:
            # Nothing of an over-limit tree is kept; drain nothing more.
            for child in os.listdir(root):
                p = os.path.join(root, child)
                shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)
            files = total = 0
        else:
            for rel, linkname in links:
                target = os.path.join(root, rel)
                os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
                if _parent_is_link(root, rel):
                    refused.append(Refusal(rel, "symlink below another symlink"))
                    continue
                try:
                    os.symlink(linkname, target)
                except OSError as exc:
                    refused.append(Refusal(rel, f"symlink clashes with another entry ({exc.strerror})"))
    return CollectReport(files=files, bytes=total, refused=tuple(refused), truncated=truncated)


def _parent_is_link(root: str, rel: str) -> bool:
    path = root
    for part in rel.split("/")[:-1]:
        path = os.path.join(path, part)
        if os.path.islink(path):
            return True
    return False


def _write_file(tar: tarfile.TarFile, member: tarfile.TarInfo, target: str) -> None:
    mode = 0o755 if member.mode & 0o111 else 0o644
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as out:
        src = tar.extractfile(member)
        if src is not None:
            shutil.copyfileobj(src, out, _CHUNK)
    os.chmod(target, mode)
    if member.mtime:
        os.utime(target, (member.mtime, member.mtime), follow_symlinks=False)
