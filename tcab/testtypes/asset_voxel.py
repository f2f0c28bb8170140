"""The voxel kinds of the asset-generation type: ``voxel-model`` (sculpted
with ``voxel``) and ``voxel-animation`` (parts and a rig with ``voxel-anim``),
docs/asset-generation.md "Voxel cases".

Their own manifest keys, in place of ``[canvas]``:

- ``[voxel]``: ``width`` (x), ``height`` (y, up), ``depth`` (z), each within
  ``1..MAX_SIDE`` and together at most ``MAX_VOXELS``; ``background`` only
  colours the preview. A variant file may declare its own ``[voxel]``, which
  replaces the case's for its runs (seeding, ``{{voxel.*}}``, scoring);
- ``[tool]`` ``binary``/``preview`` and ``[output]`` ``actions``, with the
  ``{part}`` token for (and only for) the animated kind;
- ``[model]`` with ``[[model.animation]]`` (``name`` unique, ``loop`` default
  true, ``auto_play`` default false): required for, and only for, the
  animated kind. A case fixes no parts and no joints: the model invents them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tcab.catalog.fields import Fields, Source, show
from tcab.catalog.testtype import SectionInput
from tcab.draw.colors import parse_background
from tcab.voxel.limits import MAX_ANIMATIONS, MAX_NAME, MAX_SIDE, MAX_VOXELS
from tcab.voxel.rig import check_name

if TYPE_CHECKING:
    from tcab.catalog.model import Variant

#: The voxel kinds and their tools (each kind's run image has the kind's name).
VOXEL_TOOLS = {"voxel-model": "voxel", "voxel-animation": "voxel-anim"}
PART_TOKEN = "{part}"
MAX_TEMPLATE_CHARS = 200
#: Put before a voxel case's own prompt: the sprite directive's words for a model.
VOXEL_QUALITY_DIRECTIVE = (
    "Treat the brief below as the minimum, not the target: meet every requirement it states, "
    "then make the best model you can within its constraints — clear from every side, carefully "
    "made voxel by voxel, and true to what was asked for. Render and look at your previews as you go "
    "and keep improving the model until you would be glad to ship it.\n\n"
)
# MAX_SIDE, MAX_VOXELS (and the rig's bounds) are the tool's own: a volume
# the manifest accepts is one the tool sculpts.
#: An animation name as the tool's rig takes it (tcab.voxel.rig.check_name).


@dataclass(frozen=True, slots=True)
class VoxelVolume:
    """The bounding volume a model sculpts into; it always starts empty."""

    width: int
    height: int
    depth: int
    background: str = "transparent"

    def context(self) -> dict[str, Any]:
        """``{{voxel.*}}``: the extents and the highest index on each axis."""
        return {"width": self.width, "height": self.height, "depth": self.depth,
                "maxX": self.width - 1, "maxY": self.height - 1, "maxZ": self.depth - 1,
                "background": self.background}

    @property
    def voxels(self) -> int:
        return self.width * self.height * self.depth


@dataclass(frozen=True, slots=True)
class RequiredAnimation:
    """An animation the case requires by name (a game plays it by that name)."""

    name: str
    loop: bool = True
    auto_play: bool = False


@dataclass(frozen=True, slots=True)
class VoxelSection:
    """A voxel case's own part of the manifest (all set when the case loaded)."""

    kind: str
    volume: VoxelVolume
    binary: str
    preview: str
    actions: str
    animations: tuple[RequiredAnimation, ...] = ()
    targets: tuple = ()
    sheet: bool = False  # read by the 2D code paths, which a voxel case never takes

    @property
    def animated(self) -> bool:
        return self.kind == "voxel-animation"

    def volume_for(self, variant: Variant) -> VoxelVolume:
        """The volume runs of ``variant`` use: its own ``[voxel]``, else the case's."""
        own = variant.extra.get("voxel")
        return own if isinstance(own, VoxelVolume) else self.volume


def check_volume(width: int, height: int, depth: int) -> str | None:
    """Why a volume is refused (``key: message``, naming the limit), or None."""
    for key, value in (("width", width), ("height", height), ("depth", depth)):
        if value > MAX_SIDE:
            return f"{key}: expected at most {MAX_SIDE} voxels per side (MAX_SIDE), got {value}"
    if width * height * depth > MAX_VOXELS:
        return (f"width: {width}x{height}x{depth} is {width * height * depth} voxels, over "
                f"{MAX_VOXELS} (MAX_VOXELS)")
    return None


def parse_volume(f: Fields, source: Source, *, table: str = "voxel") -> VoxelVolume | None:
    """A ``[voxel]`` table (the case's or a variant's); problems go to ``source``."""
    data = f.table_of("voxel", required=True)
    if data is None:
        return None
    v = Fields(data, source, ("width", "height", "depth", "background"), table=table)
    sides = [v.positive_int(key, required=True) for key in ("width", "height", "depth")]
    background = data.get("background", "transparent")
    ok = True
    if parse_background(background) is None or (background != "transparent" and len(background) != 7):
        v.problem("background", f"expected 'transparent' or '#rrggbb', got {show(background)}")
        ok = False
    v.done()
    if any(side is None for side in sides):
        return None
    width, height, depth = sides  # type: ignore[misc]
    problem = check_volume(width, height, depth)
    if problem is not None:
        key, _, message = problem.partition(": ")
        v.problem(key, message)
        return None
    return VoxelVolume(width, height, depth, background) if ok else None


