"""JSON Schemas as the original writes them (schemars): they compile and validate;
one that cannot compile is a catalog problem naming the file, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import fastjsonschema
import pytest

from tcab.arena.game import compile_schema
from tcab.catalog import scan_catalog
from tcab.catalog.schemas import SchemaCompileError, Validator
from tcab.errors import ArenaError

GOOD = Path(__file__).resolve().parents[2] / "tests/fixtures/catalogs/good"
DUEL = "adversarial/hard/mini-duel/v1.10.0"

# schemars 1.x style: 2020-12, $defs, const-tagged oneOf, a tuple as prefixItems
ACTION_2020 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Action",
    "oneOf": [
        {"type": "object", "properties": {"kind": {"type": "string", "const": "move"},
                                          "to": {"$ref": "#/$defs/Cell"}},
         "required": ["kind", "to"]},
        {"type": "object", "properties": {"kind": {"type": "string", "const": "wait"}},
         "required": ["kind"]},
    ],
    "$defs": {"Cell": {"type": "array", "prefixItems": [{"type": "integer", "format": "int32"},
                                                        {"type": "integer", "format": "uint32",
                                                         "minimum": 0}],
                       "minItems": 2, "maxItems": 2}},
}

# schemars 0.8 style: draft-07, definitions, allOf-wrapped $ref, enum-per-variant oneOf
WORLD_07 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "World",
    "type": "object",
    "required": ["tick", "team", "cells"],
    "properties": {
        "tick": {"type": "integer", "format": "uint32", "minimum": 0.0},
        "team": {"allOf": [{"$ref": "#/definitions/Team"}]},
        "cells": {"type": "array", "items": {"$ref": "#/definitions/Cell"}},
    },
    "definitions": {
        "Team": {"oneOf": [{"type": "string", "enum": ["red"]}, {"type": "string", "const": "blue"}]},
        "Cell": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
    },
}


@pytest.mark.parametrize(("data", "ok"), [
    ({"kind": "move", "to": [1, 2]}, True),
    ({"kind": "wait"}, True),
    ({"kind": "jump"}, False),
    ({"kind": "move", "to": [1, -2]}, False),
    ({"kind": "move", "to": [1, 2, 3]}, False),
    ({"kind": "move", "to": ["a", 2]}, False),
])
def test_schemars_2020_const_oneof_defs_prefixitems(data, ok):
    validate = Validator(ACTION_2020)
    if ok:
        assert validate(data) == data
    else:
        with pytest.raises(fastjsonschema.JsonSchemaException):
            validate(data)


@pytest.mark.parametrize(("data", "ok"), [
    ({"tick": 0, "team": "blue", "cells": [[0, 1]]}, True),
    ({"tick": 3, "team": "red", "cells": []}, True),
    ({"tick": 3, "team": "green", "cells": []}, False),
    ({"tick": -1, "team": "red", "cells": []}, False),
    ({"tick": 1, "team": "red", "cells": [[1]]}, False),
])
def test_schemars_draft07(data, ok):
    validate = Validator(WORLD_07)
    if ok:
        assert validate(data) == data
    else:
        with pytest.raises(fastjsonschema.JsonSchemaException) as info:
            validate(data)
        assert info.value.message  # the detailed validator names what failed


def test_literals_and_property_names_are_not_rewritten():
    # a property called "const" and an enum value that looks like a schema stay as written
    schema = {"type": "object", "properties": {"const": {"type": "integer"},
                                               "opt": {"enum": [{"const": 1}]}}}
    validate = Validator(schema)
    assert validate({"const": 3, "opt": {"const": 1}})
    with pytest.raises(fastjsonschema.JsonSchemaException):
        validate({"const": "x"})
    with pytest.raises(fastjsonschema.JsonSchemaException):
        validate({"opt": {"enum": [1]}})


@pytest.mark.parametrize(("schema", "fragment"), [
    ({"type": "nosuch"}, "Unknown type"),
    ({"type": "string", "pattern": "("}, "cannot compile"),
    ({"$ref": "#/definitions/missing"}, "Unresolvable ref"),
    ({"minimum": "x"}, "minimum must be a number"),
    ({"properties": {"a": {"$ref": "http://127.0.0.1:9/x.json"}}}, "leaves the schema file"),
    ({"items": {"$ref": "file:///etc/passwd"}}, "leaves the schema file"),
    ([], "must be an object"),
])
def test_uncompilable_schema_is_a_clear_error(schema, fragment):
    with pytest.raises(SchemaCompileError, match=fragment.replace("(", r"\(")):
        Validator(schema)


def test_arena_compile_schema_names_the_file(tmp_path):
    path = tmp_path / "world.json"
    path.write_text(json.dumps({"type": "object", "properties": {"k": {"pattern": "["}}}))
    with pytest.raises(ArenaError, match=r"world\.json: not a valid JSON Schema"):
        compile_schema(path)
    path.write_text(json.dumps(ACTION_2020))
    assert compile_schema(path)({"kind": "wait"}) == {"kind": "wait"}


def _copy_duel(tmp_path: Path) -> Path:
    root = tmp_path / "catalog"
    shutil.copytree(GOOD / DUEL, root / DUEL)
    return root


def test_catalog_accepts_schemars_schemas(tmp_path):
    root = _copy_duel(tmp_path)
    (root / DUEL / "schemas/action.json").write_text(json.dumps(ACTION_2020))
    (root / DUEL / "schemas/world.json").write_text(json.dumps(WORLD_07))
    catalog, problems = scan_catalog(root)
    assert problems == []
    assert [c.slug for c in catalog.versions_of("mini-duel")] == ["mini-duel"]


def test_catalog_reports_an_uncompilable_schema_naming_file_and_key(tmp_path):
    root = _copy_duel(tmp_path)
    (root / DUEL / "schemas/world.json").write_text(json.dumps({"const": 1, "type": "bogus"}))
    _, problems = scan_catalog(root)
    assert len(problems) == 1, problems
    text = str(problems[0])
    assert "test-case.toml" in text and "world" in text
    assert '"schemas/world.json" is not a valid JSON Schema' in text
