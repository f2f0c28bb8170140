"""Container runtimes: one protocol (:mod:`tcab.runtime.base`), backends found by name.

Public: :func:`get_runtime`, :data:`BACKENDS`, the types of ``base``,
image resolution (:func:`resolve_image`, :data:`RUN_IMAGES`), and building
an untrusted tree in a container (:func:`build_in_container`,
:class:`BuildLimits`, :mod:`tcab.runtime.build`). See docs/runtime.md for
the API and an example.
"""

from __future__ import annotations

import importlib

from tcab.errors import RuntimeSettingsError
from tcab.runtime.base import (
    RUN_LABEL,
    RUN_USER,
    WORKDIR,
    CollectLimits,
    CollectReport,
    ContainerSpec,
    ExecEnd,
    ExecOptions,
    ExecResult,
    ImageInfo,
    Refusal,
    Runtime,
)
from tcab.runtime.build import BuildLimits, BuildStep, ContainerBuild, build_in_container
from tcab.runtime.images import RUN_IMAGES, resolve_image, run_image

#: Backend name -> "module:Class", imported on first use so that a backend's
#: dependencies are only needed when it is chosen.
BACKENDS: dict[str, str] = {
    "docker": "tcab.runtime.docker:DockerRuntime",
    "kubernetes": "tcab.runtime.kubernetes:KubernetesRuntime",
}


def get_runtime(name: str = "docker", **options) -> Runtime:
    """The runtime backend ``name``, constructed with ``options`` (for
    ``docker``: ``base_url``, ``timeout``). Raises RuntimeSettingsError for
    an unknown name (listing the known ones) or a wrong setting, and
    RuntimeBackendError when the backend cannot reach its engine."""
    target = BACKENDS.get(name)
    if target is None:
        raise RuntimeSettingsError(f"unknown runtime {name!r}; known: {', '.join(sorted(BACKENDS))}")
    module, attr = target.split(":")
    return getattr(importlib.import_module(module), attr)(**options)


__all__ = [
    "BACKENDS", "RUN_IMAGES", "RUN_LABEL", "RUN_USER", "WORKDIR", "BuildLimits", "BuildStep", "CollectLimits",
    "CollectReport", "ContainerBuild", "ContainerSpec", "ExecEnd", "ExecOptions", "ExecResult", "ImageInfo",
    "Refusal", "Runtime", "build_in_container", "get_runtime", "resolve_image", "run_image",
]
