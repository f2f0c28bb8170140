"""Deep validation of a parsed case: every variant can be planned and prompted."""

from __future__ import annotations

import re

from tcab.catalog import CaseVersion, Variant
from tcab.catalog.toml import display_path
from tcab.errors import Problem, SeedError, TemplateError
from tcab.seeding.plan import plan_seed
from tcab.seeding.prompt import render_prompt

# How tcab.templates words an error: "<template>[:<line>[:<column>]]: <what>", one per line.
_TEMPLATE_LINE = re.compile(r"^(?P<path>\S+?\.hbs)(?::(?P<line>\d+)(?::(?P<col>\d+))?)?: (?P<message>.*)$")


def _problems(case: CaseVersion, variant: Variant, exc: Exception) -> list[Problem]:
    where = display_path(case.root / variant.file)
    if isinstance(exc, TemplateError):
        found = []
        for text in str(exc).splitlines():
            m = _TEMPLATE_LINE.fullmatch(text)
            if m is None:
                found.append(Problem(where, f"variant {variant.slug}: {text}"))
                continue
            line = int(m["line"]) if m["line"] else None
            column = f" (column {m['col']})" if m["col"] else ""
            found.append(Problem(m["path"], m["message"] + column, line=line))
        return found
    return [Problem(where, f"variant {variant.slug}: {exc}")]


def check_case(case: CaseVersion) -> list[Problem]:
    """Plan the seed and render the prompt of every variant without writing anything.

    Returns the problems (template syntax errors, unknown template variables,
    seed collisions, symlinks leading out of a folder); never raises for them.
    A problem in a file every variant uses is reported once.
    """
    problems: list[Problem] = []
    for variant in case.variants:
        for step in ("seed", "prompt"):
            try:
                if step == "seed":
                    plan_seed(case, variant, check_only=True)
                else:
                    render_prompt(case, variant)
            except (TemplateError, SeedError) as exc:
                problems.extend(p for p in _problems(case, variant, exc) if p not in problems)
    return problems
