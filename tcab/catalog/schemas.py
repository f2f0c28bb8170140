"""Compiling a case's JSON Schemas as the original writes them (schemars output).

fastjsonschema implements drafts 4, 6 and 7; schemars 0.8 writes draft-07
(``definitions``), schemars 1.x writes 2020-12 (``$defs``, ``const``,
``oneOf``, ``prefixItems``). Two things get in the way, so the schema is
rewritten before compiling, without changing what it accepts:

- fastjsonschema's ``const`` crashes (``KeyError: 'definition_rule'``) when
  compiled without detailed exceptions; ``{"const": x}`` is ``{"enum": [x]}``.
- 2020-12's tuple form (``prefixItems`` with ``items`` for the rest) is
  draft-07's ``items`` array with ``additionalItems``; read as draft-07, a
  2020-12 ``items: false`` would refuse every array.

Any failure to compile raises ``SchemaCompileError`` (never a library
traceback) so callers can name the file.
"""

from __future__ import annotations

from typing import Any

_NEW_DRAFTS = ("2019-09", "2020-12")


class SchemaCompileError(ValueError):
    """The schema cannot be compiled; the message says why."""


def _is_new_draft(schema: dict) -> bool:
    uri = schema.get("$schema")
    return isinstance(uri, str) and any(d in uri for d in _NEW_DRAFTS)


# Where a schema keeps subschemas: so literals (``enum``, ``const``,
# ``default``, ``examples``) and property names are never rewritten.
_SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_ONE = ("items", "additionalItems", "additionalProperties", "not", "if", "then",
               "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties")


def _each_subschema(node: dict, fn: Any) -> dict:
    """``node`` with ``fn`` applied to each of its direct subschemas."""
    out = dict(node)
    for key, value in node.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {k: fn(v) for k, v in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [fn(v) for v in value]
        elif key == "items" and isinstance(value, list):
            out[key] = [fn(v) for v in value]
        elif key in _SCHEMA_ONE:
            out[key] = fn(value)
    return out


def _draft07(node: Any, new_draft: bool) -> Any:
    """``node`` with ``const`` as ``enum`` and, for 2019-09/2020-12, tuples as draft-07 spells them."""
    if not isinstance(node, dict):
        return node
    out = _each_subschema(node, lambda sub: _draft07(sub, new_draft))
    if "const" in out and "enum" not in out:
        out["enum"] = [out.pop("const")]
    if new_draft and isinstance(out.get("prefixItems"), list):
        rest = out.pop("items", True)
        out["items"] = out.pop("prefixItems")
        out["additionalItems"] = rest
    if new_draft and "$schema" in out:
        out["$schema"] = "http://json-schema.org/draft-07/schema#"
    return out


def _inline_refs(node: Any, root: dict, seen: tuple[str, ...]) -> Any:
    """Replace local ``$ref``s (``#/definitions/x``, ``#/$defs/x``) by their
    target, except recursive ones. fastjsonschema turns each ``$ref`` into a
    call whose name argument is formatted eagerly for every array item."""
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/") and ref not in seen and len(node) == 1:
        target: Any = root
        for part in ref[2:].split("/"):
            if not isinstance(target, dict) or part not in target:
                return node
            target = target[part]
        return _inline_refs(target, root, (*seen, ref))
    return _each_subschema(node, lambda sub: _inline_refs(sub, root, seen))


def _remote_refs(node: Any, found: list[str]) -> list[str]:
    """Every ``$ref`` that leaves the document (fastjsonschema would fetch it)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if ref is not None and not (isinstance(ref, str) and ref.startswith("#")):
            found.append(str(ref))
        _each_subschema(node, lambda sub: _remote_refs(sub, found))
    return found


def _no_fetch(uri: str) -> Any:
    raise SchemaCompileError(f"$ref {uri!r} leaves the schema file; only local refs (#/...) are allowed")


# fastjsonschema resolves any other URI with urlopen: a schema must never fetch.
_HANDLERS = {scheme: _no_fetch for scheme in ("http", "https", "file", "ftp", "data", "")}


def _compile(schema: dict, **options: Any) -> Any:
    # Imported here because it is slow (decimal, its code generator) and only
    # a case with schema files needs it, not every `tcab prompt` or listing.
    import fastjsonschema

    try:
        return fastjsonschema.compile(schema, handlers=_HANDLERS, **options)
    except SchemaCompileError:
        raise
    except fastjsonschema.JsonSchemaDefinitionException as exc:
        raise SchemaCompileError(str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - its code generator fails with bare exceptions
        raise SchemaCompileError(f"cannot compile: {type(exc).__name__}: {exc}") from exc


class Validator:
    """A compiled schema that is fast on the happy path.

    fastjsonschema formats a path name for every array item it hands to a
    ``$ref``'d definition, which cost a third of a capture tick; the fast
    validator has local refs inlined and no detailed exceptions. The
    detailed validator (whose message names the failing path) runs only when
    the fast check fails; both are compiled here, so a schema that does not
    compile fails when it is loaded, not mid-match.
    """

    def __init__(self, schema: dict):
        if not isinstance(schema, dict):
            raise SchemaCompileError("a JSON Schema must be an object")
        remote = _remote_refs(schema, [])
        if remote:
            raise SchemaCompileError(
                f"$ref {remote[0]!r} leaves the schema file; only local refs (#/...) are allowed"
            )
        self.schema = schema
        plain = _draft07(schema, _is_new_draft(schema))
        self._fast = _compile(_inline_refs(plain, plain, ()), detailed_exceptions=False)
        self._detailed = _compile(plain)
        import fastjsonschema  # loaded by _compile already

        self._invalid = fastjsonschema.JsonSchemaException

    def __call__(self, data: Any) -> Any:
        try:
            return self._fast(data)
        except self._invalid:
            self._detailed(data)  # raises with the detailed message
            raise


__all__ = ["SchemaCompileError", "Validator"]
