"""The plan's kubernetes runtime settings: accepted, and refused with the line named."""

from __future__ import annotations

import pytest

from tcab.errors import PlanError
from tcab.plan import parse_plan

RUNS = """\
runs:
  - cases: [mini]
    harnesses: [reference]
""".replace("[mini]", "\n      - mini").replace("[reference]", "\n      - reference")


def _plan(settings: str, backend: str = "kubernetes") -> str:
    return f"runtime:\n  backend: {backend}\n  settings:\n{settings}{RUNS}"


def test_kubernetes_settings_parse() -> None:
    plan = parse_plan(_plan("    context: prod\n    namespace: bench\n    cpu: 1500m\n    memory: 4Gi\n"
                            "    node_selector: pool=runs, disk=ssd\n    image_pull_secret: regcred\n"
                            "    idle_timeout_s: 600\n"), "b.yaml")
    assert plan.runtime.backend == "kubernetes"
    assert plan.runtime.idle_timeout_s == 600.0
    assert plan.runtime.settings() == {"context": "prod", "namespace": "bench", "cpu": "1500m", "memory": "4Gi",
                                      "node_selector": "pool=runs, disk=ssd", "image_pull_secret": "regcred",
                                      "idle_timeout_s": "600"}


@pytest.mark.parametrize(("settings", "backend", "message"), [
    ("    cpu: lots\n", "kubernetes", r"b.yaml:4: cpu: expected a positive Kubernetes quantity"),
    ("    memory: 0Gi\n", "kubernetes", r"b.yaml:4: memory: expected a positive Kubernetes quantity"),
    ("    idle_timeout_s: 60\n    namespace: Bad_NS\n", "kubernetes", r"b.yaml:5: namespace: 'Bad_NS' is not a valid"),
    ("    node_selector: pool\n", "kubernetes", r"b.yaml:4: node_selector: expected key=value pairs"),
    ("    image_pull_secret: Not/Valid\n", "kubernetes", r"b.yaml:4: image_pull_secret: 'Not/Valid' is not a valid"),
    ("    namespace: tcab\n", "docker", r"b.yaml:4: namespace: is a setting of the kubernetes backend, not of docker"),
    ("    base_url: unix:///x\n", "kubernetes", r"b.yaml:4: base_url: is a setting of the docker backend"),
    ("    nodeselector: a=b\n", "kubernetes", r"b.yaml:4: nodeselector: unexpected key not in schema"),
    ("    cpu: 1\n", "kubrenetes", r"b.yaml:2: backend: expected one of docker, kubernetes, got 'kubrenetes'"),
])
def test_wrong_settings_name_the_line(settings: str, backend: str, message: str) -> None:
    with pytest.raises(PlanError, match=message):
        parse_plan(_plan(settings, backend), "b.yaml")
