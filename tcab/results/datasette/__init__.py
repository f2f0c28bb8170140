"""Datasette metadata for results.db: table and column descriptions and canned
queries (docs/results.md, "Datasette"). Datasette itself is not a dependency::

    datasette results/results.db --metadata "$(python -m tcab.results.datasette)"

The database is named after its file, so the metadata applies to a file
called ``results.db``.
"""

from __future__ import annotations

from pathlib import Path

#: The metadata file shipped with the package.
METADATA = Path(__file__).with_name("metadata.json")

__all__ = ["METADATA"]
