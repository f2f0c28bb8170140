"""A strict reader of the small JSON the tool's config is written in, so a
fresh ``draw`` process need not import ``json`` (and ``re``, ``enum``...),
which costs more than the drawing itself.

It reads only a subset: objects, arrays, strings without escapes, integers
written canonically, ``true``/``false``/``null``, nesting at most 4 deep.
For anything else it returns None and the caller parses with ``json``, so
what it accepts it reads exactly as ``json`` would (a test checks this).
"""

from __future__ import annotations

_WS = " \t\n\r"
_DIGITS = "0123456789"
_MAX_DEPTH = 4


class _Unsure(Exception):
    pass


def loads(text: str) -> object | None:
    """The value of ``text``, or None when it is outside the subset (or not JSON)."""
    try:
        value, pos = _value(text, _skip(text, 0), 0)
        if _skip(text, pos) != len(text):
            return None
        return value
    except (_Unsure, IndexError):
        return None


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def _value(text: str, pos: int, depth: int) -> tuple[object, int]:
    c = text[pos]
    if c == "{" or c == "[":
        if depth >= _MAX_DEPTH:
            raise _Unsure
        return (_object if c == "{" else _array)(text, pos + 1, depth + 1)
    if c == '"':
        end = text.index('"', pos + 1)
        body = text[pos + 1:end]
        if "\\" in body or any(ch < " " for ch in body):
            raise _Unsure
        return body, end + 1
    for word, value in (("true", True), ("false", False), ("null", None)):
        if text.startswith(word, pos):
            return value, pos + len(word)
    end = pos + (c == "-")
    while end < len(text) and text[end] in _DIGITS:
        end += 1
    digits = text[pos + (c == "-"):end]
    if not digits or (len(digits) > 1 and digits[0] == "0") or len(digits) > 30:
        raise _Unsure
    if end < len(text) and text[end] in ".eE":
        raise _Unsure
    return int(text[pos:end]), end


def _object(text: str, pos: int, depth: int) -> tuple[dict, int]:
    out: dict = {}
    pos = _skip(text, pos)
    if text[pos] == "}":
        return out, pos + 1
    while True:
        if text[pos] != '"':
            raise _Unsure
        key, pos = _value(text, pos, depth)
        pos = _skip(text, pos)
        if text[pos] != ":":
            raise _Unsure
        out[key], pos = _value(text, _skip(text, pos + 1), depth)
        pos = _skip(text, pos)
        if text[pos] == "}":
            return out, pos + 1
        if text[pos] != ",":
            raise _Unsure
        pos = _skip(text, pos + 1)


def _array(text: str, pos: int, depth: int) -> tuple[list, int]:
    out: list = []
    pos = _skip(text, pos)
    if text[pos] == "]":
        return out, pos + 1
    while True:
        item, pos = _value(text, pos, depth)
        out.append(item)
        pos = _skip(text, pos)
        if text[pos] == "]":
            return out, pos + 1
        if text[pos] != ",":
            raise _Unsure
        pos = _skip(text, pos + 1)
