"""``voxel`` and ``voxel-anim``: one operation per call; ``--help`` is the contract.

A sculpting call checks its flags and appends one operation to its log (for
``voxel-anim``, the log of ``--part``); it renders nothing. ``render`` meshes
the log(s) to .glb and draws the 512x512 preview(s); the rig commands of
``voxel-anim`` rewrite ``rig.json``. A bad flag, value, part or rig edit is
exit 1 with one line naming it, and nothing is written. The flags are parsed
by hand from the op table, and numpy is imported only by ``render``, so a
sculpting call costs little more than starting Python.
"""

from __future__ import annotations

import os
import sys

from tcab.voxel import VERSION
from tcab.voxel.errors import VoxelError, VoxelUsageError
from tcab.voxel.ops import OPS, check_value

CONFIG_ENV = "TCAB_VOXEL_CONFIG"
DEFAULT_CONFIG = os.path.join(".tcab", "voxel.json")
_NUM, _TIME = "number", "time"


class Flag:
    __slots__ = ("flag", "dest", "meta", "kind", "help", "required", "default")

    def __init__(self, flag: str, kind: str, help: str, required: bool = True, default: object = None,
                 meta: str | None = None) -> None:
        self.flag, self.dest, self.kind, self.help = flag, flag[2:].replace("-", "_"), kind, help
        self.required, self.default = required, default
        self.meta = meta or {"coord": "N", "size": "N", "color": "#RRGGBB", "axis": "x|y|z", "name": "NAME",
                             _NUM: "NUM", _TIME: "MS", "bool": "true|false", "handle": "DT,DV",
                             "path": "PATH"}.get(kind, kind.upper())


def _part_flag() -> Flag:
    return Flag("--part", "name", "the part to sculpt (defined with define-part)")


def _v(flag: str, help: str, default=0.0) -> Flag:
    return Flag(flag, _NUM, help, required=False, default=default)


RIG = {
    "define-part": ("add a part (the first is the root) or move one under another parent", [
        Flag("--name", "name", "the part's name (letters, digits, '_', '-')"),
        Flag("--parent", "name", "its parent part (default: the root; the first part has none)", required=False)]),
    "set-pivot": ("set a part's pivot, the point its joints turn about (volume coordinates)", [
        Flag("--part", "name", "the part"), Flag("--x", _NUM, "pivot x"), Flag("--y", _NUM, "pivot y"),
        Flag("--z", _NUM, "pivot z")]),
    "define-joint": ("add or redefine a joint: a degree of freedom of a part", [
        Flag("--name", "name", "the joint's name"), Flag("--part", "name", "the part it moves"),
        Flag("--kind", "rotation|translation", "rotation (radians) or translation (voxels)", False, "rotation"),
        Flag("--axis", "axis", "the axis it turns about or slides along", False, "y"),
        _v("--pivot-x", "pivot x (default: the part's pivot)", None),
        _v("--pivot-y", "pivot y (default: the part's pivot)", None),
        _v("--pivot-z", "pivot z (default: the part's pivot)", None),
        _v("--min", "lowest value"), _v("--max", "highest value"), _v("--rest", "value at rest"),
        Flag("--drive", "caller|auto", "caller: the game drives it; auto: only animations do", False, "caller"),
        _v("--offset-x", "fixed mount translation x, voxels"), _v("--offset-y", "fixed mount translation y"),
        _v("--offset-z", "fixed mount translation z"),
        _v("--orient-x", "fixed mount rotation about x, radians (Euler X, then Y, then Z, about the pivot)"),
        _v("--orient-y", "fixed mount rotation about y, radians"), _v("--orient-z", "fixed mount rotation about z")]),
    "define-animation": ("create or redefine an animation (its tracks are kept)", [
        Flag("--name", "name", "the animation's name"),
        Flag("--period-ms", _TIME, "length of one loop, ms"),
        Flag("--loop", "bool", "true: loops; false: plays once and holds", False, True),
        Flag("--auto-play", "bool", "true: plays by itself; false: a game triggers it", False, False)]),
    "add-keyframe": ("add or replace a keyframe on an animation's track for a joint", [
        Flag("--animation", "name", "the animation"), Flag("--joint", "name", "the joint"),
        Flag("--t-ms", _TIME, "the key's time, ms from the animation's start"),
        Flag("--value", _NUM, "the joint's value (radians or voxels)"),
        Flag("--interp", "constant|linear|bezier|ease-in|ease-out|ease-in-out",
             "how the curve leaves this key", False, "linear"),
        Flag("--out-handle", "handle", "bezier handle leaving this key, DT_MS,DVALUE", False),
        Flag("--in-handle", "handle", "bezier handle entering this key, DT_MS,DVALUE", False)]),
}
_RENDER_STATIC = [Flag("--view", "iso|front|side|top", "the camera (default iso)", False, "iso"),
                  Flag("--out", "path", "write the PNG here instead of the preview (the .glb path is unchanged)",
                       False)]
