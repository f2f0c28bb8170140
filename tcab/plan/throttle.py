"""The plan's ``concurrency`` and ``retries`` keys (docs/sweeps.md).

``concurrency`` caps how many runs may be in their session at once per
harness, per model and per secret name, on top of ``parallelism`` (the
sweep's doit workers); the slots that enforce it are
:mod:`tcab.tasks.slots`. ``retries`` says how often an ``infrastructure``
run is tried again inside the sweep, and how long to wait first
(:mod:`tcab.tasks.retries`). Both are read from the validated strictyaml
node here; every bad number is a PlanError naming ``file:line: key``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tcab.errors import PlanError

#: What a cap may be put on (``concurrency: {harness: {...}, model: ..., secret: ...}``).
CAP_KINDS = ("harness", "model", "secret")
MAX_CAP = 1024
MAX_RETRIES = 10
MAX_BACKOFF_S = 3600
DEFAULT_BACKOFF_S = 30


@dataclass(frozen=True, slots=True)
class Concurrency:
    """Caps per (kind, name): ``(("secret", "ANTHROPIC_API_KEY", 4), ...)``, sorted."""

    caps: tuple[tuple[str, str, int], ...] = ()

    def cap(self, kind: str, name: str | None) -> int | None:
        for k, n, limit in self.caps:
            if k == kind and n == name:
                return limit
        return None

    def __bool__(self) -> bool:
        return bool(self.caps)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How an ``infrastructure`` run is retried: up to ``infrastructure`` more
    attempts, waiting ``backoff_s`` before the first and twice as long before each next."""

    infrastructure: int = 0
    backoff_s: int = DEFAULT_BACKOFF_S

    def wait_before(self, attempt: int) -> float:
        """Seconds to wait before attempt ``attempt`` (2, 3, ...), at most MAX_BACKOFF_S."""
        return float(min(self.backoff_s * 2 ** max(attempt - 2, 0), MAX_BACKOFF_S))


Fail = Callable[[Path, object, str, str], PlanError]


def _number(path: Path, node, key: str, low: int, high: int, fail: Fail) -> int:
    value = node.data
    if not low <= value <= high:
        raise fail(path, node, key, f"expected an integer from {low} to {high}, got {value}")
    return value


def parse_concurrency(path: Path, node, fail: Fail) -> Concurrency:
    """The ``concurrency`` mapping (None: no caps)."""
    if node is None:
        return Concurrency()
    caps = []
    for kind in CAP_KINDS:
        if kind not in node.data:
            continue
        for name, value in node[kind].items():
            label = f"concurrency.{kind}.{name.data}"
            caps.append((kind, name.data, _number(path, value, label, 1, MAX_CAP, fail)))
    return Concurrency(tuple(sorted(caps)))


def parse_retries(path: Path, node, fail: Fail) -> RetryPolicy:
    """The ``retries`` mapping (None: no retries)."""
    if node is None:
        return RetryPolicy()
    return RetryPolicy(
        infrastructure=_number(path, node["infrastructure"], "retries.infrastructure", 0, MAX_RETRIES, fail),
        backoff_s=_number(path, node["backoff_s"], "retries.backoff_s", 0, MAX_BACKOFF_S, fail),
    )
