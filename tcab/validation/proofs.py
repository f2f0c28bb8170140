"""Proofs: the evidence a case asks a build to write, looked for in the run's tree.

A ``[[proof]]`` names a ``dest`` (``.png`` image or ``.webm`` video) in the
workspace. As in the original Test Cabinet, validation records only whether
each proof turned up in the produced tree (the run's collected ``work/``)
and is non-empty; it never judges the content, and a missing proof never
changes a status (informational). Each proof is one of:

- ``present``: a regular file, non-empty, at most ``ProofLimits.max_bytes``,
  whose first bytes are those of its kind (PNG signature; WebM: an EBML
  header whose DocType is ``webm``);
- ``missing``: nothing at ``dest``, or an empty file;
- ``refused``: something is there, but not a proof we will show: a symlink
  (at ``dest`` or on the way to it), a folder, a FIFO or device, a file over
  the size cap, or bytes that are not of its kind.

The tree is hostile: every path component is opened with ``O_NOFOLLOW``
relative to its parent's descriptor, so no link is ever followed, and the
file is read through the descriptor that was checked (no race between the
check and the read). :func:`read_proof` is the same check for serving the
bytes (``tcab view``).
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tcab.catalog.model import Proof
from tcab.runtime.base import check_limit

#: The largest proof file recorded as present (and served): a short clip.
DEFAULT_MAX_PROOF_BYTES = 64 * 1024 * 1024
PROOF_STATUSES = ("present", "missing", "refused")
MEDIA_TYPES = {"image": "image/png", "video": "video/webm"}

_PNG = b"\x89PNG\r\n\x1a\n"
_EBML = b"\x1a\x45\xdf\xa3"
_DOCTYPE = b"\x42\x82"
_HEAD = 4096  # bytes read to sniff the kind
_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ProofLimits:
    """``max_bytes``: a larger proof file is refused (default 64 MiB).
    Must be finite and positive (ValueError otherwise)."""

    max_bytes: int = DEFAULT_MAX_PROOF_BYTES

    def __post_init__(self) -> None:
        check_limit("ProofLimits", "max_bytes", self.max_bytes, optional=False)


@dataclass(frozen=True, slots=True)
class ProofRecord:
    """What was found for one declared proof."""

    id: str
    name: str
    dest: str
    kind: str                 # image | video
    status: str               # PROOF_STATUSES
    size: int | None = None   # bytes, when a regular file was found
    sha256: str | None = None  # when present
    detail: str = ""

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "dest": self.dest, "kind": self.kind,
                "status": self.status, "size": self.size, "sha256": self.sha256, "detail": self.detail}


def collect_proofs(proofs: tuple[Proof, ...] | list[Proof], tree: Path,
                   limits: ProofLimits | None = None) -> tuple[ProofRecord, ...]:
    """One record per declared proof, in declaration order, looked for under ``tree``."""
    limits = limits or ProofLimits()
    out = []
    for proof in proofs:
        status, size, digest, detail, _ = _inspect(tree, proof, limits, keep=False)
        out.append(ProofRecord(proof.id, proof.name, proof.dest, proof.kind, status, size, digest, detail))
    return tuple(out)


def read_proof(tree: Path, proof: Proof, limits: ProofLimits | None = None) -> tuple[bytes, str] | None:
    """(bytes, media type) of a proof that is present now, else None."""
    status, _, _, _, data = _inspect(tree, proof, limits or ProofLimits(), keep=True)
    if status != "present" or data is None:
        return None
    return data, MEDIA_TYPES[proof.kind]


def sniff(head: bytes, kind: str) -> bool:
    """Whether ``head`` (a file's first bytes) starts like a file of ``kind``."""
    if kind == "image":
        return head.startswith(_PNG)
    if kind == "video":
        return head.startswith(_EBML) and _webm_doctype(head)
    return False


def _webm_doctype(head: bytes) -> bool:
    # The DocType element (0x4282) inside the EBML header; its size is a
    # one-byte EBML integer (0x80 | length) in every writer we know of.
    at = head.find(_DOCTYPE, 4, 64)
    if at < 0 or at + 3 > len(head):
        return False
    size_byte = head[at + 2]
    if not size_byte & 0x80:
        return False
    length = size_byte & 0x7F
    value = head[at + 3:at + 3 + length]
    return len(value) == length and value.rstrip(b"\x00") == b"webm"


def _inspect(tree: Path, proof: Proof, limits: ProofLimits, *, keep: bool):
    """(status, size, sha256, detail, bytes when ``keep`` and present)."""
    parts = proof.dest.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "refused", None, None, f"{proof.dest!r} is not a plain relative path", None
    fds: list[int] = []
    try:
        try:
            fds.append(os.open(tree, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW))
        except FileNotFoundError:
            return "missing", None, None, "the run has no collected tree", None
        except OSError as exc:
            return "refused", None, None, f"the collected tree cannot be opened: {exc.strerror}", None
        for part in parts[:-1]:
            try:
                fds.append(os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fds[-1]))
            except FileNotFoundError:
                return "missing", None, None, "not written", None
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    return "refused", None, None, f"{part!r} on its path is a symlink or not a folder", None
                return "refused", None, None, f"{part!r} on its path cannot be opened: {exc.strerror}", None
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fds[-1])
        except FileNotFoundError:
            return "missing", None, None, "not written", None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return "refused", None, None, "a symlink (never followed)", None
            return "refused", None, None, f"cannot be opened: {exc.strerror}", None
        fds.append(fd)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            return "refused", None, None, what, None
        if st.st_size == 0:
            return "missing", 0, None, "an empty file", None
        if st.st_size > limits.max_bytes:
            return "refused", st.st_size, None, f"larger than {limits.max_bytes} bytes", None
        return _read(fd, proof, limits, keep)
    finally:
        for fd in reversed(fds):
            os.close(fd)


def _read(fd: int, proof: Proof, limits: ProofLimits, keep: bool):
    digest = hashlib.sha256()
    chunks: list[bytes] = []
    size = 0
    head = b""
    while True:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            break
        size += len(chunk)
        if size > limits.max_bytes:  # grew after fstat
            return "refused", size, None, f"larger than {limits.max_bytes} bytes", None
        if len(head) < _HEAD:
            head += chunk[:_HEAD - len(head)]
        digest.update(chunk)
        if keep:
            chunks.append(chunk)
    if not sniff(head, proof.kind):
        expected = "a PNG signature" if proof.kind == "image" else "a WebM (EBML) header"
        return "refused", size, None, f"its first bytes are not {expected}", None
    return "present", size, digest.hexdigest(), "", b"".join(chunks) if keep else None


__all__ = ["DEFAULT_MAX_PROOF_BYTES", "MEDIA_TYPES", "PROOF_STATUSES", "ProofLimits", "ProofRecord",
           "collect_proofs", "read_proof", "sniff"]
