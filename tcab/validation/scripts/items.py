"""The review items of a run's variant that a validation script decides, as
:class:`ScriptItem`\\ s, and the case's instrumentation they drive."""

from __future__ import annotations

from tcab.catalog.model import CaseVersion, Variant
from tcab.catalog.paths import resolve_inside
from tcab.errors import ValidationError
from tcab.validation.scripts.run import ScriptItem, ScriptOutput


def script_items(case: CaseVersion, variant: Variant) -> tuple[ScriptItem, ...]:
    """Each item of ``variant``'s checklist with a ``validation`` script, in
    checklist order, its script resolved physically inside the version folder.

    Raises ``ValidationError`` when a script is missing or leads out, or when
    items have scripts and the case declares no ``[instrumentation]``.
    """
    items = []
    for review_item in case.review_items_for(variant):
        validation = review_item.validation
        if validation is None:
            continue
        script, why = resolve_inside(case.root, validation.script)
        if script is None:
            raise ValidationError(f"{case.manifest}: review item {review_item.id}: validation.script "
                                  f"{validation.script!r}: {why}")
        if not script.is_file():
            raise ValidationError(f"{case.manifest}: review item {review_item.id}: validation.script "
                                  f"{validation.script!r} is not a file")
        items.append(ScriptItem(review_item.id, script,
                                tuple(ScriptOutput(o.id, o.name or o.id, o.kind) for o in validation.outputs)))
    if items and case.instrumentation is None:
        raise ValidationError(f"{case.manifest}: review items have validation scripts but the case declares no "
                              "[instrumentation] handle for them to drive")
    return tuple(items)
