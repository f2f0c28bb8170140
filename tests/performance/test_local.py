"""``tcab-perf-score``: a training scenario scored by the validator's code."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.performance.conftest import TORUS
from tests.support.paths import REPO

TRAINING = TORUS / "workspaces/base/training"


@pytest.fixture
def config(tmp_path):
    (tmp_path / "output.json").write_bytes((TORUS / "schemas/output.json").read_bytes())
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"entry": "simulate", "fuel_limit": 2_000_000_000,
                                "max_memory_bytes": 16_777_216, "output_schema": "output.json"}))
    return path


def _score(*args, env=None):
    return subprocess.run([sys.executable, "-m", "tcab.performance.local", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=120, env=env)


def test_a_correct_engine_scores_the_same_fuel_as_the_validator(engines, config, tmp_path, torus) -> None:
    from tcab.performance.score import Held, Scenarios, score_module, sha256_hex
    from tcab.testtypes.performance import Scenario

    module = tmp_path / "engine.wasm"
    module.write_bytes(engines["fast"])
    inp, exp = TRAINING / "small.input.json", TRAINING / "small.expected.json"
    done = _score(module, inp, exp, "--config", config)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["status"] == "correct"
    held = Held(Scenario(inp.name, exp.name, "stress", 4), inp.read_bytes(), json.loads(exp.read_text()),
                sha256_hex(inp.read_bytes()), "x")
    direct = score_module(engines["fast"], Scenarios("simulate", 2_000_000_000, 16_777_216,
                                                     (TORUS / "schemas/output.json").read_bytes(), (held,)))
    assert out["fuel"] == direct.cases[0].fuel


def test_a_wrong_answer_exits_1_with_the_tick(engines, config, tmp_path) -> None:
    module = tmp_path / "engine.wasm"
    module.write_bytes(engines["naive"])
    expected = json.loads((TRAINING / "seeds.expected.json").read_text())
    expected["snapshots"][-1]["checksum"] = "f" * 16
    (tmp_path / "wrong.json").write_text(json.dumps(expected))
    done = _score(module, TRAINING / "seeds.input.json", tmp_path / "wrong.json", "--config", config)
    assert done.returncode == 1
    out = json.loads(done.stdout)
    assert out["status"] == "mismatch" and out["mismatch_tick"] == expected["snapshots"][-1]["tick"]


@pytest.mark.parametrize("doc, message", [
    ({"entry": "simulate", "fuel_limit": 0, "max_memory_bytes": 65536, "output_schema": "output.json"},
     "fuel_limit: expected an integer from 1 to"),
    ({"entry": "simulate", "fuel_limit": 1.5, "max_memory_bytes": 65536, "output_schema": "output.json"},
     "fuel_limit: expected an integer from 1 to"),
    ({"entry": "simulate"}, "expected an object with exactly the keys"),
])
def test_a_bad_config_exits_2_naming_it(engines, config, tmp_path, doc, message) -> None:
    config.write_text(json.dumps(doc))
    module = tmp_path / "engine.wasm"
    module.write_bytes(engines["fast"])
    done = _score(module, TRAINING / "small.input.json", TRAINING / "small.expected.json", "--config", config)
    assert done.returncode == 2 and message in done.stderr and str(config) in done.stderr


def test_a_missing_module_exits_2(config, tmp_path) -> None:
    done = _score(tmp_path / "nope.wasm", TRAINING / "small.input.json", TRAINING / "small.expected.json",
                  "--config", config)
    assert done.returncode == 2 and "nope.wasm" in done.stderr
