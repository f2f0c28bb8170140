"""``tcab-perf-score``: one labelled scenario scored with the validator's own code.

A model runs it in the run image to score its engine against a training
scenario; the verdict and the fuel are computed by :func:`score_module`, the
function the held-out scoring calls, with the same sandbox limits (the case's
``[contract]`` and ``[sandbox]``, from ``--config``, default
``$TCAB_PERF_CONFIG``), so a local result means what a scored result means::

    tcab-perf-score engine.wasm training/small.input.json training/small.expected.json

Prints one JSON object (status, fuel, detail); exit 0 when correct, 1 when
not, 2 for bad arguments (a missing file, a malformed config).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from tcab.arena.engine import MAX_MODULE_BYTES
from tcab.performance.score import Held, Scenarios, score_module, sha256_hex
from tcab.reading import read_bytes
from tcab.testtypes.performance import (
    MAX_CASE_BYTES,
    MAX_FUEL_LIMIT,
    MAX_MEMORY_BYTES,
    MAX_RUNWAY,
    MAX_SCHEMA_BYTES,
    Scenario,
    snapshots_problem,
)

CONFIG_ENV = "TCAB_PERF_CONFIG"
CONFIG_KEYS = ("entry", "fuel_limit", "max_memory_bytes", "output_schema")


class BadInput(Exception):
    pass


def _read(path: str, limit: int, what: str) -> bytes:
    try:
        return read_bytes(path, limit, what=what)
    except OSError as exc:
        raise BadInput(f"{path}: {exc.strerror or exc}") from exc


def _int(config: dict, key: str, top: int, where: str) -> int:
    value = config.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= top:
        raise BadInput(f"{where}: {key}: expected an integer from 1 to {top}, got {value!r}")
    return value


def load_config(path: str) -> tuple[str, int, int, bytes]:
    """(entry, fuel_limit, max_memory_bytes, output schema bytes) of a config file:
    ``{"entry", "fuel_limit", "max_memory_bytes", "output_schema"}`` (the schema's
    path relative to the config's folder)."""
    try:
        config = json.loads(_read(path, MAX_SCHEMA_BYTES, "config"))
    except ValueError as exc:
        raise BadInput(f"{path}: not JSON: {exc}") from exc
    if not isinstance(config, dict) or set(config) != set(CONFIG_KEYS):
        raise BadInput(f"{path}: expected an object with exactly the keys {', '.join(CONFIG_KEYS)}")
    entry = config["entry"]
    if not isinstance(entry, str) or not entry:
        raise BadInput(f"{path}: entry: expected a non-empty string, got {entry!r}")
    schema = config["output_schema"]
    if not isinstance(schema, str) or not schema:
        raise BadInput(f"{path}: output_schema: expected a path, got {schema!r}")
    return (entry, _int(config, "fuel_limit", MAX_FUEL_LIMIT, path),
            _int(config, "max_memory_bytes", MAX_MEMORY_BYTES, path),
            _read(str(Path(path).parent / schema), MAX_SCHEMA_BYTES, "output schema"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tcab-perf-score", description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="the engine (.wasm)")
    parser.add_argument("input", help="a scenario (*.input.json)")
    parser.add_argument("expected", help="its expected snapshots (*.expected.json)")
    parser.add_argument("--config", default=os.environ.get(CONFIG_ENV),
                        help=f"the case's sandbox (default ${CONFIG_ENV})")
    parser.add_argument("--runway", type=int, default=4, help="fuel_runway (default 4)")
    parser.add_argument("--kind", choices=("smoke", "stress"), default="stress")
    args = parser.parse_args(argv)
    try:
        if not args.config:
            raise BadInput(f"no --config and ${CONFIG_ENV} is not set")
        if not 1 <= args.runway <= MAX_RUNWAY:
            raise BadInput(f"--runway: expected 1 to {MAX_RUNWAY}, got {args.runway}")
        entry, fuel_limit, memory, schema = load_config(args.config)
        wasm = _read(args.module, MAX_MODULE_BYTES, "module")
        data = _read(args.input, MAX_CASE_BYTES, "scenario")
        raw = _read(args.expected, MAX_CASE_BYTES, "expected snapshots")
        try:
            expected = json.loads(raw)
        except ValueError as exc:
            raise BadInput(f"{args.expected}: not JSON: {exc}") from exc
        if (why := snapshots_problem(expected)) is not None:
            raise BadInput(f"{args.expected}: {why}")
    except BadInput as exc:
        print(f"tcab-perf-score: error: {exc}", file=sys.stderr)
        return 2
    scenario = Scenario(Path(args.input).name, Path(args.expected).name, args.kind, args.runway)
    held = Held(scenario, data, expected, sha256_hex(data), sha256_hex(raw))
    score = score_module(wasm, Scenarios(entry, fuel_limit, memory, schema, (held,)))
    case = score.cases[0]
    print(json.dumps({"scenario": scenario.name, "status": case.status, "fuel": case.fuel,
                      "fuel_limit": fuel_limit, "mismatch_tick": case.mismatch_tick, "detail": case.detail}))
    return 0 if case.status == "correct" else 1


if __name__ == "__main__":
    sys.exit(main())
