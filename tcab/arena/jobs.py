"""One match as a unit of work: cached by its key, runnable in any process.

A match is a pure function of (case version digest, variant, seed, modules
in seat order), so ``match_key`` of those names its cache files:
``results/matches/<key>.json`` (the summary) and
``results/replays/<key>.json.gz`` (the replay). A job whose summary and
replay both exist is never played again. Jobs are plain picklable data so a
``ProcessPoolExecutor`` can run them; each worker process keeps its own
``ModuleCache`` on the shared ``build/modules/`` folder, so a module is
compiled once per machine and deserialized everywhere else.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

from tcab.arena.engine import ModuleCache
from tcab.arena.game import GameSpec
from tcab.arena.match import Entrant, play_match
from tcab.arena.preflight import LoadLimits
from tcab.arena.replay import encode_replay
from tcab.atomic import write_cache_bytes

_caches: dict[str, ModuleCache] = {}


def spec_digest(spec: GameSpec) -> str:
    """The case version digest, or for a game outside the catalog a digest of
    its rules, schemas and header (so the cache key still covers the game)."""
    if spec.case_digest:
        return spec.case_digest
    h = hashlib.sha256()
    for path in (spec.rules_path, spec.world_schema, spec.action_schema):
        h.update(Path(path).read_bytes() if path else b"-")
    h.update(json.dumps(spec.header(), sort_keys=True).encode())
    return h.hexdigest()


def match_key(spec: GameSpec, seed: int, shas: list[str]) -> str:
    from tcab.results import match_key as results_match_key  # slow import (sqlite-utils)

    return results_match_key(spec_digest(spec), spec.variant, seed, shas)


@dataclass(frozen=True, slots=True)
class MatchJob:
    spec: GameSpec
    labels: tuple[str, ...]
    paths: tuple[str, ...]
    shas: tuple[str, ...]
    seed: int
    key: str
    results_dir: Path
    modules_dir: Path | None
    players: tuple[int, ...] = ()  # tournament player index per seat
    round: int = 1
    tag: str = ""

    @property
    def summary_path(self) -> Path:
        return self.results_dir / "matches" / f"{self.key}.json"

    @property
    def replay_path(self) -> Path:
        return self.results_dir / "replays" / f"{self.key}.json.gz"


#: The most a cached summary may hold (one of a 4-seat match is ~1 KiB).
MAX_SUMMARY_BYTES = 1024 * 1024


def _summary_problem(job: MatchJob, summary) -> str | None:
    """Why a stored summary is not ``job``'s, or None. A restored results/ folder
    is input: the summary must name this job's key, seed, modules and replay,
    and have the shape the callers read (result seats, fuel, digests)."""
    if not isinstance(summary, dict):
        return "not an object"
    expected = {"key": job.key, "seed": job.seed, "shas": list(job.shas), "replay": str(job.replay_path)}
    for name, value in expected.items():
        if summary.get(name) != value:
            return f"{name} is not this match's"
    result, fuel, labels = summary.get("result"), summary.get("fuel"), summary.get("labels")
    if not isinstance(result, dict) or not isinstance(result.get("seats"), list):
        return "result is not a match result"
    seats = len(job.shas)
    if len(result["seats"]) != seats or not all(isinstance(row, dict) for row in result["seats"]):
        return "result has another number of seats"
    if not isinstance(fuel, list) or len(fuel) != seats or not all(
            isinstance(f, dict) and isinstance(f.get("total"), int) and isinstance(f.get("peak"), int)
            for f in fuel):
        return "fuel is not one total and peak per seat"
    if not isinstance(labels, list) or len(labels) != seats or not all(isinstance(x, str) for x in labels):
        return "labels are not one string per seat"
    for name in ("final_digest", "replay_sha256"):
        if not isinstance(summary.get(name), str) or len(summary[name]) != 64:
            return f"{name} is not a digest"
    return None


def cached_summary(job: MatchJob) -> dict | None:
    """The stored summary of ``job`` if it and its replay are whole and its own.

    Both are read as tcab wrote them: regular files, not links, bounded in
    size (a FIFO never blocks); the summary must be ``job``'s (key, seed,
    modules, replay path) and the replay's bytes must still have the digest
    the summary recorded. Anything else is None: the match is played again.
    """
    from tcab.arena.replay import stored_bytes_limit
    from tcab.reading import read_bytes

    try:
        summary = orjson.loads(read_bytes(job.summary_path, MAX_SUMMARY_BYTES, follow=False))
        if _summary_problem(job, summary) is not None:
            return None
        replay = read_bytes(job.replay_path, stored_bytes_limit(), follow=False)
    except (OSError, orjson.JSONDecodeError):
        return None
    if hashlib.sha256(replay).hexdigest() != summary["replay_sha256"]:
        return None
    return {**summary, "cached": True}


def run_job(job: MatchJob) -> dict:
    """Play ``job`` (or reuse its cached result) and return its summary.

    The ``TCAB_WASM_*`` limits are checked first, cached or not: a value that
    would be refused when playing is refused when serving from the cache too
    (ArenaError naming the variable).
    """
    LoadLimits.from_env()
    found = cached_summary(job)
    if found is not None:
        return found
    folder = str(job.modules_dir) if job.modules_dir else ""
    cache = _caches.get(folder)
    if cache is None:
        cache = _caches[folder] = ModuleCache(job.modules_dir)
    entrants = [Entrant.from_path(p, label) for p, label in zip(job.paths, job.labels, strict=True)]
    started = time.perf_counter()
    record = play_match(job.spec, entrants, job.seed, cache)
    duration = time.perf_counter() - started
    replay = encode_replay(record.replay)
    write_cache_bytes(job.replay_path, replay)
    summary = {
        "key": job.key, "seed": job.seed, "labels": list(job.labels), "shas": list(job.shas),
        "result": record.result, "final_digest": record.final_digest, "fuel": record.fuel,
        "replay": str(job.replay_path), "replay_sha256": hashlib.sha256(replay).hexdigest(),
        "duration_s": round(duration, 4),
    }
    write_cache_bytes(job.summary_path, orjson.dumps(summary, option=orjson.OPT_SORT_KEYS))
    return {**summary, "cached": False}


def make_job(spec: GameSpec, seated: list, seed: int, results_dir: Path, modules_dir: Path | None,
             players: tuple[int, ...] = (), round_no: int = 1, tag: str = "") -> MatchJob:
    """The job of ``seated`` contestants (objects with label, path, sha256),
    in seat order, on ``spec`` with ``seed``."""
    shas = [c.sha256 for c in seated]
    return MatchJob(spec, tuple(c.label for c in seated), tuple(str(c.path) for c in seated),
                    tuple(shas), seed, match_key(spec, seed, shas), Path(results_dir), modules_dir,
                    tuple(players) or tuple(range(len(seated))), round_no, tag)
