"""A run id on the command line -> the run's record and its case, read once.

``tcab build RUN_ID`` and ``tcab validate RUN_ID`` resolve their argument
here, at the edge; the build and the validation then take the case and the
record (``tcab.arena.build.build_run``, ``tcab.validation.validate_run``)
and never read ``run.json`` or scan the catalog themselves.
"""

from __future__ import annotations

from tcab.catalog import CaseVersion, resolve_case
from tcab.errors import CatalogError, Problem
from tcab.runs.record import RUN_FILE, RunRecord, find_run
from tcab.settings import Settings


def open_run(settings: Settings, run_id: str) -> tuple[CaseVersion, RunRecord]:
    """(the case version the run was of, the run record) of ``run_id``.

    Raises ``RunError`` for an id that is not a folder name under
    ``results/runs/`` (``/``, a leading ``.``, too long), an unknown run or
    an unreadable ``run.json``; ``CatalogError`` when the run's case version
    is no longer in the catalog. Both exit 2 from the CLI.
    """
    run = find_run(settings.runs_dir, run_id)
    try:
        case = resolve_case(settings.catalog_dir, run.case_slug, run.case_version)
    except CatalogError as exc:
        where = Problem(str(run.run_dir / RUN_FILE), f"the run's case {run.case_slug}@{run.case_version} "
                        "is not in the catalog")
        raise CatalogError([where, *exc.problems]) from None
    return case, run
