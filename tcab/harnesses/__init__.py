"""Agent harnesses: definitions in ``harnesses/*.toml`` and the adapters that
turn their output into events and token usage.

Public: :func:`load_harnesses`, :func:`load_harness`, :class:`Harness`,
:func:`make_adapter`, :class:`Event`, :class:`Tokens`.
"""

from tcab.harnesses.adapters import ADAPTERS, make_adapter
from tcab.harnesses.definition import (
           SOLUTION_DIR,
           Harness,
           load_harness,
           load_harness_file,
           load_harnesses,
)
from tcab.harnesses.events import KINDS, Event, Tokens

__all__ = ["ADAPTERS", "KINDS", "SOLUTION_DIR", "Event", "Harness", "Tokens", "load_harness",
           "load_harness_file", "load_harnesses", "make_adapter"]
