"""Drift check: does each harness definition still match its CLI?

For one harness: start a fresh run container, run the definition's install
line as the run user, ask ``<binary> <version_args>``, read the CLI's
``--help`` (of the subcommand when ``args`` starts with one, e.g. ``codex
exec``) and check that every flag of ``args`` and ``model_args`` appears in
it as a whole word. The container is always removed. A harness with no
install line (``reference``) has no CLI to drift and is skipped.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

from tcab.errors import RuntimeBackendError
from tcab.harnesses.definition import Harness
from tcab.harnesses.events import strip_ansi
from tcab.runtime import ContainerSpec, ExecOptions, Runtime

#: default bound of one install, seconds (npm/pip over a slow mirror).
DEFAULT_INSTALL_TIMEOUT_S = 900.0
_PROBE_TIMEOUT_S = 120.0


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What the check found for one harness; ``ok`` is False on any drift or failure."""

    slug: str
    status: str  # ok | drift | failed | skipped
    version: str = ""
    missing: tuple[str, ...] = ()
    detail: str = ""
    flags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return self.status in ("ok", "skipped")


def definition_flags(harness: Harness) -> tuple[str, ...]:
    """Every flag the definition passes (``--x=v`` counts as ``--x``), in order, once."""
    flags: list[str] = []
    for arg in (*harness.args, *harness.model_args):
        if arg.startswith("-") and len(arg) > 1 and "{" not in arg.split("=")[0]:
            flag = arg.split("=", 1)[0]
            if flag not in flags:
                flags.append(flag)
    return tuple(flags)


def help_argv(harness: Harness) -> list[str]:
    """``<binary> [subcommand] --help``: a leading plain word of ``args`` is a subcommand."""
    first = harness.args[0] if harness.args else ""
    sub = [first] if re.fullmatch(r"[a-z][a-z0-9-]*", first) else []
    return [harness.binary, *sub, "--help"]


def missing_flags(flags: tuple[str, ...], help_text: str) -> tuple[str, ...]:
    """The flags that do not appear in ``help_text`` as a whole word."""
    text = strip_ansi(help_text)
    return tuple(f for f in flags if not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", text))


def check_harness(runtime: Runtime, image: str, harness: Harness,
                  install_timeout_s: float = DEFAULT_INSTALL_TIMEOUT_S) -> CheckResult:
    """Install ``harness`` in a fresh container from ``image`` and compare."""
    flags = definition_flags(harness)
    if not harness.install.strip():
        return CheckResult(harness.slug, "skipped", detail="no install line", flags=flags)
    container = None
    try:
        runtime.ensure_image(image)
        container = runtime.start(ContainerSpec(image=image, run_id=f"check-{harness.slug}-{uuid.uuid4().hex[:8]}"))
        env = dict(harness.env)
        res = runtime.exec(container, ["sh", "-c", harness.install],
                           ExecOptions(env=env, workdir="/home/tcab", timeout_s=install_timeout_s))
        if not res.ok:
            return CheckResult(harness.slug, "failed", detail=f"install failed: {_last(res.output)}", flags=flags)
        res = runtime.exec(container, [harness.binary, *harness.version_args],
                           ExecOptions(env=env, timeout_s=_PROBE_TIMEOUT_S))
        version = _first(res.stdout or res.stderr)
        if not res.ok:
            return CheckResult(harness.slug, "failed", version,
                               detail=f"`{harness.binary} {' '.join(harness.version_args)}` failed: "
                                      f"{_last(res.output)}", flags=flags)
        res = runtime.exec(container, help_argv(harness), ExecOptions(env=env, timeout_s=_PROBE_TIMEOUT_S))
        if not (res.stdout or res.stderr).strip():
            return CheckResult(harness.slug, "failed", version,
                               detail=f"`{' '.join(help_argv(harness))}` printed nothing", flags=flags)
        missing = missing_flags(flags, res.stdout + "\n" + res.stderr)
        return CheckResult(harness.slug, "drift" if missing else "ok", version, missing,
                           f"not in `{' '.join(help_argv(harness))}`" if missing else "", flags)
    except RuntimeBackendError as exc:
        return CheckResult(harness.slug, "failed", detail=str(exc), flags=flags)
    finally:
        if container is not None:
            try:
                runtime.remove(container)
            except RuntimeBackendError:
                pass


def _first(text: str) -> str:
    lines = [ln.strip() for ln in strip_ansi(text).splitlines() if ln.strip()]
    return lines[0][:80] if lines else ""


def _last(text: str) -> str:
    return strip_ansi(text).strip()[-300:] or "(no output)"
