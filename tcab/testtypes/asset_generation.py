"""The asset-generation test type: a model draws a sprite or a sprite sheet
with the drawing tool (``draw`` / ``draw-sheet``, :mod:`tcab.draw`), one
operation at a time; what it hands in is the recorded action logs, and the
asset is what those logs regenerate to (docs/asset-generation.md).

The manifest's own keys:

- ``asset_kind``: ``sprite`` (the default) or ``sprite-sheet``; the 3D kinds
  of the original (``voxel-model``, ``voxel-rig``, ...) are refused as not
  yet supported; ``blender-character`` is parsed by
  :mod:`tcab.testtypes.asset_blender_manifest`, seeded and scored by
  :mod:`tcab.testtypes.asset_blender`;
- ``[canvas]``: ``width``, ``height`` (within :mod:`tcab.draw.limits`, checked
  by :func:`tcab.draw.config.check_canvas`), ``background``;
- ``[tool]``: ``binary`` (the kind's tool) and ``preview`` (``{frame}`` for a
  sheet, none for a sprite); ``[output]``: ``actions`` (the same);
- ``[sheet]`` (a sheet only): ``[[sheet.frame]] index`` and
  ``[[sheet.sequence]]`` (``slug``, ``name``, ``frames``, ``fps``).

Judging is by ``[[domain]]``: one (``overall``, the newer form) and no review
items, or the original's older form, weighted ``[[review_item]]``s that may
name the ``sequences`` or ``frames`` they are about. ``[build]``,
``[[check]]`` and ``[[reference]]`` are refused: nothing is built and there
is no target to compare with.

Seeding (:mod:`tcab.testtypes.asset_seed`), the watched run's ``live`` block
and the prompt's quality directive are here too; scoring is the after-run
task ``regenerate:<run>`` (:mod:`tcab.tasks.regenerate`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from tcab.catalog.fields import Fields, Source, humanize, show
from tcab.catalog.review import Scope
from tcab.draw.colors import parse_background
from tcab.draw.config import check_canvas, check_template
from tcab.draw.limits import MAX_FRAME_INDEX, MAX_FRAMES
from tcab.testtypes import (
    AfterRun,
    LiveEndpoint,
    ParsedSection,
    SectionInput,
    SeedingInput,
    SuccessRule,
    TestType,
)
from tcab.testtypes.asset_seed import LAYERS_LOG, seed_entries, write_live
from tcab.testtypes.asset_voxel import (
    VOXEL_TOOLS,
    VoxelSection,
    parse_voxel,
    refuse_variant_volume,
    variant_volume,
)

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion, Variant
    from tcab.draw.config import ToolConfig
    from tcab.seeding.plan import SeedEntry

#: The kinds tcab draws, and the tool of each (its run image has the same name).
TOOLS = {"sprite": "draw", "sprite-sheet": "draw-sheet"}
#: The original's other kinds: known, refused until tcab has their tools.
UNSUPPORTED = ("ui", "material", "voxel-rig", "mc-model", "sn-model",
               "dc-model", "mc-animation", "sn-animation", "dc-animation", "mc-skinned", "sn-skinned",
               "dc-skinned", "blender-mechanism", "blender-prop", "particle-2d",
               "particle-3d", "sfx-synth", "sfx-sample", "music")
SUPPORTED = ", ".join((*TOOLS, *VOXEL_TOOLS, "blender-character"))
MAX_FPS = 240
#: The keys a review item of this type may add (the original's older form).
ITEM_KEYS = ("sequences", "frames")

#: Put before every asset case's own prompt (docs/asset-generation.md, "The prompt").
QUALITY_DIRECTIVE = (
    "Treat the brief below as the minimum, not the target: meet every requirement it states, "
    "then make the best asset you can within its constraints — clear at its real size, carefully "
    "made pixel by pixel, and true to what was asked for. Check your previews as you go and keep "
    "improving the drawing until you would be glad to ship it.\n\n"
)


@dataclass(frozen=True, slots=True)
class SheetSequence:
    """A named animation a reviewer plays back: frame indices at ``fps``."""

    slug: str
    name: str
    frames: tuple[int, ...]
    fps: float


@dataclass(frozen=True, slots=True)
class ItemTarget:
    """What an older-form review item is about: sequences and/or frames."""

    item: str
    sequences: tuple[str, ...] = ()
    frames: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class AssetSection:
    """An asset case's own part of the manifest (all set when the case loaded)."""

    kind: str = "sprite"
    width: int = 0
    height: int = 0
    background: str = "transparent"
    binary: str = ""
    preview: str = ""
    actions: str = ""
    frames: tuple[int, ...] = ()
    sequences: tuple[SheetSequence, ...] = ()
    targets: tuple[ItemTarget, ...] = ()

    @property
    def sheet(self) -> bool:
        return self.kind == "sprite-sheet"

    def tool_config(self, live: LiveEndpoint | None = None) -> ToolConfig:
        """The drawing tool's config (``.tcab/draw.json``) for this case."""
        from tcab.draw.config import Live, ToolConfig

        return ToolConfig(kind=self.kind, width=self.width, height=self.height, background=self.background,
                          actions=self.actions, preview=self.preview, layers=LAYERS_LOG, frames=self.frames,
                          live=None if live is None else Live(live.url, live.token))


