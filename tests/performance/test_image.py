"""test-cabinet-performance: what its context gathers (no held-out file, ever),
and the built image (real Podman): the toolchain, the training scenarios, the
reference engines and ``tcab-perf-score`` giving the validator's verdict."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest

from tcab.runtime import resolve_image
from tests.performance.conftest import TORUS
from tests.support.paths import REPO

OPT = "/opt/tcab-perf/cases/torus-life"


def _held_out_digests(torus) -> set[str]:
    return {hashlib.sha256(torus.path(rel).read_bytes()).hexdigest()
            for sc in torus.section.cases for rel in (sc.input, sc.expected)}


def test_the_context_carries_training_and_references_but_no_held_out_file(torus, tmp_path) -> None:
    ctx = tmp_path / "ctx"
    ctx.mkdir()
    subprocess.run([str(REPO / "containers/performance/context.sh"), str(ctx)], check=True, timeout=120,
                   capture_output=True)
    files = [p for p in ctx.rglob("*") if p.is_file()]
    held = _held_out_digests(torus)
    assert not [p for p in files if hashlib.sha256(p.read_bytes()).hexdigest() in held]
    case = ctx / "cases" / "torus-life"
    assert sorted(p.name for p in (case / "training").iterdir()) == sorted(
        p.name for p in (TORUS / "workspaces/base/training").iterdir())
    assert (case / "references/fast/src/main.zig").read_bytes() == (TORUS / "solution/src/main.zig").read_bytes()
    assert (case / "references/naive/src/main.zig").read_bytes() == \
        (TORUS / "workspaces/base/src/main.zig").read_bytes()
    assert json.loads((case / "config.json").read_text()) == {
        "entry": "simulate", "fuel_limit": 2_000_000_000, "max_memory_bytes": 16_777_216,
        "output_schema": "schemas/output.json"}
    assert (ctx / "repo/tcab/performance/local.py").read_bytes() == (REPO / "tcab/performance/local.py").read_bytes()


@pytest.fixture(scope="module")
def image(podman_runtime) -> str:
    from tcab.errors import RuntimeBackendError

    ref = resolve_image("performance")
    try:
        podman_runtime.ensure_image(ref, pull=False)
    except RuntimeBackendError:
        pytest.fail(f"{ref} is missing; run `make images`", pytrace=False)
    return ref


def _in(image: str, script: str) -> subprocess.CompletedProcess:
    return subprocess.run(["podman", "run", "--rm", "--network=none", image, "sh", "-c", script],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.timeout(300)
def test_the_image_scores_a_training_scenario_and_holds_no_held_out_file(image, torus) -> None:
    done = _in(image, f"zig version && tcab-perf-score {OPT}/references/fast/engine.wasm "
                      f"{OPT}/training/small.input.json {OPT}/training/small.expected.json && "
                      f"tcab-perf-score {OPT}/references/naive/engine.wasm "
                      f"{OPT}/training/small.input.json {OPT}/training/small.expected.json && "
                      "(find / -xdev -type f -name '*.json' -size -17M -exec sha256sum {} + 2>/dev/null || true)")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    fast, naive = json.loads(lines[1]), json.loads(lines[2])
    assert fast["status"] == naive["status"] == "correct" and naive["fuel"] > 5 * fast["fuel"]
    digests = {line.split()[0] for line in lines[3:] if line.strip()}
    training = hashlib.sha256((TORUS / "workspaces/base/training/small.input.json").read_bytes()).hexdigest()
    assert training in digests  # the search sees the image's files
    assert not digests & _held_out_digests(torus)