def check_path_template(value: object, *, part: bool) -> str | None:
    """Why a ``[tool]``/``[output]`` path is refused (relative, no ``..``,
    ``{part}`` iff the animated kind), or None."""
    if not isinstance(value, str) or not value or len(value) > MAX_TEMPLATE_CHARS:
        return f"expected a relative path of 1 to {MAX_TEMPLATE_CHARS} characters, got {show(value)}"
    if value.startswith("/") or "\\" in value or "\x00" in value:
        return f"expected a relative path, got {show(value)}"
    if any(p in ("", ".", "..") for p in value.replace(PART_TOKEN, "p").split("/")):
        return f"no empty, '.' or '..' part allowed, got {show(value)}"
    has = PART_TOKEN in value
    if part and not has:
        return f"an animated voxel case's path must contain {PART_TOKEN}, got {show(value)}"
    if not part and has:
        return f"a static voxel model's path may not contain {PART_TOKEN}, got {show(value)}"
    rest = value.replace(PART_TOKEN, "")
    if "{" in rest or "}" in rest:
        return f"only {PART_TOKEN} may be templated, got {show(value)}"
    return None


def _tool_and_output(f: Fields, source: Source, kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    animated = kind == "voxel-animation"

    def templated(t: Fields, key: str) -> str | None:
        value = t.string(key, required=True)
        problem = None if value is None else check_path_template(value, part=animated)
        if problem is not None:
            t.problem(key, problem)
            return None
        return value

    table = f.table_of("tool", required=True)
    if table is not None:
        t = Fields(table, source, ("binary", "preview"), table="tool")
        binary = t.string("binary", required=True)
        if binary is not None and binary != VOXEL_TOOLS[kind]:
            t.problem("binary", f"a {kind} is sculpted with {show(VOXEL_TOOLS[kind])}, got {show(binary)}")
        elif binary is not None:
            out["binary"] = binary
        out["preview"] = templated(t, "preview")
        t.done()
    table = f.table_of("output", required=True)
    if table is not None:
        o = Fields(table, source, ("actions",), table="output")
        out["actions"] = templated(o, "actions")
        o.done()
    if out.get("actions") and out.get("actions") == out.get("preview"):
        f.problem("output", f"actions and the [tool] preview are the same path {show(out['actions'])}")
        out["actions"] = None
    return out


def _animations(f: Fields, source: Source, kind: str) -> tuple[RequiredAnimation, ...] | None:
    if kind != "voxel-animation":
        if "model" in f.data:
            f.problem("model", f"only an animated kind declares [model] (asset_kind is {show(kind)})")
            return None
        return ()
    table = f.table_of("model", required=True)
    if table is None:
        return None
    m = Fields(table, source, ("animation",), table="model")
    tables = m.tables("animation") or []
    m.done()
    if len(tables) > MAX_ANIMATIONS:
        m.problem("animation", f"expected at most {MAX_ANIMATIONS} animations (MAX_ANIMATIONS), got {len(tables)}")
        return None
    out: list[RequiredAnimation] = []
    ok = True
    for i, entry in enumerate(tables, start=1):
        a = Fields(entry, source, ("name", "loop", "auto_play"), table="model.animation", index=i)
        name = a.string("name", required=True)
        loop = a.boolean("loop")
        auto_play = a.boolean("auto_play")
        bad = any(k in entry and v is None for k, v in (("loop", loop), ("auto_play", auto_play)))
        a.done()
        if name is not None and check_name(name) is not None:  # the rig's own rule
            a.problem("name", f"expected 1 to {MAX_NAME} letters, digits, '_' or '-', got {show(name)}")
            name = None
        elif name is not None and any(x.name == name for x in out):
            a.problem("name", f"the animation {show(name)} is declared twice")
            name = None
        if name is None or bad:
            ok = False
            continue
        out.append(RequiredAnimation(name, True if loop is None else loop, bool(auto_play)))
    return tuple(out) if ok else None


def parse_voxel(p: SectionInput, kind: str) -> VoxelSection | None:
    """The section of a voxel case (None when anything is wrong); its
    variants' ``[voxel]`` is read by :func:`variant_volume`."""
    f, source = p.f, p.source
    if "canvas" in p.data:
        f.problem("canvas", f"a voxel case declares [voxel], never [canvas] (asset_kind is {show(kind)})")
    if "sheet" in p.data:
        f.problem("sheet", f"only a sprite-sheet case has [sheet] (asset_kind is {show(kind)})")
    volume = parse_volume(f, source)
    paths = _tool_and_output(f, source, kind)
    animations = _animations(f, source, kind)
    section = None
    if volume is not None and animations is not None and \
            all(paths.get(k) is not None for k in ("binary", "preview", "actions")):
        section = VoxelSection(kind, volume, paths["binary"], paths["preview"], paths["actions"], animations)
    return section


def variant_volume(f: Fields) -> Mapping[str, Any]:
    """A variant's own ``[voxel]`` (its problems name the variant file)."""
    if "voxel" not in f.data:
        return {}
    volume = parse_volume(f, f.source)
    return {} if volume is None else {"voxel": volume}


def refuse_variant_volume(kind: str | None):
    """The variant parser of a 2D case: a variant's ``[voxel]`` is refused."""
    def parse(f: Fields) -> Mapping[str, Any]:
        if "voxel" in f.data:
            f.problem("voxel", f"only a voxel case's variants declare [voxel] (asset_kind is {show(kind)})")
        return {}
    return parse
