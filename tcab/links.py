"""Resolving the symlinks of a collected tree *physically*, inside the tree.

A lexical check (``normpath``) cannot know that a component of a target is
itself a link: ``esc -> d1/.../d12/l/../../..`` looks inside the tree, yet
``l -> ../../..`` turns it into the host's ``/``. So every link is resolved
component by component against the tree as it stands on disk (``lstat``
and ``readlink`` only, never ``open``), following each link it meets, the
way the kernel would, but with the tree's root as a wall:

- a ``..`` above the root, or an absolute target anywhere in the chain, is
  an escape;
- a component that is missing or not a folder *before* the last one makes
  the link refused (the kernel would fail there; refusing keeps the rule
  simple: a kept link resolves to something inside the tree, or to a
  missing last name inside an existing folder of the tree);
- more than ``MAX_HOPS`` links in one resolution (the kernel's own
  MAXSYMLINKS) or a loop is refused.

Nothing outside ``root`` is ever looked at: a path is only ``lstat``-ed
after every component before it was found to be a real folder inside it.
"""

from __future__ import annotations

import errno
import os
import stat

#: Links followed in one resolution before giving up (Linux's MAXSYMLINKS).
MAX_HOPS = 40

_Parts = tuple[str, ...]


class LinkRefused(Exception):
    """Why one symlink is not kept (the message is the listed reason)."""


class _TooDeep(LinkRefused):
    """More than MAX_HOPS nested links; not memoized (depends on the caller)."""


class LinkResolver:
    """Resolves the symlinks under ``root``; results are memoized per link,
    so a tree of many links costs about one pass over their targets.
    ``budget`` bounds the components walked in total (hostile trees can
    make every target long); past it every further link is refused."""

    def __init__(self, root: str, budget: int):
        self._root = root
        self._budget = budget
        self._modes: dict[_Parts, int | None] = {}
        self._done: dict[_Parts, _Parts | LinkRefused] = {}
        self._active: set[_Parts] = set()

    def check(self, rel: str) -> None:
        """Raise LinkRefused when the symlink at ``rel`` must not be kept."""
        result = self._link(tuple(rel.split("/")), 0)
        if isinstance(result, LinkRefused):
            raise result

    def _mode(self, parts: _Parts) -> int | None:
        if parts not in self._modes:
            try:
                self._modes[parts] = os.lstat(os.path.join(self._root, *parts)).st_mode
            except OSError as exc:
                if exc.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG):
                    raise
                self._modes[parts] = None
        return self._modes[parts]

    def _link(self, parts: _Parts, depth: int) -> _Parts | LinkRefused:
        if parts in self._done:
            return self._done[parts]
        if parts in self._active:
            return LinkRefused("symlink loop")
        if depth >= MAX_HOPS:
            return _TooDeep(f"symlink chain longer than {MAX_HOPS} links")
        self._active.add(parts)
        try:
            target = os.readlink(os.path.join(self._root, *parts))
            result = self._resolve(parts[:-1], target, depth + 1)
        except LinkRefused as exc:
            result = exc
        finally:
            self._active.discard(parts)
        if not isinstance(result, _TooDeep):
            self._done[parts] = result
        return result

    def _resolve(self, base: _Parts, target: str, depth: int) -> _Parts:
        if target.startswith("/"):
            raise LinkRefused(f"symlink leads outside the tree ({target})")
        names = [n for n in target.split("/") if n not in ("", ".")]
        cur: list[str] = list(base)
        for i, name in enumerate(names):
            self._budget -= 1
            if self._budget < 0:
                raise LinkRefused("symlink not checked: the tree's symlink budget is spent")
            last = i == len(names) - 1
            if name == "..":
                if not cur:
                    raise LinkRefused(f"symlink leads outside the tree ({target})")
                cur.pop()
                continue
            here = (*cur, name)
            mode = self._mode(here)
            if mode is None:
                if last:
                    return here  # a dangling name inside an existing folder: harmless
                raise LinkRefused(f"symlink passes through a missing entry ({target})")
            if stat.S_ISLNK(mode):
                found = self._link(here, depth)
                if isinstance(found, LinkRefused):
                    raise found
                if not last and self._mode(found) is None and found:
                    raise LinkRefused(f"symlink passes through a missing entry ({target})")
                cur = list(found)
            elif stat.S_ISDIR(mode) or last:
                cur.append(name)
            else:
                raise LinkRefused(f"symlink passes through a file as a folder ({target})")
        return tuple(cur)
