"""tcab's drawing library: the ``draw`` and ``draw-sheet`` tools and the
validator's regeneration of what they drew, from one implementation.

Standard library only and no other tcab import, so the package is copied
as it is into the sprite run images and a fresh ``draw`` process starts
fast. ``VERSION`` is recorded in each run; bump it whenever the pixels an
operation produces (or the PNG bytes) change.
"""

from __future__ import annotations

VERSION = "1.0.0"


def blank_png(width: int, height: int, background: str) -> bytes:
    """The preview of an empty log: the same bytes the tool renders for one."""
    from tcab.draw import png
    from tcab.draw.colors import parse_background
    from tcab.draw.config import check_canvas
    from tcab.draw.errors import ConfigError

    problem = check_canvas(width, height)
    rgba = parse_background(background)
    if problem or rgba is None:
        raise ConfigError(problem or f"background: expected 'transparent' or '#rrggbb[aa]', got {background!r}")
    return png.encode(width, height, rgba * (width * height))
