"""Test types: one module each (docs/contracts.md, "Test types").

``end_to_end`` and ``adversarial`` are the built-in ones; ``TCAB_TEST_TYPES``
adds others. The catalog holds the protocol (:mod:`tcab.catalog.testtype`)
and the table that finds a type by name (:mod:`tcab.catalog.typetable`), so
that parsing a case never imports a part above the catalog; this package
sits above seeding (a type adds to a seed) and is reached only through that
table's ``"module:Class"`` strings. Its public names, for a type's author:
"""

from __future__ import annotations

from tcab.catalog.testtype import (
    AfterRun,
    BuildKeys,
    LiveEndpoint,
    ParsedSection,
    Section,
    SectionInput,
    SeedingInput,
    SuccessRule,
    TestType,
)
from tcab.catalog.typetable import BUILTIN, ENV, extra_types, get_type, is_type, type_names
from tcab.testtypes.base import reference_entries

__all__ = [
    "BUILTIN", "ENV", "AfterRun", "BuildKeys", "LiveEndpoint", "ParsedSection", "Section", "SectionInput", "SeedingInput",
    "SuccessRule", "TestType", "extra_types", "get_type", "is_type", "reference_entries", "type_names",
]
