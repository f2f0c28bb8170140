"""Build a run's collected tree in a fresh end-to-end container and copy out
the case's ``[build].output`` folder.

The tree is untrusted, so nothing of it runs on the host: it is copied into
a ``test-cabinet-base-wasm`` container, the case's ``install`` then ``build``
run there as the run user, each bounded in the container, and only the
output folder comes back through the runtime's safe collection (symlinks out,
devices and oversized trees refused). The container is always removed.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from tcab.runtime import CollectLimits, ContainerSpec, ExecOptions, Runtime, resolve_image
from tcab.validation.record import Check

LOG_TAIL = 4000


@dataclass(frozen=True, slots=True)
class BuiltSite:
    """What the container produced: the checks so far, the log, and the
    output folder on the host (None when the build or the output failed)."""

    checks: tuple[Check, ...]
    log: str
    output: Path | None
    image_digest: str


def build_site(rt: Runtime, tree: Path, build, dest: Path, *, container_name: str,
               timeout_s: float, limits: CollectLimits) -> BuiltSite:
    """Run ``build.install`` and ``build.build`` over ``tree`` in a container;
    copy ``build.output`` to ``dest`` (which must not exist).

    A failed or timed-out command and a missing output are checks that fail;
    raises ``RuntimeBackendError`` when the engine itself fails.
    """
    image = rt.ensure_image(resolve_image("end-to-end"))
    log: list[str] = []
    checks: list[Check] = []
    cid = rt.start(ContainerSpec(image=image.ref, run_id=container_name,
                                 memory_bytes=4 * 1024**3, pids_limit=1024))
    try:
        rt.copy_in(cid, tree)
        for name, command in (("install", build.install), ("build", build.build)):
            if not command:
                continue
            log.append(f"$ {command}")
            res = rt.exec(cid, ["sh", "-c", command], ExecOptions(timeout_s=timeout_s, idle_timeout_s=timeout_s))
            log.append(res.output)
            if res.end != "exited":
                detail = f"[build].{name} `{command}` {res.end} after {res.duration_s:.0f}s (limit {timeout_s:.0f}s)"
            elif res.exit_code != 0:
                detail = f"[build].{name} `{command}` exited {res.exit_code}"
            else:
                checks.append(Check(name, True, f"`{command}` exited 0"))
                continue
            log.append(detail)
            checks.append(Check(name, False, detail))
            return BuiltSite(tuple(checks), _tail(log), None, image.digest)
        folder = f"/work/{build.output}"
        probe = rt.exec(cid, ["sh", "-c", f"test -d {shlex.quote(folder)}"], ExecOptions(timeout_s=30))
        if probe.exit_code != 0:
            detail = f"[build].output {build.output}/ was not produced by the build"
            checks.append(Check("output", False, detail))
            log.append(detail)
            return BuiltSite(tuple(checks), _tail(log), None, image.digest)
        report = rt.copy_out(cid, folder, dest, limits)
        if report.truncated or not dest.is_dir():
            detail = (f"[build].output {build.output}/ refused: over the collection limit "
                      f"({limits.max_bytes} bytes, {limits.max_entries} entries)")
            checks.append(Check("output", False, detail))
            return BuiltSite(tuple(checks), _tail(log), None, image.digest)
        refused = "; ".join(f"{r.path}: {r.reason}" for r in report.refused[:5])
        checks.append(Check("output", True, f"{report.files} files, {report.bytes} bytes"
                            + (f"; refused {refused}" if refused else "")))
        return BuiltSite(tuple(checks), _tail(log), dest, image.digest)
    finally:
        rt.remove(cid)


def _tail(log: list[str]) -> str:
    return "\n".join(log)[-LOG_TAIL:]
