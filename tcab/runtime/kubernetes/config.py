"""Settings of the ``kubernetes`` backend and the client built from them.

Every setting comes from, in order: the backend option (``tcab run
--k8s-*`` or the plan's ``runtime: settings:``), the environment variable
``TCAB_K8S_<NAME>``, the default below. Values are checked here, before any
pod exists, so a wrong one is a clear error naming the setting.

Credentials: ``kubeconfig`` (a path; default ``KUBECONFIG`` or
``~/.kube/config``) with its ``context``; when no kubeconfig file exists and
the process runs inside a pod, the in-cluster service account is used.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tcab.bounds import ENV
from tcab.errors import RuntimeSettingsError
from tcab.runtime.setting import Setting

#: Settings a plan or ``tcab run --k8s-*`` may give (strings): their one
#: definition (tcab.runtime.choice.SETTINGS takes them from here).
KUBE_SETTINGS: tuple[Setting, ...] = (
    Setting("context", "kubernetes", "text", "Kubeconfig context (default: the current one; in a pod: in-cluster)."),
    Setting("namespace", "kubernetes", "text", "Namespace of the run pods (default: tcab)."),
    Setting("cpu", "kubernetes", "text", "CPU request and limit of a run pod, e.g. 2 or 1500m."),
    Setting("memory", "kubernetes", "text", "Memory request and limit of a run pod, e.g. 4Gi."),
    Setting("node_selector", "kubernetes", "text", "Node labels a run pod needs, key=value[,key=value]."),
    Setting("image_pull_secret", "kubernetes", "text", "Secret the cluster pulls the run image with."),
)
#: Their names, and their environment variables (TCAB_K8S_<NAME>).
SETTINGS = tuple(s.name for s in KUBE_SETTINGS)
ENV_PREFIX = "TCAB_K8S_"
DEFAULT_NAMESPACE = "tcab"
DEFAULT_START_TIMEOUT_S = 600.0
#: Leak guard when the run's max runtime is not known to the client (24 h).
DEFAULT_MAX_RUNTIME_S = 24 * 3600.0
#: activeDeadlineSeconds = max runtime + this margin (install, collect, removal).
DEADLINE_MARGIN_S = 1800.0

# Kubernetes quantities (resource.Quantity): a decimal with an optional suffix.
_QUANTITY = re.compile(r"^(\d+(\.\d+)?|\.\d+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def check_quantity(name: str, value: str) -> str:
    """``value`` if it is a positive Kubernetes quantity, else an error naming ``name``."""
    text = str(value).strip()
    if not _QUANTITY.fullmatch(text) or float(re.sub(r"[A-Za-z]+$", "", text) or 0) <= 0:
        raise ValueError(f"{name}: expected a positive Kubernetes quantity such as 2, 500m or 4Gi, got {value!r}")
    return text


def check_label_key(key: str) -> bool:
    prefix, _, name = key.rpartition("/")
    if prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix)):
        return False
    return 0 < len(name) <= 63 and bool(_LABEL_NAME.fullmatch(name))


def check_label_value(value: str) -> bool:
    return len(value) <= 63 and bool(_LABEL_VALUE.fullmatch(value))


def parse_node_selector(text: str | Mapping[str, str]) -> dict[str, str]:
    """``key=value,key=value`` (or a mapping) as a checked node selector."""
    if isinstance(text, Mapping):
        pairs = list(text.items())
    else:
        pairs = []
        for item in (p.strip() for p in str(text).split(",")):
            if not item:
                continue
            key, eq, value = item.partition("=")
            if not eq:
                raise ValueError(f"node_selector: expected key=value pairs separated by commas, got {item!r}")
            pairs.append((key.strip(), value.strip()))
    for key, value in pairs:
        if not check_label_key(key):
            raise ValueError(f"node_selector: {key!r} is not a valid label key")
        if not check_label_value(value):
            raise ValueError(f"node_selector: {value!r} (for {key}) is not a valid label value")
    return dict(pairs)


def _positive(name: str, value) -> float:
    bound = ENV[ENV_PREFIX + name.upper()]  # tcab.bounds: the one table of maxima
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a positive number, got {value!r}") from None
    if not math.isfinite(number) or number <= 0 or number > bound.maximum:
        raise ValueError(f"{name} ({ENV_PREFIX}{name.upper()}): expected a finite positive number "
                         f"of at most {bound.shown} seconds, got {value!r}")
    return number


@dataclass(frozen=True, slots=True)
class KubeSettings:
    """The checked settings of one backend instance (see module docstring)."""

    namespace: str = DEFAULT_NAMESPACE
    context: str | None = None
    kubeconfig: str | None = None
    cpu: str | None = None
    memory: str | None = None
    node_selector: Mapping[str, str] = field(default_factory=dict)
    image_pull_secret: str | None = None
    #: Where host.docker.internal points when a preview sink watches a run:
    #: the driver's own pod IP (downward API ``POD_IP``) unless set.
    preview_host: str | None = None
    start_timeout_s: float = DEFAULT_START_TIMEOUT_S
    max_runtime_s: float = DEFAULT_MAX_RUNTIME_S
    run_uid: int = 1000

    @property
    def active_deadline_s(self) -> int:
        return int(math.ceil(self.max_runtime_s + DEADLINE_MARGIN_S))

    @classmethod
    def from_options(cls, options: Mapping[str, object], env: Mapping[str, str] | None = None) -> KubeSettings:
        """Merge ``options`` over ``TCAB_K8S_*`` variables; raise RuntimeSettingsError
        naming the first unknown or wrong setting."""
        env = os.environ if env is None else env
        known = {*SETTINGS, "kubeconfig", "preview_host", "start_timeout_s", "max_runtime_s", "run_uid"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise RuntimeSettingsError(f"kubernetes runtime: unknown setting {unknown[0]!r}; known: {', '.join(sorted(known))}")

        def pick(name: str):
            value = options.get(name)
            if value is None or value == "":
                value = env.get(ENV_PREFIX + name.upper()) or None
            return value

        try:
            namespace = str(pick("namespace") or DEFAULT_NAMESPACE)
            if len(namespace) > 63 or not _DNS_LABEL.fullmatch(namespace):
                raise ValueError(f"namespace: {namespace!r} is not a valid namespace name (a DNS label)")
            secret = pick("image_pull_secret")
            if secret is not None and (len(str(secret)) > 253 or not _DNS_SUBDOMAIN.fullmatch(str(secret))):
                raise ValueError(f"image_pull_secret: {secret!r} is not a valid secret name")
            cpu, memory = pick("cpu"), pick("memory")
            start = pick("start_timeout_s")
            runtime = pick("max_runtime_s")
            return cls(
                namespace=namespace,
                context=pick("context"),
                kubeconfig=pick("kubeconfig") or os.environ.get("KUBECONFIG") or None,
                cpu=check_quantity("cpu", cpu) if cpu is not None else None,
                memory=check_quantity("memory", memory) if memory is not None else None,
                node_selector=parse_node_selector(pick("node_selector") or ""),
                image_pull_secret=secret,
                preview_host=pick("preview_host") or env.get("POD_IP") or None,
                start_timeout_s=_positive("start_timeout_s", start) if start is not None else DEFAULT_START_TIMEOUT_S,
                max_runtime_s=_positive("max_runtime_s", runtime) if runtime is not None else DEFAULT_MAX_RUNTIME_S,
                run_uid=int(options.get("run_uid", 1000)),
            )
        except ValueError as exc:
            raise RuntimeSettingsError(f"kubernetes runtime: {exc}") from None


def check_option(name: str, value: str) -> str:
    """``value`` of the plan or command-line setting ``name`` as Kubernetes
    takes it (checked alone, without the environment). Raises ValueError
    without the name (the caller says where)."""
    try:
        KubeSettings.from_options({name: value}, env={})
    except RuntimeSettingsError as exc:
        raise ValueError(str(exc).removeprefix("kubernetes runtime: ").removeprefix(f"{name}: ")) from None
    return value


def load_client_config(settings: KubeSettings):
    """A ``kubernetes.client.Configuration`` from the kubeconfig (with its
    context) or, with no kubeconfig file inside a pod, the in-cluster account."""
    try:
        from kubernetes import client, config
    except ImportError as exc:
        raise RuntimeSettingsError("the kubernetes runtime needs the client: pip install 'kubernetes>=31,<38'") from exc

    configuration = client.Configuration()
    path = settings.kubeconfig or str(Path.home() / ".kube" / "config")
    try:
        if Path(path).is_file():
            config.load_kube_config(config_file=path, context=settings.context, client_configuration=configuration)
        elif os.environ.get("KUBERNETES_SERVICE_HOST"):
            if settings.context:
                raise RuntimeSettingsError(f"kubernetes runtime: context {settings.context!r} given, "
                                           f"but there is no kubeconfig file at {path} (in-cluster has no contexts)")
            config.load_incluster_config(client_configuration=configuration)
        else:
            raise RuntimeSettingsError(f"kubernetes runtime: no kubeconfig at {path} and not inside a pod; "
                                       "set KUBECONFIG or the kubeconfig setting")
    except RuntimeSettingsError:
        raise
    except Exception as exc:  # config.ConfigException, yaml errors, a missing context
        raise RuntimeSettingsError(f"kubernetes runtime: cannot load the configuration from {path}"
                                   f"{f' (context {settings.context})' if settings.context else ''}: {exc}") from exc
    # Fail fast on an unreachable server: one retry, not urllib3's default three.
    configuration.retries = 1
    return configuration
