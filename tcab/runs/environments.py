"""The run image's tool versions, probed once per image id.

The probe (``tcab.harnesses.environment``) runs in a fresh container right
after it starts, before anything is copied in or installed, so its answer
is a function of the image alone; an image id names the image's content.
So the first run of an image keeps the answer under
``build/image-environments/<image id>.json`` and later runs of that image
take it from there instead of starting node, npm, python and pip in the
container again (about half a second of every run, docs/runs.md).

A file that is missing, unreadable, too large or not the probe's shape is a
miss: the run probes again and writes it afresh. An image id that is not a
plain digest (``sha256:<hex>`` or hex) is never used as a file name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tcab import atomic
from tcab.harnesses.environment import KEYS
from tcab.reading import read_bytes

FOLDER = "image-environments"
MAX_FILE_BYTES = 4096  # five short version strings; a larger file is not ours
MAX_VALUE_CHARS = 100  # as parse_environment clips them
_IMAGE_ID = re.compile(r"(?:sha256:)?([0-9a-f]{64})")


def _file(cache_dir: Path, image_id: str | None) -> Path | None:
    found = _IMAGE_ID.fullmatch(image_id or "")
    return Path(cache_dir) / f"{found.group(1)}.json" if found else None


def load_environment(cache_dir: Path, image_id: str | None) -> dict[str, str | None] | None:
    """The kept probe answer for ``image_id``, or None (a miss)."""
    path = _file(cache_dir, image_id)
    if path is None:
        return None
    try:
        # build/ may be restored from elsewhere: never wait on a FIFO, follow a link or read past the bound.
        doc = json.loads(read_bytes(path, MAX_FILE_BYTES, follow=False, what="kept environment"))
    except (OSError, ValueError):  # ReadRefused is an OSError: a miss, probed again
        return None
    if not isinstance(doc, dict) or set(doc) != set(KEYS):
        return None
    if not all(v is None or (isinstance(v, str) and 0 < len(v) <= MAX_VALUE_CHARS) for v in doc.values()):
        return None
    return {k: doc[k] for k in KEYS}


def store_environment(cache_dir: Path, image_id: str | None, environment: dict[str, str | None]) -> None:
    """Keep the probe answer for ``image_id`` (atomically); a cache that cannot
    be written only costs the next run a probe."""
    path = _file(cache_dir, image_id)
    if path is None or set(environment) != set(KEYS):
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(path, json.dumps({k: environment[k] for k in KEYS}, sort_keys=True))
    except OSError:
        pass
