"""What the stand-in refuses, as a real API server would.

Every pod body goes through the official OpenAPI schema of the server's
version (``kubernetes-validate``, its *strict* schemas: an unknown field is
an error, as ``fieldValidation=Strict`` makes it), then through the
apimachinery rules the schema cannot express (names, label keys and
values), which a real server applies to every object.
"""

from __future__ import annotations

import re

import kubernetes_validate

from tcab.runtime.kubernetes.config import check_label_key, check_label_value

KUBE_VERSION = "1.31.0"
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def pod_problems(body: object, namespace: str) -> list[str]:
    """Why ``body`` would be refused (422 Invalid); empty when it is accepted."""
    if not isinstance(body, dict):
        return ["the body is not a JSON object"]
    if body.get("apiVersion") != "v1" or body.get("kind") != "Pod":
        return [f"expected apiVersion v1, kind Pod; got {body.get('apiVersion')} {body.get('kind')}"]
    try:
        kubernetes_validate.validate(body, KUBE_VERSION, strict=True)
    except kubernetes_validate.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or "(root)"
        return [f"{where}: {exc.message}"]
    problems = []
    meta = body.get("metadata") or {}
    name = meta.get("name") or ""
    if not name or len(name) > 253 or not _DNS_SUBDOMAIN.match(name):
        problems.append(f"metadata.name: Invalid value: {name!r}: a lowercase RFC 1123 subdomain is required")
    if meta.get("namespace") not in (None, namespace):
        problems.append(f"metadata.namespace: Invalid value: {meta.get('namespace')!r}: does not match the request namespace")
    for key, value in (meta.get("labels") or {}).items():
        if not check_label_key(key):
            problems.append(f"metadata.labels: Invalid value: {key!r}: not a qualified name")
        if not isinstance(value, str) or not check_label_value(value):
            problems.append(f"metadata.labels: Invalid value: {value!r}: must be 63 characters or less, "
                            "alphanumeric at both ends")
    for key in meta.get("annotations") or {}:
        if not check_label_key(key):
            problems.append(f"metadata.annotations: Invalid value: {key!r}: not a qualified name")
    spec = body.get("spec") or {}
    names = [c.get("name") for c in spec.get("containers") or []]
    if not names:
        problems.append("spec.containers: Required value")
    if len(set(names)) != len(names):
        problems.append("spec.containers: Duplicate value: container names")
    if spec.get("restartPolicy") not in (None, "Always", "OnFailure", "Never"):
        problems.append(f"spec.restartPolicy: Unsupported value: {spec.get('restartPolicy')!r}")
    for c in spec.get("containers") or []:
        if c.get("imagePullPolicy") not in (None, "Always", "IfNotPresent", "Never"):
            problems.append(f"spec.containers.imagePullPolicy: Unsupported value: {c.get('imagePullPolicy')!r}")
    return problems
