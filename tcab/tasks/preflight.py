"""Before a sweep runs anything: does the machine have what the whole plan needs?

Checked, all at once: every secret of every harness the plan runs (and the
runtime's own ``secrets``) is set and not empty; every harness definition
loads; the runtime answers and holds every image the plan's runs need (the
run image of each case and the image its runs are built or validated in).
Everything missing is one message and exit 2, before any task starts, so
nothing is written (no seed, no run, no ``.doit.db``). Without it, a sweep
without keys seeds, renders prompts, starts its first run and fails it.

Only for ``doit`` / ``doit run`` without explicit targets (:func:`wants_preflight`):
``doit list``, ``doit info`` and ``doit clean`` need no keys, and an operator
naming one task (``doit run run:capture/...``) asks for that task alone,
which fails on its own if something is missing. Runs whose target already
exists are taken as done: a no-op sweep needs no keys. It still needs the
runtime: an image's digest is an input of every run made in it, so every
run's images are checked (one message, not a failure per task).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from tcab.errors import TcabError
from tcab.tasks.context import SweepContext

#: doit's options that take a value (``-n 4``, ``--process=4``), so their value is no target.
_VALUE_OPTIONS = frozenset({
    "-n", "--process", "-P", "--parallel-type", "-f", "--file", "-d", "--dir", "--db-file", "--backend",
    "--check_file_uptodate", "--codec-cls", "-r", "--reporter", "-o", "--output-file", "-v", "--verbosity",
    "--failure-verbosity", "-k", "--seek-file",
})
_SHORT_WITH_VALUE = ("-n", "-P", "-f", "-d", "-r", "-o", "-v", "-k")
#: doit commands; any but ``run`` skips the preflight.
_COMMANDS = frozenset({"run", "list", "info", "clean", "forget", "ignore", "auto", "dumpdb", "help", "strace",
                       "tabcompletion", "reset-dep"})


def wants_preflight(argv: Sequence[str]) -> bool:
    """Whether ``doit`` with these arguments (``sys.argv[1:]``) runs the whole sweep."""
    args = list(argv)
    i = 0
    command_seen = False
    while i < len(args):
        arg = args[i]
        if arg in _VALUE_OPTIONS:
            i += 2
            continue
        if arg.startswith("-") or "=" in arg:
            i += 1  # a flag, --opt=value, -n4, or a var=value
            continue
        if not command_seen and arg in _COMMANDS:
            if arg != "run":
                return False
            command_seen = True
            i += 1
            continue
        return False  # an explicit target
    return True


def problems(ctx: SweepContext, env: Mapping[str, str] | None = None) -> list[str]:
    """What the sweep needs and lacks, one line each (empty: it may start)."""
    env = os.environ if env is None else env
    found: dict[str, None] = {}
    pending: dict[str, int] = {}
    for spec in ctx.sweep.runs:
        if not os.path.exists(ctx.layout.run_record(spec)):
            pending[spec.harness] = pending.get(spec.harness, 0) + 1
    secrets: dict[str, list[str]] = {}
    for slug, count in pending.items():
        try:
            info = ctx.lookups.harness(slug)
        except TcabError as exc:
            found[f"harness {slug}: {exc}"] = None
            continue
        for name in info.secrets:
            secrets.setdefault(name, []).append(f"{slug} ({count} runs)")
    if pending:
        for name in ctx.sweep.plan.runtime.secrets:
            secrets.setdefault(name, []).append("the plan's runtime.settings.secrets")
    for name, users in sorted(secrets.items()):
        if not env.get(name, "").strip():
            found[f"secret {name} is not set (needed by {', '.join(users)})"] = None
    kinds: dict[str, None] = {}
    for spec in ctx.sweep.runs:
        case = ctx.lookups.case(spec.case, spec.version)
        kinds.setdefault(case.test_type.run_image_for(case), None)
        # The image its runs are built or validated in after the session (adversarial, end-to-end, ...).
        after = getattr(case.test_type, "build_image", None)
        if after is not None:
            kinds.setdefault(after, None)
    for kind in kinds:
        try:
            ctx.lookups.image_digest(kind)
        except TcabError as exc:
            found[f"image {kind}: {exc}"] = None
    return list(found)


def message(ctx: SweepContext, lines: list[str]) -> str:
    body = "\n".join(f"  - {line}" for line in lines)
    return (f"sweep {ctx.sweep.plan.name} ({ctx.sweep.plan.path}) cannot start; {len(lines)} missing:\n{body}\n"
            "nothing was run or written; provide these and run doit again")
