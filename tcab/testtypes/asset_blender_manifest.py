"""The manifest of a ``blender-character`` asset case (docs/asset-generation.md,
"Blender characters"): the original's shape, loaded unchanged.

- ``[voxel]``: the character's bounding box, ``width``/``height``/``depth``
  (positive integers up to :data:`MAX_BOUND` world units) and ``background``
  (only the preview's clear colour); a Blender case never declares ``[canvas]``;
  a variant may declare its own ``[voxel]`` (same bounds,
  :func:`variant_bounds`), which :meth:`BlenderSection.for_variant` gives
  seeding, the prompt's ``{{voxel.*}}`` and scoring;
- ``[tool]``: ``binary = "tcab-blend"``, ``preview`` (one file, no ``{part}``);
  ``[output]``: ``actions``, the authored build.py (no ``{part}``);
- ``[model]``: ``[[model.animation]]`` (``name`` unique, ``loop``,
  ``auto_play``; at least one, at most :data:`MAX_ANIMATIONS`) and optional
  ``[[model.joint]]`` caller degrees of freedom (``name`` unique, ``kind``
  rotation|translation, ``axis`` x|y|z, ``min`` <= ``rest`` <= ``max``,
  finite; degrees for a rotation, within +-360).

Each problem is ``file:line: key`` through the catalog's :class:`Fields`.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tcab.catalog.fields import Fields, Source, show
from tcab.draw.colors import parse_background
from tcab.testtypes import SectionInput

if TYPE_CHECKING:
    from tcab.catalog.model import Variant

BLENDER_KINDS = ("blender-character",)
BINARY = "tcab-blend"
MAX_BOUND = 10_000
MAX_ANIMATIONS = 64
MAX_JOINTS = 32
MAX_TRANSLATION = 1e6
#: Put before a Blender case's own prompt (the 2D kinds' directive speaks of pixels).
BLENDER_DIRECTIVE = (
    "Treat the brief below as the minimum, not the target: meet every requirement it states, "
    "then make the best character you can within its constraints — a clean silhouette, a mesh that "
    "deforms well at its joints, and motion with weight. Check model.png after every tcab-blend run "
    "and keep improving the model until you would be glad to ship it.\n\n"
)
# fullmatch, never match with `$`: `$` also matches before a final newline.
_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,64}")
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_.\-/]{1,128}")


@dataclass(frozen=True, slots=True)
class ModelAnimation:
    name: str
    loop: bool
    auto_play: bool

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "loop": self.loop, "auto_play": self.auto_play}


@dataclass(frozen=True, slots=True)
class CallerJoint:
    name: str
    kind: str
    axis: str
    min: float
    max: float
    rest: float

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "axis": self.axis, "min": self.min, "max": self.max,
                "rest": self.rest}


@dataclass(frozen=True, slots=True)
class BlenderSection:
    """A blender-character case's own part of the manifest."""

    kind: str = "blender-character"
    width: int = 0
    height: int = 0
    depth: int = 0
    background: str = "transparent"
    binary: str = BINARY
    preview: str = ""
    actions: str = ""
    animations: tuple[ModelAnimation, ...] = ()
    joints: tuple[CallerJoint, ...] = ()
    # What the 2D kinds' code paths read of any asset section.
    frames: tuple[int, ...] = ()
    sequences: tuple[Any, ...] = ()
    targets: tuple[Any, ...] = ()

    @property
    def sheet(self) -> bool:
        return False

    @property
    def blender(self) -> bool:
        return True

    def for_variant(self, variant: Variant) -> BlenderSection:
        """The section runs of ``variant`` use: its own ``[voxel]`` box (and
        background), else the case's. Seeding, the prompt and scoring read it."""
        own = variant.extra.get("voxel")
        return dataclasses.replace(self, **own) if isinstance(own, dict) and own else self

    def config(self, timeout: int | None = None) -> bytes:
        """The seeded ``blender.config.json``."""
        from tcab.blender.config import DEFAULT_TIMEOUT, make_config

        return make_config(width=self.width, height=self.height, depth=self.depth, background=self.background,
                           script=self.actions, preview=self.preview,
                           animations=[a.to_json() for a in self.animations],
                           joints=[j.to_json() for j in self.joints], timeout=timeout or DEFAULT_TIMEOUT)

    def template_context(self) -> dict[str, Any]:
        """``{{voxel.*}}`` and ``{{model.*}}`` for the prompt."""
        return {"voxel": {"width": self.width, "height": self.height, "depth": self.depth,
                          "background": self.background},
                "model": {"animations": [a.to_json() for a in self.animations],
                          "joints": [j.to_json() for j in self.joints]}}


