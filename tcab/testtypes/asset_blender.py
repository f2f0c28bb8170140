"""Seeding and scoring a ``blender-character`` run (docs/asset-generation.md,
"Blender characters").

Seeding adds ``blender.config.json`` (:meth:`BlenderSection.config`); the
starter build.py is the case's own ``[[spec]]`` with ``dest = "build.py"``.

Scoring reads the run's collected ``character.glb`` with the bounded reader
(:mod:`tcab.blender.glb`, no link followed) and records, in part 1's asset
tables (``asset_regenerations``, ``asset_frames``; no migration of its own):

- ``character``: the glb's contract. No glb, or one the reader refuses, is
  ``no_asset`` (scored empty); otherwise ``regenerated``, with a gap note
  (flagged) for a missing mesh or skin, a required animation missing or
  without channels, a caller joint no node's ``extras.tcab_joint`` names.
  The preview is drawn again from the glb by tcab's renderer into
  ``regenerated/model.png``.
- ``provenance``: build.py (the run's) re-run by ``tcab-blend`` in a fresh
  container of the Blender image, with the case's config (never the
  collected one), bounded by :class:`BuildLimits`; its glb's mesh count,
  skin and animation names compared with the run's. A divergence, a failed
  or timed-out rebuild, or no runtime is a flagged note, never a crash.

``regenerated/summary.json`` holds both summaries for ``tcab view``.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcab.atomic import write_bytes
from tcab.blender import glb as glbmod
from tcab.blender.config import CONFIG_NAME, MODEL
from tcab.reading import read_bytes

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion
    from tcab.runtime.base import Runtime
    from tcab.seeding.plan import SeedEntry
    from tcab.testtypes.asset_blender_manifest import BlenderSection

#: What a scored run records as its tool version (asset_regenerations.draw_version).
SCORER_VERSION = "tcab-blend/1"
REGENERATED_DIR = "regenerated"
#: A rebuild is given at most this long (and the Blender image's memory bound).
PROVENANCE_TIMEOUT_S = 600.0
PROVENANCE_MEMORY_BYTES = 4 * 1024**3
GRACE_S = 30.0
#: The turntable export: frames a full turn, their size, each frame's time;
#: a mesh over TURNTABLE_MAX_TRIANGLES gets none (the preview is enough).
TURNTABLE_FRAMES = 24
TURNTABLE_SIZE = 256
TURNTABLE_MS = 80
TURNTABLE_MAX_TRIANGLES = 50_000

#: Rebuilds build.py in a fresh container: (section, build.py bytes) -> (glb bytes | None, note).
Rebuild = Callable[["BlenderSection", bytes], tuple[bytes | None, str]]


def seed_entries(section: BlenderSection) -> list[SeedEntry]:
    from tcab.seeding.plan import MODE_FILE, SeedEntry

    return [SeedEntry(CONFIG_NAME, section.config(), MODE_FILE, "tcab-blend config")]


@dataclass(frozen=True, slots=True)
class PartScore:
    name: str
    ops: int
    flagged: bool
    image: str
    detail: str

    def row(self) -> dict[str, Any]:
        return {"frame": self.name, "ops": self.ops, "divergence": None, "flagged": int(self.flagged),
                "image": self.image, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class BlenderScore:
    status: str                  # regenerated | no_asset
    frames: tuple[PartScore, ...]
    summary: dict[str, Any] | None
    detail: str = ""
    draw_version: str = SCORER_VERSION
    version_mismatch: bool = False

    @property
    def flagged(self) -> bool:
        return any(f.flagged for f in self.frames)


def contract_gaps(summary: glbmod.Summary, section: BlenderSection) -> list[str]:
    """:func:`tcab.blender.contract.contract_gaps` against the section's contract."""
    from tcab.blender.contract import contract_gaps as gaps

    return gaps(summary, [a.name for a in section.animations], [(j.name, j.kind, j.axis) for j in section.joints])


def _read_tree(tree: Path, rel: str, limit: int) -> bytes | None:
    """``tree/rel`` (a top-level file, never through a link); None if missing."""
    try:
        return read_bytes(tree / rel, limit, follow=False, what=rel)
    except FileNotFoundError:
        return None


