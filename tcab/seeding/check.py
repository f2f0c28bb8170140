"""Deep validation of a parsed case: every variant can be planned and prompted."""

from __future__ import annotations

from tcab.catalog import CaseVersion
from tcab.catalog.toml import display_path
from tcab.errors import Problem, SeedError, TemplateError
from tcab.seeding.plan import plan_seed
from tcab.seeding.prompt import render_prompt


def check_case(case: CaseVersion) -> list[Problem]:
    """Plan the seed and render the prompt of every variant without writing anything.

    Returns the problems (template syntax errors, unknown template variables,
    seed collisions, symlinks leading out of a folder); never raises for them.
    """
    problems: list[Problem] = []
    seen: set[str] = set()
    for variant in case.variants:
        where = display_path(case.root / variant.file)
        for step in (plan_seed, render_prompt):
            try:
                if step is plan_seed:
                    plan_seed(case, variant, check_only=True)
                else:
                    render_prompt(case, variant)
            except (TemplateError, SeedError) as exc:
                text = str(exc)
                # A common template error repeats for each variant: report it once.
                if text in seen:
                    continue
                seen.add(text)
                problems.append(Problem(where, f"variant {variant.slug}: {text}"))
    return problems
