"""The test-type table: found by name, extended by ``TCAB_TEST_TYPES``, and
asked by generic code (which never compares a case's type with a string)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from tcab.catalog import load_version
from tcab.errors import CatalogError
from tcab.runtime import run_image
from tcab.testtypes import BUILTIN, ENV, get_type, type_names
from tests.support.paths import CATALOG_FIXTURES, REPO
from tests.support.toy_type import ENTRY, ToySection

TOY_CASE = CATALOG_FIXTURES / "toy" / "toy" / "easy" / "tally-word" / "v1.0.0"


def test_the_built_in_types_declare_known_images_and_their_sections() -> None:
    assert type_names({}) == ("end-to-end", "adversarial", "performance", "asset-generation")
    for name in BUILTIN:
        t = get_type(name)
        assert t.name == name
        run_image(t.run_image)  # a known image kind, or RuntimeBackendError
        if t.build_image is not None:
            run_image(t.build_image)
        assert all(isinstance(k, str) for k in t.report_columns)
        assert t.report_columns or t.reviewed  # every type shows something of its runs


def test_an_unknown_name_lists_the_known_ones(monkeypatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(CatalogError, match=r"here: unknown test type 'quantum'; known: end-to-end, adversarial, performance, asset-generation"):
        get_type("quantum", "here")


@pytest.mark.parametrize("value, message", [
    ("toy", "expected name=module:Class entries, got 'toy'"),
    ("toy=tests.support.toy_type", "expected name=module:Class entries"),
    ("end-to-end=tests.support.toy_type:ToyType", "the test type 'end-to-end' is already defined"),
])
def test_a_malformed_entry_names_the_variable(monkeypatch, value, message) -> None:
    monkeypatch.setenv(ENV, value)
    with pytest.raises(CatalogError, match=re.escape(f"{ENV}: {message}")):
        type_names()


@pytest.mark.parametrize("value, message", [
    ("ghost=tests.support.no_such_module:Ghost", "cannot load tests.support.no_such_module:Ghost"),
    ("ghost=tests.support.toy_type:ToySection", "is not a TestType named 'ghost'"),
    ("ghost=tests.support.toy_type:ToyType", "is not a TestType named 'ghost'"),  # its name is toy
])
def test_a_type_that_cannot_load_fails_loudly(monkeypatch, value, message) -> None:
    monkeypatch.setenv(ENV, value)
    with pytest.raises(CatalogError, match=re.escape(message)):
        get_type("ghost")


def test_the_toy_section_is_typed_frozen_and_checked_with_file_line_key(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv(ENV, ENTRY)
    case, problems = load_version(TOY_CASE)
    assert problems == [] and case is not None
    assert case.section == ToySection("ANSWER.txt", "tally")
    with pytest.raises(dataclasses.FrozenInstanceError):
        case.section.word = "other"  # type: ignore[misc]
    assert case.test_type.report_table == "tests.support.toy_type:SCORES_TABLE"

    import shutil

    broken = tmp_path / "toy" / "easy" / "tally-word" / "v1.0.0"
    shutil.copytree(TOY_CASE, broken)
    manifest = broken / "test-case.toml"
    manifest.write_text(manifest.read_text().replace('word = "tally"', 'word = "Not Kebab"\nextra = 1')
                        + '\n[contract]\nentry = "tick"\n')
    case, problems = load_version(broken)
    assert case is None
    shown = sorted(f"{p.line}: {p.key}: {p.message}" for p in problems)
    assert any(s.startswith("16: [answer].word: expected") for s in shown), shown
    assert any(s.startswith("17: [answer].extra: ") for s in shown), shown
    assert any("contract" in s and "unknown key" in s for s in shown), shown


def test_generic_code_never_compares_a_case_type_with_a_string() -> None:
    pattern = re.compile(r"""\b(case|c|cv|entry|e|spec|run)\.(type|case_type)\s*(==|!=|in|not in)\s*[("']"""
                         r"""|\bcase_type\s*(==|!=)\s*["']""")
    found = [f"{p.relative_to(REPO)}:{n}: {line.strip()}"
             for p in sorted((REPO / "tcab").rglob("*.py")) if "testtypes" not in p.parts
             for n, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert found == []


def test_each_builtin_types_report_columns_are_typed_columns_of_the_report() -> None:
    # A key no column defines would hide the column silently; an untyped one would show for every type.
    from tcab.catalog.typetable import BUILTIN, report_columns
    from tcab.results.columns import BY_KEY

    for name in BUILTIN:
        declared = report_columns(name)
        assert declared or get_type(name).reviewed, name  # a reviewed type shows its reviews
        for key in declared:
            assert key in BY_KEY and BY_KEY[key].typed, (name, key)
    assert report_columns("no-such-type") == ()