class AssetGeneration(TestType):
    name: ClassVar[str] = "asset-generation"
    section_keys: ClassVar[tuple[str, ...]] = ("asset_kind", "canvas", "tool", "output", "sheet", "check",
                                               "reference", "voxel", "model")
    review_item_keys: ClassVar[tuple[str, ...]] = ITEM_KEYS
    run_image: ClassVar[str] = "sprite"
    after_run: ClassVar[tuple[AfterRun, ...]] = (AfterRun("regenerate", "tcab.tasks.regenerate:REGENERATE"),)
    report_table: ClassVar[str | None] = "tcab.testtypes.asset_report:TABLE"
    # What counts as a success in the report's statistics (docs/results.md).
    success: ClassVar[SuccessRule | None] = SuccessRule(
        runs="SELECT run_id FROM asset_regenerations WHERE status = 'regenerated'")
    view_panel: ClassVar[str | None] = "tcab.testtypes.asset_view:panel"
    reviewed: ClassVar[bool] = True

    def parse_section(self, p: SectionInput) -> ParsedSection:
        kind = p.data.get("asset_kind", "sprite")
        # A list or a table is unhashable: only a string is looked up (_parse's _kind refuses the rest).
        if isinstance(kind, str) and kind in VOXEL_TOOLS:
            section: Any = _parse_voxel(p, kind)
            variants = variant_volume
        elif kind == "blender-character":
            from tcab.testtypes.asset_blender_manifest import variant_bounds

            section, variants = _parse(p), variant_bounds
        else:
            section, variants = _parse(p), refuse_variant_volume(kind)
        return ParsedSection(section, lambda scopes: _no_views(p.source, scopes),
                             variant_keys=("voxel",), parse_variant=variants)

    def template_context(self, case: CaseVersion, variant: Variant) -> dict[str, Any]:
        if isinstance(case.section, VoxelSection):
            return {"voxel": case.section.volume_for(variant).context()}
        if getattr(case.section, "blender", False):
            return case.section.for_variant(variant).template_context()
        return {}

    def run_image_for(self, case: CaseVersion) -> str:
        return case.section.kind

    def prompt_preamble(self, case: CaseVersion, variant: Variant) -> str:
        if isinstance(case.section, VoxelSection):
            from tcab.testtypes.asset_voxel import VOXEL_QUALITY_DIRECTIVE

            return VOXEL_QUALITY_DIRECTIVE
        if getattr(case.section, "blender", False):
            from tcab.testtypes.asset_blender_manifest import BLENDER_DIRECTIVE

            return BLENDER_DIRECTIVE
        return QUALITY_DIRECTIVE

    def seed_entries(self, case: CaseVersion, variant: Variant, seeding: SeedingInput) -> list[SeedEntry]:
        if isinstance(case.section, VoxelSection):
            from tcab.testtypes.asset_voxel_seed import voxel_seed_entries

            return voxel_seed_entries(case.section, case.section.volume_for(variant))
        if getattr(case.section, "blender", False):
            from tcab.testtypes.asset_blender import seed_entries as blender_seed

            return blender_seed(case.section.for_variant(variant))
        return seed_entries(case.section)

    def watch_setup(self, case: CaseVersion, variant: Variant, workspace: Path, live: LiveEndpoint) -> None:
        if isinstance(case.section, VoxelSection):
            from tcab.testtypes.asset_voxel_seed import write_voxel_live

            write_voxel_live(case.section, case.section.volume_for(variant), workspace, live)
            return
        if not getattr(case.section, "blender", False):  # tcab-blend streams nothing live
            write_live(case.section, workspace, live)

    def unplayable_reason(self, case: CaseVersion) -> str | None:
        return f"{case.ref} is an asset-generation case: its drawings are reviewed, not played in matches"


def _sub(f: Fields, source: Source, key: str, allowed: tuple[str, ...]) -> Fields | None:
    table = f.table_of(key, required=True)
    return None if table is None else Fields(table, source, allowed, table=key)


