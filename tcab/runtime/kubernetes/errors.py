"""The one place where the kubernetes client's exceptions become ours.

An ``ApiException`` carries the server's ``Status`` body; its message names
the cause (``pods is forbidden: User ... cannot create resource``), so it is
quoted, with a hint for the statuses an operator can fix (401, 403, 404 of
the namespace). Transport errors (refused connection, TLS, timeouts) say the
API server is unreachable.

Only those exceptions are translated (:func:`library_errors`, in the one
context manager :func:`kube_calls`): the client's ``ApiException``,
urllib3's, websocket-client's, http.client's and socket errors. Any other
exception is a bug in tcab and passes through untouched, never dressed up as
the cluster's failure (a run's ``infrastructure``, which a sweep retries).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import ssl
from collections.abc import Iterator

from tcab.errors import RuntimeBackendError, RuntimeSettingsError

#: What the API server answers, before any run, to a configuration that
#: cannot work with it: credentials refused, a missing grant, a namespace
#: that does not exist, a pod setting its schema refuses. Bad input (the
#: operator fixes it), not the platform failing; during a run the same
#: answers stay ``infrastructure``.
_REFUSED_SETTINGS = (401, 403, 404, 422)

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


def library_errors() -> tuple[type[BaseException], ...]:
    """What the kubernetes client and its transports raise when the cluster fails."""
    import urllib3.exceptions
    import websocket
    from kubernetes.client.exceptions import ApiException

    return (ApiException, urllib3.exceptions.HTTPError, websocket.WebSocketException,
            http.client.HTTPException, ssl.SSLError, ConnectionError, TimeoutError)


@contextlib.contextmanager
def kube_calls(op: str, pod: str | None = None) -> Iterator[None]:
    """Turn the exceptions of :func:`library_errors` raised inside into
    RuntimeBackendError naming ``op`` and ``pod`` (``from`` the original);
    a RuntimeBackendError passes as it is, with the pod named."""
    known = library_errors()
    try:
        yield
    except RuntimeBackendError as exc:
        if str(exc).startswith("kubernetes runtime:"):
            raise
        where = f" (pod {pod})" if pod else ""
        raise type(exc)(f"kubernetes runtime: {exc}{where}") from exc
    except known as exc:
        raise kube_error(exc, op, pod) from exc


def refused_settings(exc: RuntimeBackendError) -> RuntimeBackendError | RuntimeSettingsError:
    """``exc`` as RuntimeSettingsError when the API server refused what it was
    configured with (:data:`_REFUSED_SETTINGS`), else ``exc`` itself."""
    from kubernetes.client.exceptions import ApiException

    cause = exc.__cause__
    if isinstance(cause, ApiException) and cause.status in _REFUSED_SETTINGS:
        err = RuntimeSettingsError(str(exc))
        err.__cause__ = cause
        return err
    return exc
