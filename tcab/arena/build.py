"""Builds: a controller's source tree -> ``build/wasm/<sha256>.wasm``.

Two paths, one record shape (``BuildRecord``, a row of ``builds``):

- ``build_run(settings, case, run)``: a submission. The run's collected tree
  (``results/runs/<run-id>/work/``) is untrusted, so the case's ``[build]``
  ``install`` then ``build`` run inside the ``test-cabinet-adversarial``
  image, or the build image of the case's type (performance engines too;
  :func:`tcab.runtime.build_in_container`), each bounded by
  ``timeout_s`` (default ``BUILD_TIMEOUT_S``, enforced in the container),
  and only the ``[build].module`` file is read out.
- ``build_baseline(settings, case, name)``: a baseline shipped with the case
  (``[game].baselines/<name>/``) is trusted and built on the host with the
  same commands, ``python3``/``zig`` resolved from this interpreter.

Both lay the tree over the case's default workspace first (a baseline folder
holds only what differs from the starter workspace; a run's tree is complete
and simply wins), and both are cached by the module's key
(:mod:`tcab.artifacts`, the key a sweep's ``build`` task holds too): a run's
tree, the recipe and the adversarial image's digest; a baseline's folder,
the workspace under it and the recipe. ``build/builds/<source>.json``
records the key's digest, and a second call with the same key and the
module present returns it unchanged.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from tcab.arena.engine import MAX_MODULE_BYTES, sha256_hex
from tcab.artifacts import (
    baseline_module_key,
    baseline_workspace,
    key_digest,
    run_module_key,
    run_tree,
)
from tcab.atomic import write_cache_bytes
from tcab.catalog import Build, CaseVersion, case_digest
from tcab.errors import ArenaError, RuntimeBackendError
from tcab.reading import read_bytes
from tcab.runs.record import RunRecord
from tcab.runtime import (
    BuildLimits,
    ImageInfo,
    Runtime,
    build_in_container,
    resolve_image,
)
from tcab.runtime.build import BUILD_LOG_TAIL, BUILD_TIMEOUT_S
from tcab.runtime.choice import RuntimeChoice, open_runtime
from tcab.runtime.choice import image_digest as digest_on
from tcab.settings import Settings


@dataclass(frozen=True, slots=True)
class BuildRecord:
    source: str
    case_slug: str
    case_version: str
    case_digest: str
    status: str                 # ok | failed | timed_out | infrastructure
    module: Path | None
    sha256: str | None
    size: int | None
    log_excerpt: str
    source_digest: str
    duration_s: float
    image: str | None = None
    image_digest: str | None = None

    def row(self) -> dict:
        """The ``builds`` row (docs/results.md)."""
        return {
            "source": self.source, "case_slug": self.case_slug, "case_version": self.case_version,
            "case_digest": self.case_digest, "status": self.status, "module_sha256": self.sha256,
            "module_size": self.size, "log_excerpt": self.log_excerpt, "image": self.image,
            "image_digest": self.image_digest, "source_digest": self.source_digest,
            "duration_s": round(self.duration_s, 3),
            "built_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }


#: The largest build record read back from build/builds/ (one is under 8 KiB: the log tail is bounded).
MAX_RECORD_BYTES = 1024 * 1024


def _module_ok(path: Path, sha: object) -> bool:
    """Whether ``path`` is a regular file (not a link) whose bytes have digest ``sha``."""
    try:
        data = read_bytes(path, MAX_MODULE_BYTES, follow=False, what="module")
    except OSError:
        return False
    return sha256_hex(data) == sha


def _cached(settings: Settings, key: str, source_digest: str) -> BuildRecord | None:
    """The stored record of ``key`` when it is whole and its own; a restored build/
    is input, so the record is read bounded and never through a link, its
    module must be ``build/wasm/<sha256>.wasm`` and still have that digest."""
    path = settings.build_dir / "builds" / f"{key}.json"
    try:
        data = json.loads(read_bytes(path, MAX_RECORD_BYTES, follow=False, what="build record"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("source_digest") != source_digest or data.get("status") != "ok":
        return None
    sha = data.get("sha256")
    module = settings.build_dir / "wasm" / f"{sha}.wasm"
    if not isinstance(sha, str) or len(sha) != 64 or data.get("module") != str(module) \
            or not _module_ok(module, sha):
        return None
    try:
        record = BuildRecord(**{**data, "module": module})
    except TypeError:  # keys a record does not have, or missing ones
        return None
    return record


def _save(settings: Settings, key: str, record: BuildRecord) -> None:
    data = asdict(record)
    data["module"] = str(record.module) if record.module else None
    write_cache_bytes(settings.build_dir / "builds" / f"{key}.json",
                      json.dumps(data, indent=1, sort_keys=True).encode())


def _store_module(settings: Settings, data: bytes) -> tuple[Path, str]:
    sha = sha256_hex(data)
    path = settings.build_dir / "wasm" / f"{sha}.wasm"
    if not _module_ok(path, sha):  # absent, or forged: a link, a FIFO, other bytes
        write_cache_bytes(path, data)
    return path, sha


def _tail(text: str) -> str:
    return text[-BUILD_LOG_TAIL:]


def _case_build(case: CaseVersion) -> Build:
    build = case.build
    if build is None or not build.module:
        raise ArenaError(f"{case.manifest}: [build] with install, build and module is required to build controllers")
    return build


# ---- baselines: trusted, on the host

def _baseline_dir(case: CaseVersion, name: str) -> Path:
    if case.section.game is None or not case.section.game.baselines:
        raise ArenaError(f"{case.manifest}: [game].baselines is not set; no baseline {name!r}")
    root = case.path(case.section.game.baselines)
    known = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    if name not in known:
        raise ArenaError(f"baseline:{name}: unknown baseline of {case.ref} (known: {', '.join(known) or 'none'})")
    return root / name


def build_baseline(settings: Settings, case: CaseVersion, name: str) -> BuildRecord:
    """Build the baseline ``name`` of ``case`` on the host (trusted code).

    Raises ``ArenaError`` for a case without baselines or an unknown name.
    """
    build = _case_build(case)
    source_dir = _baseline_dir(case, name)
    workspace = baseline_workspace(case)
    ws = case.path(workspace) if workspace else None
    key = f"baseline-{case.slug}-{case.version}-{name}"
    digest = key_digest(baseline_module_key(case, name))
    found = _cached(settings, key, digest)
    if found is not None:
        return found
    started = time.perf_counter()
    status, log, data = _host_build(settings, ws, source_dir, build)
    path, sha = _store_module(settings, data) if data is not None else (None, None)
    record = BuildRecord(f"baseline:{case.ref}/{name}", case.slug, case.version, case_digest(case), status,
                         path, sha, None if data is None else len(data), _tail(log), digest,
                         time.perf_counter() - started)
    if status == "ok":
        _save(settings, key, record)
    return record


def _host_build(settings: Settings, ws: Path | None, source_dir: Path, build: Build) -> tuple[str, str, bytes | None]:
    """(status, log, module bytes when ok) of the baseline laid over the workspace."""
    settings.tmp_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tcab-build-", dir=settings.tmp_dir) as tmp:
        tree = Path(tmp) / "work"
        if ws is not None and ws.is_dir():
            shutil.copytree(ws, tree, symlinks=True)
        shutil.copytree(source_dir, tree, symlinks=True, dirs_exist_ok=True)
        status, log = _host_commands(tree, [build.install, build.build])
        if status != "ok":
            return status, log, None
        module = tree / build.module
        if not module.is_file():
            return "failed", log + f"\n[build].module {build.module} was not produced", None
        return "ok", log, module.read_bytes()


def _host_commands(tree: Path, commands: list[str]) -> tuple[str, str]:
    # `python3` and `zig` must mean this interpreter and its ziglang wheel.
    shim = tree.parent / "bin"
    shim.mkdir(exist_ok=True)
    (shim / "python3").symlink_to(sys.executable)
    zig = shim / "zig"
    zig.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ziglang "$@"\n')
    zig.chmod(0o755)
    env = {**os.environ, "PATH": f"{shim}{os.pathsep}{os.environ.get('PATH', '')}"}
    log = []
    for command in commands:
        if not command:
            continue
        log.append(f"$ {command}")
        try:
            proc = subprocess.run(["sh", "-c", command], cwd=tree, env=env, capture_output=True,
                                  text=True, timeout=BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired as exc:
            log.append(_tail(str(exc.stdout or "") + str(exc.stderr or "")))
            return "timed_out", "\n".join(log)
        log.append(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            log.append(f"exit code {proc.returncode}")
            return "failed", "\n".join(log)
    return "ok", "\n".join(log)


# ---- runs: untrusted, in a container

def _check_run(case: CaseVersion, run: RunRecord) -> None:
    if (run.case_slug, run.case_version) != (case.slug, case.version):
        raise ArenaError(f"run {run.id} is a run of {run.case_slug}@{run.case_version}, not of {case.ref}")
    if case.test_type.build.dest != "module" or case.test_type.build_image is None:
        raise ArenaError(f"{case.manifest}: {case.slug} is a {case.type} case; only the runs of types "
                         f"that build a wasm module (adversarial, performance) are built; "
                         f"{case.test_type.evaluate_hint(run.id)}")
    if not run.has_tree():
        raise ArenaError(f"{run.tree}: run {run.id} has no collected tree to build")


def build_run(settings: Settings, case: CaseVersion, run: RunRecord, *,
              runtime: str | RuntimeChoice | Runtime = "docker", timeout_s: float = BUILD_TIMEOUT_S,
              image_digest: str | None = None) -> BuildRecord:
    """Build the module of ``run`` (a run of ``case``) inside its type's build image.

    ``runtime`` is a backend name, a :class:`~tcab.runtime.choice.RuntimeChoice`
    (a sweep's: the plan's) or a ``Runtime``. ``image_digest`` is the
    adversarial image's digest when the caller already knows it (a sweep's
    task key holds it); else it is asked of the runtime. The outcome of the
    build (ok, failed, timed_out, or infrastructure when the engine itself
    failed) is data in the record. Raises ``ArenaError`` for a run of
    another case, a case that is not adversarial or has no
    ``[build].module``, or a run without a collected tree.
    """
    _check_run(case, run)
    build = _case_build(case)
    limits = BuildLimits(timeout_s=timeout_s)
    key = f"run-{run.id}"
    started = time.perf_counter()
    try:
        rt = open_runtime(runtime, max_runtime_s=limits.lifetime_s())
        image = rt.ensure_image(resolve_image(case.test_type.build_image))
        if image_digest is None:
            image = image if image.digest else digest_on(rt, image.ref)
            image_digest = image.digest
    except RuntimeBackendError as exc:
        return BuildRecord(run.id, case.slug, case.version, case_digest(case), "infrastructure", None, None, None,
                           _tail(f"runtime: {exc}"), "", time.perf_counter() - started)
    digest = key_digest(run_module_key(case, run_tree(run.artifact_digest, run.id), image_digest))
    found = _cached(settings, key, digest)
    if found is not None:
        return found
    started = time.perf_counter()
    status, log, data = _container_build(rt, image, run, build, limits)
    path, sha = _store_module(settings, data) if data is not None else (None, None)
    record = BuildRecord(run.id, case.slug, case.version, case_digest(case), status, path, sha,
                         None if data is None else len(data), log, digest, time.perf_counter() - started,
                         image.ref, image_digest)
    if status == "ok":
        _save(settings, key, record)
    return record


def _container_build(rt: Runtime, image: ImageInfo, run: RunRecord, build: Build,
                     limits: BuildLimits) -> tuple[str, str, bytes | None]:
    """(status, log tail, module bytes when ok) of the run's tree built in a container of ``image``."""
    try:
        steps = [("install", build.install), ("build", build.build)]
        with build_in_container(rt, image, run.tree, steps, name=f"build-{run.id}", limits=limits) as box:
            if box.failure is not None:
                return ("timed_out" if box.failure.killed else "failed"), box.log, None
            data = box.read_file(build.module, MAX_MODULE_BYTES)
            if data is None:
                box.note(f"[build].module {build.module} was not produced (or is not a regular file "
                         f"under {MAX_MODULE_BYTES} bytes)")
                return "failed", box.log, None
            return "ok", box.log, data
    except RuntimeBackendError as exc:
        return "infrastructure", _tail(f"runtime: {exc}"), None
