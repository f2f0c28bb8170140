"""Builds: a controller's source tree -> ``build/wasm/<sha256>.wasm``.

Two paths, one record shape (``BuildRecord``, a row of ``builds``):

- ``build_run(settings, run_id)``: a submission. The run's collected tree
  (``results/runs/<run-id>/work/``) is untrusted, so the case's ``[build]``
  ``install`` then ``build`` run inside the ``test-cabinet-adversarial``
  image through the runtime, each bounded by ``BUILD_TIMEOUT_S`` (enforced
  in the container), and only the ``[build].module`` file is copied out.
- ``build_baseline(settings, case, name)``: a baseline shipped with the case
  (``[game].baselines/<name>/``) is trusted and built on the host with the
  same commands, ``python3``/``zig`` resolved from this interpreter.

Both lay the tree over the case's default workspace first (a baseline folder
holds only what differs from the starter workspace; a run's tree is complete
and simply wins), and both are cached by the digest of what was built:
``build/builds/<source-key>.json`` records the source digest, and a second
call with the same digest and the module present returns it unchanged.
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

from tcab.arena.engine import sha256_hex
from tcab.atomic import write_bytes, write_text
from tcab.errors import ArenaError
from tcab.settings import Settings

BUILD_TIMEOUT_S = 600
LOG_TAIL = 4000


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


def _tree_digest(*folders: Path | None, extra: str = "") -> str:
    from tcab.catalog import tree_digest

    parts = [tree_digest(f) if f is not None and f.is_dir() else "-" for f in folders]
    return sha256_hex(("\n".join(parts) + "\n" + extra).encode())


def _cached(settings: Settings, key: str, source_digest: str) -> BuildRecord | None:
    path = settings.build_dir / "builds" / f"{key}.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    if data.get("source_digest") != source_digest or data.get("status") != "ok":
        return None
    module = Path(data["module"]) if data.get("module") else None
    if module is None or not module.is_file() or sha256_hex(module.read_bytes()) != data.get("sha256"):
        return None
    return BuildRecord(**{**data, "module": module})


def _save(settings: Settings, key: str, record: BuildRecord) -> None:
    data = asdict(record)
    data["module"] = str(record.module) if record.module else None
    write_text(settings.build_dir / "builds" / f"{key}.json", json.dumps(data, indent=1, sort_keys=True))


def _store_module(settings: Settings, data: bytes) -> tuple[Path, str]:
    sha = sha256_hex(data)
    path = settings.build_dir / "wasm" / f"{sha}.wasm"
    if not path.is_file():
        write_bytes(path, data)
    return path, sha


def _tail(text: str) -> str:
    return text[-LOG_TAIL:]


def _case_build(case):
    build = case.build
    if build is None or not build.module:
        raise ArenaError(f"{case.manifest}: [build] with install, build and module is required to build controllers")
    return build


def build_baseline(settings: Settings, case, name: str) -> BuildRecord:
    """Build the baseline ``name`` of ``case`` on the host (trusted code).

    Raises ``ArenaError`` for a case without baselines or an unknown name.
    """
    from tcab.catalog import case_digest

    build = _case_build(case)
    if case.game is None or not case.game.baselines:
        raise ArenaError(f"{case.manifest}: [game].baselines is not set; no baseline {name!r}")
    root = case.path(case.game.baselines)
    known = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    if name not in known:
        raise ArenaError(f"baseline:{name}: unknown baseline of {case.ref} (known: {', '.join(known) or 'none'})")
    workspace = case.workspace_for(case.variant(None))
    ws = case.path(workspace) if workspace else None
    source = f"baseline:{case.slug}@{case.version}/{name}"
    key = f"baseline-{case.slug}-{case.version}-{name}"
    digest = _tree_digest(ws, root / name, extra=f"{build.install}\n{build.build}\n{build.module}")
    found = _cached(settings, key, digest)
    if found is not None:
        return found
    settings.tmp_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tcab-build-", dir=settings.tmp_dir) as tmp:
        tree = Path(tmp) / "work"
        if ws is not None and ws.is_dir():
            shutil.copytree(ws, tree, symlinks=True)
        shutil.copytree(root / name, tree, symlinks=True, dirs_exist_ok=True)
        status, log = _host_commands(tree, [build.install, build.build])
        module = tree / build.module
        path = sha = size = None
        if status == "ok":
            if module.is_file():
                data = module.read_bytes()
                path, sha = _store_module(settings, data)
                size = len(data)
            else:
                status, log = "failed", log + f"\n[build].module {build.module} was not produced"
    record = BuildRecord(source, case.slug, case.version, case_digest(case), status, path, sha, size,
                         _tail(log), digest, time.perf_counter() - started)
    if status == "ok":
        _save(settings, key, record)
    return record


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


MAX_MODULE_BYTES = 64 * 1024 * 1024


def build_run(settings: Settings, run_id: str, *, runtime: str = "docker",
              timeout_s: float = BUILD_TIMEOUT_S) -> BuildRecord:
    """Build the controller of run ``run_id`` inside the adversarial image.

    The outcome of the build (ok, failed, timed_out, or infrastructure when
    the engine itself failed) is data in the record. Raises ``ArenaError``
    for a run that does not exist, has no collected tree, or whose case is
    not adversarial.
    """
    from tcab.arena.resolve import resolve_case
    from tcab.catalog import case_digest
    from tcab.errors import RuntimeBackendError
    from tcab.runtime import ContainerSpec, ExecOptions, get_runtime, resolve_image

    run_dir = settings.runs_dir / run_id
    try:
        run = json.loads((run_dir / "run.json").read_text())
        subject = run["subject"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ArenaError(f"{run_dir / 'run.json'}: not a readable run record ({exc})") from exc
    tree = run_dir / run.get("artifact", {}).get("path", "work")
    if not tree.is_dir():
        raise ArenaError(f"{tree}: run {run_id} has no collected tree to build")
    case, _, _ = resolve_case(settings, f"{subject['case']}@{subject['version']}", subject.get("variant"))
    build = _case_build(case)
    digest = _tree_digest(tree, extra=f"{build.install}\n{build.build}\n{build.module}")
    key = f"run-{run_id}"
    found = _cached(settings, key, digest)
    if found is not None:
        return found
    started = time.perf_counter()
    log: list[str] = []
    status, path, sha, size, image_ref, image_digest = "infrastructure", None, None, None, None, None
    try:
        rt = get_runtime(runtime)
        image = rt.ensure_image(resolve_image("adversarial"))
        image_ref, image_digest = image.ref, image.digest
        cid = rt.start(ContainerSpec(image=image.ref, run_id=f"build-{run_id}",
                                     memory_bytes=4 * 1024**3, pids_limit=1024))
        try:
            rt.copy_in(cid, tree)
            status = "ok"
            for command in (build.install, build.build):
                log.append(f"$ {command}")
                res = rt.exec(cid, ["sh", "-c", command], ExecOptions(timeout_s=timeout_s, idle_timeout_s=timeout_s))
                log.append(res.output)
                if res.end != "exited":
                    status = "timed_out"
                    log.append(f"{res.end} after {res.duration_s:.0f}s (limit {timeout_s:.0f}s)")
                    break
                if res.exit_code != 0:
                    status = "failed"
                    log.append(f"exit code {res.exit_code}")
                    break
            if status == "ok":
                data = _read_module(rt, cid, build.module)
                if data is None:
                    status = "failed"
                    log.append(f"[build].module {build.module} was not produced (or is not a regular file "
                               f"under {MAX_MODULE_BYTES} bytes)")
                else:
                    path, sha = _store_module(settings, data)
                    size = len(data)
        finally:
            rt.remove(cid)
    except RuntimeBackendError as exc:
        status = "infrastructure"
        log.append(f"runtime: {exc}")
    record = BuildRecord(run_id, case.slug, case.version, case_digest(case), status, path, sha, size,
                         _tail("\n".join(log)), digest, time.perf_counter() - started,
                         image_ref, image_digest)
    if status == "ok":
        _save(settings, key, record)
    return record


def _read_module(rt, cid: str, module: str) -> bytes | None:
    """The module file from the container: one regular file, size-capped.
    Only the bytes are taken; nothing the build wrote touches the host tree."""
    import tarfile

    from tcab.errors import RuntimeBackendError

    try:
        stream = rt.open_archive(cid, f"/work/{module}")
    except RuntimeBackendError:
        return None
    with stream, tarfile.open(fileobj=stream, mode="r|") as tar:
        for member in tar:
            if member.isfile() and member.size <= MAX_MODULE_BYTES:
                fh = tar.extractfile(member)
                return fh.read() if fh is not None else None
            return None
    return None
