"""The runtime a sweep or a command uses, chosen once.

A plan's ``runtime:`` block and ``tcab run --runtime/--k8s-*`` both become
one :class:`RuntimeChoice`: typed, frozen, checked before any container
exists, and handed to every step that starts one (the run, the controller
build of an adversarial run, the validation of an end-to-end run). Nothing
downstream picks a backend of its own: a step that gets a choice opens it
(:meth:`RuntimeChoice.open`), so a plan with ``backend: kubernetes`` builds
and validates in pods, not on the local socket.

Every setting is defined once, in :data:`SETTINGS` (the kubernetes ones
beside their checks, :data:`tcab.runtime.kubernetes.config.KUBE_SETTINGS`):
its name (the plan key; ``--k8s-<name>`` for a kubernetes one), which
backend takes it (None: a run limit every backend takes), its kind and its
help. The plan schema, the
``--k8s-*`` options and :class:`~tcab.runtime.kubernetes.config.KubeSettings`
are derived from it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tcab.runtime.kubernetes.config import KUBE_SETTINGS, check_option
from tcab.runtime.setting import Setting

if TYPE_CHECKING:
    from tcab.runtime.base import ImageInfo, Runtime

__all__ = ["BACKENDS", "BY_NAME", "SETTINGS", "RuntimeChoice", "Setting", "check_setting", "open_runtime"]

#: The runtime limits' ceiling in seconds (about three years): a plan reads
#: integers of any length, and float() turns a 400-digit one into infinity,
#: which would switch the watchdog off.
MAX_LIMIT_S = 10**8


SETTINGS: tuple[Setting, ...] = (
    Setting("base_url", "docker", "text", "The engine socket (default: DOCKER_HOST)."),
    Setting("idle_timeout_s", None, "seconds", "Kill the session after this long without output."),
    Setting("max_runtime_s", None, "seconds", "Wall-clock cap of a run (default: the case's max_runtime_hours)."),
    Setting("secrets", None, "names", "Host environment variables passed into sessions as secrets."),
    *KUBE_SETTINGS,
)
BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}
BACKENDS: tuple[str, ...] = ("docker", "kubernetes")


def backend_settings(backend: str) -> tuple[Setting, ...]:
    """The settings only ``backend`` takes (its client's)."""
    return tuple(s for s in SETTINGS if s.backend == backend)


def check_setting(backend: str, name: str, value: object) -> object:
    """The checked value of setting ``name`` for ``backend``: a float for
    seconds, a tuple of names, else stripped text. Raises ValueError with a
    message that does not repeat the name (the caller says where)."""
    if backend not in BACKENDS:
        raise ValueError(f"expected one of {', '.join(BACKENDS)}, got {backend!r}")
    setting = BY_NAME.get(name)
    if setting is None:
        raise ValueError(f"unknown setting; known: {', '.join(BY_NAME)}")
    if setting.backend is not None and setting.backend != backend:
        raise ValueError(f"is a setting of the {setting.backend} backend, not of {backend}")
    if setting.kind == "seconds":
        return _seconds(value)
    if setting.kind == "names":
        items = value.split(",") if isinstance(value, str) else list(value)  # type: ignore[arg-type]
        return tuple(n.strip() for n in items if n.strip())
    text = str(value).strip()
    if setting.backend == "kubernetes":
        text = check_option(name, text)
    return text


def _seconds(value: object) -> float:
    if isinstance(value, bool):
        raise ValueError(f"expected a positive number of seconds, got {value!r}")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"expected a positive number of seconds, got {value!r}") from None
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"expected a positive integer, got {value}")
    if number > MAX_LIMIT_S:
        raise ValueError(f"expected a positive integer of at most {MAX_LIMIT_S} seconds, got a larger one")
    return number


def _text(value: object) -> str:
    """A setting's canonical text (what a plan entry's digest holds)."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, tuple):
        return ",".join(value)
    return str(value)


@dataclass(frozen=True, slots=True)
class RuntimeChoice:
    """The backend, its client settings (checked text, sorted by name) and
    the run limits the plan or the command line gave."""

    backend: str = "docker"
    client: tuple[tuple[str, str], ...] = ()
    idle_timeout_s: float | None = None
    max_runtime_s: float | None = None
    secrets: tuple[str, ...] = ()

    @classmethod
    def from_values(cls, backend: str = "docker", values: Mapping[str, object] | None = None) -> RuntimeChoice:
        """The choice of ``backend`` with ``values`` (setting name -> value;
        None or "" means not given). Raises ValueError ``NAME: why``."""
        checked: dict[str, object] = {}
        for name, value in (values or {}).items():
            if value is None or value == "":
                continue
            try:
                checked[name] = check_setting(backend, name, value)
            except ValueError as exc:
                raise ValueError(f"{name}: {exc}") from None
        if backend not in BACKENDS:
            raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
        limits = {k: checked.pop(k) for k in ("idle_timeout_s", "max_runtime_s", "secrets") if k in checked}
        return cls(backend=backend, client=tuple(sorted((k, str(v)) for k, v in checked.items())),
                   idle_timeout_s=limits.get("idle_timeout_s"), max_runtime_s=limits.get("max_runtime_s"),
                   secrets=limits.get("secrets", ()))

    def settings(self) -> dict[str, str]:
        """Every setting given, as canonical text (a plan entry's digest holds these)."""
        out = dict(self.client)
        for name in ("idle_timeout_s", "max_runtime_s", "secrets"):
            value = getattr(self, name)
            if value not in (None, ()):
                out[name] = _text(value)
        return dict(sorted(out.items()))

    def open(self, *, max_runtime_s: float | None = None) -> Runtime:
        """The backend client. ``max_runtime_s`` bounds what this client starts
        (a kubernetes pod's activeDeadlineSeconds leak guard); a docker
        client takes no such bound. Raises RuntimeBackendError when the
        backend cannot be reached."""
        # In the function: docker-py and the kubernetes client; `doit list` must not pay for them.
        from tcab.runtime import get_runtime

        options: dict[str, object] = dict(self.client)
        if self.backend == "kubernetes" and max_runtime_s is not None:
            options["max_runtime_s"] = max_runtime_s
        return get_runtime(self.backend, **options)


def open_runtime(runtime: str | RuntimeChoice | Runtime, *, max_runtime_s: float | None = None) -> Runtime:
    """A runtime client from what a caller handed over: a backend name, a
    :class:`RuntimeChoice` (opened here) or an open ``Runtime`` (as is)."""
    if isinstance(runtime, str):
        runtime = RuntimeChoice(backend=runtime)
    if isinstance(runtime, RuntimeChoice):
        return runtime.open(max_runtime_s=max_runtime_s)
    return runtime


def image_digest(rt: Runtime, ref: str) -> ImageInfo:
    """The image ``ref`` on ``rt`` with its digest (pulled only when missing).

    A kubernetes backend knows a digest only once a pod ran the image, so
    when ``ensure_image`` has none, one short pod asks (and is removed)."""
    import secrets

    from tcab.runtime.base import ContainerSpec

    info = rt.ensure_image(ref)
    if info.digest:
        return info
    cid = rt.start(ContainerSpec(image=info.ref, run_id=f"image-digest-{secrets.token_hex(4)}"))
    try:
        return rt.image_digest(cid)
    finally:
        rt.remove(cid)
