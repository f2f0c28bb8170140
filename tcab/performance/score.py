"""A module scored on a case's held-out scenarios: phases, verdict, fuel, cache.

Phase 1 runs every smoke scenario; each must be correct, and its fuel is not
scored. Only then phase 2 runs the stress scenarios (otherwise each is
``skipped``): a correct stress scenario that burnt more than ``fuel_limit``
is ``over_ceiling``. Every scenario runs with ``fuel_limit x fuel_runway``
fuel, so an overshoot is measured up to the runway. The run is correct when
every scenario is ``correct``; its score is then the total fuel of its stress
scenarios.

A score is a pure function of (the module's sha256, the scenarios' digest:
:func:`Scenarios.digest` over the entry, the sandbox, the output schema and
every scenario's files, kind and runway), plus the scorer's own version and
the engine's fingerprint. :func:`cached_score` keeps it under
``build/scores/<key>.json`` with the HMAC of this host's key (a restored
``build/`` is input: a forged score is never believed) and returns the stored
one for the same key (read back bounded, never through a link; a damaged or
foreign one is scored again).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tcab.arena.engine import ModuleCache, host_mac, sha256_hex
from tcab.arena.preflight import LoadLimits
from tcab.arena.wasm import engine_fingerprint
from tcab.atomic import write_cache_bytes
from tcab.catalog.schemas import Validator
from tcab.errors import ArenaError
from tcab.performance.sandbox import run_once
from tcab.performance.verdict import judge
from tcab.reading import read_bytes
from tcab.testtypes.performance import (
    MAX_CASE_BYTES,
    MAX_SCHEMA_BYTES,
    PerformanceSection,
    Scenario,
)

#: Bump when a verdict of the same inputs could change (the cache key holds it).
SCORER_VERSION = 1
STATUSES = ("correct", "mismatch", "over_ceiling", "out_of_fuel", "trap", "memory", "bad_output", "load",
            "skipped")
MAX_SCORE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Held:
    """One held-out scenario, loaded: its manifest entry, input bytes and expected snapshots."""

    scenario: Scenario
    input: bytes
    expected: dict[str, Any]
    input_sha256: str
    expected_sha256: str


@dataclass(frozen=True, slots=True)
class Scenarios:
    """Everything a score depends on besides the module."""

    entry: str
    fuel_limit: int
    max_memory_bytes: int
    output_schema: bytes
    held: tuple[Held, ...]
    digest: str = field(init=False, compare=False)  # of all the above, computed once (a score asks twice)

    def __post_init__(self) -> None:
        doc = [self.entry, self.fuel_limit, self.max_memory_bytes, sha256_hex(self.output_schema),
               [[h.scenario.name, h.scenario.kind, h.scenario.fuel_runway, h.input_sha256, h.expected_sha256]
                for h in self.held]]
        object.__setattr__(self, "digest", sha256_hex(json.dumps(doc, separators=(",", ":")).encode()))


def load_scenarios(section: PerformanceSection, root: Path) -> Scenarios:
    """The held-out set of a parsed performance case (files under ``root``).
    Raises ArenaError when a file changed into something unreadable since parsing."""
    if section.contract is None or section.sandbox is None or not section.cases:
        raise ArenaError(f"{root}: not a complete performance case ([contract], [sandbox], [[case]])")

    def read(rel: str, limit: int) -> bytes:
        try:
            return read_bytes(root / rel, limit, what="held-out file")
        except OSError as exc:
            raise ArenaError(f"{root / rel}: {exc.strerror or exc}") from exc

    held = []
    for sc in section.cases:
        data, exp = read(sc.input, MAX_CASE_BYTES), read(sc.expected, MAX_CASE_BYTES)
        try:
            expected = json.loads(exp)
        except ValueError as exc:
            raise ArenaError(f"{root / sc.expected}: not JSON: {exc}") from exc
        held.append(Held(sc, data, expected, sha256_hex(data), sha256_hex(exp)))
    return Scenarios(section.contract.entry, section.sandbox.fuel_limit, section.sandbox.max_memory_bytes,
                     read(section.contract.output, MAX_SCHEMA_BYTES), tuple(held))


@dataclass(frozen=True, slots=True)
class CaseScore:
    name: str
    kind: str
    status: str                 # one of STATUSES
    fuel: int | None            # None: not run (skipped)
    detail: str = ""
    mismatch_tick: int | None = None


@dataclass(frozen=True, slots=True)
class Score:
    key: str
    module_sha256: str
    scenarios_digest: str
    correct: bool
    total_fuel: int | None      # the stress scenarios' fuel, when correct
    cases: tuple[CaseScore, ...]

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, doc: dict) -> Score:
        cases = tuple(CaseScore(**c) for c in doc["cases"])
        score = cls(**{**doc, "cases": cases})
        if not all(c.status in STATUSES for c in cases) or not isinstance(score.correct, bool):
            raise ValueError("unknown status")
        return score


@functools.cache
def _fingerprint() -> str:
    return engine_fingerprint()  # reads wasmtime's distribution metadata: once per process


def score_key(module_sha256: str, scenarios: Scenarios, load: LoadLimits) -> str:
    doc = [SCORER_VERSION, _fingerprint(), module_sha256, scenarios.digest, repr(load)]
    return hashlib.sha256(json.dumps(doc, separators=(",", ":")).encode()).hexdigest()


def _one(wasm: bytes, digest: str, held: Held, scenarios: Scenarios, schema: Validator,
         cache: ModuleCache, load: LoadLimits) -> CaseScore:
    sc = held.scenario
    ran = run_once(wasm, digest, held.input, entry=scenarios.entry,
                   budget=scenarios.fuel_limit * sc.fuel_runway,
                   max_memory_bytes=scenarios.max_memory_bytes, cache=cache, load=load)
    if ran.output is None:
        return CaseScore(sc.name, sc.kind, ran.status or "trap", ran.fuel, ran.detail)
    verdict = judge(ran.output, held.expected, schema)
    if verdict.status == "correct" and sc.kind == "stress" and ran.fuel > scenarios.fuel_limit:
        return CaseScore(sc.name, sc.kind, "over_ceiling", ran.fuel,
                         f"correct, but {ran.fuel:,} fuel is over the fuel_limit of {scenarios.fuel_limit:,}")
    return CaseScore(sc.name, sc.kind, verdict.status, ran.fuel, verdict.detail, verdict.mismatch_tick)


_validators: dict[str, Validator] = {}


def _validator(schema: bytes) -> Validator:
    """The compiled output schema, once per process (compiling costs more than
    scoring a small scenario)."""
    key = sha256_hex(schema)
    found = _validators.get(key)
    if found is None:
        if len(_validators) >= 64:
            _validators.clear()
        found = _validators[key] = Validator(json.loads(schema))
    return found


class _Once:
    """The cache as one score's scenarios see it: the module is checked and
    compiled (or refused) by the first scenario; the others reuse the verdict
    (the bytes are the same, so the preflight's answer is too)."""

    def __init__(self, cache: ModuleCache):
        self.cache = cache
        self.found: object = None
        self.failed: BaseException | None = None

    def load(self, wasm: bytes, digest: str | None = None, limits: LoadLimits | None = None):
        if self.failed is not None:
            raise self.failed
        if self.found is None:
            try:
                self.found = self.cache.load(wasm, digest, limits)
            except Exception as exc:  # the sandbox classifies it (NotWasm, ModuleRejected, WasmtimeError)
                self.failed = exc
                raise
        return self.found


def score_module(wasm: bytes, scenarios: Scenarios, cache: ModuleCache | None = None,
                 load: LoadLimits | None = None) -> Score:
    """Score ``wasm`` on ``scenarios`` (smoke, then stress). Never raises for the module's faults."""
    once = _Once(cache or ModuleCache())
    load = load or LoadLimits.from_env()
    digest = sha256_hex(wasm)
    schema = _validator(scenarios.output_schema)
    results: dict[int, CaseScore] = {}
    smoke = [(i, h) for i, h in enumerate(scenarios.held) if h.scenario.kind == "smoke"]
    stress = [(i, h) for i, h in enumerate(scenarios.held) if h.scenario.kind == "stress"]
    for i, held in smoke:
        results[i] = _one(wasm, digest, held, scenarios, schema, once, load)
    smoke_ok = all(results[i].status == "correct" for i, _ in smoke)
    for i, held in stress:
        results[i] = _one(wasm, digest, held, scenarios, schema, once, load) if smoke_ok else \
            CaseScore(held.scenario.name, "stress", "skipped", None, "a smoke scenario failed (phase 1)")
    cases = tuple(results[i] for i in range(len(scenarios.held)))
    correct = all(c.status == "correct" for c in cases)
    total = sum(c.fuel or 0 for c in cases if c.kind == "stress") if correct else None
    return Score(score_key(digest, scenarios, load), digest, scenarios.digest, correct, total, cases)


def cached_score(build_dir: Path, wasm: bytes, scenarios: Scenarios, cache: ModuleCache | None = None,
                 load: LoadLimits | None = None) -> tuple[Score, bool]:
    """(the score, whether it came from ``build_dir/scores/``)."""
    load = load or LoadLimits.from_env()
    key = score_key(sha256_hex(wasm), scenarios, load)
    path = build_dir / "scores" / f"{key}.json"
    try:
        data = read_bytes(path, MAX_SCORE_BYTES, follow=False, what="score")
        mac, body = bytes.fromhex(data[:64].decode("ascii")), data[65:]
        if hmac.compare_digest(mac, host_mac(path.name, body)):
            found = Score.from_json(json.loads(body))
            if found.key == key:
                return found, True
    except (OSError, ValueError, TypeError, KeyError):
        pass  # absent, damaged or not this host's: scored again
    score = score_module(wasm, scenarios, cache, load)
    body = json.dumps(score.to_json(), indent=1, sort_keys=True).encode()
    write_cache_bytes(path, host_mac(path.name, body).hex().encode() + b"\n" + body)
    return score, False


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    """The score of one run's (or reference's) module: a row of ``performance_scores``."""

    source: str                 # a run id
    case_slug: str
    case_version: str
    case_digest: str
    status: str                 # correct | incorrect | no_module
    module_sha256: str | None
    total_fuel: int | None
    cases: tuple[CaseScore, ...]
    key: str
    duration_s: float
    detail: str = ""

    def row(self) -> dict:
        import datetime

        return {
            "source": self.source, "case_slug": self.case_slug, "case_version": self.case_version,
            "case_digest": self.case_digest, "status": self.status, "module_sha256": self.module_sha256,
            "total_fuel": self.total_fuel, "cases": [asdict(c) for c in self.cases], "score_key": self.key,
            "detail": self.detail, "duration_s": round(self.duration_s, 3),
            "scored_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }


def score_record(build_dir: Path, source: str, case, module: Path | None, detail: str = "",
                 cache: ModuleCache | None = None) -> ScoreRecord:
    """Score the module at ``module`` (None: its build failed, ``detail`` says why)
    for ``source`` on the held-out set of ``case`` (a parsed performance case)."""
    from tcab.arena.engine import MAX_MODULE_BYTES
    from tcab.catalog import case_digest

    started = time.perf_counter()
    digest = case_digest(case)
    if module is None:
        return ScoreRecord(source, case.slug, case.version, digest, "no_module", None, None, (), "",
                           0.0, detail or "no module was built")
    scenarios = load_scenarios(case.section, case.root)
    try:
        wasm = read_bytes(module, MAX_MODULE_BYTES, follow=False, what="module")
    except OSError as exc:
        return ScoreRecord(source, case.slug, case.version, digest, "no_module", None, None, (), "",
                           0.0, f"{module}: {exc.strerror or exc}")
    score, _ = cached_score(build_dir, wasm, scenarios, cache)
    return ScoreRecord(source, case.slug, case.version, digest, "correct" if score.correct else "incorrect",
                       score.module_sha256, score.total_fuel, score.cases, score.key,
                       time.perf_counter() - started)