_RENDER_ANIM = [Flag("--component", "name", "render just this part: its preview and .glb", False),
                Flag("--view", "iso|front|side|top", "the camera for --component or --time (default iso)",
                     False, "iso"),
                Flag("--time", _TIME, "render the model posed at this time of an animation, ms", False),
                Flag("--animation", "name", "with --time: the animation (default: the sole or auto-play one)",
                     False),
                Flag("--out", "path", "with --component or --time: write the PNG here", False)]
EXTRA = {"init": "empty the log(s) (a fresh start); renders nothing",
         "render": "mesh the log(s) to .glb and draw the 512x512 preview(s)"}


def _flags(tool: str, name: str) -> tuple[str, list[Flag]]:
    animated = tool == "voxel-anim"
    config = Flag("--config", "path", f"the tool config (default ${CONFIG_ENV}, else ./{DEFAULT_CONFIG})", False)
    if name in OPS:
        op = OPS[name]
        flags = [_part_flag()] if animated else []
        flags += [Flag(f.flag, f.kind, f.help) for f in op.fields]
        return op.summary, flags + [config]
    if animated and name in RIG:
        return RIG[name][0], RIG[name][1] + [config]
    if name == "render":
        return EXTRA[name], (_RENDER_ANIM if animated else _RENDER_STATIC) + [config]
    if name == "init":
        return EXTRA[name], [config]
    raise VoxelUsageError(f"unknown command {name!r}; '{tool} --help' lists them")


def overview(tool: str) -> str:
    animated = tool == "voxel-anim"
    names = list(OPS) + (list(RIG) if animated else []) + list(EXTRA)
    width = max(map(len, names)) + 2
    lines = [f"usage: {tool} [--config PATH] <command> [flags]", "",
             "Sculpts an opaque-voxel model one operation per call. The volume starts empty; x runs across,",
             "y up, z front to back (+z is forward). Each sculpting call appends the operation to the log",
             "(the submission) and renders nothing: run render to mesh the model (.glb) and draw the preview.",
             "Coordinates are signed integers, clipped to the volume; sizes and radii are >= 0; colours are",
             "opaque #rrggbb. Boxes take two opposite corners, both included. An operation replaces the",
             "voxels it touches."]
    if animated:
        lines += ["Every sculpting operation names its --part (define-part first); each part has its own log,",
                  ".glb and preview, sculpted in place in the shared volume's coordinates. The rig commands",
                  "edit rig.json: parts, pivots, joints, animations and their keyframes (F-curves)."]
    lines += ["", "operations:"] + [f"  {n:<{width}}{OPS[n].summary}" for n in OPS]
    if animated:
        lines += ["", "rig:"] + [f"  {n:<{width}}{RIG[n][0]}" for n in RIG]
    lines += ["", "other:"] + [f"  {n:<{width}}{s}" for n, s in EXTRA.items()]
    lines += ["", f"Run '{tool} <command> --help' for its exact flags.",
              f"The config is --config PATH, else ${CONFIG_ENV}, else ./{DEFAULT_CONFIG}. Library {VERSION}."]
    return "\n".join(lines) + "\n"


def _help(tool: str, name: str, summary: str, flags: list[Flag]) -> str:
    usage = " ".join(f"{f.flag} {f.meta}" if f.required else f"[{f.flag} {f.meta}]" for f in flags)
    width = max(len(f"{f.flag} {f.meta}") for f in flags) + 2
    lines = [f"usage: {tool} {name} {usage}", "", summary[:1].upper() + summary[1:] + ".", "", "flags:"]
    for f in flags:
        note = " (required)" if f.required else (f" (default {str(f.default).lower()})"
                                                 if f.default is not None and f.kind not in ("path",) else "")
        lines.append(f"  {f.flag + ' ' + f.meta:<{width}}{f.help}{note}")
    return "\n".join(lines) + "\n"


