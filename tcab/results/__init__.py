"""results.db: the SQLite database every outcome lands in, and the report over it.

Public API (see docs/results.md for every table and column)::

    from tcab.results import open_db, record_run, record_build, record_match, record_tournament
    db = open_db(settings.results_db)          # created, WAL, migrated; pass it explicitly
    record_run(db, run, stages)                # runs + stages
    record_build(db, build)                    # builds
    key = record_match(db, match, seats)       # matches + match_seats
    record_tournament(db, tournament, entries, ratings)
    record_validation(db, validation)        # validations (tcab validate)
    record_performance_score(db, score)      # performance_scores (a performance run's score)
    record_asset_regeneration(db, regen)     # asset_regenerations + asset_frames (an asset run's frames)

Each ``record_*`` is one transaction and idempotent; an unknown key raises
ResultsError naming the table and the key.
"""

import importlib
from typing import TYPE_CHECKING

# Exports are resolved on first use: the report reads with plain sqlite3 and
# must not pay for importing sqlite-utils (and the numpy it pulls in).
_EXPORTS = {
    "match_key": "record",
    "record_build": "record",
    "record_match": "record",
    "record_asset_regeneration": "record",
    "record_performance_score": "record",
    "record_run": "record",
    "record_tournament": "record",
    "record_validation": "record",
    "recorded_run": "lookup",
    "MIGRATIONS": "schema",
    "RUN_STATUSES": "schema",
    "SCHEMA_VERSION": "schema",
    "SEAT_OUTCOMES": "schema",
    "VALIDATION_STATUSES": "schema",
    "TABLES": "schema",
    "Migration": "schema",
    "migrate": "store",
    "open_db": "store",
    "schema_version": "store",
}
__all__ = [
    "MIGRATIONS",
    "RUN_STATUSES",
    "SCHEMA_VERSION",
    "SEAT_OUTCOMES",
    "TABLES",
    "VALIDATION_STATUSES",
    "Migration",
    "match_key",
    "migrate",
    "open_db",
    "record_asset_regeneration",
    "record_build",
    "record_match",
    "record_performance_score",
    "record_run",
    "record_tournament",
    "record_validation",
    "recorded_run",
    "schema_version",
]

if TYPE_CHECKING:
    from tcab.results.lookup import recorded_run
    from tcab.results.record import (
        match_key,
        record_asset_regeneration,
        record_build,
        record_match,
        record_performance_score,
        record_run,
        record_tournament,
        record_validation,
    )
    from tcab.results.schema import (
        MIGRATIONS,
        RUN_STATUSES,
        SCHEMA_VERSION,
        SEAT_OUTCOMES,
        TABLES,
        VALIDATION_STATUSES,
        Migration,
    )
    from tcab.results.store import migrate, open_db, schema_version


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tcab.results' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tcab.results.{module}"), name)