def _sub(f: Fields, source: Source, key: str, allowed: tuple[str, ...]) -> Fields | None:
    table = f.table_of(key, required=True)
    return None if table is None else Fields(table, source, allowed, table=key)


def _bounds(f: Fields, source: Source) -> dict[str, Any]:
    v = _sub(f, source, "voxel", ("width", "height", "depth", "background"))
    if v is None:
        return {}
    out: dict[str, Any] = {}
    for key in ("width", "height", "depth"):
        value = v.positive_int(key, required=True)
        if value is not None and value > MAX_BOUND:
            v.problem(key, f"expected at most {MAX_BOUND} world units (MAX_BOUND), got {value}")
        elif value is not None:
            out[key] = value
    background = v.data.get("background", "transparent")
    if parse_background(background) is None:
        v.problem("background", f"expected 'transparent' or '#rrggbb[aa]', got {show(background)}")
    else:
        out["background"] = background
    v.done()
    return out


def variant_bounds(f: Fields) -> Mapping[str, Any]:
    """A variant's own ``[voxel]`` box, bounded like the case's (its problems
    name the variant file); {} when it declares none or a key is wrong."""
    if "voxel" not in f.data:
        return {}
    out = _bounds(f, f.source)
    return {"voxel": out} if len(out) == 4 else {}


def _single_path(t: Fields, key: str) -> str | None:
    value = t.string(key, required=True)
    if value is None:
        return None
    if "{" in value:
        t.problem(key, f"a Blender character is one file: no {{part}} or {{frame}} token, got {show(value)}")
        return None
    if not _PLAIN_PATH.fullmatch(value) or value.startswith("/") or ".." in value.split("/") \
            or value.startswith(".tcab/"):
        t.problem(key, f"expected a workspace-relative path (letters, digits, _.-/), got {show(value)}")
        return None
    return value


def _tool_and_output(f: Fields, source: Source) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if t := _sub(f, source, "tool", ("binary", "preview")):
        binary = t.string("binary", required=True)
        if binary is not None and binary != BINARY:
            t.problem("binary", f"a blender-character is built with {show(BINARY)}, got {show(binary)}")
        elif binary is not None:
            out["binary"] = binary
        out["preview"] = _single_path(t, "preview")
        t.done()
    if o := _sub(f, source, "output", ("actions",)):
        out["actions"] = _single_path(o, "actions")
        o.done()
    taken = {"blender.config.json", "character.glb"}
    for key, what in (("preview", "[tool] preview"), ("actions", "[output] actions")):
        if out.get(key) in taken:
            f.problem("tool" if key == "preview" else "output",
                      f"{what} is {show(out[key])}, a path tcab-blend writes itself")
            out[key] = None
        elif out.get(key):
            taken.add(out[key])
    return out


