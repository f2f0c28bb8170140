"""Answering a repeated ``tcab seed`` or ``tcab prompt`` without parsing the case.

Which version and variant a reference picks, and the prompt rendered for
them, are pure functions of the case folder (all its versions: picking the
newest non-experimental one reads them) and of the command's arguments.
So once a command has answered in full, the answer is kept in
``build/seed-cache/<layout>/answers/<key>.json``. The key digests the case
folder's place and content, the arguments and tcab's version (the layout
folder). A repeated command finds the folder by its name, digests it and reads
the answer. It does not import the catalog model, the manifest parser or the
template engine, whose import is most of a one-case command's own time. A
changed file in any version of the case changes the key, so the next command
parses the case again.

The answer is looked up only when the slug names exactly one case folder.
Otherwise the full resolution runs: it finds the case by its manifest or
reports the clash. An unreadable or malformed answer is ignored and written
again. The answer points into the seed cache (``tcab.seeding.cache``), and
``tcab seed`` copies that entry when it is complete.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tcab import atomic
from tcab.catalog.digest import tree_digest
from tcab.catalog.layout import KEBAB, case_folders, version_key
from tcab.reading import read_bytes
from tcab.seeding.cache import LAYOUT, entry_path, is_complete
from tcab.seeding.readback import MAX_PROMPT_BYTES

if TYPE_CHECKING:
    from tcab.catalog import CaseVersion, Variant

_DIGEST = re.compile(r"[0-9a-f]{64}\Z")
#: The largest answer file read back (the prompt is most of it).
MAX_ANSWER_BYTES = MAX_PROMPT_BYTES + 64 * 1024


@dataclass(frozen=True, slots=True)
class Answer:
    """What a reference resolved to: the case version and variant, the digest
    of that version's folder (the seed cache's key), whether the variant has
    HTML mockups (their renderer is in the entry's name) and the rendered prompt."""

    slug: str
    version: str
    variant: str
    digest: str
    has_mockups: bool
    prompt: str


def answer_file(cache_dir: Path, catalog_dir: Path, ref: str, version: str | None,
                variant: str | None, experimental: bool) -> Path | None:
    """Where the answer to this command is (or will be) kept; None when the
    answer cannot be kept: the slug does not name exactly one case folder, or
    a file of it cannot be read (the full resolution then says why)."""
    import hashlib

    root = Path(catalog_dir).resolve()
    folders = case_folders(root, ref.partition("@")[0])
    if len(folders) != 1:
        return None
    folder = folders[0][2]
    try:
        content = tree_digest(folder)
    except OSError:
        return None
    request = [folder.relative_to(root).as_posix(), content, ref, version, variant, experimental]
    key = hashlib.sha256(json.dumps(request).encode()).hexdigest()
    return Path(cache_dir) / LAYOUT / "answers" / f"{key}.json"


def recall(path: Path | None) -> Answer | None:
    """The answer kept at ``path``, or None when there is none or it is not a
    whole answer (then the command answers in full and writes it again)."""
    if path is None:
        return None
    try:
        # A restored build/ is input: a regular file, not a link, bounded (a FIFO never blocks).
        data = json.loads(read_bytes(path, MAX_ANSWER_BYTES, follow=False, what="answer"))
        answer = Answer(**data)
    except (OSError, ValueError, TypeError):
        return None
    fields = (answer.slug, answer.version, answer.variant, answer.digest, answer.prompt)
    if not all(isinstance(value, str) for value in fields) or not isinstance(answer.has_mockups, bool):
        return None
    # The names become a seed-cache path: only what a resolution can give.
    if not (KEBAB.fullmatch(answer.slug) and KEBAB.fullmatch(answer.variant) and _DIGEST.match(answer.digest)):
        return None
    try:
        version_key(answer.version)
    except ValueError:
        return None
    return answer


def stored_seed(cache_dir: Path, answer: Answer | None) -> Path | None:
    """The complete seed-cache entry of ``answer``'s variant, or None (no
    answer, or its seed was never stored, is damaged or used other mockup renderers)."""
    if answer is None:
        return None
    entry = entry_path(cache_dir, answer.digest, answer.variant, answer.has_mockups)
    return entry if is_complete(entry) else None


def remember(path: Path | None, case: CaseVersion, variant: Variant, digest: str, prompt: str) -> None:
    """Keep the answer a command gave in full (atomically; None: not kept).

    A build folder that cannot be written to keeps nothing: the answer only
    saves time, and the command has already given it."""
    if path is None:
        return
    answer = Answer(case.slug, case.version, variant.slug, digest, bool(case.mockups_for(variant)), prompt)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_cache_bytes(path, json.dumps(asdict(answer)).encode())  # a forged FIFO or link there is replaced
    except OSError:
        pass
