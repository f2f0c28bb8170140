"""Harness definitions written on the fly, read back by the real loader."""

from __future__ import annotations

import json

from tcab.harnesses import Harness, load_harness_file
from tcab.settings import Settings


def toml_value(value) -> str:
    """``value`` as TOML (bools, lists, inline tables; a JSON string is a valid TOML string)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def write_harness(settings: Settings, table: dict) -> Harness:
    """``table`` written as ``harnesses/<slug>.toml`` and loaded."""
    path = settings.harnesses_dir / f"{table['slug']}.toml"
    path.write_text("".join(f"{k} = {toml_value(v)}\n" for k, v in table.items()))
    return load_harness_file(path)


def scripted_harness(settings: Settings, script: str, slug: str = "scripted", **keys) -> Harness:
    """A harness whose session is ``sh -c script``."""
    return write_harness(settings, {"slug": slug, "name": "Scripted", "binary": "sh",
                                    "version_args": ["-c", "echo scripted 1.0"], "args": ["-c", script],
                                    **keys})
