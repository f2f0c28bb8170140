"""Everything a match needs to know about a case, as plain values.

``GameSpec`` is built either from the catalog (``GameSpec.from_case``) or by
hand (tests, games outside the catalog), so the host never depends on how a
case is stored. Schemas are compiled once per spec and process with
fastjsonschema and kept on the side (``Schemas``), since compiled validators
are not picklable and a spec crosses process boundaries in tournaments.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcab.arena.sandbox import Limits
from tcab.catalog.schemas import SchemaCompileError, Validator
from tcab.errors import ArenaError


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A resolved case version + variant, ready to play."""

    case: str
    version: str
    variant: str
    rules_path: Path
    world_schema: Path | None
    action_schema: Path | None
    params: dict = field(default_factory=dict)
    fuel_per_tick: int = 10_000_000
    max_memory_bytes: int = 16 * 1024 * 1024
    entry: str = "tick"
    timestep_ms: int = 100
    max_ticks: int = 500
    participants: int = 2
    structure: str = "round-robin"
    rounds: int = 2
    case_digest: str = ""
    root: Path | None = None
    baselines: Path | None = None
    build_install: str = ""
    build_command: str = ""
    build_module: str = ""

    @property
    def limits(self) -> Limits:
        return Limits(self.fuel_per_tick, self.max_memory_bytes, self.entry)

    def header(self) -> dict:
        """The replay header's game part (no paths: a replay is portable)."""
        return {
            "case": self.case, "version": self.version, "variant": self.variant,
            "case_digest": self.case_digest, "params": self.params,
            "timestep_ms": self.timestep_ms, "max_ticks": self.max_ticks,
            "participants": self.participants, "entry": self.entry,
            "sandbox": {"fuel_per_tick": self.fuel_per_tick, "max_memory_bytes": self.max_memory_bytes},
        }

    @classmethod
    def from_case(cls, case: Any, variant: Any) -> GameSpec:
        """Build from the catalog's ``CaseVersion`` and ``Variant``.

        Raises ``ArenaError`` if the case is not adversarial or lacks a table.
        """
        from tcab.catalog import case_digest  # imported late: the catalog is optional here

        where = f"{case.root}/test-case.toml"
        section = getattr(case, "section", None)  # tcab.testtypes.adversarial.AdversarialSection
        for attr in ("contract", "sandbox", "simulation", "match", "game"):
            if getattr(section, attr, None) is None:
                raise ArenaError(f"{where}: [{attr}] is required for an adversarial case")
        game, contract = case.section.game, case.section.contract
        params = _plain(dict(_get(game, "params") or {}))
        params.update(_plain(dict(_get(variant, "params") or {})))
        build = getattr(case, "build", None)
        baselines = _get(game, "baselines")
        return cls(
            case=case.slug, version=case.version, variant=variant.slug,
            rules_path=case.root / _get(game, "module"),
            world_schema=case.root / _get(contract, "world"),
            action_schema=case.root / _get(contract, "action"),
            params=params,
            fuel_per_tick=int(_get(case.section.sandbox, "fuel_per_tick")),
            max_memory_bytes=int(_get(case.section.sandbox, "max_memory_bytes")),
            entry=_get(contract, "entry") or "tick",
            timestep_ms=int(_get(case.section.simulation, "timestep_ms")),
            max_ticks=int(_get(case.section.simulation, "max_ticks")),
            participants=int(_get(case.section.match, "participants") or 2),
            structure=_get(case.section.match, "structure") or "round-robin",
            rounds=int(_get(case.section.match, "rounds") or 1),
            case_digest=case_digest(case),
            root=case.root,
            baselines=case.root / baselines if baselines else None,
            build_install=(_get(build, "install") or "") if build is not None else "",
            build_command=(_get(build, "build") or "") if build is not None else "",
            build_module=(_get(build, "module") or "") if build is not None else "",
        )


def _plain(value: Any) -> Any:
    """TOML values as plain JSON-able Python (mappings to dicts, tuples to lists)."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _get(obj: Any, key: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


class Schemas:
    """Compiled validators for a spec's world and action schemas."""

    _lock = threading.Lock()
    _cache: dict[tuple, Schemas] = {}

    def __init__(self, world: Path | None, action: Path | None):
        self.world = compile_schema(world)
        self.action = compile_schema(action)

    @classmethod
    def of(cls, spec: GameSpec) -> Schemas:
        """The validators of ``spec``, compiled once per process."""
        key = (str(spec.world_schema), str(spec.action_schema))
        with cls._lock:
            found = cls._cache.get(key)
            if found is None:
                found = cls._cache[key] = cls(spec.world_schema, spec.action_schema)
            return found


def compile_schema(path: Path | None):
    """A ``Validator`` for the JSON Schema file at ``path`` (None for no path).

    Raises ``ArenaError`` naming the file if it is unreadable, not JSON or
    not a valid schema.
    """
    if path is None:
        return None
    try:
        schema = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ArenaError(f"{path}: cannot read the schema: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise ArenaError(f"{path}: not JSON: {exc}") from exc
    try:
        return Validator(schema)
    except SchemaCompileError as exc:
        raise ArenaError(f"{path}: not a valid JSON Schema: {exc}") from exc


