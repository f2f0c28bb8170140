"""The one place where the kubernetes client's exceptions become ours.

An ``ApiException`` carries the server's ``Status`` body; its message names
the cause (``pods is forbidden: User ... cannot create resource``), so it is
quoted, with a hint for the statuses an operator can fix (401, 403, 404 of
the namespace). Transport errors (refused connection, TLS, timeouts) say the
API server is unreachable.
"""

from __future__ import annotations

import json

from tcab.errors import RuntimeBackendError

_HINTS = {
    401: "the credentials were refused (check the kubeconfig user or token)",
    403: "missing RBAC: apply containers/kubernetes/rbac.yaml to the namespace (see docs/kubernetes.md)",
}


def server_message(exc) -> str:
    """The ``message`` of an ApiException's Status body, else its reason."""
    body = getattr(exc, "body", None)
    if body:
        try:
            doc = json.loads(body)
            if isinstance(doc, dict) and doc.get("message"):
                return str(doc["message"])
        except (ValueError, TypeError):
            return str(body)[:500]
    return str(getattr(exc, "reason", None) or exc)


def kube_error(exc: BaseException, op: str, pod: str | None = None) -> RuntimeBackendError:
    """``exc`` as a RuntimeBackendError naming the operation and the pod."""
    from kubernetes.client.exceptions import ApiException

    where = f" (pod {pod})" if pod else ""
    if isinstance(exc, ApiException):
        status = exc.status or 0
        if status == 0:
            detail = f"the API server is unreachable: {exc.reason}"
        else:
            detail = f"HTTP {status}: {server_message(exc)}"
            if status in _HINTS:
                detail += f" ({_HINTS[status]})"
    else:
        detail = f"the API server is unreachable or failed: {type(exc).__name__}: {exc}"
    err = RuntimeBackendError(f"kubernetes runtime: {op}{where} failed: {detail}")
    err.__cause__ = exc
    return err
