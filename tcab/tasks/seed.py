"""``seed`` and ``prompt`` tasks: the seeded repository and the rendered prompt of
every (case, version, variant) the sweep runs. Pure functions of the case
files, so they live under ``build/`` and a CI cache may restore them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from tcab import atomic
from tcab.tasks.context import SweepContext
from tcab.tasks.inputs import prompt_inputs, seed_inputs
from tcab.tasks.keys import current_target, write_target


def seed_task_name(case: str, version: str, variant: str) -> str:
    return f"seed:{case}/{version}/{variant}"


def prompt_task_name(case: str, version: str, variant: str) -> str:
    return f"prompt:{case}/{version}/{variant}"


def _seed_inputs(ctx: SweepContext, slug: str, version: str, variant: str) -> dict[str, str]:
    case = ctx.lookups.case(slug, version)
    inputs = {"case": seed_inputs(case, case.variant(variant), ctx.cache)}
    if case.mockups_for(case.variant(variant)):
        # What the stored shots loaded (CSS, images...), as it is now: only a
        # render knows it, so the record is written with the inputs after seeding.
        from tcab.browser.mockup_cache import mockup_cache_dir, mockup_inputs

        inputs["mockups"] = mockup_inputs(mockup_cache_dir(ctx.settings.build_dir), case, case.variant(variant),
                                         ctx.cache.sha256)
    return inputs


def _prompt_inputs(ctx: SweepContext, slug: str, version: str, variant: str) -> dict[str, str]:
    case = ctx.lookups.case(slug, version)
    return {"case": prompt_inputs(case, case.variant(variant), ctx.cache)}


def build_seed(ctx: SweepContext, slug: str, version: str, variant: str) -> bool:
    """Seed the variant into the seed store (build/seed-cache/, the one store of
    sweeps and commands) and record its commit, where its repository is, and
    the case folder's digest it was made from: a run is handed all three."""
    # In the function: tcab.seeding takes ~2 s to import (pygit2, templates) on a miss.
    from tcab.seeding.cache import store_dir, stored_seed

    inputs = _seed_inputs(ctx, slug, version, variant)
    record = ctx.layout.seed_record(slug, version, variant)
    if current_target(record, inputs, ctx.cache) is not None:
        return True
    case = ctx.lookups.case(slug, version)
    # The record goes first and comes back last, so a record always describes
    # a complete entry (entries appear only complete).
    record.unlink(missing_ok=True)
    seed = stored_seed(store_dir(ctx.settings.build_dir), case, case.variant(variant))
    if case.mockups_for(case.variant(variant)):
        inputs = _seed_inputs(ctx, slug, version, variant)  # now knowing what the mockups loaded
    # The entry's last file: a store emptied by hand makes the seed stale.
    complete = ctx.layout.rel(seed.path.parent / "files.json")
    write_target(record, inputs, {"commit": seed.commit, "repo": ctx.layout.rel(seed.path),
                                  "case_digest": seed.case_digest}, requires={complete: None})
    return True


def build_prompt(ctx: SweepContext, slug: str, version: str, variant: str) -> bool:
    """Render the prompt to build/prompts/... (JSON record plus a .md to read)."""
    # In the function: tcab.seeding takes ~2 s to import (pygit2, templates).
    from tcab.seeding import render_prompt

    inputs = _prompt_inputs(ctx, slug, version, variant)
    record = ctx.layout.prompt_record(slug, version, variant)
    if current_target(record, inputs, ctx.cache) is not None:
        return True
    case = ctx.lookups.case(slug, version)
    text = render_prompt(case, case.variant(variant))
    atomic.write_text(record.with_suffix(".md"), text)
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    write_target(record, inputs, {"sha256": sha, "text": text})
    return True


def task_seed(ctx: SweepContext) -> Iterator[dict]:
    """Seeded repositories, one per case/version/variant (in the seed store, build/seed-cache/)."""
    yield {"basename": "seed", "name": None, "doc": task_seed.__doc__}
    names = []
    for slug, version, variant in ctx.sweep.seeds():
        names.append(seed_task_name(slug, version, variant))
        yield ctx.keyed_task(
            "seed", f"{slug}/{version}/{variant}", ctx.layout.seed_record(slug, version, variant), [],
            lambda s=slug, v=version, x=variant: _seed_inputs(ctx, s, v, x),
            build_seed, ctx, slug, version, variant, doc=f"seed {slug} {version} variant {variant}",
        )
    ctx.freshness.settle_group("seed", names)


def task_prompt(ctx: SweepContext) -> Iterator[dict]:
    """Rendered prompts, one per case/version/variant (build/prompts/)."""
    yield {"basename": "prompt", "name": None, "doc": task_prompt.__doc__}
    names = []
    for slug, version, variant in ctx.sweep.seeds():
        names.append(prompt_task_name(slug, version, variant))
        # The seed is not an input of a prompt, only an ordering, so that a
        # run waits on one task, the prompt, and gets both.
        yield ctx.keyed_task(
            "prompt", f"{slug}/{version}/{variant}", ctx.layout.prompt_record(slug, version, variant),
            [seed_task_name(slug, version, variant)],
            lambda s=slug, v=version, x=variant: _prompt_inputs(ctx, s, v, x),
            build_prompt, ctx, slug, version, variant, doc=f"prompt of {slug} {version} variant {variant}",
        )
    ctx.freshness.settle_group("prompt", names)
