"""Inputs that are the same for every task of a process, computed once.

A case resolved from the catalog, an image's digest, a harness definition's
digest, and values derived from them (the inputs every repeat of a run
shares) cannot change while doit runs: each is asked for by thousands of
checks of a no-op sweep and computed on the first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tcab.catalog import CaseVersion, Catalog
from tcab.runtime.choice import RuntimeChoice
from tcab.settings import Settings
from tcab.tasks.executors import Executors, HarnessInfo

T = TypeVar("T")


class Lookups:
    """Memoized catalog, image and harness lookups of one sweep process."""

    __slots__ = ("_catalog", "_executors", "_runtime", "_settings", "_cases", "_images", "_harnesses", "_derived")

    def __init__(self, catalog: Catalog, executors: Executors, runtime: RuntimeChoice, settings: Settings) -> None:
        self._catalog = catalog
        self._executors = executors
        self._runtime = runtime
        self._settings = settings
        self._cases: dict[tuple[str, str], CaseVersion] = {}
        self._images: dict[str, str] = {}
        self._harnesses: dict[str, HarnessInfo] = {}
        self._derived: dict[tuple, object] = {}

    def case(self, slug: str, version: str) -> CaseVersion:
        key = (slug, version)
        found = self._cases.get(key)
        if found is None:
            found = self._cases[key] = self._catalog.resolve(slug, version)
        return found

    def image_digest(self, kind: str) -> str:
        """The digest of the run image ``kind`` (as a test type names it: ``TestType.run_image``)."""
        found = self._images.get(kind)
        if found is None:
            found = self._images[kind] = self._executors.image_digest(kind, self._runtime)
        return found

    def harness(self, slug: str) -> HarnessInfo:
        """The harness's HarnessInfo (definition digest, whether it reads the solution)."""
        found = self._harnesses.get(slug)
        if found is None:
            found = self._harnesses[slug] = self._executors.harness(slug, self._settings)
        return found

    def once(self, key: tuple, compute: Callable[[], T]) -> T:
        """``compute()`` the first time ``key`` is asked for, then the same value:
        only for values made of the lookups above (they cannot change either)."""
        try:
            return self._derived[key]  # type: ignore[return-value]
        except KeyError:
            found = self._derived[key] = compute()
            return found
