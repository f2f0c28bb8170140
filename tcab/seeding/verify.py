"""``tcab catalog validate`` over a whole catalog: every version checked in
full, in parallel, with the result of each cached by its content.

It lives in seeding, not in the catalog: the deep check seeds, and the
catalog sits below seeding (tests/core/test_import_graph.py).

Each version folder is parsed (manifest, variants, paths) and deep-checked
(``tcab.seeding.check_case``: seeding plan and prompt of every variant). The
outcome (its slug, its variant count, its problems) is cached per version
folder under ``build/catalog-validate.json`` with the folder's content digest
(``tcab.catalog.digest``) and a stat fingerprint of its files (path, type,
size, mtime, ctime, inode, in the manner of git's index): an unchanged
fingerprint reuses the result without reading a file; a changed one is
re-digested, and the same digest still reuses it. The whole cache is dropped
when tcab's catalog, seeding or template code changes. The cache is written
atomically, also when the check is interrupted, so a second run resumes.

Cross-version checks (one slug per case folder, one folder per slug) run
after, on the cached slugs.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from tcab import __version__
from tcab.catalog.digest import tree_digest
from tcab.catalog.fields import show
from tcab.catalog.loader import case_folders, check_slug, version_dirs
from tcab.catalog.model import PACKAGES_FOLDER
from tcab.catalog.toml import display_path
from tcab.catalog.typetable import extra_types
from tcab.errors import Problem

CACHE_FORMAT = 1
_CODE = ("catalog", "seeding", "templates", "testtypes")  # the code a cached verdict depends on
CHUNK = 32  # versions per worker task: amortizes the process round trip


@dataclass(frozen=True, slots=True)
class CatalogVerdict:
    """The outcome of checking a catalog."""

    versions: int
    variants: int
    problems: list[Problem]
    checked: int      # versions checked now (the others came from the cache)
    total: int = 0    # version folders found


def validator_id() -> str:
    """Identifies the code that produced cached verdicts: tcab's version, the
    source of the catalog, seeding, template and test-type packages, and of
    the types ``TCAB_TEST_TYPES`` adds."""
    h = hashlib.sha256(f"{CACHE_FORMAT}/{__version__}".encode())
    base = Path(__file__).resolve().parents[1]
    for part in _CODE:
        for path in sorted((base / part).glob("*.py")):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    # The types TCAB_TEST_TYPES adds parse manifests too: their entries and source.
    for name, target in extra_types().items():
        h.update(f"{name}={target}".encode())
        origin = _origin(target.partition(":")[0])
        if origin is not None:
            h.update(origin.read_bytes())
    return h.hexdigest()


def _origin(module: str) -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec is not None and spec.origin and Path(spec.origin).is_file() else None


def stat_fingerprint(root: Path) -> str:
    """A hash of every entry's (path, mode, size, mtime, ctime, inode) below ``root``,
    skipping what the content digest skips (``__pycache__``, ``*.pyc``)."""
    h = hashlib.blake2b(digest_size=20)
    stack = [(str(root), "")]
    while stack:
        path, rel = stack.pop()
        with os.scandir(path) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            if e.name == "__pycache__" or e.name.endswith(".pyc"):
                continue
            st = e.stat(follow_symlinks=False)
            name = f"{rel}/{e.name}"
            h.update(f"{name}\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0"
                     f"{st.st_ino}\n".encode("utf-8", "surrogateescape"))
            if e.is_dir(follow_symlinks=False):
                stack.append((e.path, name))
    return h.hexdigest()


def _absolute(p: Problem) -> dict:
    return {"path": os.path.abspath(p.path), "message": p.message, "key": p.key, "line": p.line}


def _shown(d: dict) -> Problem:
    return Problem(display_path(Path(d["path"])), d["message"], key=d["key"], line=d["line"])


def check_version(vdir: str, case_type: str, difficulty: str) -> dict:
    """Parse and deep-check one version folder; the JSON-ready verdict."""
    from tcab.catalog.manifest import parse_manifest
    from tcab.seeding import check_case

    root = Path(vdir)
    case, problems = parse_manifest(root, case_type, difficulty, root.name)
    if case is not None:
        problems = problems + check_case(case)
    return {"slug": case.slug if case else None, "variants": len(case.variants) if case else 0,
            "problems": [_absolute(p) for p in problems]}


def _checked(vdir: str, case_type: str, difficulty: str, fingerprint: bool) -> dict:
    """``check_version`` and, for the cache, the folder's fingerprint and digest,
    taken after the check (an edit during it makes the next run check again).
    Done where the check ran: in the parent they made it the bottleneck of ``-j``."""
    verdict = check_version(vdir, case_type, difficulty)
    if fingerprint:
        verdict = {**verdict, "stat": stat_fingerprint(Path(vdir)), "digest": tree_digest(vdir)}
    return verdict


def _check_chunk(chunk: list[tuple[str, str, str]], fingerprint: bool) -> list[tuple[str, dict]]:
    return [(vdir, _checked(vdir, t, d, fingerprint)) for vdir, t, d in chunk]


def _layout(root: Path, problems: list[Problem]) -> list[tuple[Path, str, str, Path]]:
    """(case folder, type, difficulty, version folder) of every version."""
    return [(cdir, case_type, difficulty, vdir)
            for cdir, case_type, difficulty in case_folders(root, problems)
            for vdir in version_dirs(cdir, problems)]


def _load_cache(path: Path | None, validator: str) -> dict:
    if path is None:
        return {}
    try:
        import orjson

        doc = orjson.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}  # absent or damaged: start over
    if not isinstance(doc, dict) or doc.get("validator") != validator or not isinstance(doc.get("versions"), dict):
        return {}
    return doc["versions"]


def _save_cache(path: Path, validator: str, versions: dict) -> None:
    import orjson

    from tcab.atomic import write_bytes

    write_bytes(path, orjson.dumps({"validator": validator, "versions": versions}))


def verify_catalog(root: Path | str, *, cache: Path | None = None, jobs: int = 1,
                   on_progress: Callable[[int, int], None] | None = None) -> CatalogVerdict:
    """Check every version folder under ``root``; ``cache`` is the cache file
    (None: no cache); ``on_progress(done, total)`` after each version."""
    root = Path(root).resolve()
    problems: list[Problem] = []
    if not root.is_dir():
        return CatalogVerdict(0, 0, [Problem(display_path(root), "catalog folder not found")], 0)
    layout = _layout(root, problems)
    validator = validator_id() if cache is not None else ""
    if cache is not None and (root / PACKAGES_FOLDER).is_dir():
        # A case's verdict depends on the shared packages it names: any change
        # under <catalog>/packages/ drops the cached verdicts (rare, and safe).
        validator += "+packages:" + stat_fingerprint(root / PACKAGES_FOLDER)
    cached = _load_cache(cache, validator)
    fresh: dict[str, dict] = {}
    todo: list[tuple[str, str, str]] = []
    done = 0
    total = len(layout)
    for _, case_type, difficulty, vdir in layout:
        key = str(vdir)
        entry = cached.get(key)
        if entry is not None:
            fingerprint = stat_fingerprint(vdir)
            if entry.get("stat") != fingerprint:
                digest = tree_digest(vdir)
                entry = {**entry, "stat": fingerprint} if entry.get("digest") == digest else None
            if entry is not None:
                fresh[key] = entry
                done += 1
                if on_progress:
                    on_progress(done, total)
                continue
        todo.append((key, case_type, difficulty))
    try:
        for vdir, verdict in _run(todo, jobs, fingerprint=cache is not None):
            fresh[vdir] = verdict
            done += 1
            if on_progress:
                on_progress(done, total)
    finally:
        if cache is not None:
            _save_cache(cache, validator, {**cached, **fresh})
    return _assemble(layout, fresh, problems, checked=len(todo))


def _run(todo: list[tuple[str, str, str]], jobs: int, *, fingerprint: bool):
    if jobs <= 1 or len(todo) <= CHUNK:
        for vdir, t, d in todo:
            yield vdir, _checked(vdir, t, d, fingerprint)
        return
    chunks = [todo[i:i + CHUNK] for i in range(0, len(todo), CHUNK)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_check_chunk, c, fingerprint) for c in chunks]
        try:
            for future in as_completed(futures):
                yield from future.result()
        except BaseException:
            for f in futures:
                f.cancel()
            raise


def _assemble(layout, verdicts: dict[str, dict], problems: list[Problem], *, checked: int) -> CatalogVerdict:
    owner: dict[str, Path] = {}
    versions = variants = 0
    slugs: dict[Path, dict[str, str]] = {}
    for cdir, _, _, vdir in layout:
        verdict = verdicts[str(vdir)]
        problems.extend(_shown(p) for p in verdict["problems"])
        slug = verdict["slug"]
        if slug is None:  # did not parse; its problems say why
            continue
        where = display_path(vdir / "test-case.toml")
        if not check_slug(slug, vdir.name, where, slugs.setdefault(cdir, {}), problems):
            continue
        other = owner.setdefault(slug, cdir)
        if other != cdir:
            problems.append(Problem(where, f"{show(slug)} is also the slug of {display_path(other)}", key="slug"))
            continue
        versions += 1
        variants += verdict["variants"]
    return CatalogVerdict(versions, variants, problems, checked, len(layout))
