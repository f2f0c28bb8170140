"""What a command's ``--help`` must show: the exact usage line, exactly the
documented options, and an example section whose ``tcab`` lines run the
command with options it has (so an example cannot drift from the code)."""

from __future__ import annotations

import re
import shlex


def _section(text: str, title: str) -> list[str]:
    """The indented lines under ``title`` (up to the next unindented line)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == title), None)
    assert start is not None, f"no {title!r} section in:\n{text}"
    out = []
    for line in lines[start + 1:]:
        if line and not line.startswith(" "):
            break
        out.append(line)
    return out


def option_declarations(text: str) -> set[str]:
    """Each option line of the Options section, as declared: ``-j, --jobs INTEGER RANGE``."""
    decls = set()
    for line in _section(text, "Options:"):
        if re.match(r"^  -", line):
            decls.add(re.split(r"\s{2,}", line.strip())[0])
    return decls


def check_help(text: str, command: str, arguments: str, options: set[str]) -> None:
    """``text`` is the help of ``tcab COMMAND``: usage ``tcab COMMAND ARGUMENTS``,
    the ``options`` (declarations) plus ``-h, --help`` and nothing else, and an
    Example(s) section with at least one ``tcab COMMAND`` line whose options
    are all declared."""
    assert text.splitlines()[0] == f"Usage: tcab {command} {arguments}", text
    assert option_declarations(text) == options | {"-h, --help"}, text
    title = "Examples:" if "\n  Examples:\n" in text else "Example:"
    examples = [line.strip() for line in _section(text, title) if line.strip().startswith(f"tcab {command}")]
    assert examples, f"no `tcab {command}` example in:\n{text}"
    flags = {f for decl in options for f in re.findall(r"(?<![\w-])--?[a-z][\w-]*", decl.split(" [")[0])}
    for example in examples:
        used = {t.split("=", 1)[0] for t in shlex.split(example) if t.startswith("-")}
        assert used <= flags, f"{example!r} uses options not in {sorted(flags)}"