def _convert(f: Flag, text: str):
    if f.kind in ("coord", "size"):
        if not (text.isascii() and text.lstrip("-").isdigit() and text.count("-") <= 1):
            raise VoxelUsageError(f"{f.flag}: expected an integer, got {text!r}"[:120])
        value = int(text)
    elif f.kind in (_NUM, _TIME):
        from tcab.voxel.rig import check_number, check_time
        try:
            value = float(text)
        except ValueError:
            raise VoxelUsageError(f"{f.flag}: expected a number, got {text!r}"[:120]) from None
        problem = check_time(value) if f.kind == _TIME else check_number(value)
        if problem:
            raise VoxelUsageError(f"{f.flag}: {problem}")
        return value
    elif f.kind == "bool":
        if text not in ("true", "false"):
            raise VoxelUsageError(f"{f.flag}: expected true or false, got {text!r}"[:120])
        return text == "true"
    elif f.kind == "handle":
        from tcab.voxel.rig import check_number
        parts = text.split(",")
        try:
            value = [float(p) for p in parts] if len(parts) == 2 else None
        except ValueError:
            value = None
        if value is None or any(check_number(v) for v in value):
            raise VoxelUsageError(f"{f.flag}: expected DT_MS,DVALUE (finite numbers), got {text!r}"[:120])
        return value
    elif f.kind == "name":
        from tcab.voxel.rig import check_name
        problem = check_name(text)
        if problem:
            raise VoxelUsageError(f"{f.flag}: {problem}")
        return text
    elif "|" in f.kind:
        if text not in f.kind.split("|"):
            raise VoxelUsageError(f"{f.flag}: expected one of {f.kind.replace('|', ', ')}, got {text!r}"[:120])
        return text
    else:
        value = text.lower() if f.kind == "color" else text
    try:
        check_value(f.kind, value)
    except ValueError as exc:
        raise VoxelUsageError(f"{f.flag}: {exc}") from None
    return value


def parse(tool: str, name: str, argv: list[str]) -> dict | None:
    """The flag values (absent optional ones at their default); None after --help."""
    summary, flags = _flags(tool, name)
    by_flag = {f.flag: f for f in flags}
    given: dict[str, str] = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            sys.stdout.write(_help(tool, name, summary, flags))
            return None
        key, eq, value = arg.partition("=")
        f = by_flag.get(key)
        if f is None:
            raise VoxelUsageError(f"{key}: unknown flag ('{tool} {name} --help' lists them)" if arg.startswith("-")
                             else f"{arg!r}: unexpected argument (flags are --name VALUE)")
        if not eq:
            if i + 1 >= len(argv):
                raise VoxelUsageError(f"{key}: expected a value ({f.meta})")
            value = argv[i + 1]
            i += 1
        i += 1
        if f.dest in given:
            raise VoxelUsageError(f"{key}: given twice")
        given[f.dest] = value
    missing = [f.flag for f in flags if f.required and f.dest not in given]
    if missing:
        raise VoxelUsageError(f"{missing[0]}: required" + (f" (also missing: {', '.join(missing[1:])})"
                                                       if missing[1:] else ""))
    return {f.dest: _convert(f, given[f.dest]) if f.dest in given else f.default for f in flags}


def main_voxel(argv: list[str] | None = None) -> int:
    return main("voxel", sys.argv[1:] if argv is None else argv)


def main_anim(argv: list[str] | None = None) -> int:
    return main("voxel-anim", sys.argv[1:] if argv is None else argv)


def main(tool: str, argv: list[str]) -> int:
    args = list(argv)
    config: list[str] = []
    while args and (args[0] == "--config" or args[0].startswith("--config=")):
        config += args[:2] if args[0] == "--config" else args[:1]
        args = args[2:] if args[0] == "--config" else args[1:]
    if not args or args[0] in ("-h", "--help", "help"):
        sys.stdout.write(overview(tool))
        return 0
    if args[0] == "--version":
        print(f"{tool} {VERSION}")
        return 0
    name = args[0]
    try:
        values = parse(tool, name, config + args[1:])
        if values is None:
            return 0
        from tcab.voxel import tool as run
        from tcab.voxel.config import VoxelWorkspace
        path = values.pop("config") or os.environ.get(CONFIG_ENV) or DEFAULT_CONFIG
        ws = VoxelWorkspace(path)
        if ws.config.animated != (tool == "voxel-anim"):
            raise VoxelUsageError(f"{path}: kind is {ws.config.kind!r}; use "
                             f"{'voxel-anim' if ws.config.animated else 'voxel'}")
        return run.dispatch(ws, name, values)
    except VoxelError as exc:
        print(f"{tool} {name}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{tool} {name}: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main_voxel())
