"""The ``kubernetes`` runtime backend: one pod per run (see backend.py).

Modules by operation: ``config`` (settings and credentials), ``pods`` (the
manifest, waiting, failure reasons), ``exec`` (the exec WebSocket),
``copy`` (tar over exec), ``errors`` (client exceptions to ours),
``backend`` (:class:`KubernetesRuntime`, the protocol). No real cluster has
been exercised here; see docs/kubernetes.md.
"""

from tcab.runtime.kubernetes.config import SETTINGS, KubeSettings

__all__ = ["SETTINGS", "KubeSettings", "KubernetesRuntime"]


def __getattr__(name: str):
    # The backend (and the kubernetes client it imports, ~0.2 s) on first use:
    # checking a plan's kubernetes settings needs only ``config``.
    if name == "KubernetesRuntime":
        from tcab.runtime.kubernetes.backend import KubernetesRuntime

        return KubernetesRuntime
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