def score_blender(section: BlenderSection, tree: Path, run_dir: Path, rebuild: Rebuild | None) -> BlenderScore:
    """Score the run whose collected tree is ``tree``; write the preview and
    summary under ``run_dir/regenerated/``."""
    try:
        data = _read_tree(tree, MODEL, glbmod.MAX_GLB_BYTES)
        if data is None:
            return BlenderScore("no_asset", (), None, f"no asset: {MODEL} missing (tcab-blend was not run)")
        parsed = glbmod.parse(data)
        summary = glbmod.summary(parsed)
    except (OSError, glbmod.GlbError) as exc:
        return BlenderScore("no_asset", (), None, f"no asset: {MODEL}: {exc}")
    out_dir = run_dir / REGENERATED_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    image = gaps_note = ""
    from tcab.blender.render import RenderError, render

    try:
        parts = glbmod.triangles(parsed)
        write_bytes(out_dir / "model.png", render(parts, section.background))
        image = f"{REGENERATED_DIR}/model.png"
    except (glbmod.GlbError, RenderError) as exc:
        gaps_note = f"preview not drawn: {exc}"
    else:
        try:
            if sum(len(indices) // 3 for _, indices, _ in parts) <= TURNTABLE_MAX_TRIANGLES:
                write_bytes(out_dir / "turntable.png", turntable(parts, section.background))
        except RenderError as exc:
            gaps_note = f"turntable not drawn: {exc}"
    gaps = contract_gaps(summary, section)
    present = sum(1 for a in section.animations if a.name in summary.animation_names)
    character = PartScore("character", present, bool(gaps), image,
                          "; ".join(gaps + ([gaps_note] if gaps_note else [])))
    provenance, rebuilt = _provenance(section, tree, summary, rebuild)
    box = {"width": section.width, "height": section.height, "depth": section.depth}  # the variant's
    write_bytes(out_dir / "summary.json", (json.dumps(
        {"run": summary.to_json(), "rebuilt": rebuilt, "gaps": gaps, "provenance": provenance.detail, "box": box},
        indent=1, sort_keys=True) + "\n").encode())
    return BlenderScore("regenerated", (character, provenance), summary.to_json())


def turntable(parts, background: str) -> bytes:
    """An animated PNG of the bind pose turned once about +Y, looping
    (tcab's renderer, fixed scale; Pillow writes the APNG). Raises
    RenderError when the turn passes MAX_RASTER_PIXELS."""
    import io

    from PIL import Image

    from tcab.blender.render import RasterBudget, render_rgba

    size = (TURNTABLE_SIZE, TURNTABLE_SIZE)
    budget = RasterBudget()  # one for the whole turn: 24 frames cost no more than one preview may
    frames = [Image.frombytes("RGBA", size, render_rgba(parts, background, TURNTABLE_SIZE, turntable=True,
                                                         yaw_degrees=-30 + i * 360 / TURNTABLE_FRAMES,
                                                         budget=budget))
              for i in range(TURNTABLE_FRAMES)]
    out = io.BytesIO()
    frames[0].save(out, format="PNG", save_all=True, append_images=frames[1:], duration=TURNTABLE_MS, loop=0,
                   compress_level=6, optimize=False, default_image=False)
    return out.getvalue()


def export_run(run_dir: Path, out: Path) -> list[Path]:
    """Copy a scored run's ``character.glb`` (its collected one) and
    ``turntable.png`` into ``out``. Raises ExportError when the run has none."""
    from tcab.testtypes.asset_export import ExportError
    from tcab.testtypes.asset_files import TREE_DIR

    written = []
    for name, src in ((MODEL, run_dir / TREE_DIR / MODEL), ("turntable.png", run_dir / REGENERATED_DIR /
                                                             "turntable.png")):
        try:
            data = read_bytes(src, glbmod.MAX_GLB_BYTES, follow=False, what=name)
        except FileNotFoundError:
            raise ExportError(f"{src}: missing (the sweep's regenerate task writes the turntable)") from None
        except OSError as exc:
            raise ExportError(f"{src}: {exc}") from None
        write_bytes(out / name, data)
        written.append(out / name)
    return written


def _provenance(section: BlenderSection, tree: Path, summary: glbmod.Summary,
                rebuild: Rebuild | None) -> tuple[PartScore, dict[str, Any] | None]:
    def note(flagged: bool, detail: str, rebuilt: dict[str, Any] | None = None) -> tuple[PartScore, Any]:
        return PartScore("provenance", 0, flagged, "", detail), rebuilt

    if rebuild is None:
        return note(True, "provenance not checked: no container runtime given")
    try:
        script = _read_tree(tree, section.actions, 8 << 20)
    except OSError as exc:
        return note(True, f"provenance: {section.actions}: {exc}")
    if script is None:
        return note(True, f"provenance: {section.actions} missing")
    data, why = rebuild(section, script)
    if data is None:
        return note(True, f"provenance: the rebuild produced no {MODEL}: {why}")
    try:
        again = glbmod.summary(glbmod.parse(data))
    except glbmod.GlbError as exc:
        return note(True, f"provenance: the rebuilt {MODEL}: {exc}")
    expected, got = summary.provenance(), again.provenance()
    if expected != got:
        diffs = [f"{k}: run {expected[k]!r}, rebuilt {got[k]!r}" for k in expected if expected[k] != got[k]]
        return note(True, "provenance: the rebuild differs: " + "; ".join(diffs), again.to_json())
    return note(False, "provenance: the rebuild matches (meshes, skin, animation names)", again.to_json())


def container_rebuild(rt: Runtime, run_id: str, tmp_dir: Path, *, timeout_s: float = PROVENANCE_TIMEOUT_S,
                      memory_bytes: int = PROVENANCE_MEMORY_BYTES) -> Rebuild:
    """A :data:`Rebuild` that runs ``tcab-blend`` in a fresh container of
    the Blender image (``TCAB_CONTAINER_IMAGE_BLENDER`` overrides it)."""
    from tcab.blender.config import DEFAULT_TIMEOUT
    from tcab.runtime.build import BuildLimits, build_in_container
    from tcab.runtime.images import resolve_image

    # The seeded config's timeout (DEFAULT_TIMEOUT), or less; whole seconds, at least one.
    timeout = max(1, int(min(timeout_s, DEFAULT_TIMEOUT)))
    # tcab-blend ends Blender at `timeout` and says so; the exec limit is the backstop.
    limits = BuildLimits(timeout_s=timeout + GRACE_S, memory_bytes=memory_bytes)

    def rebuild(section: BlenderSection, script: bytes) -> tuple[bytes | None, str]:
        image = rt.ensure_image(resolve_image("blender-character"))
        tmp_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="tcab-provenance-", dir=tmp_dir) as tmp:
            work = Path(tmp)
            write_bytes(work / section.actions, script)
            write_bytes(work / CONFIG_NAME, section.config(timeout))
            with build_in_container(rt, image, work, [("tcab-blend", "tcab-blend")],
                                    name=f"provenance-{run_id}", limits=limits, offline=True) as box:
                if not box.ok:
                    return None, box.log[-400:]
                data = box.read_file(MODEL, glbmod.MAX_GLB_BYTES)
                return data, "" if data is not None else f"{MODEL} missing or over MAX_GLB_BYTES"
    return rebuild


