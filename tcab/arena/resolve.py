"""Turn command-line names into arena inputs: a case into a ``GameSpec``, a
module argument (a ``.wasm`` path or ``baseline:<name>``) into a
``Contestant``.
"""

from __future__ import annotations

from pathlib import Path

from tcab.arena.build import build_baseline
from tcab.arena.engine import MAX_MODULE_BYTES, sha256_hex
from tcab.arena.game import GameSpec
from tcab.arena.tournament import Contestant
from tcab.catalog import CaseVersion, Variant
from tcab.catalog import resolve_case as resolve_catalog_case
from tcab.errors import ArenaError
from tcab.settings import Settings


def resolve_game(settings: Settings, ref: str, variant: str | None = None) -> tuple[CaseVersion, Variant, GameSpec]:
    """``slug`` or ``slug@vX.Y.Z`` -> (CaseVersion, Variant, GameSpec).

    Raises ``CatalogError`` for an unknown case, version or variant (see
    :func:`tcab.catalog.resolve_case`) and ``ArenaError`` for a case that is
    not adversarial or that this host cannot play (no Python rules module).
    """
    case = resolve_catalog_case(settings.catalog_dir, ref)
    if (why := case.unplayable_reason()) is not None:
        raise ArenaError(f"{case.manifest}: {why}")
    var = case.variant(variant)
    return case, var, GameSpec.from_case(case, var)


def resolve_module(settings: Settings, arg: str, case=None, label: str | None = None,
                   builds: list | None = None) -> Contestant:
    """A contestant from ``arg``: a path to a ``.wasm`` file, or
    ``baseline:<name>`` (built on the host on first use and cached; its
    ``BuildRecord`` is appended to ``builds`` when given).

    Raises ``ArenaError`` for a missing file or an unknown baseline.
    """
    if arg.startswith("baseline:"):
        if case is None:
            raise ArenaError(f"{arg}: a baseline needs a case")
        name = arg.split(":", 1)[1]
        record = build_baseline(settings, case, name)
        if builds is not None:
            builds.append(record)
        if record.status != "ok" or record.module is None:
            raise ArenaError(f"{arg}: the baseline did not build ({record.status}):\n{record.log_excerpt}")
        return Contestant(label or f"baseline/{name}", record.module, record.sha256)
    path = Path(arg)
    if not path.is_file():
        raise ArenaError(f"{arg}: no such module file (give a .wasm path or baseline:<name>)")
    if path.stat().st_size > MAX_MODULE_BYTES:
        raise ArenaError(f"{arg}: {path.stat().st_size} bytes, over the {MAX_MODULE_BYTES}-byte module cap")
    return Contestant(label or path.stem, path.resolve(), sha256_hex(path.read_bytes()))


def unique_labels(contestants: list[Contestant]) -> list[Contestant]:
    """Suffix ``#2``, ``#3``... to repeated labels so standings stay readable."""
    seen: dict[str, int] = {}
    out = []
    for c in contestants:
        n = seen[c.label] = seen.get(c.label, 0) + 1
        out.append(c if n == 1 else Contestant(f"{c.label}#{n}", c.path, c.sha256))
    return out
