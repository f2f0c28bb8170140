"""Build a run's collected tree in a fresh end-to-end container and copy out
the case's ``[build].output`` folder.

The tree is untrusted, so nothing of it runs on the host: it is built by
:func:`tcab.runtime.build_in_container` in a ``test-cabinet-base-wasm``
container (the case's ``install`` then ``build``, as the run user, each
bounded in the container), and only the output folder comes back through the
runtime's safe collection (symlinks out, devices and oversized trees
refused). The container is always removed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tcab.catalog import Build
from tcab.catalog.model import Toolchain, site_output_candidates
from tcab.runs.secrets import Redactor
from tcab.runtime import (
    WORKDIR,
    BuildLimits,
    BuildStep,
    CollectLimits,
    ContainerBuild,
    ExecEnd,
    ExecOptions,
    Runtime,
    build_in_container,
    resolve_image,
)
from tcab.validation.record import Check
from tcab.validation.toolchain import ToolchainLimits, ToolResult, run_toolchain

PROBE_TIMEOUT_S = 30.0  # one `test -d` in the build container


@dataclass(frozen=True, slots=True)
class BuiltSite:
    """What the container produced: the checks so far, the log, and the
    output folder on the host (None when the build or the output failed)."""

    checks: tuple[Check, ...]
    log: str
    output: Path | None
    image_digest: str
    toolchain: tuple[ToolResult, ...] = ()   # the case's [toolchain] commands, when it has any


def build_site(rt: Runtime, tree: Path, build: Build, dest: Path, *, container_name: str,
               limits: BuildLimits, collect: CollectLimits, toolchain: Toolchain | None = None,
               toolchain_limits: ToolchainLimits | None = None, redactor: Redactor | None = None) -> BuiltSite:
    """Run ``build.install`` and ``build.build`` over ``tree`` in a container;
    copy ``build.output`` (or, when the case names none, the first of
    ``dist/``, ``build/``, ``out/`` that the build produced) to ``dest``
    (which must not exist).

    Then, in the same container, the ``toolchain`` commands run over the
    built tree (:func:`~tcab.validation.toolchain.run_toolchain`), after the
    output is copied out so nothing they write reaches the site.

    A failed or timed-out command and a missing output are checks that fail;
    raises ``RuntimeBackendError`` when the engine itself fails.
    """
    image = rt.ensure_image(resolve_image("base-wasm"))
    steps = [("install", build.install), ("build", build.build)]
    with build_in_container(rt, image, tree, steps, name=container_name, limits=limits) as box:
        checks = [_step_check(step) for step in box.steps]
        output = None
        if box.ok:
            check, output = _collect_output(box, _pick_output(box, build), dest, collect)
            checks.append(check)
        tools = ()
        if toolchain is not None:
            tools = run_toolchain(box, toolchain, toolchain_limits or ToolchainLimits(), redactor)
        return BuiltSite(tuple(checks), box.log, output, image.digest, tools)


def _step_check(step: BuildStep) -> Check:
    command = f"[build].{step.name} `{step.command}`"
    if step.ok:
        return Check(step.name, True, f"`{step.command}` exited 0")
    if step.killed:
        return Check(step.name, False, f"{command} {step.why}")
    return Check(step.name, False, f"{command} exited {step.result.exit_code}")


def _is_real_dir(box: ContainerBuild, rel: str) -> bool:
    """A folder at ``/work/<rel>`` that is not a symlink (a link could lead out)."""
    probe = box.rt.exec(box.container, ["sh", "-c", 'test -d "$1" && ! test -L "$1"', "sh", f"{WORKDIR}/{rel}"],
                        ExecOptions(timeout_s=PROBE_TIMEOUT_S))
    return probe.end is ExecEnd.EXITED and probe.exit_code == 0


def _pick_output(box: ContainerBuild, build: Build) -> str | None:
    """The case's ``output``, or the first of dist/, build/, out/ that is a real folder."""
    if build.output:
        return build.output
    return next((c for c in site_output_candidates(build) if _is_real_dir(box, c)), None)


def _collect_output(box: ContainerBuild, folder: str | None, dest: Path,
                    collect: CollectLimits) -> tuple[Check, Path | None]:
    if folder is None:
        detail = "the build produced none of dist/, build/, out/ (as a folder, not a link)"
        box.note(detail)
        return Check("output", False, detail), None
    if not box.is_dir(folder):
        detail = f"[build].output {folder}/ was not produced by the build"
        box.note(detail)
        return Check("output", False, detail), None
    report = box.copy_out(folder, dest, collect)
    if report.truncated or not dest.is_dir():
        return Check("output", False, f"[build].output {folder}/ refused: over the collection limit "
                                      f"({collect.max_bytes} bytes, {collect.max_entries} entries)"), None
    refused = "; ".join(f"{r.path}: {r.reason}" for r in report.refused[:5])
    return Check("output", True, f"{report.files} files, {report.bytes} bytes"
                 + (f"; refused {refused}" if refused else "")), dest
