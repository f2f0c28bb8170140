"""The table of test types: name -> ``"module:Class"`` (docs/contracts.md, "Test types").

Public: :func:`get_type`, :func:`type_names`, :func:`is_type`,
:func:`extra_types`, :data:`BUILTIN`, :data:`ENV`. The protocol is
:mod:`tcab.catalog.testtype`; the types themselves live in :mod:`tcab.testtypes`.

A type is named by ``"module:Class"`` and imported on first use, the way
runtime backends are (:data:`tcab.runtime.BACKENDS`). Besides the built-in
ones, ``TCAB_TEST_TYPES`` adds types without touching tcab's code::

    TCAB_TEST_TYPES="asset=mypkg.asset:AssetType,perf=mypkg.perf:PerfType"

The variable is read from the process environment, so it reaches every
process a command starts (``tcab`` itself, ``doit`` and its workers). A
malformed entry, a name given twice, or a module that cannot be imported
is an error naming the variable: a type is never skipped silently.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping

from tcab.catalog.fields import show
from tcab.catalog.testtype import TestType
from tcab.errors import CatalogError, Problem

#: Type name -> "module:Class", in the order catalogs list them.
BUILTIN: dict[str, str] = {
    "end-to-end": "tcab.testtypes.end_to_end:EndToEnd",
    "adversarial": "tcab.testtypes.adversarial:Adversarial",
    "performance": "tcab.testtypes.performance:Performance",
    "asset-generation": "tcab.testtypes.asset_generation:AssetGeneration",
}
#: The environment variable naming extra types (``name=module:Class``, comma separated).
ENV = "TCAB_TEST_TYPES"

_tables: dict[str, dict[str, str]] = {}
_loaded: dict[str, TestType] = {}


def _table(env: Mapping[str, str] | None = None) -> dict[str, str]:
    text = (os.environ if env is None else env).get(ENV, "")
    found = _tables.get(text)
    if found is not None:
        return found
    table = dict(BUILTIN)
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        name, eq, target = entry.partition("=")
        name, target = name.strip(), target.strip()
        module, colon, attr = target.partition(":")
        if not eq or not name or not colon or not module or not attr:
            raise CatalogError(Problem(ENV, f"expected name=module:Class entries, got {entry!r}"))
        if name in table:
            raise CatalogError(Problem(ENV, f"the test type {name!r} is already defined ({table[name]})"))
        table[name] = target
    _tables[text] = table
    return table


def type_names(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every known type name: the built-in ones, then those of ``TCAB_TEST_TYPES``."""
    return tuple(_table(env))


def extra_types(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The types ``TCAB_TEST_TYPES`` adds: name -> "module:Class"."""
    return {k: v for k, v in _table(env).items() if k not in BUILTIN}


def is_type(name: str) -> bool:
    """Whether ``name`` names a known test type."""
    return name in _table()


def refusal(slug: str, name: str) -> str:
    """The one message for a case of a type tcab does not read, whether its
    ``<type>/`` folder or its ``type =`` key names it (docs/catalog.md, "What
    tcab refuses, and how it says so")."""
    return f"case {slug} is of type {show(name)}, which tcab does not run (known: {', '.join(_table())})"


def get_type(name: str, where: str | None = None) -> TestType:
    """The test type ``name``, constructed once per process.

    Raises CatalogError at ``where`` (default: the variable) for an unknown
    name, listing the known ones, and for a type that cannot be imported.
    """
    table = _table()
    target = table.get(name)
    if target is None:
        raise CatalogError(Problem(where or ENV, f"unknown test type {name!r}; known: {', '.join(table)}"))
    found = _loaded.get(target)
    if found is not None:
        return found
    module, _, attr = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise CatalogError(Problem(ENV, f"test type {name!r}: cannot load {target}: {exc}")) from exc
    if not (isinstance(cls, type) and issubclass(cls, TestType)) or cls.name != name:
        raise CatalogError(Problem(ENV, f"test type {name!r}: {target} is not a TestType named {name!r}"))
    found = _loaded[target] = cls()
    return found


def report_columns(name: str) -> tuple[str, ...]:
    """The report column keys the test type ``name`` declares; () for a type no longer known.

    A results database outlives the types that wrote it (a ``TCAB_TEST_TYPES``
    entry removed), so an unknown name is not an error here.
    """
    return get_type(name).report_columns if is_type(name) else ()


def report_table(name: str):
    """The table of its own the test type ``name`` adds to the report (a
    :class:`tcab.results.columns.TypeTable`, imported from its
    ``report_table`` string), or None: also for a type no longer known."""
    target = get_type(name).report_table if is_type(name) else None
    if target is None:
        return None
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def success_rule(name: str):
    """What counts as a success of the test type ``name``'s runs
    (``TestType.success``, a :class:`SuccessRule`), or None: also for a type no longer known."""
    return get_type(name).success if is_type(name) else None


def report_table_keys() -> tuple[str, ...]:
    """The keys of every known type's own report table (``tcab report --table``)."""
    return tuple(t.key for t in (report_table(n) for n in type_names()) if t is not None)


__all__ = ["BUILTIN", "ENV", "extra_types", "get_type", "is_type", "refusal", "report_columns", "report_table",
           "report_table_keys", "success_rule", "type_names"]
