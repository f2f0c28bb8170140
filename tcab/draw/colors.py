"""Colours: ``#rrggbb`` or ``#rrggbbaa`` (and ``#rgb``/``#rgba`` on the command
line), or ``transparent``; stored as 4 RGBA bytes."""

from __future__ import annotations

_HEX = frozenset("0123456789abcdefABCDEF")
TRANSPARENT = b"\x00\x00\x00\x00"


_SEEN: dict[str, bytes] = {}  # a log repeats its few colours: each is parsed once


def parse_color(text: object, *, short: bool = False) -> bytes | None:
    """The 4 RGBA bytes of ``text``, or None when it is not a colour.
    ``short`` also accepts ``#rgb`` and ``#rgba`` (the command line does)."""
    if not short and type(text) is str:
        seen = _SEEN.get(text)
        if seen is not None:
            return seen
        if len(text) in (7, 9) and text[0] == "#" and text.isascii() and text[1:].isalnum():
            try:
                rgba = bytes.fromhex(text[1:]) + (b"\xff" if len(text) == 7 else b"")
            except ValueError:
                return None
            if len(_SEEN) < 4096:
                _SEEN[text] = rgba
            return rgba
        return None
    if not isinstance(text, str) or not text.startswith("#"):
        return None
    digits = text[1:]
    if not all(c in _HEX for c in digits):
        return None
    if short and len(digits) in (3, 4):
        digits = "".join(c * 2 for c in digits)
    if len(digits) == 6:
        digits += "ff"
    if len(digits) != 8:
        return None
    return bytes.fromhex(digits)


def parse_background(text: object) -> bytes | None:
    """A canvas background: ``transparent`` or ``#rrggbb[aa]``; None otherwise."""
    if text == "transparent":
        return TRANSPARENT
    return parse_color(text)


def color_text(rgba: bytes) -> str:
    """The canonical form stored in a log: ``#rrggbbaa``."""
    return "#" + rgba.hex()
