"""What a character.glb lacks against its contract: the one check both
``tcab-blend`` (its notes, in the image) and scoring (its flagged gaps) make.
It lives here, not in tcab.testtypes, because tcab/blender is all the image
carries."""

from __future__ import annotations

from collections.abc import Iterable

from tcab.blender.glb import Summary


def contract_gaps(summary: Summary, animations: Iterable[str],
                  joints: Iterable[tuple[str, str, str]]) -> list[str]:
    """The gaps of ``summary`` against the required ``animations`` (names) and
    caller ``joints`` (name, kind, axis); empty when it is complete."""
    gaps = []
    if summary.meshes < 1:
        gaps.append("no mesh")
    if summary.skins < 1:
        gaps.append("no skin")
    by_name = {a.name: a for a in summary.animations}
    for name in animations:
        if name not in by_name:
            gaps.append(f"animation {name!r} missing")
        elif by_name[name].channels < 1:
            gaps.append(f"animation {name!r} has no channels")
    tagged = {j["name"]: j for j in summary.caller_joints}
    for name, kind, axis in joints:
        tag = tagged.get(name)
        if tag is None:
            gaps.append(f"caller joint {name!r}: no node's extras.tcab_joint names it")
        elif tag.get("kind") != kind or tag.get("axis") != axis:
            gaps.append(f"caller joint {name!r}: tagged {tag.get('kind')!r} about {tag.get('axis')!r}, "
                        f"expected {kind!r} about {axis!r}")
    return gaps
