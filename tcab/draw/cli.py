"""``draw`` and ``draw-sheet``: one drawing operation per call.

Each drawing call checks its flags, appends one operation to its log (a
frame's action log, or the layers log for ``--layer`` and the layer ops),
re-renders the preview(s) it changed, prints what it did and the log's op
count, and streams the preview when the run is watched. A bad flag, colour,
frame or layer is exit 1 with one line naming it, and nothing is recorded.
The flags are parsed by hand from the op table (argparse, like
dataclasses, would cost a fresh process more than the drawing does).
"""

from __future__ import annotations

import os
import sys

from tcab.draw import VERSION
from tcab.draw.errors import ConfigError, DrawError, LogError, UsageError
from tcab.draw.ops import OPS, check_value

CONFIG_ENV = "TCAB_DRAW_CONFIG"
DEFAULT_CONFIG = os.path.join(".tcab", "draw.json")
EXTRA = {
    "render": "draw a log into a PNG without changing the log",
    "list-layers": "list every layer, its transform and its op count",
    "init": "write empty logs and blank previews for every frame (erases the drawing)",
}


def _overview(tool: str, sheet: bool) -> str:
    names = [n for n, op in OPS.items() if sheet or not op.sheet_only]
    width = max(len(n) for n in list(names) + list(EXTRA)) + 2
    lines = [f"usage: {tool} [--config PATH] <operation> [flags]", "",
             (f"Draws one operation on one frame of the sprite sheet ({'--frame N' } on every canvas op)."
              if sheet else "Draws one operation on the sprite."),
             "Each call appends the operation to the action log (the submission) and re-renders the preview.",
             "Coordinates are signed integers and clipped to the canvas; sizes and radii are >= 0;",
             "colours are #rrggbb or #rrggbbaa. An operation replaces the pixels it touches.",
             "--layer NAME draws on a registered layer instead, in the layer's own coordinates"
             + (" (a layer is shared by every frame: no --frame)." if sheet else "."), "", "operations:"]
    lines += [f"  {n:<{width}}{OPS[n].summary}" for n in names]
    lines += [f"  {n:<{width}}{s}" for n, s in EXTRA.items()]
    lines += ["", f"Run '{tool} <operation> --help' for its exact flags.",
              f"The config is --config PATH, else ${CONFIG_ENV}, else ./{DEFAULT_CONFIG}. Library {VERSION}."]
    return "\n".join(lines) + "\n"


class _Flag:
    __slots__ = ("flag", "dest", "meta", "help", "required", "mode")

    def __init__(self, flag: str, meta: str, help: str, required: bool = False, mode: str = "value") -> None:
        self.flag, self.dest, self.meta, self.help = flag, flag[2:].replace("-", "_"), meta, help
        self.required, self.mode = required, mode  # mode: value, bool, append


class Parsed:
    """The flags given (an absent one is None)."""

    def __init__(self, flags: list[_Flag]) -> None:
        for f in flags:
            setattr(self, f.dest, None)


def _flags(name: str, sheet: bool) -> list[_Flag]:
    """The flags of ``name`` (a hand-made parser: argparse alone costs a fresh process ~15 ms)."""
    flags = [_Flag("--config", "PATH", f"the tool config (default ${CONFIG_ENV}, else ./{DEFAULT_CONFIG})")]
    op = OPS.get(name)
    if op is not None:
        for f in op.fields:
            meta = {"color": "COLOR", "name": "NAME", "property": "PROPERTY", "interp": "INTERP",
                    "handle": "DF,DV"}.get(f.kind, "N")
            extra = f" (default {f.default})" if f.optional and f.default is not None else ""
            flags.append(_Flag(f.flag, meta, f.help + extra, required=not f.optional))
        if op.canvas:
            flags.append(_Flag("--layer", "NAME", "draw on this registered layer, in the layer's own coordinates"))
            if sheet:
                flags.append(_Flag("--frame", "N", "the frame to draw on (required without --layer)"))
    elif name == "render":
        flags += [
            _Flag("--actions", "LOG", "the action log (default: the config's" + (", of --frame)" if sheet else ")")),
            _Flag("--out", "PNG", "where to write the PNG (default: the preview)"),
            _Flag("--width", "N", "canvas width (default: the config's)"),
            _Flag("--height", "N", "canvas height (default: the config's)"),
            _Flag("--background", "COLOR", "'transparent' or #rrggbb[aa] (default: the config's)"),
            _Flag("--layers", "PATH", "the layers log (default: the config's)"),
            _Flag("--only-layer", "NAME", "composite only this layer (repeatable)", mode="append"),
            _Flag("--no-layers", "", "the log alone, nothing composited", mode="bool")]
        if sheet:
            flags.append(_Flag("--frame", "N", "the frame whose log and keyframes to render"))
    return flags


