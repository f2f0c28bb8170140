"""Rendering the prompt a run hands to the harness (never seeded to disk)."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from tcab.catalog import CaseVersion, Variant
from tcab.catalog.toml import display_path
from tcab.errors import SeedError
from tcab.seeding.plan import variant_context
from tcab.templates import render_template

WORKSPACE = "/work"


def prompt_context(
    case: CaseVersion, variant: Variant, workspace: str = WORKSPACE
) -> dict[str, Any]:
    """``workspace``, ``version``, ``variant`` and ``specs`` (each ``dest``, ``path``
    inside the container, ``name`` = the dest's file stem), common specs first."""
    specs = [
        {
            "dest": spec.dest,
            "path": f"{workspace.rstrip('/')}/{spec.dest}",
            # the original's docs define a spec's name as its file stem
            "name": PurePosixPath(spec.dest).stem,
        }
        for spec in case.specs_for(variant)
    ]
    return {
        **case.test_type.template_context(case, variant),
        "workspace": workspace,
        "version": case.version,
        "variant": variant_context(case, variant),
        "specs": specs,
    }


def render_prompt(case: CaseVersion, variant: Variant, *, workspace: str = WORKSPACE) -> str:
    """The instruction for a run of ``variant``, rendered from the case's ``prompt.hbs``,
    after what its type puts first (``TestType.prompt_preamble``).

    Raises TemplateError (syntax, unknown variable) or SeedError (unreadable).
    """
    path = case.path(case.prompt)
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SeedError(f"{path}: cannot read the prompt template: {exc}") from exc
    preamble = case.test_type.prompt_preamble(case, variant)
    return preamble + render_template(text, display_path(path), prompt_context(case, variant, workspace))
