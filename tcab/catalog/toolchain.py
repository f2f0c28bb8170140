"""The ``[toolchain]`` table of an end-to-end case: the commands that check a
produced implementation (the original Test Cabinet's "TypeScript toolchain").

```toml
[toolchain]
typecheck = "npx tsc --noEmit"      # required in the table; gating
lint = "npx eslint ."               # recorded
format = "npx prettier --check ."   # recorded
test = "npx vitest run"             # recorded
```

A case without the table is neither checked nor gated. Each command is a
non-empty string run with ``sh -c`` from the implementation's root, in the
validation container (:mod:`tcab.validation.toolchain`); a NUL byte is
refused here because no ``exec`` can carry one.
"""

from __future__ import annotations

from typing import Any

from tcab.catalog.fields import Fields, Source
from tcab.catalog.model import TOOLCHAIN_COMMANDS, Toolchain
from tcab.errors import Problem

TABLE = "toolchain"


def parse_toolchain(data: dict[str, Any], source: Source) -> Toolchain | None:
    """The ``[toolchain]`` table of ``data`` (a manifest), or None when it is
    absent or wrong; every problem (unknown command name, a command that is
    not a non-empty string, a missing ``typecheck``) is recorded in ``source``
    naming the file, the line and ``[toolchain].<key>``."""
    table = Fields(data, source, ()).table_of(TABLE)
    if table is None:
        return None
    t = Fields(table, source, TOOLCHAIN_COMMANDS, table=TABLE)
    commands: dict[str, str | None] = {}
    bad = False
    for name in TOOLCHAIN_COMMANDS:
        commands[name] = t.string(name)
        if name in table and commands[name] is None:
            bad = True
        elif commands[name] is not None and "\x00" in commands[name]:
            t.problem(name, "must not contain a NUL character")
            bad = True
    if "typecheck" not in table:
        # It gates the run (the original's "Required: Yes"); named at the table's header line.
        source.problems.append(Problem(source.display, "missing required key (the gating command)",
                                       key="[toolchain].typecheck", line=source.line_of(TABLE, None)))
    t.done()
    if bad or commands["typecheck"] is None or any(k not in TOOLCHAIN_COMMANDS for k in table):
        return None
    return Toolchain(**commands)
