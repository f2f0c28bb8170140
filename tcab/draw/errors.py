"""The errors of the drawing library (standalone: no tcab import).

Each message says where: the config key, the log's op number and field,
the flag. Callers in tcab wrap them in their own error tree.
"""


class DrawError(Exception):
    """Anything the drawing library refuses."""


class ConfigError(DrawError):
    """A tool config (``.tcab/draw.json``) that is not valid."""


class LogError(DrawError):
    """A recorded log that cannot be replayed: unreadable, too large, or an
    operation that is not valid (the message names its number and field)."""


class PngError(DrawError):
    """Bytes that are not a PNG this library reads, or one over the bounds."""


class UsageError(DrawError):
    """A bad flag, colour or frame on the command line (exit 1, nothing recorded)."""