def _help(tool: str, name: str, flags: list[_Flag]) -> str:
    op = OPS.get(name)
    summary = op.summary if op else EXTRA[name]
    usage = " ".join((f"{f.flag} {f.meta}".strip() if f.required else f"[{f.flag} {f.meta}]".replace(" ]", "]"))
                     for f in flags)
    width = max(len(f"{f.flag} {f.meta}") for f in flags) + 2
    lines = [f"usage: {tool} {name} {usage}", "", summary[:1].upper() + summary[1:] + ".", "", "flags:"]
    lines += [f"  {(f.flag + ' ' + f.meta).strip():<{width}}{f.help}{'' if not f.required else ' (required)'}"
              for f in flags]
    return "\n".join(lines) + "\n"


def parse_flags(tool: str, name: str, sheet: bool, argv: list[str]) -> Parsed | None:
    """The flags of ``argv`` for op ``name``; None after printing --help.
    UsageError (one line) for an unknown, repeated, valueless or missing flag."""
    flags = _flags(name, sheet)
    by_flag = {f.flag: f for f in flags}
    parsed = Parsed(flags)
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            sys.stdout.write(_help(tool, name, flags))
            return None
        key, eq, value = arg.partition("=")
        f = by_flag.get(key)
        if f is None:
            raise UsageError(f"{key}: unknown flag ('{tool} {name} --help' lists them)" if arg.startswith("-")
                             else f"{arg!r}: unexpected argument (flags are --name VALUE)")
        if f.mode == "bool":
            if eq:
                raise UsageError(f"{key}: takes no value")
            setattr(parsed, f.dest, True)
            i += 1
            continue
        if not eq:
            if i + 1 >= len(argv):
                raise UsageError(f"{key}: expected a value ({f.meta})")
            value = argv[i + 1]
            i += 1
        i += 1
        if f.mode == "append":
            setattr(parsed, f.dest, (getattr(parsed, f.dest) or []) + [value])
        elif getattr(parsed, f.dest) is not None:
            raise UsageError(f"{key}: given twice")
        else:
            setattr(parsed, f.dest, value)
    missing = [f.flag for f in flags if f.required and getattr(parsed, f.dest) is None]
    if missing:
        raise UsageError(f"{missing[0]}: required" + (f" (also missing: {', '.join(missing[1:])})"
                                                       if missing[1:] else ""))
    return parsed


def _int(text: str, flag: str) -> int:
    try:
        if not (text.isascii() and text.lstrip("-").isdigit()):
            raise ValueError
        return int(text)
    except ValueError:
        raise UsageError(f"{flag}: expected an integer, got {text!r}") from None


def _value(kind: str, text: str, flag: str):
    from tcab.draw.colors import color_text, parse_color
    if kind == "color":
        rgba = parse_color(text, short=True)
        if rgba is None:
            raise UsageError(f"{flag}: expected a colour #rrggbb or #rrggbbaa, got {text!r}")
        return color_text(rgba)
    if kind == "handle":
        parts = text.split(",")
        if len(parts) != 2:
            raise UsageError(f"{flag}: expected DFRAMES,DVALUE, got {text!r}")
        value = [_int(parts[0].strip(), flag), _int(parts[1].strip(), flag)]
    elif kind in ("name", "property", "interp"):
        value = text
    else:
        value = _int(text, flag)
    try:
        check_value(kind, value)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None
    return value


