"""Replays: every input that drove a match, as gzip JSON, and their check.

A replay is ``{"format", "header", "ticks", "forfeits", "result",
"final_digest", "fuel"}``: the header names the case, version, variant,
case digest, rules parameters, timing, sandbox limits, the seed and each
seat's module sha256; ``ticks[t][seat]`` is the action that seat played at
tick ``t`` (``null`` once it has forfeited); ``forfeits`` lists each
forfeit with its tick, reason and detail.

Bytes are canonical: keys sorted, compact JSON (orjson), gzip with mtime 0
and no file name, so the same match gives byte-identical replays in any
process. ``verify_replay`` re-simulates with the rules module only (no wasm)
and compares the result and the final state digest.
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass
from pathlib import Path

import fastjsonschema
import orjson

from tcab.atomic import write_bytes
from tcab.errors import ReplayError
from tcab.reading import ReadRefused, open_binary

REPLAY_FORMAT = "tcab-replay/1"


def encode_replay(doc: dict) -> bytes:
    """Canonical gzip bytes of a replay document."""
    data = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)
    return gzip.compress(data, compresslevel=6, mtime=0)


def write_replay(path: Path | str, doc: dict) -> None:
    write_bytes(path, encode_replay(doc))


# The most a replay may decompress to. A capture match of 1,500 ticks is
# well under 1 MiB; the bound stops a gzip bomb (a few MB on disk, gigabytes
# inflated) before it is held in memory. ``tcab replay verify --max-bytes``.
DEFAULT_MAX_REPLAY_BYTES = 64 * 1024 * 1024

# The shape verify_replay relies on; anything else is refused by name, never
# met later as a KeyError or TypeError in the middle of a re-simulation.
_SHAPE = {
    "type": "object",
    "required": ["format", "header", "ticks", "forfeits", "result", "final_digest"],
    "properties": {
        "header": {
            "type": "object",
            "required": ["case", "version", "variant", "seats", "params", "seed", "timestep_ms", "max_ticks"],
            "properties": {
                "case": {"type": "string"}, "version": {"type": "string"}, "variant": {"type": "string"},
                "seats": {"type": "array", "minItems": 1},
                "params": {"type": "object"},
                "seed": {"type": "integer"},
                "timestep_ms": {"type": "number"},
                "max_ticks": {"type": "integer", "minimum": 0},
            },
        },
        "ticks": {"type": "array", "items": {"type": "array"}},
        "forfeits": {"type": "array", "items": {
            "type": "object", "required": ["seat", "tick", "reason", "detail"],
            "properties": {"seat": {"type": "integer", "minimum": 0}, "tick": {"type": "integer"},
                           "reason": {"type": "string"}},
        }},
        "result": {"type": "object"},
        "final_digest": {"type": "string"},
    },
}
_check_shape = None


def _shape_problem(doc: dict) -> str | None:
    global _check_shape
    if _check_shape is None:
        _check_shape = fastjsonschema.compile(_SHAPE)
    try:
        _check_shape(doc)
    except fastjsonschema.JsonSchemaException as exc:
        return exc.message
    if any(f["seat"] >= len(doc["header"]["seats"]) for f in doc["forfeits"]):
        return "a forfeit names a seat the header does not have"
    return None


def _limit(max_bytes) -> int:
    """``max_bytes`` as a positive int (None: the default); ValueError naming it otherwise."""
    if max_bytes is None:
        return DEFAULT_MAX_REPLAY_BYTES
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
        raise ValueError(f"max_bytes: expected a positive whole number of bytes, got {max_bytes!r}")
    return max_bytes


def stored_bytes_limit(max_bytes: int | None = None) -> int:
    """The most a replay file may hold on disk: what gzip could make of ``max_bytes``
    (the decompressed bound) and its framing (stored blocks add 5 bytes per 64 KiB)."""
    limit = _limit(max_bytes)
    return limit + limit // 1000 + 4096


def _inflate(path: Path, limit: int) -> bytes:
    """The decompressed bytes of ``path``, read in steps and never more than ``limit`` of them."""
    try:
        # Non-blocking and a regular file only: a FIFO named as a replay never blocks.
        raw = open_binary(path, stored_bytes_limit(limit), what="replay file")
        with raw, gzip.GzipFile(fileobj=raw, mode="rb") as gz:
            data = gz.read(limit + 1)
            if len(data) > limit:
                raise ReplayError(f"{path}: decompresses to more than {limit} bytes "
                                  "(a replay this large is refused; see --max-bytes)")
    except (FileNotFoundError, IsADirectoryError, PermissionError, ReadRefused) as exc:
        raise ReplayError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except EOFError as exc:
        # Not "interrupted": click would take an EOFError for Ctrl-D.
        raise ReplayError(f"{path}: truncated: the gzip stream ends early") from exc
    except (OSError, zlib.error) as exc:
        raise ReplayError(f"{path}: not a readable gzip file: {exc}") from exc
    return data


def read_replay(path: Path | str, *, max_bytes: int | None = None) -> dict:
    """Load a replay file, decompressing at most ``max_bytes`` (default
    DEFAULT_MAX_REPLAY_BYTES). Raises ``ReplayError`` naming the file if it
    is missing, truncated, not gzip, larger than that, not JSON, or not a
    replay of our format and shape; ``ValueError`` for a bad ``max_bytes``."""
    path = Path(path)
    data = _inflate(path, _limit(max_bytes))
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ReplayError(f"{path}: not JSON inside the gzip: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != REPLAY_FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise ReplayError(f"{path}: format: expected {REPLAY_FORMAT!r}, got {str(found)[:80]!r}")
    for key in ("header", "ticks", "forfeits", "result", "final_digest"):
        if key not in doc:
            raise ReplayError(f"{path}: missing key {key!r}")
    problem = _shape_problem(doc)
    if problem is not None:
        raise ReplayError(f"{path}: not a replay of this shape: {problem}")
    return doc


@dataclass(frozen=True, slots=True)
class ReplayVerdict:
    """What re-simulation found. ``ok`` only if result and digest match."""

    ok: bool
    problems: tuple[str, ...]
    result: dict | None
    final_digest: str | None


def verify_replay(doc: dict, rules_path: Path, action_schema: Path | None = None) -> ReplayVerdict:
    """Re-simulate ``doc`` with the rules at ``rules_path``.

    Every recorded action is re-validated (schema, ``check``); a forfeited
    seat must have no action. Raises ``ArenaError`` only if the rules
    themselves fail.
    """
    # Slow import: game and simulation load wasmtime (through the sandbox),
    # which reading and writing replays (every match, every cache hit) must
    # not pay; only re-simulating needs them.
    from tcab.arena.game import compile_schema
    from tcab.arena.rules import Rules
    from tcab.arena.simulation import Simulator

    header = doc["header"]
    rules = Rules(rules_path)
    validate = compile_schema(action_schema) if action_schema else None
    seats = len(header["seats"])
    sim = Simulator(rules, header["params"], header["seed"], seats,
                     header["timestep_ms"], header["max_ticks"])
    _apply_forfeits(sim, [f for f in doc["forfeits"] if f.get("phase") == "load"], load=True)
    result = sim.after_load()
    problems: list[str] = []
    for t, actions in enumerate(doc["ticks"]):
        if result is not None:
            problems.append(f"tick {t}: recorded after the match had ended")
            break
        if len(actions) != seats:
            problems.append(f"tick {t}: {len(actions)} actions for {seats} seats")
            break
        _apply_forfeits(sim, [f for f in doc["forfeits"] if f["tick"] == t and f.get("phase") != "load"])
        refuted = _action_problems(t, actions, sim, rules, validate)
        if refuted:
            # Stepping the rules with actions they never vetted could make
            # them raise; the replay is already refuted.
            return ReplayVerdict(False, tuple(refuted), None, None)
        result = sim.advance(actions)
    problems += _ending_problems(doc, result, sim.final_digest)
    return ReplayVerdict(not problems, tuple(problems), result, sim.final_digest)


def _apply_forfeits(sim, forfeits: list[dict], *, load: bool = False) -> None:
    """Replay the recorded forfeits into the simulation (before tick 0 when ``load``)."""
    from tcab.arena.sandbox import Forfeit  # slow import (wasmtime), see verify_replay

    for f in forfeits:
        if load:
            sim.forfeit(f["seat"], Forfeit(f["reason"], f["detail"], f["tick"], "load"))
        else:
            sim.forfeit(f["seat"], Forfeit(f["reason"], f["detail"], f["tick"]))


def _action_problems(t: int, actions: list, sim, rules, validate) -> list[str]:
    """What is wrong with the actions recorded at tick ``t`` (schema, legality,
    a forfeited seat acting, a live seat silent)."""
    problems = []
    for seat, action in enumerate(actions):
        if seat in sim.forfeits:
            if action is not None:
                problems.append(f"tick {t}: seat {seat} acted after forfeiting")
            continue
        if action is None:
            problems.append(f"tick {t}: seat {seat} has no action and no forfeit")
            continue
        if validate is not None:
            try:
                validate(action)
            except fastjsonschema.JsonSchemaException as exc:
                problems.append(f"tick {t}: seat {seat}: action breaks the schema: {exc.message}")
                continue
        why = rules.check(sim.state, seat, action)
        if why is not None:
            problems.append(f"tick {t}: seat {seat}: illegal action: {why}")
    return problems


def _ending_problems(doc: dict, result: dict | None, final_digest: str | None) -> list[str]:
    """How the re-simulated ending differs from the recorded one."""
    if result is None:
        return [f"the replay ends after {len(doc['ticks'])} ticks without a result"]
    problems = []
    if result != doc["result"]:
        problems.append(f"result differs: recorded {_short(doc['result'])}, re-simulated {_short(result)}")
    if final_digest != doc["final_digest"]:
        problems.append(f"final digest differs: recorded {doc['final_digest']}, re-simulated {final_digest}")
    return problems


def _short(result: dict) -> str:
    return f"winner={result.get('winner')} reason={result.get('reason')} scores={result.get('scores')} ticks={result.get('ticks')}"