def score_run(settings: Any, runtime: Any, case: CaseVersion, variant: str | None, run_id: str,
              run_dir: Path) -> BlenderScore:
    """:func:`score_blender` of a recorded run of ``case``'s ``variant`` (its
    own ``[voxel]`` box: the preview's background, the rebuild's config), its
    provenance rebuilt on ``runtime`` (the sweep's backend, or an open
    Runtime); the runtime failing to open is a note."""
    from tcab.errors import RuntimeBackendError
    from tcab.runtime.build import BuildLimits
    from tcab.runtime.choice import open_runtime
    from tcab.testtypes.asset_files import TREE_DIR

    section = case.section.for_variant(case.variant(variant))
    tree = run_dir / TREE_DIR
    try:
        rt = open_runtime(runtime, max_runtime_s=BuildLimits(timeout_s=PROVENANCE_TIMEOUT_S).lifetime_s())
    except RuntimeBackendError as exc:
        base = container_failed(f"the runtime did not open: {exc}")
        return score_blender(section, tree, run_dir, base)
    guarded = _guard(container_rebuild(rt, run_id, settings.tmp_dir))
    return score_blender(section, tree, run_dir, guarded)


def container_failed(why: str) -> Rebuild:
    return lambda section, script: (None, why)


def _guard(rebuild: Rebuild) -> Rebuild:
    """The engine failing mid-rebuild is a provenance note, not a crash."""
    from tcab.errors import RuntimeBackendError

    def guarded(section: BlenderSection, script: bytes) -> tuple[bytes | None, str]:
        try:
            return rebuild(section, script)
        except RuntimeBackendError as exc:
            return None, f"runtime: {exc}"
    return guarded
