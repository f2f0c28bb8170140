"""Colour words shared by the config, the ops and the renderer."""

HEX = frozenset("0123456789abcdefABCDEF")


def check_background(text: object) -> bool:
    return text == "transparent" or (isinstance(text, str) and len(text) == 7 and text[0] == "#"
                                     and all(c in HEX for c in text[1:]))