def _kind(f: Fields) -> str | None:
    value = f.data.get("asset_kind", "sprite")
    if isinstance(value, str) and value in TOOLS:
        return value
    if isinstance(value, str) and value in UNSUPPORTED:
        f.problem("asset_kind", f"{show(value)} is not yet supported by tcab (supported: {SUPPORTED})")
    else:
        f.problem("asset_kind", f"expected one of {SUPPORTED}, got {show(value)}")
    return None


def _canvas(f: Fields, source: Source, frames: int) -> dict[str, Any]:
    c = _sub(f, source, "canvas", ("width", "height", "background"))
    if c is None:
        return {}
    out: dict[str, Any] = {}
    width = c.positive_int("width", required=True)
    height = c.positive_int("height", required=True)
    if width is not None and height is not None:
        problem = check_canvas(width, height, max(1, frames))
        if problem is not None:
            key, _, message = problem.partition(": ")
            c.problem(key if key in ("width", "height") else "width", message if key in ("width", "height")
                      else problem)
        else:
            out.update(width=width, height=height)
    background = c.data.get("background", "transparent")
    if parse_background(background) is None:
        c.problem("background", f"expected 'transparent' or '#rrggbb[aa]', got {show(background)}")
    else:
        out["background"] = background
    c.done()
    return out


def _templated(t: Fields, key: str, sheet: bool) -> str | None:
    value = t.string(key, required=True)
    if value is None:
        return None
    problem = check_template(value, frame=sheet)
    if problem is not None:
        t.problem(key, problem)
        return None
    return value