class Workspace:
    """The config and the paths it names, resolved against its folder."""

    def __init__(self, config_path: str) -> None:
        from tcab.draw.config import ToolConfig
        from tcab.draw.logs import read_log_file
        self.path = config_path
        try:
            data = read_log_file(config_path, 1 << 16)
        except LogError as exc:
            raise ConfigError(f"cannot read the tool config: {exc}") from None
        try:
            self.config = ToolConfig.from_json(data)
        except ConfigError as exc:
            raise ConfigError(f"{config_path}: {exc}") from None
        self.root = os.path.dirname(os.path.abspath(config_path))
        self.root = os.path.dirname(self.root) if os.path.basename(self.root) == ".tcab" else self.root

    def note_version(self) -> None:
        """Write the library version beside the config when it differs, so the
        validator can flag a run whose tool and host libraries differ."""
        from tcab.draw.logs import write_atomic
        path = os.path.join(os.path.dirname(os.path.abspath(self.path)), "version")
        want = (VERSION + "\n").encode()
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            try:
                if os.read(fd, 64) == want:
                    return
            finally:
                os.close(fd)
        except OSError:
            pass
        write_atomic(path, want)

    def file(self, relative: str) -> str:
        return os.path.join(self.root, relative)

    def read(self, relative: str) -> bytes:
        from tcab.draw.logs import read_log_file
        path = self.file(relative)
        if not os.path.lexists(path):
            return b""
        return read_log_file(path)


def _config_path(argv: list[str]) -> str:
    for i, arg in enumerate(argv):
        if arg == "--config" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--config="):
            return arg.split("=", 1)[1]
    return os.environ.get(CONFIG_ENV) or DEFAULT_CONFIG


def main_sprite(argv: list[str] | None = None) -> int:
    return main("draw", False, sys.argv[1:] if argv is None else argv)


def main_sheet(argv: list[str] | None = None) -> int:
    return main("draw-sheet", True, sys.argv[1:] if argv is None else argv)


def main(tool: str, sheet: bool, argv: list[str]) -> int:
    args = list(argv)
    config_flag: list[str] = []
    while args and (args[0] == "--config" or args[0].startswith("--config=")):
        config_flag += args[:2] if args[0] == "--config" else args[:1]
        args = args[2:] if args[0] == "--config" else args[1:]
    if not args or args[0] in ("-h", "--help", "help"):
        sys.stdout.write(_overview(tool, sheet))
        return 0
    if args[0] == "--version":
        print(f"{tool} {VERSION}")
        return 0
    name, rest = args[0], config_flag + args[1:]
    try:
        if name not in OPS and name not in EXTRA:
            raise UsageError(f"unknown operation {name!r}; '{tool} --help' lists them")
        if OPS.get(name) is not None and OPS[name].sheet_only and not sheet:
            raise UsageError(f"{name}: keyframes are for sprite sheets (draw-sheet), not draw")
        parsed = parse_flags(tool, name, sheet, rest)
        if parsed is None:
            return 0
        from tcab.draw import tool as run
        ws = Workspace(_config_path(rest))
        if ws.config.sheet != sheet:
            raise ConfigError(f"{ws.path}: kind is {ws.config.kind!r}; use "
                              f"{'draw-sheet' if ws.config.sheet else 'draw'}")
        if name != "render":
            ws.note_version()
        if name == "render":
            return run.render(ws, parsed, tool)
        if name == "init":
            return run.init(ws)
        if name == "list-layers":
            return run.list_layers(ws)
        op = OPS[name]
        values = {f.key: f.default if getattr(parsed, f.key) is None and f.optional
                  else _value(f.kind, getattr(parsed, f.key), f.flag) for f in op.fields}
        return run.record(ws, op, values, parsed, tool)
    except DrawError as exc:
        print(f"{tool} {name}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{tool} {name}: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main_sprite())