def _animations(m: Fields, source: Source) -> tuple[ModelAnimation, ...] | None:
    tables = m.tables("animation", required=True)
    if tables is None:
        return None
    if not 1 <= len(tables) <= MAX_ANIMATIONS:
        m.problem("animation", f"a character declares 1 to {MAX_ANIMATIONS} animations (MAX_ANIMATIONS), "
                  f"got {len(tables)}")
        return None
    out: list[ModelAnimation] = []
    for i, table in enumerate(tables, start=1):
        a = Fields(table, source, ("name", "loop", "auto_play"), table="model.animation", index=i)
        name = a.string("name", required=True)
        loop = a.boolean("loop", required=True)
        auto_play = a.boolean("auto_play", required=True)
        a.done()
        if name is not None and not _NAME.fullmatch(name):
            a.problem("name", f"expected 1 to 64 of A-Z a-z 0-9 _ . -, got {show(name)}")
        elif name is not None and any(x.name == name for x in out):
            a.problem("name", f"the animation {show(name)} is declared twice")
        elif name is not None and loop is not None and auto_play is not None:
            out.append(ModelAnimation(name, loop, auto_play))
    return tuple(out) if len(out) == len(tables) else None


def _number(j: Fields, key: str) -> float | None:
    value = j._get(key, True)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        j.problem(key, f"expected a finite number, got {show(value)}")
        return None
    return float(value)


def _joints(m: Fields, source: Source) -> tuple[CallerJoint, ...] | None:
    tables = m.tables("joint") or []
    if len(tables) > MAX_JOINTS:
        m.problem("joint", f"at most {MAX_JOINTS} caller joints (MAX_JOINTS), got {len(tables)}")
        return None
    out: list[CallerJoint] = []
    for i, table in enumerate(tables, start=1):
        j = Fields(table, source, ("name", "kind", "axis", "min", "max", "rest"), table="model.joint", index=i)
        name = j.string("name", required=True)
        kind = j.choice("kind", ("rotation", "translation"), required=True)
        axis = j.choice("axis", ("x", "y", "z"), required=True)
        low, high, rest = _number(j, "min"), _number(j, "max"), _number(j, "rest")
        j.done()
        if None in (name, kind, axis, low, high, rest):
            continue
        assert low is not None and high is not None and rest is not None and name is not None
        span = 360.0 if kind == "rotation" else MAX_TRANSLATION
        if not _NAME.fullmatch(name):
            j.problem("name", f"expected 1 to 64 of A-Z a-z 0-9 _ . -, got {show(name)}")
        elif any(x.name == name for x in out):
            j.problem("name", f"the joint {show(name)} is declared twice")
        elif not -span <= low <= rest <= high <= span:
            unit = "degrees" if kind == "rotation" else "world units"
            j.problem("rest", f"expected min <= rest <= max within +-{span:g} {unit}, "
                      f"got {low:g} <= {rest:g} <= {high:g}")
        else:
            out.append(CallerJoint(name, str(kind), str(axis), low, high, rest))
    return tuple(out) if len(out) == len(tables) else None


def parse_blender(p: SectionInput) -> BlenderSection:
    """The section of a blender-character case; problems go to ``p.source``."""
    f, source = p.f, p.source
    for key, what in (("canvas", "[canvas]: its box is [voxel]"), ("sheet", "[sheet]"),
                      ("build", "[build]: nothing is built"), ("check", "[[check]]: there is no target page"),
                      ("reference", "[[reference]]: there is no target to compare with")):
        if key in p.data:
            f.problem(key, f"a blender-character case has no {what}")
    out: dict[str, Any] = {}
    out.update(_bounds(f, source))
    out.update(_tool_and_output(f, source))
    animations = joints = None
    if m := _sub(f, source, "model", ("animation", "joint")):
        animations = _animations(m, source)
        joints = _joints(m, source)
        m.done()
    domains = p.data.get("domain")
    if not isinstance(domains, list) or len(domains) != 1 or p.data.get("review_item"):
        f.problem("domain", "a blender-character is rated once, as a whole: one [[domain]] (`overall`) "
                  "and no [[review_item]]")
    if any(out.get(k) is None for k in ("width", "height", "depth", "background", "binary", "preview",
                                        "actions")) or animations is None or joints is None:
        return BlenderSection()
    return BlenderSection(animations=animations, joints=joints, **out)