def _tool_and_output(f: Fields, source: Source, kind: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    sheet = kind == "sprite-sheet"
    if t := _sub(f, source, "tool", ("binary", "preview")):
        binary = t.string("binary", required=True)
        if binary is not None and kind is not None and binary != TOOLS[kind]:
            t.problem("binary", f"a {kind} is drawn with {show(TOOLS[kind])}, got {show(binary)}")
        elif binary is not None:
            out["binary"] = binary
        out["preview"] = _templated(t, "preview", sheet)
        t.done()
    if o := _sub(f, source, "output", ("actions",)):
        out["actions"] = _templated(o, "actions", sheet)
        o.done()
    if out.get("actions") and out.get("actions") == out.get("preview"):
        f.problem("output", f"actions and the [tool] preview are the same path {show(out['actions'])}")
        out["actions"] = None
    return out


def _frames(s: Fields, source: Source) -> tuple[int, ...] | None:
    tables = s.tables("frame", required=True)
    if tables is None:
        return None
    if not 1 <= len(tables) <= MAX_FRAMES:
        s.problem("frame", f"a sheet declares 1 to {MAX_FRAMES} frames (MAX_FRAMES), got {len(tables)}")
        return None
    out: list[int] = []
    for i, table in enumerate(tables, start=1):
        fr = Fields(table, source, ("index",), table="sheet.frame", index=i)
        index = fr.positive_int("index", required=True, minimum=0)
        fr.done()
        if index is not None and index > MAX_FRAME_INDEX:
            fr.problem("index", f"expected an index of at most {MAX_FRAME_INDEX} (MAX_FRAME_INDEX), got {index}")
        elif index is not None and index in out:
            fr.problem("index", f"the frame {index} is declared twice")
        elif index is not None:
            out.append(index)
    return tuple(out) if len(out) == len(tables) else None


def _sequences(s: Fields, source: Source, frames: tuple[int, ...]) -> tuple[SheetSequence, ...]:
    out: list[SheetSequence] = []
    for i, table in enumerate(s.tables("sequence", required=True) or [], start=1):
        q = Fields(table, source, ("slug", "name", "frames", "fps"), table="sheet.sequence", index=i)
        slug = q.kebab("slug", required=True)
        name = q.string("name")
        indices = _indices(q, "frames", frames, required=True)
        fps = q.positive_number("fps", required=True)
        q.done()
        if fps is not None and (not math.isfinite(fps) or fps > MAX_FPS):
            q.problem("fps", f"expected a number of frames per second above 0 and at most {MAX_FPS}, "
                      f"got {show(table['fps'])}")
            fps = None
        if slug is not None and any(seq.slug == slug for seq in out):
            q.problem("slug", f"the sequence {show(slug)} is declared twice")
            slug = None
        if slug is not None and indices and fps is not None:
            out.append(SheetSequence(slug, name or humanize(slug), indices, fps))
    return tuple(out)


def _indices(q: Fields, key: str, frames: tuple[int, ...], *, required: bool) -> tuple[int, ...] | None:
    value = q.data.get(key)
    if value is None:
        if required:
            q.problem(key, "missing required key")
        return None
    if not isinstance(value, list) or not value or \
            not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        q.problem(key, f"expected a non-empty array of frame indices, got {show(value)}")
        return None
    unknown = [v for v in value if v not in frames]
    if unknown:
        q.problem(key, f"names the frame {unknown[0]}, which [sheet] does not declare "
                  f"(declared: {', '.join(map(str, frames))})")
        return None
    return tuple(value)


def _judging(p: SectionInput, sheet: bool, frames: tuple[int, ...],
             sequences: tuple[SheetSequence, ...]) -> tuple[ItemTarget, ...]:
    """One domain and no review items, or the older form's review items,
    which may name the sequences or frames they are about."""
    f, source, data = p.f, p.source, p.data
    domains = data.get("domain")
    items = data.get("review_item")
    if not isinstance(domains, list) or not domains:
        f.problem("domain", "missing: an asset case declares its [[domain]] (one `overall` rating, "
                  "or the domains its review items name)")
    elif not items and len(domains) != 1:
        f.problem("domain", f"{len(domains)} domains and no [[review_item]]: an asset is rated once, "
                  "as a whole (one [[domain]], `overall`)")
    if not isinstance(items, list):
        return ()
    out: list[ItemTarget] = []
    slugs = [s.slug for s in sequences]
    for i, table in enumerate(items, start=1):
        if not isinstance(table, dict):
            continue
        q = Fields(table, source, (), table="review_item", index=i)
        if "reference" in table:
            q.problem("reference", "an asset case has no reference views: there is no target to show")
        if not sheet:
            for key in ITEM_KEYS:
                if key in table:
                    q.problem(key, "only a sprite-sheet case's review items name sequences or frames")
            continue
        named = q.strings("sequences") if "sequences" in table else ()
        for slug in named or ():
            if slug not in slugs:
                q.problem("sequences", f"names the sequence {show(slug)}, which [sheet] does not declare "
                          f"(declared: {', '.join(slugs) or 'none'})")
        indices = _indices(q, "frames", frames, required=False) or ()
        if named or indices:
            out.append(ItemTarget(str(table.get("id")), tuple(named or ()), indices))
    return tuple(out)


def _no_views(source: Source, scopes: list[Scope]) -> None:
    for scope in scopes:
        if scope.views:
            source.add("reference", f"variant {show(scope.variant)} declares reference views "
                       f"({', '.join(sorted(scope.views))}); an asset case has none")
            return


def _parse_voxel(p: SectionInput, kind: str) -> VoxelSection | AssetSection:
    """A voxel case: refuses what only a 2D case has, judges like any asset."""
    for key, what in (("build", "[build]: nothing is built"), ("check", "[[check]]: there is no target page"),
                      ("reference", "[[reference]]: there is no target to compare with")):
        if key in p.data:
            p.f.problem(key, f"an asset-generation case has no {what}")
    section = parse_voxel(p, kind)
    _judging(p, False, (), ())
    return section if section is not None else AssetSection()


def _parse(p: SectionInput) -> AssetSection:
    f, source = p.f, p.source
    if p.data.get("asset_kind") == "blender-character":
        from tcab.testtypes.asset_blender_manifest import parse_blender
        return parse_blender(p)  # type: ignore[return-value]
    for key, what in (("build", "[build]: nothing is built"), ("check", "[[check]]: there is no target page"),
                      ("reference", "[[reference]]: there is no target to compare with")):
        if key in p.data:
            f.problem(key, f"an asset-generation case has no {what}")
    kind = _kind(f)
    sheet = kind == "sprite-sheet"
    for key in ("voxel", "model"):
        if key in p.data:
            f.problem(key, f"a {kind or 'asset'} case has no [{key}]: only the 3D kinds "
                      "(voxel-model, voxel-animation, blender-character) declare it")
    out: dict[str, Any] = {"kind": kind}
    frames: tuple[int, ...] | None = ()
    sequences: tuple[SheetSequence, ...] = ()
    if sheet:
        if s := _sub(f, source, "sheet", ("frame", "sequence")):
            frames = _frames(s, source)
            sequences = _sequences(s, source, frames or ())
            s.done()
        else:
            frames = None
    elif "sheet" in p.data:
        f.problem("sheet", f"only a sprite-sheet case has [sheet] (asset_kind is {show(kind)})")
    out.update(_canvas(f, source, len(frames or ())))
    out.update(_tool_and_output(f, source, kind))
    out["targets"] = _judging(p, sheet, frames or (), sequences)
    if any(out.get(k) is None for k in ("kind", "width", "height", "binary", "preview", "actions")) \
            or frames is None:
        return AssetSection()
    return AssetSection(frames=frames, sequences=sequences, **out)
