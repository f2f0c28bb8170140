"""resolve_case: the one way a case reference (``slug``, ``slug@vX.Y.Z``) becomes a case version."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcab.catalog import resolve_case
from tcab.errors import CatalogError

FIXTURES = Path(__file__).resolve().parents[2] / "tests/fixtures/catalogs"
GOOD, BROKEN = FIXTURES / "good", FIXTURES / "broken"


def test_slug_is_the_newest_non_experimental_version() -> None:
    case = resolve_case(GOOD, "mini-duel")
    assert (case.slug, case.version) == ("mini-duel", "v1.9.0")  # semantic order; v1.10.0 is experimental
    assert resolve_case(GOOD, "mini-duel", experimental=True).version == "v1.10.0"


def test_slug_at_version_and_an_explicit_version() -> None:
    assert resolve_case(GOOD, "mini-duel@v1.2.0").version == "v1.2.0"
    assert resolve_case(GOOD, "mini-duel@1.2.0").version == "v1.2.0"
    assert resolve_case(GOOD, "mini-duel@v1.10.0").version == "v1.10.0"  # named: experimental is fine
    assert resolve_case(GOOD, "mini-duel", "v1.2.0").version == "v1.2.0"
    assert resolve_case(GOOD, "mini-duel@v1.9.0", "v1.2.0").version == "v1.2.0"  # the option wins
    assert resolve_case(GOOD, "mini-duel@").version == "v1.9.0"


def test_unknown_slug_version_and_experimental_only() -> None:
    with pytest.raises(CatalogError, match=r"no test case \"?nope\"?; known: hidden-lab, mini-duel"):
        resolve_case(GOOD, "nope")
    with pytest.raises(CatalogError, match=r"mini-duel has no version \"?v9.9.9\"?; known: v1.2.0, v1.9.0, v1.10.0"):
        resolve_case(GOOD, "mini-duel@v9.9.9")
    with pytest.raises(CatalogError, match="hidden-lab has only experimental versions"):
        resolve_case(GOOD, "hidden-lab")
    with pytest.raises(CatalogError, match="catalog folder not found"):
        resolve_case(FIXTURES / "missing", "mini-duel")


def test_a_broken_neighbour_does_not_stop_a_good_case() -> None:
    case = resolve_case(BROKEN, "ok-control")
    assert case.slug == "ok-control" and case.version == "v1.0.0"


def test_a_broken_case_is_named_by_its_own_problems() -> None:
    with pytest.raises(CatalogError) as info:
        resolve_case(BROKEN, "invalid-toml")
    problems = info.value.problems
    assert "/invalid-toml/" in problems[0].path and "invalid TOML" in problems[0].message
    assert problems[-1].message.startswith('no test case')  # then why it could not resolve
    # Only its own problems: none of the thirty other broken neighbours.
    assert all("/invalid-toml/" in p.path for p in problems[:-1])
