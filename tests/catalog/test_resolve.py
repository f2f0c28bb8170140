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


LIGHTS_OUT = Path(__file__).resolve().parents[2] / "test-cases/end-to-end/easy/lights-out/v1.0.0"


def _versions(tmp: Path, spec: dict[str, str]) -> Path:
    """A catalog of lights-out at the versions in ``spec`` (name -> "ok",
    "experimental", "broken" or "other-slug")."""
    import shutil

    cdir = tmp / "catalog/end-to-end/easy/lights-out"
    for name, kind in spec.items():
        vdir = cdir / name
        shutil.copytree(LIGHTS_OUT, vdir, symlinks=True)
        manifest = vdir / "test-case.toml"
        text = manifest.read_text()
        if kind == "experimental":
            text = "experimental = true\n" + text
        elif kind == "broken":
            text = text.replace('name = "Lights Out"', "name = 7")
        elif kind == "other-slug":
            text = text.replace('slug = "lights-out"', 'slug = "lights-off"')
        manifest.write_text(text)
    return tmp / "catalog"


def _full_scan(root: Path, ref: str, version: str | None = None, experimental: bool = False):
    """What resolve_case answers by parsing every version of the case folder."""
    from tcab.catalog.loader import Catalog, parse_case_folder

    parsed, _ = parse_case_folder(root / "end-to-end/easy/lights-out", "end-to-end", "easy")
    try:
        return Catalog(root, tuple(parsed)).resolve(ref, version, experimental=experimental).version
    except CatalogError:
        return None


def _answer(root: Path, ref: str, version: str | None = None, experimental: bool = False):
    try:
        return resolve_case(root, ref, version, experimental=experimental).version
    except CatalogError:
        return None


@pytest.mark.parametrize("spec", [
    {"v1.0.0": "ok", "v1.2.0": "ok", "v1.10.0": "broken"},             # a broken newest is passed over
    {"v1.0.0": "ok", "v1.2.0": "experimental", "v1.10.0": "experimental"},
    {"v1.0.0": "broken", "v1.1.0": "ok", "v1.2.0": "ok"},
    {"v1.0.0": "other-slug", "v1.1.0": "ok"},                            # the first version's slug rules
    {"v1.0.0": "ok", "v1.1.0": "other-slug", "v1.2.0": "experimental"},
    {"v1.0.0": "broken", "v1.1.0": "broken"},
    {"v1.0.0": "experimental"},
])
def test_reading_few_versions_answers_as_parsing_them_all(tmp_path, spec) -> None:
    root = _versions(tmp_path, spec)
    for version in (None, *spec, "v9.9.9"):
        for experimental in (False, True):
            want = _full_scan(root, "lights-out", version, experimental)
            assert _answer(root, "lights-out", version, experimental) == want, (version, experimental)


def test_one_version_of_many_is_read_without_parsing_the_others(tmp_path, monkeypatch) -> None:
    import tcab.catalog.loader

    root = _versions(tmp_path, {f"v1.{n}.0": "ok" for n in range(12)})
    parsed: list[str] = []
    real = tcab.catalog.loader.parse_manifest

    def counting(root, *args):
        parsed.append(root.name)
        return real(root, *args)

    monkeypatch.setattr(tcab.catalog.loader, "parse_manifest", counting)
    assert resolve_case(root, "lights-out").version == "v1.11.0"
    assert resolve_case(root, "lights-out@v1.3.0").version == "v1.3.0"
    assert len(parsed) <= 4, parsed  # the first (its slug rules the folder) and the one asked for
